"""Held-out set #14 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `dairy` one included (milk samples and cattle breeds,
joined by an undeclared key whose names differ: `milk_samples.brd_cd`, `breeds.breed_code`).

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 30
answerable (two or three per database, four on dairy), worded as users write (terse, chatty, lower case, a typo
or two, everyday words for what the columns hold, abbreviations, demonyms, several named values in a third of
them, counts over undeclared joins, a share, a year range), and 18 unanswerable of varied kinds (values the data
lacks, checked absent by `ABSENT_CHECKS`; plausible fields it lacks; opinions and advice; the future; facts from
outside; years outside the data). Every gold query is executed and returns rows (`python bench/bi_nokeys.py
--check --set heldout14`); the top-1 golds were checked for ties. Run once, on two codes side by side.
"""

from __future__ import annotations

GENRE = "FROM Track t JOIN Genre g ON t.GenreId = g.GenreId"
MILK = "FROM milk_samples m JOIN breeds b ON m.brd_cd = b.breed_code"
CATS = "FROM elem e JOIN elem_cat k ON e.cat_cd = k.cat_cd"

HELDOUT14_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "jazz n blues - tracks in each of those two genres?",
            f"SELECT g.Name, count(*) {GENRE} WHERE g.Name IN ('Jazz', 'Blues') GROUP BY g.Name",
        ),
        (
            "brazilian customers, all they paid us 2022-2024 combined",
            "SELECT sum(i.Total) FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId "
            "WHERE c.Country = 'Brazil' AND year(i.InvoiceDate) BETWEEN 2022 AND 2024",
        ),
        (
            "whats the single longest song we sell, title only",
            "SELECT Name FROM Track ORDER BY Milliseconds DESC LIMIT 1",
        ),
    ],
    "tpch": [
        (
            "what % of lineitems came back w/ returnflag R",
            "SELECT 100.0 * avg(CASE WHEN l_returnflag = 'R' THEN 1 ELSE 0 END) FROM lineitem",
        ),
        (
            "european nations + how many custs each one has",
            "SELECT n.n_name, count(*) FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey "
            "JOIN region r ON n.n_regionkey = r.r_regionkey WHERE r.r_name = 'EUROPE' GROUP BY n.n_name",
        ),
        (
            "1997: the shipping method that moved the biggest number of line items",
            "SELECT l_shipmode FROM lineitem WHERE year(l_shipdate) = 1997 "
            "GROUP BY l_shipmode ORDER BY count(*) DESC LIMIT 1",
        ),
    ],
    "movies": [
        (
            "add up the box office takings of every spielberg picture",
            "SELECT sum(t.BoxOffice) FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Director = 'Steven Spielberg'",
        ),
        (
            "PG vs PG-13: film counts for both",
            "SELECT Rating, count(*) FROM omdb WHERE Rating IN ('PG', 'PG-13') GROUP BY Rating",
        ),
    ],
    "world": [
        (
            "india and china headcount, 1980",
            "SELECT country, population FROM indicators WHERE country IN ('India', 'China') AND year = 1980",
        ),
        (
            "no. of middle east & north african countries in the data",
            "SELECT count(*) FROM countries WHERE region = 'Middle East & North Africa'",
        ),
    ],
    "flights": [
        (
            "atlanta (ATL) departures: how many routes",
            "SELECT count(*) FROM routes WHERE Source = 'ATL'",
        ),
        (
            "count of the big airports, the ones classed large",
            "SELECT count(*) FROM airports WHERE Type = 'large_airport'",
        ),
    ],
    "store": [
        (
            "office supplies - avg discount given to each customer segment",
            "SELECT o.segment, avg(o.discount) FROM orders o JOIN sub_categories c ON o.sub_category = c.sub_category "
            "WHERE c.category = 'Office Supplies' GROUP BY o.segment",
        ),
        (
            "units shiped in the west and in the east, side by side",
            "SELECT s.region, sum(o.quantity) FROM orders o JOIN states s ON o.state = s.state "
            "WHERE s.region IN ('West', 'East') GROUP BY s.region",
        ),
    ],
    "cars": [
        (
            "mean hp of euro models from '76",
            "SELECT avg(c.hp) FROM cars c JOIN origins g ON c.origin = g.origin WHERE g.name = 'Europe' AND c.yr = 76",
        ),
        (
            "chevy v8s - how many are listed",
            "SELECT count(*) FROM cars WHERE mfr = 'chevrolet' AND cyl = 8",
        ),
    ],
    "counties": [
        (
            "texas counties where joblessness topped 10% in 09, count them",
            "SELECT count(*) FROM counties c JOIN unemployment u ON c.fips = u.fips JOIN states s ON c.state = s.code "
            "WHERE s.name = 'Texas' AND u.rate > 10",
        ),
        (
            "compare avg unemployment: southwest region vs northwest region",
            "SELECT s.region, avg(u.rate) FROM counties c JOIN unemployment u ON c.fips = u.fips "
            "JOIN states s ON c.state = s.code WHERE s.region IN ('Southwest', 'Northwest') GROUP BY s.region",
        ),
    ],
    "olympics": [
        (
            "sochi bronze leader?",
            "SELECT l.cntry_nm FROM sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd "
            "ORDER BY t.bronze DESC LIMIT 1",
        ),
        (
            "americans who won the 100 m outright, number of times",
            "SELECT count(*) FROM m100_medalists WHERE noc = 'USA' AND medal = 'GOLD'",
        ),
    ],
    "elements": [
        (
            "alkali metals, avg melting pt in K",
            f"SELECT avg(p.mp_k) {CATS} JOIN phys_props p ON e.sym = p.sym WHERE k.cat_nm = 'alkali metal'",
        ),
        (
            "halogens vs noble gasses, how many elements in each family",
            f"SELECT k.cat_nm, count(*) {CATS} WHERE k.cat_nm IN ('halogen', 'noble gas') GROUP BY k.cat_nm",
        ),
    ],
    "penguins": [
        (
            "flipper length on average, island by island",
            "SELECT i.isl_name, avg(o.flipper_mm) FROM penguin_obs o JOIN islands i ON o.isl_cd = i.isl_cd "
            "GROUP BY i.isl_name",
        ),
        (
            "chinstraps over 4kg?? how many",
            "SELECT count(*) FROM penguin_obs o JOIN species s ON o.species_id = s.id "
            "WHERE s.common_name = 'Chinstrap' AND o.body_mass_g > 4000",
        ),
    ],
    "titanic": [
        (
            "survival rate men vs women",
            "SELECT sex, avg(survived) FROM passengers GROUP BY sex",
        ),
        (
            "oldest 1st-class survivor - who was it",
            "SELECT full_name FROM passengers WHERE pclass = '1st' AND survived = 1 ORDER BY age DESC LIMIT 1",
        ),
    ],
    "dairy": [
        (
            "avg butterfat for jersey and guernsey, each breed",
            f"SELECT b.breed_nm, avg(m.bf_pct) {MILK} WHERE b.breed_nm IN ('Jersey', 'Guernsey') GROUP BY b.breed_nm",
        ),
        (
            "how many samples from the scottish breed",
            f"SELECT count(*) {MILK} WHERE b.orig_cntry = 'Scotland'",
        ),
        (
            "is the milk of 2 yr old heifers creamier than mature cows'? mean fat for both",
            "SELECT age_grp, avg(bf_pct) FROM milk_samples GROUP BY age_grp",
        ),
        (
            "leanest milk on average - which breed",
            f"SELECT b.breed_nm {MILK} GROUP BY b.breed_nm ORDER BY avg(m.bf_pct) ASC LIMIT 1",
        ),
    ],
}

