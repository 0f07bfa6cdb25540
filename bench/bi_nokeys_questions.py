"""The no-key development set of bench/bi_nokeys.py: questions over four SQLite databases that declare no
keys (bench/bi_nokeys_data.py), each with gold SQL (SQLite) or None where the data cannot answer.

Written and committed before any change to the agent for them and before any model run on them; every gold
query was executed (`python bench/bi_nokeys.py --check`). It is DEVELOPMENT data: the agent's join
discovery, declines and drafted layer are tuned on it, so a score on it is a development score. It is kept
apart from the Chinook / TPC-H sets of bench/bi_questions.py. Phrasing is a user's, with the words issue 20
listed as wrongly declined ("ratio", "written", "Calculate", "duration", state / city / year / name / count)
in answerable questions; unanswerable ones ask for measures, attributes or entities the data lacks, external
facts and the future.
"""

MOVIES = [
    ("How many movies are there?", "SELECT count(*) FROM omdb"),
    ("How many movies were released in 1995?", "SELECT count(*) FROM omdb WHERE Year = 1995"),
    ("What is the average runtime of movies from 2010?", "SELECT avg(Runtime) FROM omdb WHERE Year = 2010"),
    (
        "Which director has the most movies?",
        "SELECT Director FROM omdb WHERE Director <> '' GROUP BY Director ORDER BY count(*) DESC LIMIT 1",
    ),
    ("How many movies did Woody Allen direct?", "SELECT count(*) FROM omdb WHERE Director = 'Woody Allen'"),
    ("How many movies are in French?", "SELECT count(*) FROM omdb WHERE Language = 'French'"),
    ("Which movie won the most Oscars?", "SELECT Title FROM omdb ORDER BY Oscars DESC LIMIT 1"),
    (
        "What is the total box office of movies released in 2009?",
        "SELECT sum(t.BoxOffice) FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Year = 2009",
    ),
    (
        "Which production company made the most movies?",
        "SELECT Production FROM tomatoes WHERE Production IS NOT NULL GROUP BY Production ORDER BY count(*) DESC LIMIT 1",
    ),
    (
        "Calculate the ratio of fresh reviews to rotten reviews over all movies.",
        "SELECT sum(Fresh) * 1.0 / sum(Rotten) FROM tomatoes",
    ),
    (
        "What is the average number of critic reviews for movies from 1999?",
        "SELECT avg(t.Reviews) FROM tomatoes t JOIN omdb o ON o.ID = t.ID WHERE o.Year = 1999",
    ),
    ("How many movies rated PG-13 are there?", "SELECT count(*) FROM omdb WHERE Rating = 'PG-13'"),
    (
        "What is the highest box office of a movie directed by Steven Spielberg?",
        "SELECT max(t.BoxOffice) FROM tomatoes t JOIN omdb o ON o.ID = t.ID WHERE o.Director = 'Steven Spielberg'",
    ),
    ("How many movies were written by Woody Allen?", "SELECT count(*) FROM omdb WHERE Writer = 'Woody Allen'"),
]
WORLD = [
    ("How many countries are there?", "SELECT count(*) FROM countries"),
    (
        "What was the population of India in 2000?",
        "SELECT population FROM indicators WHERE country = 'India' AND year = 2000",
    ),
    (
        "What was the life expectancy in Japan in 2010?",
        "SELECT life_expectancy FROM indicators WHERE country = 'Japan' AND year = 2010",
    ),
    (
        "Which region has the most countries?",
        "SELECT region FROM countries GROUP BY region ORDER BY count(*) DESC LIMIT 1",
    ),
    (
        "How many countries are in Sub-Saharan Africa?",
        "SELECT count(*) FROM countries WHERE region = 'Sub-Saharan Africa'",
    ),
    ("What is the country code of Brazil?", "SELECT code FROM countries WHERE name = 'Brazil'"),
    (
        "Which country had the highest fertility in 1970?",
        "SELECT country FROM indicators WHERE year = 1970 ORDER BY fertility DESC LIMIT 1",
    ),
    (
        "What was the total population of South Asia in 2010?",
        "SELECT sum(i.population) FROM indicators i JOIN countries c ON i.country = c.name "
        "WHERE c.region = 'South Asia' AND i.year = 2010",
    ),
    (
        "What was the average life expectancy per region in 2000?",
        "SELECT c.region, avg(i.life_expectancy) FROM indicators i JOIN countries c ON i.country = c.name "
        "WHERE i.year = 2000 GROUP BY c.region",
    ),
    (
        "What was the average fertility in Europe & Central Asia in 1990?",
        "SELECT avg(i.fertility) FROM indicators i JOIN countries c ON i.country = c.name "
        "WHERE c.region = 'Europe & Central Asia' AND i.year = 1990",
    ),
    ("Which years does the data cover?", "SELECT DISTINCT year FROM indicators"),
    (
        "How many countries had a life expectancy above 80 in 2013?",
        "SELECT count(*) FROM indicators WHERE year = 2013 AND life_expectancy > 80",
    ),
    (
        "List the names of the countries in the Middle East & North Africa region.",
        "SELECT name FROM countries WHERE region = 'Middle East & North Africa'",
    ),
    (
        "What was the population of Germany in 1990 and in 2010?",
        "SELECT year, population FROM indicators WHERE country = 'Germany' AND year IN (1990, 2010)",
    ),
]
FLIGHTS = [
    ("How many airports are there?", "SELECT count(*) FROM airports"),
    ("How many routes are there?", "SELECT count(*) FROM routes"),
    ("How many routes does airline WN fly?", "SELECT count(*) FROM routes WHERE Airline = 'WN'"),
    (
        "Which airline has the most routes?",
        "SELECT Airline FROM routes GROUP BY Airline ORDER BY count(*) DESC LIMIT 1",
    ),
    ("How many airports are in Denver?", "SELECT count(*) FROM airports WHERE City = 'Denver'"),
    ("What is the name of the airport with code BOS?", "SELECT Name FROM airports WHERE IATA = 'BOS'"),
    ("How many large airports are there?", "SELECT count(*) FROM airports WHERE Type = 'large_airport'"),
    ("Which airport has the highest altitude?", "SELECT Name FROM airports ORDER BY Altitude DESC LIMIT 1"),
    ("How many routes leave from ORD?", "SELECT count(*) FROM routes WHERE Source = 'ORD'"),
    ("How many airports are in Puerto Rico?", "SELECT count(*) FROM airports WHERE Country = 'Puerto Rico'"),
    (
        "How many routes depart from airports in the city of Chicago?",
        "SELECT count(*) FROM routes r JOIN airports a ON r.SourceID = a.AirportID WHERE a.City = 'Chicago'",
    ),
    (
        "How many routes have their destination in Seattle?",
        "SELECT count(*) FROM routes r JOIN airports a ON r.DestinationID = a.AirportID WHERE a.City = 'Seattle'",
    ),
    (
        "How many distinct destinations can you fly to from DEN?",
        "SELECT count(DISTINCT Destination) FROM routes WHERE Source = 'DEN'",
    ),
    ("Which cities have three airports?", "SELECT City FROM airports GROUP BY City HAVING count(*) = 3"),
]
STORE = [
    ("What are the total sales?", "SELECT sum(sales) FROM orders"),
    ("What is the total profit per ship mode?", "SELECT ship_mode, sum(profit) FROM orders GROUP BY ship_mode"),
    ("How many orders were shipped Same Day?", "SELECT count(*) FROM orders WHERE ship_mode = 'Same Day'"),
    ("Which state has the highest sales?", "SELECT state FROM orders GROUP BY state ORDER BY sum(sales) DESC LIMIT 1"),
    ("What are the total sales in the city of Seattle?", "SELECT sum(sales) FROM orders WHERE city = 'Seattle'"),
    (
        "What is the average discount for the Corporate segment?",
        "SELECT avg(discount) FROM orders WHERE segment = 'Corporate'",
    ),
    ("How many sub-categories are there?", "SELECT count(*) FROM sub_categories"),
    (
        "What are the total sales per region?",
        "SELECT s.region, sum(o.sales) FROM orders o JOIN states s ON o.state = s.state GROUP BY s.region",
    ),
    (
        "What is the total profit of the Technology category?",
        "SELECT sum(o.profit) FROM orders o JOIN sub_categories c ON o.sub_category = c.sub_category "
        "WHERE c.category = 'Technology'",
    ),
    (
        "How many orders came from the West region?",
        "SELECT count(*) FROM orders o JOIN states s ON o.state = s.state WHERE s.region = 'West'",
    ),
    (
        "Which category has the highest total sales?",
        "SELECT c.category FROM orders o JOIN sub_categories c ON o.sub_category = c.sub_category "
        "GROUP BY c.category ORDER BY sum(o.sales) DESC LIMIT 1",
    ),
    ("What is the total quantity of Chairs sold?", "SELECT sum(quantity) FROM orders WHERE sub_category = 'Chairs'"),
    ("How many states are in the South region?", "SELECT count(*) FROM states WHERE region = 'South'"),
    ("What is the total profit in Texas?", "SELECT sum(profit) FROM orders WHERE state = 'Texas'"),
]
UNANSWERABLE = [
    ("movies", "What was the production budget of Titanic?"),
    ("movies", "How many tickets were sold for Avatar?"),
    ("movies", "What is the average age of the directors?"),
    ("movies", "How many movies will be released next year?"),
    ("world", "What was the GDP of France in 2000?"),
    ("world", "What is the literacy rate in India?"),
    ("world", "What is the capital city of Brazil?"),
    ("world", "Which country had the highest unemployment rate in 2010?"),
    ("flights", "What is the average ticket price from ABQ to DFW?"),
    ("flights", "How many passengers flew from JFK?"),
    ("flights", "Which airline has the most delayed flights?"),
    ("flights", "What is the flight duration from ORD to DEN?"),
    ("store", "Which customer bought the most?"),
    ("store", "What is the shipping cost of orders in Texas?"),
    ("store", "How many orders were returned?"),
    ("store", "What is the sales target for the West region?"),
]
ANSWERABLE = {"movies": MOVIES, "world": WORLD, "flights": FLIGHTS, "store": STORE}
