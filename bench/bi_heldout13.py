"""Held-out set #13 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `titanic` one included (passengers and their travel
classes, joined by an undeclared key whose names differ: `passengers.pclass`, `travel_classes.class_cd`).

Written new and committed before any model run on them: 30 answerable (two or three per database, four on
titanic), worded as users write (terse, chatty, lower case, a typo or two, everyday words for what the columns
hold, the columns' own abbreviations, demonyms, several named values in a third of them, counts over undeclared
joins, one share, one year range), and 18 unanswerable of varied kinds (values the data lacks, checked absent by
`ABSENT_CHECKS`; plausible fields it lacks; opinions and advice; the future; facts from outside; years outside the
data). Every gold query is executed and returns rows (`python bench/bi_nokeys.py --check --set heldout13`); the
top-1 golds were checked for ties. Run once, on two codes side by side.
"""

from __future__ import annotations

ARTIST = "FROM Track t JOIN Album al ON t.AlbumId = al.AlbumId JOIN Artist ar ON al.ArtistId = ar.ArtistId"
PAX = "FROM passengers p JOIN travel_classes c ON p.pclass = c.class_cd"
CATS = "FROM elem e JOIN elem_cat k ON e.cat_cd = k.cat_cd"

HELDOUT13_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "how many songs do Metallica and Iron Maiden have between them",
            f"SELECT count(*) {ARTIST} WHERE ar.Name IN ('Metallica', 'Iron Maiden')",
        ),
        (
            "Name the employee who is the support contact for the largest number of customers",
            "SELECT e.FirstName, e.LastName FROM Employee e JOIN Customer c ON c.SupportRepId = e.EmployeeId "
            "GROUP BY e.EmployeeId, e.FirstName, e.LastName ORDER BY count(*) DESC LIMIT 1",
        ),
        (
            "Total invoiced to clients from Canada, and separately to those from France?",
            "SELECT c.Country, sum(i.Total) FROM Customer c JOIN Invoice i ON i.CustomerId = c.CustomerId "
            "WHERE c.Country IN ('Canada', 'France') GROUP BY c.Country",
        ),
    ],
    "tpch": [
        (
            "suppliers based in germany or france - how many?",
            "SELECT count(*) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey "
            "WHERE n.n_name IN ('GERMANY', 'FRANCE')",
        ),
        (
            "Count of urgent-priority orders for each year from 1993 through 1995",
            "SELECT year(o_orderdate), count(*) FROM orders WHERE o_orderpriority = '1-URGENT' "
            "AND year(o_orderdate) BETWEEN 1993 AND 1995 GROUP BY 1",
        ),
        (
            "In the ASIA region, what market segment has the largest number of customers?",
            "SELECT c.c_mktsegment FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey "
            "JOIN region r ON n.n_regionkey = r.r_regionkey WHERE r.r_name = 'ASIA' "
            "GROUP BY c.c_mktsegment ORDER BY count(*) DESC LIMIT 1",
        ),
    ],
    "movies": [
        (
            "avg tomatometer of the films Christopher Nolan directed?",
            "SELECT avg(t.Meter) FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Director = 'Christopher Nolan'",
        ),
        (
            "How many R-rated pictures won at least one Oscar?",
            "SELECT count(*) FROM omdb WHERE Rating = 'R' AND Oscars > 0",
        ),
    ],
    "world": [
        (
            "average life expectancy in 2000 for each world region",
            "SELECT c.region, avg(i.life_expectancy) FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE i.year = 2000 GROUP BY c.region",
        ),
        (
            "Which South Asian country had the most inhabitants in 1970?",
            "SELECT i.country FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE c.region = 'South Asia' AND i.year = 1970 ORDER BY i.population DESC LIMIT 1",
        ),
        (
            "babies per woman in Japan, Italy and Nigeria back in 1990?",
            "SELECT country, fertility FROM indicators WHERE country IN ('Japan', 'Italy', 'Nigeria') AND year = 1990",
        ),
    ],
    "flights": [
        (
            "Denver airports: number of outbound routes?",
            "SELECT count(*) FROM routes r JOIN airports a ON r.SourceID = a.AirportID WHERE a.City = 'Denver'",
        ),
        (
            "number of distinct airlines flying out of ORD",
            "SELECT count(DISTINCT Airline) FROM routes WHERE Source = 'ORD'",
        ),
    ],
    "store": [
        (
            "how much did we make in profit, broken down by region of the country",
            "SELECT s.region, sum(o.profit) FROM orders o JOIN states s ON o.state = s.state GROUP BY s.region",
        ),
        (
            "furniture revenue in Texas and in California, by state",
            "SELECT o.state, sum(o.sales) FROM orders o JOIN sub_categories c ON o.sub_category = c.sub_category "
            "WHERE c.category = 'Furniture' AND o.state IN ('Texas', 'California') GROUP BY o.state",
        ),
        (
            "For home office buyers, which shiping option gets picked most often?",
            "SELECT ship_mode FROM orders WHERE segment = 'Home Office' GROUP BY ship_mode ORDER BY count(*) DESC LIMIT 1",
        ),
    ],
    "cars": [
        (
            "average miles per gallon of Asian cars versus European ones",
            "SELECT g.name, avg(c.mpg) FROM cars c JOIN origins g ON c.origin = g.origin "
            "WHERE g.name IN ('Asia', 'Europe') GROUP BY g.name",
        ),
        (
            "count the four-cylinder Fords in the list",
            "SELECT count(*) FROM cars WHERE mfr = 'ford' AND cyl = 4",
        ),
    ],
    "counties": [
        (
            "Oregon's county with the highest 2009 unemployment %",
            "SELECT c.name FROM counties c JOIN unemployment u ON c.fips = u.fips JOIN states s ON c.state = s.code "
            "WHERE s.name = 'Oregon' AND u.year = 2009 ORDER BY u.rate DESC LIMIT 1",
        ),
        (
            "For every state in the Northeast region, its number of counties",
            "SELECT s.name, count(*) FROM counties c JOIN states s ON c.state = s.code "
            "WHERE s.region = 'Northeast' GROUP BY s.name",
        ),
    ],
    "olympics": [
        (
            "norway v canada sochi gold medal count",
            "SELECT l.cntry_nm, t.gold FROM sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd "
            "WHERE l.cntry_nm IN ('Norway', 'Canada')",
        ),
        (
            "Jamaica's tally of men's 100 metre medals across all Games?",
            "SELECT count(*) FROM m100_medalists WHERE noc = 'JAM'",
        ),
    ],
    "elements": [
        (
            "how many of the noble gases are a gas at room temperature?",
            f"SELECT count(*) {CATS} JOIN phys_props p ON e.sym = p.sym WHERE k.cat_nm = 'noble gas' "
            "AND p.std_state = 'gas'",
        ),
        (
            "whats the densest transition metal",
            f"SELECT e.name {CATS} JOIN phys_props p ON e.sym = p.sym WHERE k.cat_nm = 'transition metal' "
            "ORDER BY p.dens DESC LIMIT 1",
        ),
    ],
    "penguins": [
        (
            "Mean body weight of Gentoo penguins, male and female separately",
            "SELECT o.sex, avg(o.body_mass_g) FROM penguin_obs o JOIN species s ON o.species_id = s.id "
            "WHERE s.common_name = 'Gentoo' AND o.sex IS NOT NULL GROUP BY o.sex",
        ),
        (
            "how many birds were recorded on Dream island and how many on Biscoe",
            "SELECT i.isl_name, count(*) FROM penguin_obs o JOIN islands i ON o.isl_cd = i.isl_cd "
            "WHERE i.isl_name IN ('Dream', 'Biscoe') GROUP BY i.isl_name",
        ),
    ],
    "titanic": [
        (
            "How many survivors were there in First class, Second class and Third class?",
            f"SELECT c.class_desc, sum(p.survived) {PAX} "
            "WHERE c.class_desc IN ('First class', 'Second class', 'Third class') GROUP BY c.class_desc",
        ),
        (
            "what fraction of the women on board survived?",
            "SELECT avg(survived) FROM passengers WHERE sex = 'female'",
        ),
        (
            "average age of third-class passengers",
            f"SELECT avg(p.age) {PAX} WHERE c.class_desc = 'Third class'",
        ),
        (
            "how many children under 10 were travelling 2nd class?",
            "SELECT count(*) FROM passengers WHERE pclass = '2nd' AND age < 10",
        ),
    ],
}