HELDOUT14_UNANSWERABLE: list[tuple[str, str]] = [
    ("dairy", "brown swiss cows, whats their avg fat %"),  # absent: ABSENT_CHECKS
    ("chinook", "got anything by taylor swift for sale"),  # absent: ABSENT_CHECKS
    ("store", "revenue from hawaii, all time"),  # absent: ABSENT_CHECKS
    ("olympics", "ethiopia's medal haul at sochi"),  # absent: ABSENT_CHECKS
    ("dairy", "litres of milk per day a holstein gives, on avg"),  # no yield stored
    ("dairy", "jersey cows average liveweight?"),  # no weight stored
    ("tpch", "staff headcount at each supplier"),  # no employees stored
    ("penguins", "how old are the gentoos on average"),  # no age stored
    ("store", "our top spending customer, by name"),  # no customer stored
    ("titanic", "avg fare paid for a first class ticket"),  # no fare stored
    ("dairy", "should i stock jerseys or holsteins for a cheese farm"),  # advice
    ("movies", "is inception worth watching tonight?"),  # opinion
    ("tpch", "where will revenue land in the coming quarter"),  # the future
    ("flights", "which new routes open out of denver next summer"),  # the future
    ("elements", "who got the chemistry nobel in 2010"),  # outside facts
    ("counties", "ohio - current governor is who"),  # outside facts
    ("world", "ghana fertility rate in 1930"),  # years 1964-2013 only
    ("olympics", "rio 2016 100m silver medallist"),  # men's 100 m medallists 1896-2012 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("dairy", "SELECT count(*) FROM breeds WHERE breed_nm LIKE '%swiss%' OR breed_code LIKE '%BS%'"),
    ("chinook", "SELECT count(*) FROM Artist WHERE Name ILIKE '%swift%'"),
    ("chinook", "SELECT count(*) FROM Track WHERE Composer ILIKE '%swift%'"),
    ("store", "SELECT count(*) FROM orders WHERE state = 'Hawaii' OR city = 'Honolulu'"),
    ("olympics", "SELECT count(*) FROM lkp_cntry WHERE cntry_nm LIKE '%ethiop%' OR cntry_cd = 'ETH'"),
    ("world", "SELECT count(*) FROM indicators WHERE year < 1964"),
    ("olympics", "SELECT count(*) FROM m100_medalists WHERE yr > 2012"),
]
