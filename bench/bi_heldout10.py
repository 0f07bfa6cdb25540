"""Held-out set #10: questions over all ten databases of bench/bi_nokeys.py (Chinook and TPC-H in DuckDB, the
eight no-key SQLite databases of bench/bi_nokeys_data.py), written new and committed before any model run on
them. Answerable: 2-3 per database, worded as users write (terse, chatty, lower case, column abbreviations,
demonyms of stored values, several named values in one question, "per"/"each", rankings, counts over joins the
schema does not declare, one share); every gold executed and non-empty, top-1 golds checked for ties.
Unanswerable: values the data lacks, plausible fields it lacks, opinions and advice, the future, outside facts,
years outside the data; each value or year named as absent is checked absent by ABSENT_CHECKS. No question is
within rapidfuzz ratio 72 of an earlier set's question or a string literal in bench/*.py and tests/**.
"""

GENRE = "FROM Track t JOIN Genre g ON t.GenreId = g.GenreId"
ELEM_PHYS = "FROM elem e JOIN phys_props p ON e.sym = p.sym"
TALLY = "FROM sochi14_tally s JOIN lkp_cntry l ON s.cntry_cd = l.cntry_cd"

HELDOUT10_ANSWERABLE = {
    "chinook": [
        (
            "jazz and blues: track count for each",
            f"SELECT g.Name, count(*) {GENRE} WHERE g.Name IN ('Jazz', 'Blues') GROUP BY g.Name",
        ),
        (
            "employee assigned as SupportRep to the biggest customer base",
            "SELECT e.FirstName, e.LastName FROM Employee e JOIN Customer c ON c.SupportRepId = e.EmployeeId "
            "GROUP BY e.EmployeeId, e.FirstName, e.LastName ORDER BY count(*) DESC LIMIT 1",
        ),
        (
            "mean unit price per media type please",
            "SELECT m.Name, avg(t.UnitPrice) FROM Track t JOIN MediaType m ON t.MediaTypeId = m.MediaTypeId "
            "GROUP BY m.Name",
        ),
    ],
    "tpch": [
        (
            "orders placed by BUILDING vs MACHINERY segment customers, how many in each?",
            "SELECT c.c_mktsegment, count(*) FROM orders o JOIN customer c ON o.o_custkey = c.c_custkey "
            "WHERE c.c_mktsegment IN ('BUILDING', 'MACHINERY') GROUP BY c.c_mktsegment",
        ),
        (
            "For every TPC-H region, how many suppliers sit there?",
            "SELECT r.r_name, count(*) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey "
            "JOIN region r ON n.n_regionkey = r.r_regionkey GROUP BY r.r_name",
        ),
        (
            "sum of extendedprice for line items whose shipmode was AIR",
            "SELECT sum(l_extendedprice) FROM lineitem WHERE l_shipmode = 'AIR'",
        ),
    ],
    "movies": [
        (
            "How many pictures has Steven Spielberg directed in this catalogue?",
            "SELECT count(*) FROM omdb WHERE Director = 'Steven Spielberg'",
        ),
        (
            "average runtime, PG-13 versus R",
            "SELECT Rating, avg(Runtime) FROM omdb WHERE Rating IN ('PG-13', 'R') GROUP BY Rating",
        ),
        (
            "Which title earned the highest BoxOffice figure?",
            "SELECT o.Title FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE t.BoxOffice IS NOT NULL "
            "ORDER BY t.BoxOffice DESC LIMIT 1",
        ),
    ],
    "world": [
        (
            "nigerian vs japanese life expectancy, 1995",
            "SELECT country, life_expectancy FROM indicators WHERE country IN ('Japan', 'Nigeria') AND year = 1995",
        ),
        (
            "region-by-region tally of countries",
            "SELECT region, count(*) FROM countries GROUP BY region",
        ),
        (
            "headcount of all South Asian nations together, 2010",
            "SELECT sum(i.population) FROM indicators i JOIN countries c ON c.name = i.country "
            "WHERE c.region = 'South Asia' AND i.year = 2010",
        ),
    ],
    "flights": [
        (
            "count of routes departing JFK",
            "SELECT count(*) FROM routes WHERE Source = 'JFK'",
        ),
        (
            "how many airports do Chicago and Houston each have",
            "SELECT City, count(*) FROM airports WHERE City IN ('Chicago', 'Houston') GROUP BY City",
        ),
        (
            "Which city sees the most outbound routes?",
            "SELECT a.City FROM routes r JOIN airports a ON r.Source = a.IATA GROUP BY a.City "
            "ORDER BY count(*) DESC LIMIT 1",
        ),
    ],
    "store": [
        (
            "Furniture profit broken down per sub-category",
            "SELECT o.sub_category, sum(o.profit) FROM orders o JOIN sub_categories s "
            "ON o.sub_category = s.sub_category WHERE s.category = 'Furniture' GROUP BY o.sub_category",
        ),
        (
            "California versus Texas revenue, summed",
            "SELECT state, sum(sales) FROM orders WHERE state IN ('Texas', 'California') GROUP BY state",
        ),
        (
            "What percentage of order lines were shipped Same Day?",
            "SELECT 100.0 * sum(ship_mode = 'Same Day') / count(*) FROM orders",
        ),
    ],
    "cars": [
        (
            "fuel economy (mpg) for Europe-built and Asia-built autos, averaged",
            "SELECT o.name, avg(c.mpg) FROM cars c JOIN origins o ON c.origin = o.origin "
            "WHERE o.name IN ('Europe', 'Asia') GROUP BY o.name",
        ),
        (
            "How many 4-cyl models are from model year 80?",
            "SELECT count(*) FROM cars WHERE cyl = 4 AND yr = 80",
        ),
        (
            "heaviest car in the data set?",
            "SELECT name FROM cars ORDER BY weight DESC LIMIT 1",
        ),
    ],
    "counties": [
        (
            "number of counties in TX",
            "SELECT count(*) FROM counties WHERE state = 'TX'",
        ),
        (
            "Average jobless rate across Ohio counties",
            "SELECT avg(u.rate) FROM unemployment u JOIN counties c ON u.fips = c.fips WHERE c.state = 'OH'",
        ),
        (
            "county count for every region",
            "SELECT s.region, count(*) FROM counties c JOIN states s ON c.state = s.code GROUP BY s.region",
        ),
    ],
    "olympics": [
        (
            "Norwegian gold haul in the 2014 tally?",
            f"SELECT s.gold {TALLY} WHERE l.cntry_nm = 'Norway'",
        ),
        (
            "Jamaican 100m medal count, all years",
            "SELECT count(*) FROM m100_medalists WHERE noc = 'JAM'",
        ),
        (
            "Silver and bronze totals for Canada and Germany in 2014",
            f"SELECT l.cntry_nm, s.silver, s.bronze {TALLY} WHERE l.cntry_nm IN ('Canada', 'Germany')",
        ),
    ],
    "elements": [
        (
            "count the noble gas elements",
            "SELECT count(*) FROM elem e JOIN elem_cat c ON e.cat_cd = c.cat_cd WHERE c.cat_nm = 'noble gas'",
        ),
        (
            "boiling points (K) of iron, copper, zinc",
            f"SELECT e.name, p.bp_k {ELEM_PHYS} WHERE e.name IN ('Iron', 'Copper', 'Zinc')",
        ),
        (
            "which element has the greatest density",
            f"SELECT e.name {ELEM_PHYS} WHERE p.dens IS NOT NULL ORDER BY p.dens DESC LIMIT 1",
        ),
    ],
}

