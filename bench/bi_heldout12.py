"""Held-out set #12 of bench/bi_nokeys.py: questions over every database of bench/bi_nokeys_data.py and over
Chinook / TPC-H, written and committed before any run on them.

Answerable questions per database (gold SQL in DuckDB for chinook / tpch, SQLite for the others), about a third
naming several values; unanswerable questions of varied kinds, each commented with its kind. Users' registers:
terse, chatty, lower case, a typo or two, everyday words and demonyms for stored values. Every gold query was
executed and returns rows, top-1 golds were checked for ties, and each value named as absent is checked absent
(`ABSENT_CHECKS`, run by `python bench/bi_nokeys.py --check --set heldout12`).
"""

ARTISTS = "FROM Track t JOIN Album al ON t.AlbumId = al.AlbumId JOIN Artist ar ON al.ArtistId = ar.ArtistId"
PROPS = "FROM elem e JOIN phys_props p ON p.sym = e.sym"
PENGUINS = "FROM penguin_obs o JOIN species s ON s.id = o.species_id"
JOBLESS = "FROM unemployment u JOIN counties c ON c.fips = u.fips"

HELDOUT12_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "combined running time in minutes of all the Metallica and Iron Maiden songs?",
            f"SELECT sum(t.Milliseconds) / 60000.0 {ARTISTS} WHERE ar.Name IN ('Metallica', 'Iron Maiden')",
        ),
        (
            "Which support agent looks after the largest number of customers? Full name please",
            "SELECT e.FirstName || ' ' || e.LastName FROM Employee e JOIN Customer c ON c.SupportRepId = e.EmployeeId "
            "GROUP BY e.EmployeeId, e.FirstName, e.LastName ORDER BY count(*) DESC LIMIT 1",
        ),
        (
            "number of invoices each year from 2022 thru 2024",
            "SELECT year(InvoiceDate), count(*) FROM Invoice WHERE year(InvoiceDate) BETWEEN 2022 AND 2024 GROUP BY 1",
        ),
    ],
    "tpch": [
        (
            "tally of purchase orders from buyers whose market segment is AUTOMOBILE",
            "SELECT count(*) FROM orders o JOIN customer c ON o.o_custkey = c.c_custkey "
            "WHERE c.c_mktsegment = 'AUTOMOBILE'",
        ),
        (
            "what percentage of line items went by AIR or REG AIR",
            "SELECT 100.0 * sum(CASE WHEN l_shipmode IN ('AIR', 'REG AIR') THEN 1 ELSE 0 END) / count(*) FROM lineitem",
        ),
        (
            "Europe: supplier headcount broken down by country",
            "SELECT n.n_name, count(*) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey "
            "JOIN region r ON n.n_regionkey = r.r_regionkey WHERE r.r_name = 'EUROPE' GROUP BY n.n_name",
        ),
    ],
    "movies": [
        (
            "avg length of PG-13 flicks vs R rated ones",
            "SELECT Rating, avg(Runtime) FROM omdb WHERE Rating IN ('PG-13', 'R') GROUP BY Rating",
        ),
        (
            "How many 2010 releases grossed more than 100 million dollars at the box office?",
            "SELECT count(*) FROM omdb o JOIN tomatoes t ON t.ID = o.ID WHERE o.Year = 2010 AND t.BoxOffice > 100000000",
        ),
    ],
    "world": [
        (
            "2010 longevity -- japan vs germany vs brazil",
            "SELECT country, life_expectancy FROM indicators WHERE year = 2010 "
            "AND country IN ('Japan', 'Germany', 'Brazil')",
        ),
        (
            "In 2000, biggest population among the South Asia countries?",
            "SELECT i.country FROM indicators i JOIN countries c ON c.name = i.country "
            "WHERE c.region = 'South Asia' AND i.year = 2000 ORDER BY i.population DESC LIMIT 1",
        ),
        (
            "average births per woman for each region in 1970",
            "SELECT c.region, avg(i.fertility) FROM indicators i JOIN countries c ON c.name = i.country "
            "WHERE i.year = 1970 GROUP BY c.region",
        ),
    ],
    "flights": [
        (
            "puerto rico + virgin islands airports: total outbound routes",
            "SELECT count(*) FROM routes r JOIN airports a ON a.AirportID = r.SourceID "
            "WHERE a.Country IN ('Puerto Rico', 'Virgin Islands')",
        ),
        (
            "top airline by number of routes originating at ATL",
            "SELECT Airline FROM routes WHERE Source = 'ATL' GROUP BY Airline ORDER BY count(*) DESC LIMIT 1",
        ),
    ],
    "store": [
        (
            "profit on phones, copiers and machines, each one separately",
            "SELECT sub_category, sum(profit) FROM orders WHERE sub_category IN ('Phones', 'Copiers', 'Machines') "
            "GROUP BY sub_category",
        ),
        (
            "same day shipping: which region uses it on the most order lines?",
            "SELECT s.region FROM orders o JOIN states s ON s.state = o.state WHERE o.ship_mode = 'Same Day' "
            "GROUP BY s.region ORDER BY count(*) DESC LIMIT 1",
        ),
        (
            "furniture revenue per customer segment",
            "SELECT o.segment, sum(o.sales) FROM orders o JOIN sub_categories sc ON sc.sub_category = o.sub_category "
            "WHERE sc.category = 'Furniture' GROUP BY o.segment",
        ),
    ],
    "cars": [
        (
            "mean hp for cars built in europe",
            "SELECT avg(c.hp) FROM cars c JOIN origins o ON o.origin = c.origin WHERE o.name = 'Europe'",
        ),
        (
            "count of ford, chevrolet and plymouth models from '75, per make",
            "SELECT mfr, count(*) FROM cars WHERE yr = 75 AND mfr IN ('ford', 'chevrolet', 'plymouth') GROUP BY mfr",
        ),
    ],
    "counties": [
        (
            "highest 2009 unemployment among Ohio's counties, which one?",
            f"SELECT c.name {JOBLESS} WHERE c.state = 'OH' AND u.year = 2009 ORDER BY u.rate DESC LIMIT 1",
        ),
        (
            "Southeast states: mean county-level unemployment %",
            f"SELECT avg(u.rate) {JOBLESS} JOIN states s ON s.code = c.state WHERE s.region = 'Southeast'",
        ),
        (
            "how many countys are there in texas, oklahoma and kansas combined",
            "SELECT count(*) FROM counties WHERE state IN ('TX', 'OK', 'KS')",
        ),
    ],
    "olympics": [
        (
            "Golds won at Sochi by Norway, Germany and Canada",
            "SELECT l.cntry_nm, t.gold FROM sochi14_tally t JOIN lkp_cntry l ON l.cntry_cd = t.cntry_cd "
            "WHERE l.cntry_nm IN ('Norway', 'Germany', 'Canada')",
        ),
        (
            "how many bronzes did the Russians take home in 2014",
            "SELECT t.bronze FROM sochi14_tally t JOIN lkp_cntry l ON l.cntry_cd = t.cntry_cd "
            "WHERE l.cntry_nm = 'Russian Fed.'",
        ),
        (
            "best gold medal 100m time prior to 1950, in seconds",
            "SELECT min(time_s) FROM m100_medalists WHERE medal = 'GOLD' AND yr < 1950",
        ),
    ],
    "elements": [
        (
            "count the halogens, then the noble gases",
            "SELECT ec.cat_nm, count(*) FROM elem e JOIN elem_cat ec ON ec.cat_cd = e.cat_cd "
            "WHERE ec.cat_nm IN ('halogen', 'noble gas') GROUP BY ec.cat_nm",
        ),
        (
            "of the elements that are liquid at room temperature, which is the densest",
            f"SELECT e.name {PROPS} WHERE p.std_state = 'liquid' ORDER BY p.dens DESC LIMIT 1",
        ),
        (
            "mean electronegativity per period",
            f"SELECT e.period, avg(p.en) {PROPS} GROUP BY e.period",
        ),
    ],
    "penguins": [
        (
            "average flipper length, gentoo vs chinstrap",
            f"SELECT s.common_name, avg(o.flipper_mm) {PENGUINS} WHERE s.common_name IN ('Gentoo', 'Chinstrap') "
            "GROUP BY s.common_name",
        ),
        (
            "How many female birds were recorded on Biscoe?",
            "SELECT count(*) FROM penguin_obs o JOIN islands i ON i.isl_cd = o.isl_cd "
            "WHERE i.isl_name = 'Biscoe' AND o.sex = 'FEMALE'",
        ),
        (
            "heaviest adelie in kilos",
            f"SELECT max(o.body_mass_g) / 1000.0 {PENGUINS} WHERE s.common_name = 'Adelie'",
        ),
    ],
}

