"""Held-out set #11 of bench/bi_nokeys.py: questions over every database, the penguins one (bench/bi_nokeys_data.py)
included, written and committed before any run on them.

Answerable questions per database (gold SQL in DuckDB for chinook / tpch, SQLite for the others), about a third
naming several values; unanswerable questions of varied kinds, each commented with its kind. Users' registers:
terse, chatty, lower case, a typo or two, synonyms, the columns' abbreviations, demonyms of stored values. Every
gold query was executed and returns rows, top-1 golds were checked for ties, and every absent value named by an
unanswerable question is checked absent by ABSENT_CHECKS (`python bench/bi_nokeys.py --check --set heldout11`).
"""

HELDOUT11_ANSWERABLE = {
    "chinook": [
        (
            "jazz + blues track total (both genres together)",
            "SELECT count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE g.Name IN ('Jazz', 'Blues')",
        ),
        (
            "Number of invoices per billing city for our Canadian customers",
            "SELECT BillingCity, count(*) FROM Invoice WHERE BillingCountry = 'Canada' GROUP BY BillingCity",
        ),
        (
            "whose book of clients is biggest among our support reps (by number of customers assigned)",
            "SELECT e.LastName FROM Employee e JOIN Customer c ON c.SupportRepId = e.EmployeeId "
            "GROUP BY e.EmployeeId, e.FirstName, e.LastName ORDER BY count(*) DESC LIMIT 1",
        ),
    ],
    "tpch": [
        (
            "sum of l_extendedprice for rail shipments compared to air ones",
            "SELECT l_shipmode, sum(l_extendedprice) FROM lineitem WHERE l_shipmode IN ('AIR', 'RAIL') GROUP BY l_shipmode",
        ),
        (
            "tally vendors by r_name",
            "SELECT r_name, count(*) FROM supplier JOIN nation ON s_nationkey = n_nationkey "
            "JOIN region ON n_regionkey = r_regionkey GROUP BY r_name",
        ),
        (
            "order count for the two years 1995-1996 combined",
            "SELECT count(*) FROM orders WHERE year(o_orderdate) BETWEEN 1995 AND 1996",
        ),
    ],
    "movies": [
        (
            "Spielberg as sole director: film count?",
            "SELECT count(*) FROM omdb WHERE Director = 'Steven Spielberg'",
        ),
        (
            "Average Rotten Tomatoes meter for PG-13 movies compared with R-rated ones",
            "SELECT o.Rating, avg(t.Meter) FROM omdb o JOIN tomatoes t ON t.ID = o.ID "
            "WHERE o.Rating IN ('PG-13', 'R') GROUP BY o.Rating",
        ),
    ],
    "world": [
        (
            "lifespan figures for Nigeria and Kenya back in 1990",
            "SELECT country, life_expectancy FROM indicators WHERE country IN ('Nigeria', 'Kenya') AND year = 1990",
        ),
        (
            "break the country list down by world region and give me a tally for each group",
            "SELECT region, count(*) FROM countries GROUP BY region",
        ),
        (
            "South Asian population total for 2005, summed over its countries",
            "SELECT sum(i.population) FROM indicators i JOIN countries c ON c.name = i.country "
            "WHERE c.region = 'South Asia' AND i.year = 2005",
        ),
    ],
    "flights": [
        (
            "Denver outbound: number of routes leaving either of its airports",
            "SELECT count(*) FROM routes r JOIN airports a ON a.AirportID = r.SourceID WHERE a.City = 'Denver'",
        ),
        (
            "top carrier by route count (airline code is fine)",
            "SELECT Airline FROM routes GROUP BY Airline ORDER BY count(*) DESC LIMIT 1",
        ),
    ],
    "store": [
        (
            "Profit from Furniture versus Technology?",
            "SELECT s.category, sum(o.profit) FROM orders o JOIN sub_categories s ON s.sub_category = o.sub_category "
            "WHERE s.category IN ('Furniture', 'Technology') GROUP BY s.category",
        ),
        (
            "West region's slice of revenue, as a fraction of all sales",
            "SELECT sum(CASE WHEN st.region = 'West' THEN o.sales ELSE 0 END) / sum(o.sales) "
            "FROM orders o JOIN states st ON st.state = o.state",
        ),
        (
            "units sold per shipping mode",
            "SELECT ship_mode, sum(quantity) FROM orders GROUP BY ship_mode",
        ),
    ],
    "cars": [
        (
            "European-made models, their mean miles per galon?",
            "SELECT avg(c.mpg) FROM cars c JOIN origins o ON o.origin = c.origin WHERE o.name = 'Europe'",
        ),
        (
            "How many 4-cylinder cars are there, and how many 8-cylinder ones?",
            "SELECT cyl, count(*) FROM cars WHERE cyl IN (4, 8) GROUP BY cyl",
        ),
    ],
    "counties": [
        (
            "mean jobless % over all Texan counties",
            "SELECT avg(u.rate) FROM unemployment u JOIN counties c ON c.fips = u.fips "
            "JOIN states s ON s.code = c.state WHERE s.name = 'Texas'",
        ),
        (
            "Count the counties of Ohio and of Indiana",
            "SELECT s.name, count(*) FROM counties c JOIN states s ON s.code = c.state "
            "WHERE s.name IN ('Ohio', 'Indiana') GROUP BY s.name",
        ),
        (
            "worst-hit county by 2009 unemployment %, name it",
            "SELECT c.name FROM unemployment u JOIN counties c ON c.fips = u.fips "
            "WHERE u.year = 2009 ORDER BY u.rate DESC LIMIT 1",
        ),
    ],
    "olympics": [
        (
            "which of Norway or Canada won more golds at Sochi?",
            "SELECT l.cntry_nm FROM sochi14_tally t JOIN lkp_cntry l ON l.cntry_cd = t.cntry_cd "
            "WHERE l.cntry_nm IN ('Norway', 'Canada') ORDER BY t.gold DESC LIMIT 1",
        ),
        (
            "100 metre gold medals taken by US runners, all Games combined",
            "SELECT count(*) FROM m100_medalists WHERE noc = 'USA' AND medal = 'GOLD'",
        ),
    ],
    "elements": [
        (
            "noble gas elements - how many does the data list?",
            "SELECT count(*) FROM elem e JOIN elem_cat c ON c.cat_cd = e.cat_cd WHERE c.cat_nm = 'noble gas'",
        ),
        (
            "iron, copper, zinc: melting point (K) of each",
            "SELECT e.name, p.mp_k FROM elem e JOIN phys_props p ON p.sym = e.sym "
            "WHERE e.name IN ('Iron', 'Copper', 'Zinc')",
        ),
        (
            "Which halogen boils at the highest temperature?",
            "SELECT e.name FROM elem e JOIN elem_cat c ON c.cat_cd = e.cat_cd JOIN phys_props p ON p.sym = e.sym "
            "WHERE c.cat_nm = 'halogen' AND p.bp_k IS NOT NULL ORDER BY p.bp_k DESC LIMIT 1",
        ),
    ],
    "penguins": [
        (
            "gentoo count across all three islands",
            "SELECT count(*) FROM penguin_obs o JOIN species s ON s.id = o.species_id WHERE s.common_name = 'Gentoo'",
        ),
        (
            "Mean body mass of Adelie penguins on Dream vs on Torgersen",
            "SELECT i.isl_name, avg(o.body_mass_g) FROM penguin_obs o JOIN species s ON s.id = o.species_id "
            "JOIN islands i ON i.isl_cd = o.isl_cd WHERE s.common_name = 'Adelie' "
            "AND i.isl_name IN ('Dream', 'Torgersen') GROUP BY i.isl_name",
        ),
        (
            "for each island, how many of the birds were sampled there",
            "SELECT i.isl_name, count(*) FROM penguin_obs o JOIN islands i ON i.isl_cd = o.isl_cd GROUP BY i.isl_name",
        ),
        (
            "which species has the longest avg bill lenght",
            "SELECT s.common_name FROM penguin_obs o JOIN species s ON s.id = o.species_id "
            "GROUP BY s.common_name ORDER BY avg(o.bill_len_mm) DESC LIMIT 1",
        ),
    ],
}