HELDOUT10_UNANSWERABLE = [
    ("chinook", "How many songs by Taylor Swift are in the store?"),
    ("chinook", "per-album mean of customer review stars"),
    ("tpch", "Which supplier will ship late most often next quarter?"),
    ("tpch", "CO2 emitted by each shipmode, in tonnes"),
    ("movies", "what's a good film to watch this weekend with my kids"),
    ("movies", "Wes Montgomery as director: number of titles?"),
    ("world", "french lifespan back in 1925"),
    ("world", "GDP per head of Chile in 2005"),
    ("flights", "fare LAX->ORD on average?"),
    ("flights", "Any airports listed in Bhutan? give the number"),
    ("store", "top spender among our buyers by name"),
    ("store", "predict Florida sales for next year"),
    ("cars", "NHTSA crash-test stars of the safest model"),
    ("cars", "what would a ford pinto cost in today's dollars"),
    ("counties", "Cook County jobless % for 1995"),
    ("counties", "Orange County CA typical household earnings"),
    ("olympics", "kenyan medal total, winter 2014"),
    ("olympics", "forecast the leading nation of the upcoming Winter Olympics"),
    ("elements", "which element is the smartest investment right now"),
]

ABSENT_CHECKS = [
    ("chinook", "SELECT count(*) FROM Artist WHERE Name ILIKE '%taylor swift%'"),
    ("movies", "SELECT count(*) FROM omdb WHERE Director LIKE '%Wes Montgomery%'"),
    ("world", "SELECT count(*) FROM indicators WHERE year = 1925"),
    ("flights", "SELECT count(*) FROM airports WHERE Country = 'Bhutan' OR City LIKE '%Bhutan%'"),
    ("counties", "SELECT count(*) FROM unemployment WHERE year = 1995"),
    ("olympics", "SELECT count(*) FROM lkp_cntry WHERE cntry_nm = 'Kenya' OR cntry_cd = 'KEN'"),
]
