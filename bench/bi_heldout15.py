"""Held-out set #15 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `glass` one included (forensic glass fragments and
their kinds, joined by an undeclared key whose names differ: `frag_samples.gls_cls`, `glass_classes.cls_code`).

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 30
answerable (two or three per database, four on glass), worded as users write (terse, chatty, lower case, a typo
or two, everyday words for what the columns hold, abbreviations, demonyms, several named values in a third of
them, counts over undeclared joins, a share, a year range), and 18 unanswerable of varied kinds (values the data
lacks, checked absent by `ABSENT_CHECKS`; plausible fields it lacks; opinions and advice; the future; facts from
outside; years outside the data). Every gold query is executed and returns rows (`python bench/bi_nokeys.py
--check --set heldout15`); the top-1 golds were checked for ties. Run once, on two codes side by side.
"""

from __future__ import annotations

GLASS = "FROM frag_samples f JOIN glass_classes c ON f.gls_cls = c.cls_code"
REPS = "FROM Employee e JOIN Customer c ON c.SupportRepId = e.EmployeeId JOIN Invoice i ON i.CustomerId = c.CustomerId"

HELDOUT15_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "classical and opera, track count for each pls",
            "SELECT g.Name, count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId "
            "WHERE g.Name IN ('Classical', 'Opera') GROUP BY g.Name",
        ),
        (
            "which support rep's customers spent the most w/ us? name",
            f"SELECT e.FirstName || ' ' || e.LastName {REPS} GROUP BY e.EmployeeId, e.FirstName, e.LastName "
            "ORDER BY sum(i.Total) DESC LIMIT 1",
        ),
        (
            "germans plus french - total customer count",
            "SELECT count(*) FROM Customer WHERE Country IN ('Germany', 'France')",
        ),
    ],
    "tpch": [
        (
            "orders flagged urgent, placed in '95 - number?",
            "SELECT count(*) FROM orders WHERE o_orderpriority = '1-URGENT' AND year(o_orderdate) = 1995",
        ),
        (
            "suppliers' mean acct balance broken out by region",
            "SELECT r.r_name, avg(s.s_acctbal) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey "
            "JOIN region r ON n.n_regionkey = r.r_regionkey GROUP BY r.r_name",
        ),
        (
            "how many diff parts are made of brass",
            "SELECT count(*) FROM part WHERE p_type LIKE '%BRASS'",
        ),
    ],
    "movies": [
        (
            "nolan's films - critics score on rotten tomatoes, averaged",
            "SELECT avg(t.Meter) FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Director = 'Christopher Nolan'",
        ),
        (
            "films longer than 3 hrs, count",
            "SELECT count(*) FROM omdb WHERE Runtime > 180",
        ),
    ],
    "world": [
        (
            "japan life expectancy: 1970 then 2000",
            "SELECT year, life_expectancy FROM indicators WHERE country = 'Japan' AND year IN (1970, 2000)",
        ),
        (
            "in 1990 which african country south of the sahara had the most babies per woman",
            "SELECT c.name FROM countries c JOIN indicators i ON c.name = i.country "
            "WHERE c.region = 'Sub-Saharan Africa' AND i.year = 1990 ORDER BY i.fertility DESC LIMIT 1",
        ),
    ],
    "flights": [
        (
            "the airport sitting highest above sea level?",
            "SELECT Name FROM airports ORDER BY Altitude DESC LIMIT 1",
        ),
        (
            "delta - number of routes they fly",
            "SELECT count(*) FROM routes WHERE Airline = 'DL'",
        ),
    ],
    "store": [
        (
            "furniture: profit made in each region",
            "SELECT s.region, sum(o.profit) FROM orders o JOIN states s ON o.state = s.state "
            "JOIN sub_categories c ON o.sub_category = c.sub_category WHERE c.category = 'Furniture' GROUP BY s.region",
        ),
        (
            "what fraction of order lines went out same-day",
            "SELECT 100.0 * avg(CASE WHEN ship_mode = 'Same Day' THEN 1 ELSE 0 END) FROM orders",
        ),
    ],
    "cars": [
        (
            "fuel economy of the japanese/asian cars, mean mpg",
            "SELECT avg(c.mpg) FROM cars c JOIN origins g ON c.origin = g.origin WHERE g.name = 'Asia'",
        ),
        (
            "heavyest vehicle on the list?",
            "SELECT name FROM cars ORDER BY weight DESC LIMIT 1",
        ),
    ],
    "counties": [
        (
            "georgia vs florida, how many counties does each have",
            "SELECT s.name, count(*) FROM counties c JOIN states s ON c.state = s.code "
            "WHERE s.name IN ('Georgia', 'Florida') GROUP BY s.name",
        ),
        (
            "calif. counties, their avg jobless %",
            "SELECT avg(u.rate) FROM counties c JOIN unemployment u ON c.fips = u.fips "
            "JOIN states s ON c.state = s.code WHERE s.name = 'California'",
        ),
    ],
    "olympics": [
        (
            "norwegians and canadians - first places each at the 2014 winter games",
            "SELECT l.cntry_nm, t.gold FROM sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd "
            "WHERE l.cntry_nm IN ('Norway', 'Canada')",
        ),
        (
            "quickest winning time in the olympic 100m and who ran it",
            "SELECT athlete, time_s FROM m100_medalists WHERE medal = 'GOLD' ORDER BY time_s LIMIT 1",
        ),
    ],
    "elements": [
        (
            "heaviest per cm3 - which element (symbol)",
            "SELECT sym FROM phys_props ORDER BY dens DESC LIMIT 1",
        ),
        (
            "no. of elements that are a gas at room temp",
            "SELECT count(*) FROM phys_props WHERE std_state = 'gas'",
        ),
    ],
    "penguins": [
        (
            "among the males, what species weighs most on avg",
            "SELECT s.common_name FROM penguin_obs o JOIN species s ON o.species_id = s.id WHERE o.sex = 'MALE' "
            "GROUP BY s.common_name ORDER BY avg(o.body_mass_g) DESC LIMIT 1",
        ),
        (
            "torgersen and dream: birds recorded per island",
            "SELECT i.isl_name, count(*) FROM penguin_obs o JOIN islands i ON o.isl_cd = i.isl_cd "
            "WHERE i.isl_name IN ('Torgersen', 'Dream') GROUP BY i.isl_name",
        ),
    ],
    "titanic": [
        (
            "children under 12 who got off alive - how many",
            "SELECT count(*) FROM passengers WHERE age < 12 AND survived = 1",
        ),
        (
            "second class: share of people that survived",
            "SELECT avg(survived) FROM passengers WHERE pclass = '2nd'",
        ),
    ],
    "glass": [
        (
            "which type of glass carries the most potassium on average",
            f"SELECT c.cls_desc {GLASS} GROUP BY c.cls_desc ORDER BY avg(f.k_wt) DESC LIMIT 1",
        ),
        (
            "fragments from cars (windows + headlights) - how many in total",
            f"SELECT count(*) {GLASS} WHERE c.use_area = 'vehicle'",
        ),
        (
            "magnesium, float vs non float building windows - mean for each",
            f"SELECT c.cls_desc, avg(f.mg_wt) {GLASS} WHERE c.cls_code IN ('BWF', 'BWN') GROUP BY c.cls_desc",
        ),
        (
            "tableware pieces as a % of all samples",
            f"SELECT 100.0 * avg(CASE WHEN c.cls_desc = 'tableware' THEN 1 ELSE 0 END) {GLASS}",
        ),
    ],
}

