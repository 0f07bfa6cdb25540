"""Held-out set #8 of the BI agent: questions over the nine databases (chinook and tpch: DuckDB; movies, world,
flights, store, cars, counties and olympics: the SQLite databases of bench/bi_nokeys_data.py, no declared keys).

Answerable (27): three on each database. Unanswerable (20), each marked: a value the data lacks (4), a
plausible field the data lacks (5), an opinion or advice (3), the future (2), a fact from outside the data (2),
a year outside the data (4).

Written and committed before the agent was changed for this round of issue 20 and before any model run on
them, worded as different users ask: terse, chatty, lower case, words the schema does not spell ("tunes",
"jobless", "co-directed", "imports", "gas mileage", demonyms for stored countries and regions), comparisons of two named values,
"per" / "each", rankings, counts and lookups over joins on keys nobody declared, one share.

Gold SQL is DuckDB for chinook / tpch and SQLite for the others; every query was executed and returns rows
(`python bench/bi_nokeys.py --check --set heldout8`); each "top 1" gold was checked for a tie at the top. Where
a question groups by something the data could label two ways, the gold query returns the values only, so an
answer with either label (scored as extra columns) counts. Each value or year named as absent is checked
absent by ABSENT_CHECKS.
"""

TRACK_GENRE = "Track t JOIN Genre g ON t.GenreId = g.GenreId"
TALLY = "sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd"
COUNTY_RATE = "counties c JOIN unemployment u ON c.fips = u.fips"

HELDOUT8_ANSWERABLE = {
    "chinook": [
        (
            "how many classical tunes run past five minutes",
            f"SELECT count(*) FROM {TRACK_GENRE} WHERE g.Name = 'Classical' AND t.Milliseconds > 300000",
        ),
        (
            "Whose customers have spent the most in total, of our employees? Last name is enough.",
            "SELECT e.LastName FROM Employee e JOIN Customer c ON c.SupportRepId = e.EmployeeId "
            "JOIN Invoice i ON i.CustomerId = c.CustomerId GROUP BY e.LastName ORDER BY sum(i.Total) DESC LIMIT 1",
        ),
        (
            "Did Canadian or French customers spend more with us overall?",
            "SELECT BillingCountry FROM Invoice WHERE BillingCountry IN ('Canada', 'France') "
            "GROUP BY BillingCountry ORDER BY sum(Total) DESC LIMIT 1",
        ),
    ],
    "tpch": [
        (
            "orders placed in 1995 — how many?",
            "SELECT count(*) FROM orders WHERE o_orderdate >= DATE '1995-01-01' AND o_orderdate < DATE '1996-01-01'",
        ),
        (
            "avg acct balance per market segment",
            "SELECT avg(c_acctbal) FROM customer GROUP BY c_mktsegment",
        ),
        (
            "Which nation is home to the largest number of suppliers?",
            "SELECT n_name FROM supplier JOIN nation ON s_nationkey = n_nationkey "
            "GROUP BY n_name ORDER BY count(*) DESC LIMIT 1",
        ),
    ],
    "movies": [
        (
            "how many films did Steven Spielberg direct or co-direct",
            "SELECT count(*) FROM omdb WHERE Director LIKE '%Steven Spielberg%'",
        ),
        (
            "Which 2005 movie got the most Rotten Tomatoes critic reviews?",
            "SELECT o.Title FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Year = 2005 "
            "ORDER BY t.Reviews DESC LIMIT 1",
        ),
        ("Mean runtime of PG-13 movies, in minutes?", "SELECT avg(Runtime) FROM omdb WHERE Rating = 'PG-13'"),
    ],
    "world": [
        (
            "Chile, 1985: life expectancy?",
            "SELECT life_expectancy FROM indicators WHERE country = 'Chile' AND year = 1985",
        ),
        (
            "how many sub-saharan african countries are listed",
            "SELECT count(*) FROM countries WHERE region = 'Sub-Saharan Africa'",
        ),
        (
            "In 1990, which country in Europe & Central Asia had the highest fertility rate?",
            "SELECT i.country FROM indicators i JOIN countries c ON c.name = i.country "
            "WHERE c.region = 'Europe & Central Asia' AND i.year = 1990 ORDER BY i.fertility DESC LIMIT 1",
        ),
    ],
    "flights": [
        ("routes out of JFK - how many?", "SELECT count(*) FROM routes WHERE Source = 'JFK'"),
        (
            "Total inbound routes across Houston's airports?",
            "SELECT count(*) FROM routes r JOIN airports a ON r.Destination = a.IATA WHERE a.City = 'Houston'",
        ),
        (
            "Out of Denver, who flies more routes: UA or WN?",
            "SELECT Airline FROM routes WHERE Source = 'DEN' AND Airline IN ('UA', 'WN') "
            "GROUP BY Airline ORDER BY count(*) DESC LIMIT 1",
        ),
    ],
    "store": [
        ("total profit from texas", "SELECT sum(profit) FROM orders WHERE state = 'Texas'"),
        (
            "What percentage of our sales comes from Technology products?",
            "SELECT 100.0 * sum(CASE WHEN s.category = 'Technology' THEN o.sales ELSE 0 END) / sum(o.sales) "
            "FROM orders o JOIN sub_categories s ON o.sub_category = s.sub_category",
        ),
        (
            "Sales for each region, please.",
            "SELECT sum(o.sales) FROM orders o JOIN states s ON o.state = s.state GROUP BY s.region",
        ),
    ],
    "cars": [
        ("number of 4-cylinder cars?", "SELECT count(*) FROM cars WHERE cyl = 4"),
        (
            "avg horsepower of the asian imports",
            "SELECT avg(c.hp) FROM cars c JOIN origins o ON c.origin = o.origin WHERE o.name = 'Asia'",
        ),
        (
            "heaviest european car",
            "SELECT c.name FROM cars c JOIN origins o ON c.origin = o.origin WHERE o.name = 'Europe' "
            "ORDER BY c.weight DESC LIMIT 1",
        ),
    ],
    "counties": [
        ("Count the counties in Nebraska.", "SELECT count(*) FROM counties WHERE state = 'NE'"),
        (
            "jobless % for Maricopa County",
            f"SELECT u.rate FROM {COUNTY_RATE} WHERE c.detailed_name = 'Maricopa County, Arizona'",
        ),
        (
            "Which state had the highest average county unemployment rate? Full state name please.",
            f"SELECT s.name FROM {COUNTY_RATE} JOIN states s ON c.state = s.code "
            "GROUP BY s.name ORDER BY avg(u.rate) DESC LIMIT 1",
        ),
    ],
    "olympics": [
        (
            "silver medals for the Dutch in Sochi?",
            f"SELECT t.silver FROM {TALLY} WHERE l.cntry_nm = 'Netherlands'",
        ),
        (
            "tally of US wins in the 100 m, all years",
            "SELECT count(*) FROM m100_medalists WHERE noc = 'USA' AND medal = 'GOLD'",
        ),
        (
            "Germany vs Canada at the 2014 Winter Games: which won more medals in total?",
            f"SELECT l.cntry_nm FROM {TALLY} WHERE l.cntry_nm IN ('Germany', 'Canada') ORDER BY t.tot DESC LIMIT 1",
        ),
    ],
}

