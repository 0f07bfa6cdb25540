"""Held-out set #7 of the BI agent: questions over the nine databases (chinook and tpch: DuckDB; movies, world,
flights, store, cars, counties and olympics: the SQLite databases of bench/bi_nokeys_data.py, no declared keys).
olympics (sport: a lookup of nation codes, the 2014 Winter Games' medal table, the men's Olympic 100 m
medallists) is new with this set; no earlier set asks about it.

Answerable (30): six on olympics, three on each other database. Unanswerable (20), each marked:
a value the data lacks (4), a plausible field the data lacks (5), an opinion or advice (3), the future (2), a
fact from outside the data (2), a year outside the data (4).

Written and committed before the agent was changed for this round of issue 20 and before any model run on
them, worded as different users ask: terse, chatty, lower case, words the schema does not spell ("golds", "pop",
"jobless", "songs", "flights" for routes, "Tomatometer"), comparisons of two named values,
"per" / "each", rankings, counts over joins on keys nobody declared (one across two sources whose codes only
partly agree), one share.

Gold SQL is DuckDB for chinook / tpch and SQLite for the others; every query was executed and returns rows
(`python bench/bi_nokeys.py --check --set heldout7`). Where a question compares or groups by something the
data could label two ways, the gold query returns the values only, so an answer with either label (scored as
extra columns) counts. Each value or year named as absent was checked absent with a query (`ABSENT_CHECKS`,
run by `--check`: every one must return 0). Run it once, after the agent's code is final.
"""

CH_ARTIST = "JOIN Album al ON t.AlbumId = al.AlbumId JOIN Artist ar ON al.ArtistId = ar.ArtistId"
OLY_NAME = "JOIN lkp_cntry l ON l.cntry_cd = t.cntry_cd"
JOBLESS = "unemployment u JOIN counties c ON u.fips = c.fips JOIN states s ON c.state = s.code"

HELDOUT7_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "olympics": [
        (
            "How many golds did Norway win at Sochi?",
            f"SELECT t.gold FROM sochi14_tally t {OLY_NAME} WHERE l.cntry_nm = 'Norway'",
        ),
        (
            "how many olympic 100m medals has jamaica won",
            "SELECT count(*) FROM m100_medalists m JOIN lkp_cntry l ON l.cntry_cd = m.noc WHERE l.cntry_nm = 'Jamaica'",
        ),
        (
            "Fastest winning 100 metre time before 1950?",
            "SELECT min(time_s) FROM m100_medalists WHERE medal = 'GOLD' AND yr < 1950",
        ),
        (
            "number of nations that went home from the 2014 winter games with no medal at all",
            "SELECT count(*) FROM sochi14_tally WHERE tot = 0",
        ),
        (
            "Canada vs Germany: silver medals in Sochi",
            f"SELECT t.silver FROM sochi14_tally t {OLY_NAME} WHERE l.cntry_nm IN ('Canada', 'Germany')",
        ),
        (
            "What percentage of all the Sochi medals did the Netherlands take?",
            f"SELECT 100.0 * (SELECT t.tot FROM sochi14_tally t {OLY_NAME} WHERE l.cntry_nm = 'Netherlands') "
            "/ (SELECT sum(tot) FROM sochi14_tally)",
        ),
    ],
    "chinook": [
        (
            "how many Jazz songs run longer than five minutes?",
            "SELECT count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId "
            "WHERE g.Name = 'Jazz' AND t.Milliseconds > 300000",
        ),
        (
            "Number of customers each support rep looks after",
            "SELECT count(*) FROM Customer GROUP BY SupportRepId",
        ),
        (
            "How many tracks are on the Grunge playlist?",
            "SELECT count(*) FROM PlaylistTrack pt JOIN Playlist p ON pt.PlaylistId = p.PlaylistId "
            "WHERE p.Name = 'Grunge'",
        ),
    ],
    "tpch": [
        (
            "suppliers per region",
            "SELECT count(*) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey "
            "JOIN region r ON n.n_regionkey = r.r_regionkey GROUP BY r.r_name",
        ),
        (
            "which country's suppliers hold the largest combined account balance?",
            "SELECT n.n_name FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey GROUP BY n.n_name "
            "ORDER BY sum(s.s_acctbal) DESC LIMIT 1",
        ),
        (
            "How many orders from furniture-segment customers have status F?",
            "SELECT count(*) FROM orders o JOIN customer c ON o.o_custkey = c.c_custkey "
            "WHERE c.c_mktsegment = 'FURNITURE' AND o.o_orderstatus = 'F'",
        ),
    ],
    "movies": [
        (
            "Which Christopher Nolan film has the lowest Tomatometer?",
            "SELECT o.Title FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Director = 'Christopher Nolan' "
            "ORDER BY t.Meter ASC LIMIT 1",
        ),
        ("how many R-rated films are from 2010", "SELECT count(*) FROM omdb WHERE Rating = 'R' AND Year = 2010"),
        (
            "Total number of Oscars won by Steven Spielberg's movies?",
            "SELECT sum(Oscars) FROM omdb WHERE Director = 'Steven Spielberg'",
        ),
    ],
    "world": [
        (
            "life expectancy in Japan and in Brazil in 2000",
            "SELECT life_expectancy FROM indicators WHERE country IN ('Japan', 'Brazil') AND year = 2000",
        ),
        ("How many countries are there in South Asia?", "SELECT count(*) FROM countries WHERE region = 'South Asia'"),
        (
            "what was the combined pop of sub-saharan africa in 1990?",
            "SELECT sum(i.population) FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE c.region = 'Sub-Saharan Africa' AND i.year = 1990",
        ),
    ],
    "flights": [
        (
            "how many flights leave from Denver",
            "SELECT count(*) FROM routes r JOIN airports a ON r.SourceID = a.AirportID WHERE a.City = 'Denver'",
        ),
        (
            "Which airline code has the most routes?",
            "SELECT Airline FROM routes GROUP BY Airline ORDER BY count(*) DESC LIMIT 1",
        ),
        ("How many large airports are there?", "SELECT count(*) FROM airports WHERE Type = 'large_airport'"),
    ],
    "store": [
        (
            "Which sub-category lost us the most money?",
            "SELECT sub_category FROM orders GROUP BY sub_category ORDER BY sum(profit) ASC LIMIT 1",
        ),
        (
            "total profit for each region",
            "SELECT sum(o.profit) FROM orders o JOIN states s ON o.state = s.state GROUP BY s.region",
        ),
        (
            "How many same-day shipments went to California?",
            "SELECT count(*) FROM orders WHERE ship_mode = 'Same Day' AND state = 'California'",
        ),
    ],
    "cars": [
        (
            "average mpg of the European cars",
            "SELECT avg(c.mpg) FROM cars c JOIN origins o ON c.origin = o.origin WHERE o.name = 'Europe'",
        ),
        ("How many four-cylinder cars are from 1980?", "SELECT count(*) FROM cars WHERE cyl = 4 AND yr = 80"),
        (
            "ford vs toyota, average horsepower",
            "SELECT avg(hp) FROM cars WHERE mfr IN ('ford', 'toyota') GROUP BY mfr",
        ),
    ],
    "counties": [
        (
            "How many counties are in Texas?",
            "SELECT count(*) FROM counties c JOIN states s ON c.state = s.code WHERE s.name = 'Texas'",
        ),
        (
            "worst county jobless rate in Michigan in 2009?",
            f"SELECT max(u.rate) FROM {JOBLESS} WHERE s.name = 'Michigan' AND u.year = 2009",
        ),
        (
            "Average unemployment rate of the counties in the Southeast region",
            f"SELECT avg(u.rate) FROM {JOBLESS} WHERE s.region = 'Southeast'",
        ),
    ],
}