HELDOUT11_UNANSWERABLE = [
    ("penguins", "how many emperor penguins were counted"),  # a value the data lacks
    ("chinook", "Taylor Swift catalogue size in our shop, song count"),  # a value the data lacks
    ("flights", "Reykjavik departures: how many routes begin there"),  # a value the data lacks
    ("olympics", "how many medals did Kenya take home from Sochi"),  # a value the data lacks
    ("penguins", "average number of eggs per nest for chinstraps"),  # a plausible field the data lacks
    ("store", "who sent back the largest number of purchases? returns by shopper"),  # a plausible field the data lacks
    ("cars", "msrp of the datsun 510 when it came out"),  # a plausible field the data lacks
    ("tpch", "staff headcount at Supplier#000000010, roughly?"),  # a plausible field the data lacks
    ("movies", "what movie should I watch tonight, something fun"),  # an opinion or advice
    (
        "world",
        "thinking of moving abroad when I stop working: which nation has the friendliest people?",
    ),  # an opinion or advice
    ("store", "projected profit for next quarter?"),  # the future
    ("elements", "chemical formula of table salt?"),  # an outside fact
    ("olympics", "which nation lifted soccer's trophy in Qatar"),  # an outside fact
    ("counties", "jobless rate by county as of 2015, top ten"),  # a year outside the data
    ("world", "births per woman in France around 1900?"),  # a year outside the data
]

ABSENT_CHECKS = [
    ("penguins", "SELECT count(*) FROM species WHERE lower(common_name) LIKE '%emperor%'"),
    ("chinook", "SELECT count(*) FROM Artist WHERE lower(Name) LIKE '%taylor swift%'"),
    ("flights", "SELECT count(*) FROM airports WHERE lower(City) LIKE '%reykjav%' OR Country = 'Iceland'"),
    ("olympics", "SELECT count(*) FROM lkp_cntry WHERE lower(cntry_nm) LIKE '%kenya%'"),
    ("counties", "SELECT count(*) FROM unemployment WHERE year <> 2009"),
    ("world", "SELECT count(*) FROM indicators WHERE year < 1964"),
]