HELDOUT8_UNANSWERABLE = [
    ("movies", "What's the runtime of Oppenheimer?"),  # a value the data lacks
    ("flights", "how many destinations can I reach nonstop from Paris CDG"),  # a value the data lacks
    ("store", "how much profit did the Anchorage, AK customers bring in"),  # a value the data lacks
    ("olympics", "Where did Kenya finish in the 2014 Winter Olympics standings?"),  # a value the data lacks
    ("chinook", "roughly how old is a typical customer of ours"),  # a plausible field the data lacks
    ("tpch", "Which sales channel brings in more orders, online or in-store?"),  # a plausible field the data lacks
    ("cars", "how much did a ford pinto cost new"),  # a plausible field the data lacks
    ("world", "GDP per capita of Brazil in 2010?"),  # a plausible field the data lacks
    ("counties", "typical house price in Travis County, Texas"),  # a plausible field the data lacks
    ("store", "Which sub-category should we stop selling?"),  # an opinion or advice
    ("movies", "what's a good movie to watch tonight"),  # an opinion or advice
    ("tpch", "Is it worth expanding to more suppliers in Asia?"),  # an opinion or advice
    ("olympics", "Will Noah Lyles defend his sprint title at LA 2028?"),  # the future
    ("world", "Projected fertility rate for Ethiopia ten years from now?"),  # the future
    ("flights", "What's the weather at Denver airport right now?"),  # a fact from outside the data
    ("chinook", "Which record label is Iron Maiden signed to?"),  # a fact from outside the data
    ("counties", "jobless rate in Cook County in 2015?"),  # a year outside the data
    ("olympics", "Bolt's winning time in Rio, 2016?"),  # a year outside the data
    ("cars", "Which 1991 model had the best gas mileage?"),  # a year outside the data
    ("world", "What was Nigeria's fertility rate in 2020?"),  # a year outside the data
]

# Each returns (0,): the value or year the unanswerable question names is not in the data.
ABSENT_CHECKS = [
    ("movies", "SELECT count(*) FROM omdb WHERE Title LIKE '%Oppenheimer%'"),
    ("flights", "SELECT count(*) FROM airports WHERE IATA = 'CDG' OR City LIKE '%Paris%'"),
    ("flights", "SELECT count(*) FROM routes WHERE Source = 'CDG' OR Destination = 'CDG'"),
    ("store", "SELECT count(*) FROM orders WHERE state = 'Alaska' OR city = 'Anchorage'"),
    ("olympics", "SELECT count(*) FROM lkp_cntry WHERE cntry_cd = 'KEN' OR cntry_nm LIKE '%Kenya%'"),
    ("counties", "SELECT count(*) FROM unemployment WHERE year <> 2009"),
    ("olympics", "SELECT count(*) FROM m100_medalists WHERE yr > 2012"),
    ("cars", "SELECT count(*) FROM cars WHERE yr IN (91, 1991)"),
    ("world", "SELECT count(*) FROM indicators WHERE year > 2013"),
]