HELDOUT7_UNANSWERABLE: list[tuple[str, str]] = [
    ("olympics", "What was Asafa Powell's time when he won his Olympic 100m medal?"),  # a value the data lacks
    ("olympics", "Which sport did Norway win most of its Sochi golds in?"),  # a field the data lacks
    ("olympics", "who won the 100m at the 2016 olympics"),  # a year outside the data
    ("olympics", "Who is the greatest sprinter of all time?"),  # an opinion
    ("olympics", "How many golds will Norway win at the next Winter Olympics?"),  # the future
    ("chinook", "how many Taylor Swift songs do we have?"),  # a value the data lacks
    ("chinook", "Which album is best for a rainy day?"),  # an opinion
    ("tpch", "average customer satisfaction score per nation"),  # a field the data lacks
    ("tpch", "How many orders were placed in 2005?"),  # a year outside the data
    ("movies", "What was the production budget of Inception?"),  # a field the data lacks
    ("world", "What will India's population be in 2050?"),  # the future
    ("world", "fertility rate in Kenya in 2020"),  # a year outside the data
    ("flights", "How many routes go out of Reykjavik?"),  # a value the data lacks
    ("flights", "Who is the CEO of American Airlines?"),  # a fact from outside the data
    ("store", "What were our total sales in Alaska?"),  # a value the data lacks
    ("store", "Which product should we stop selling next quarter?"),  # advice
    ("cars", "price of the cheapest toyota?"),  # a field the data lacks
    ("counties", "median household income in Cook County, Illinois"),  # a field the data lacks
    ("counties", "Who is the governor of Ohio?"),  # a fact from outside the data
    ("counties", "what was the unemployment rate in Los Angeles County in 2015"),  # a year outside the data
]

ABSENT_CHECKS: list[tuple[str, str]] = [
    ("olympics", "SELECT count(*) FROM m100_medalists WHERE athlete LIKE '%Powell%'"),
    ("olympics", "SELECT count(*) FROM m100_medalists WHERE yr >= 2016"),
    ("chinook", "SELECT count(*) FROM Artist WHERE Name ILIKE '%swift%'"),
    ("tpch", "SELECT count(*) FROM orders WHERE year(o_orderdate) = 2005"),
    ("world", "SELECT count(*) FROM indicators WHERE year >= 2020"),
    ("flights", "SELECT count(*) FROM airports WHERE City LIKE '%Reykjav%' OR Country = 'Iceland'"),
    ("store", "SELECT count(*) FROM orders WHERE state = 'Alaska'"),
    ("counties", "SELECT count(*) FROM unemployment WHERE year = 2015"),
]