HELDOUT15_UNANSWERABLE: list[tuple[str, str]] = [
    ("glass", "optical lens shards - avg sodium in them"),  # absent: ABSENT_CHECKS
    ("chinook", "do we stock any adele albums"),  # absent: ABSENT_CHECKS
    ("cars", "tesla models in here, how many"),  # absent: ABSENT_CHECKS
    ("penguins", "emperor penguins, typical bill length?"),  # absent: ABSENT_CHECKS
    ("glass", "which crime scene did the most fragments come from"),  # no location stored
    ("glass", "avg weight in grams of a headlamp fragment"),  # no fragment mass stored
    ("flights", "cheapest fare from atlanta to LA"),  # no fares stored
    ("store", "days from order to delivery, typically"),  # no dates stored
    ("counties", "whats a typical family earning in cook county chicago"),  # no income stored
    ("world", "kenya's gdp per head in 2005"),  # no GDP stored
    ("glass", "best kind of glass for a greenhouse roof, what do u reckon"),  # advice
    ("movies", "any decent comedy u'd recommend for date night"),  # opinion
    ("chinook", "will sales over xmas 2026 beat last year's"),  # the future
    ("world", "nigeria's population by 2050, projected"),  # the future
    ("titanic", "who was captain of the ship"),  # outside facts
    ("penguins", "what do gentoos eat mostly"),  # outside facts
    ("tpch", "total order value for 2005"),  # orders 1992-1998 only
    ("counties", "unemployment in arizona counties back in 2015"),  # 2009 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("glass", "SELECT count(*) FROM glass_classes WHERE cls_desc LIKE '%lens%' OR cls_desc LIKE '%optic%'"),
    ("chinook", "SELECT count(*) FROM Artist WHERE Name ILIKE '%adele%'"),
    ("chinook", "SELECT count(*) FROM Album WHERE Title ILIKE '%adele%'"),
    ("cars", "SELECT count(*) FROM cars WHERE mfr LIKE '%tesla%' OR name LIKE '%tesla%'"),
    ("penguins", "SELECT count(*) FROM species WHERE common_name LIKE '%emperor%' OR sci_name LIKE '%forsteri%'"),
    ("tpch", "SELECT count(*) FROM orders WHERE year(o_orderdate) > 1998"),
    ("counties", "SELECT count(*) FROM unemployment WHERE year <> 2009"),
]