HELDOUT13_UNANSWERABLE: list[tuple[str, str]] = [
    ("chinook", "do we stock anything at all by adele"),  # absent: ABSENT_CHECKS
    ("tpch", "mean shipped weight in kg per lineitem"),  # no weight stored
    ("movies", "biggest production budget of any picture"),  # box office yes, budget no
    ("world", "Projected Brazilian population for 2040"),  # the future
    ("world", "Kenya literacy rate 1990"),  # no literacy stored
    ("flights", "cheapest airline on LAX-JFK?"),  # no fares
    ("store", "orders delivered to Alaska - count"),  # absent: ABSENT_CHECKS
    ("cars", "which of these cars would be the best buy for a family of five?"),  # advice
    ("counties", "King County WA: what share of workers were out of work in 2012?"),  # only 2009 stored
    ("olympics", "1996 Atlanta games, women's 100m winner"),  # the men's medallists only
    ("elements", "what's the price of a kilo of gold right now?"),  # outside facts
    ("penguins", "Macaroni penguins: how many got weighed?"),  # absent: ABSENT_CHECKS
    ("titanic", "which cabin was the captain staying in?"),  # no cabin stored (one passenger is titled Captain)
    ("titanic", "How many passengers boarded at Queenstown?"),  # no port of embarkation
    ("chinook", "Should we put the prices of our rock tracks up?"),  # advice
    ("tpch", "Who'll be our biggest parts supplier next year?"),  # the future
    ("world", "who was president of France in 1985"),  # outside facts
    ("cars", "For 1991 models, what fuel economy did they get on average?"),  # model years 1970-1982 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("chinook", "SELECT count(*) FROM Artist WHERE Name ILIKE '%adele%'"),
    ("store", "SELECT count(*) FROM orders WHERE state = 'Alaska' OR city = 'Alaska'"),
    ("penguins", "SELECT count(*) FROM species WHERE common_name LIKE '%macaroni%' OR sci_name LIKE '%chrysolophus%'"),
    ("counties", "SELECT count(*) FROM unemployment WHERE year <> 2009"),
    ("world", "SELECT count(*) FROM indicators WHERE year > 2013"),
    ("cars", "SELECT count(*) FROM cars WHERE yr IN (91, 1991)"),
    ("chinook", "SELECT count(*) FROM Track WHERE Composer ILIKE '%adele%'"),
]