HELDOUT12_UNANSWERABLE: list[tuple[str, str]] = [
    ("chinook", "got any Adele in the catalogue? how many tracks"),  # a value the data lacks (ABSENT_CHECKS)
    ("chinook", "who's the best-paid employee on payroll"),  # a plausible field it lacks
    ("tpch", "mean star rating buyers gave to RAIL shipments"),  # a plausible field it lacks
    ("tpch", "total order value from customers based in Australia?"),  # a value the data lacks (ABSENT_CHECKS)
    ("movies", "which of these films should I watch tonight with my kids"),  # advice
    ("world", "how many people will live in Egypt two decades from now"),  # the future
    ("world", "life expectancy in france back in 1950"),  # a year outside the data (ABSENT_CHECKS)
    ("flights", "average ticket price on routes leaving LAX"),  # a plausible field it lacks
    ("flights", "routes touching Keflavik airport?"),  # a value the data lacks (ABSENT_CHECKS)
    ("store", "what's our customer churn rate by segment"),  # a plausible field it lacks
    ("store", "is it worth dropping the tables line since it bleeds profit"),  # advice
    ("cars", "what would a 1977 datsun 810 sell for on the used market today"),  # an outside fact
    ("counties", "Travis County's unemployment in 2016, please"),  # a year outside the data (ABSENT_CHECKS)
    ("olympics", "which skater won the most medals at the Sochi games?"),  # a plausible field it lacks
    ("olympics", "who's going to win the men's 100m at the next olympics"),  # the future
    ("elements", "What does a gram of gold cost right now?"),  # an outside fact
    ("penguins", "how old was the oldest penguin they measured"),  # a plausible field it lacks
    ("penguins", "number of king penguins in the sample"),  # a value the data lacks (ABSENT_CHECKS)
]

ABSENT_CHECKS: list[tuple[str, str]] = [
    ("chinook", "SELECT count(*) FROM Artist WHERE Name ILIKE '%adele%'"),
    ("tpch", "SELECT count(*) FROM nation WHERE n_name ILIKE '%australia%'"),
    ("world", "SELECT count(*) FROM indicators WHERE year = 1950"),
    (
        "flights",
        "SELECT count(*) FROM airports WHERE Name LIKE '%keflav%' OR City LIKE '%keflav%' OR Country = 'Iceland'",
    ),
    ("counties", "SELECT count(*) FROM unemployment WHERE year = 2016"),
    ("penguins", "SELECT count(*) FROM species WHERE common_name LIKE '%king%' OR sci_name LIKE '%aptenodytes%'"),
]
