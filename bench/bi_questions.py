"""The questions of bench/bi.py: a development set and a held-out set, each with gold SQL over the shipped
Chinook and TPC-H (scale 0.01) DuckDB databases, or None where the data cannot answer.

DEV: the 70 questions of runs A and B (2026-11-22). Their failures were read and the agent was changed after
them, so a score on DEV is a development score, not an estimate of accuracy on new questions.

HELDOUT (held-out set #1, now DEVELOPMENT data): 65 questions (53 answerable, 12 unanswerable) written on
2026-11-22 before the first tuning round and run once at e282095. Its failures were then read for the second
round (declines), so from that round on it is development data like DEV; the key "heldout" is kept so the
first round's results file still names it.

HELDOUT2 (held-out set #2): 36 questions (18 answerable, 18 unanswerable of varied kinds: measures the data
lacks, entities and attributes not in the schema, external facts, future events, personal data not stored),
written and committed before the second round changed the agent and before any model run on them. Every
gold query was executed on the shipped databases. Run once, at the end of the second round.

HELDOUT3 (held-out set #3): 36 questions (18 answerable, 18 unanswerable: data the database lacks, the future,
opinions, a field that sounds plausible but is absent, a value that is absent), worded the way users ask
("show me", "how much did we", "songs"), written and committed before the fifth round changed the agent and
before any model run on them. Every gold query was executed on the shipped databases (`--check`).

HELDOUT4 (held-out set #4): 35 questions over Chinook, TPC-H AND the four no-key SQLite databases of
bench/bi_nokeys_data.py (14 answerable, two per database plus two more, 21 unanswerable: values the data does
not hold, opinions, plausible fields the data lacks, the future, facts from outside), worded as users ask,
written and committed before the sixth round changed the agent and before any run on them. Gold SQL is
DuckDB for chinook / tpch and SQLite for the no-key databases, every query executed (`bench/bi_nokeys.py
--check`). Its layout is the no-key set's (answerable questions per database), read by bench/bi_nokeys.py.
Run once (round 6); two of its unanswerable questions are flaws found after the run and left as written: the
world data has Taiwan's rows, and the store data has a city named Ontario.
"""

AC_DC = "JOIN Album al ON t.AlbumId = al.AlbumId JOIN Artist ar ON al.ArtistId = ar.ArtistId"
LATE = "l_receiptdate > l_commitdate"
DEV_CHINOOK = [
    ("How many tracks does AC/DC have?", f"SELECT count(*) FROM Track t {AC_DC} WHERE ar.Name = 'AC/DC'"),
    ("How many artists are there?", "SELECT count(*) FROM Artist"),
    ("How many albums are there?", "SELECT count(*) FROM Album"),
    ("List the names of all genres.", "SELECT Name FROM Genre"),
    ("How many customers live in Brazil?", "SELECT count(*) FROM Customer WHERE Country = 'Brazil'"),
    ("What are the names of the media types?", "SELECT Name FROM MediaType"),
    (
        "Which genre has the most tracks?",
        "SELECT g.Name FROM Genre g JOIN Track t ON t.GenreId = g.GenreId GROUP BY g.Name ORDER BY count(*) DESC LIMIT 1",
    ),
    ("What is the total amount of all invoices?", "SELECT sum(Total) FROM Invoice"),
    ("How many invoices were billed to Germany?", "SELECT count(*) FROM Invoice WHERE BillingCountry = 'Germany'"),
    (
        "List the titles of the albums by Led Zeppelin.",
        "SELECT al.Title FROM Album al JOIN Artist ar ON al.ArtistId = ar.ArtistId WHERE ar.Name = 'Led Zeppelin'",
    ),
    ("What is the average track length in milliseconds?", "SELECT avg(Milliseconds) FROM Track"),
    (
        "Which country has the most customers?",
        "SELECT Country FROM Customer GROUP BY Country ORDER BY count(*) DESC LIMIT 1",
    ),
    ("How many employees are there?", "SELECT count(*) FROM Employee"),
    ("What is the name of the longest track?", "SELECT Name FROM Track ORDER BY Milliseconds DESC LIMIT 1"),
    (
        "How many tracks are in the Rock genre?",
        "SELECT count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE g.Name = 'Rock'",
    ),
    (
        "What is the total invoice amount per billing country?",
        "SELECT BillingCountry, sum(Total) FROM Invoice GROUP BY BillingCountry",
    ),
    ("How many playlists are there?", "SELECT count(*) FROM Playlist"),
    ("How many tracks cost more than 0.99?", "SELECT count(*) FROM Track WHERE UnitPrice > 0.99"),
    ("What is the highest invoice total?", "SELECT max(Total) FROM Invoice"),
    ("How many tracks does Queen have?", f"SELECT count(*) FROM Track t {AC_DC} WHERE ar.Name = 'Queen'"),
    ("How many invoices were issued in 2023?", "SELECT count(*) FROM Invoice WHERE year(InvoiceDate) = 2023"),
    ("What is the total quantity of tracks sold?", "SELECT sum(Quantity) FROM InvoiceLine"),
    (
        "Which artist has the most albums?",
        "SELECT ar.Name FROM Artist ar JOIN Album al ON al.ArtistId = ar.ArtistId GROUP BY ar.Name "
        "ORDER BY count(*) DESC LIMIT 1",
    ),
    (
        "How many albums does Iron Maiden have?",
        "SELECT count(*) FROM Album al JOIN Artist ar ON al.ArtistId = ar.ArtistId WHERE ar.Name = 'Iron Maiden'",
    ),
    (
        "What is the average invoice total per customer country?",
        "SELECT c.Country, avg(i.Total) FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId GROUP BY c.Country",
    ),
    (
        "How many customers does Jane Peacock support?",
        "SELECT count(*) FROM Customer c JOIN Employee e ON c.SupportRepId = e.EmployeeId "
        "WHERE e.FirstName = 'Jane' AND e.LastName = 'Peacock'",
    ),
    (
        "How many tracks are on the playlist Grunge?",
        "SELECT count(*) FROM PlaylistTrack pt JOIN Playlist p ON pt.PlaylistId = p.PlaylistId WHERE p.Name = 'Grunge'",
    ),
    ("How many tracks have no composer?", "SELECT count(*) FROM Track WHERE Composer IS NULL"),
    (
        "What is the total invoice amount from customers in the USA?",
        "SELECT sum(i.Total) FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId WHERE c.Country = 'USA'",
    ),
    ("In how many distinct cities do customers live?", "SELECT count(DISTINCT City) FROM Customer"),
    ("How many tracks are longer than 5 minutes?", "SELECT count(*) FROM Track WHERE Milliseconds > 300000"),
    (
        "How many albums have more than 20 tracks?",
        "SELECT count(*) FROM (SELECT AlbumId FROM Track GROUP BY AlbumId HAVING count(*) > 20)",
    ),
    ("What are the first names of customers from Canada?", "SELECT FirstName FROM Customer WHERE Country = 'Canada'"),
    (
        "How many tracks are in the Jazz genre?",
        "SELECT count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE g.Name = 'Jazz'",
    ),
]
DEV_TPCH = [
    ("How many orders were placed in 1995?", "SELECT count(*) FROM orders WHERE year(o_orderdate) = 1995"),
    (
        "How many customers are in the BUILDING market segment?",
        "SELECT count(*) FROM customer WHERE c_mktsegment = 'BUILDING'",
    ),
    (
        "How many nations are in the region EUROPE?",
        "SELECT count(*) FROM nation n JOIN region r ON n.n_regionkey = r.r_regionkey WHERE r.r_name = 'EUROPE'",
    ),
    (
        "List the names of the nations in ASIA.",
        "SELECT n_name FROM nation n JOIN region r ON n.n_regionkey = r.r_regionkey WHERE r.r_name = 'ASIA'",
    ),
    ("How many suppliers are there?", "SELECT count(*) FROM supplier"),
    ("What is the average account balance of customers?", "SELECT avg(c_acctbal) FROM customer"),
    ("How many line items were shipped by AIR?", "SELECT count(*) FROM lineitem WHERE l_shipmode = 'AIR'"),
    ("How many shipments arrived after their commit date?", f"SELECT count(*) FROM lineitem WHERE {LATE}"),
    (
        "What is the average delay in days per ship mode?",
        "SELECT l_shipmode, avg(l_receiptdate - l_commitdate) FROM lineitem GROUP BY l_shipmode",
    ),
    ("How many orders have order status F?", "SELECT count(*) FROM orders WHERE o_orderstatus = 'F'"),
    (
        "What was the total revenue (price after discount) of lines shipped in 1994?",
        "SELECT sum(l_extendedprice * (1 - l_discount)) FROM lineitem WHERE year(l_shipdate) = 1994",
    ),
    (
        "How many customers are from GERMANY?",
        "SELECT count(*) FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey WHERE n.n_name = 'GERMANY'",
    ),
    (
        "Which ship mode is used most often?",
        "SELECT l_shipmode FROM lineitem GROUP BY l_shipmode ORDER BY count(*) DESC LIMIT 1",
    ),
    ("How many orders have priority 1-URGENT?", "SELECT count(*) FROM orders WHERE o_orderpriority = '1-URGENT'"),
    (
        "What is the total price of all orders of Customer#000000001?",
        "SELECT sum(o_totalprice) FROM orders o JOIN customer c ON o.o_custkey = c.c_custkey "
        "WHERE c.c_name = 'Customer#000000001'",
    ),
    ("How many parts are of brand Brand#13?", "SELECT count(*) FROM part WHERE p_brand = 'Brand#13'"),
    ("How many line items have return flag R?", "SELECT count(*) FROM lineitem WHERE l_returnflag = 'R'"),
    (
        "How many orders are there per order priority?",
        "SELECT o_orderpriority, count(*) FROM orders GROUP BY o_orderpriority",
    ),
    (
        "Which region has the most customers?",
        "SELECT r.r_name FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey JOIN region r "
        "ON n.n_regionkey = r.r_regionkey GROUP BY r.r_name ORDER BY count(*) DESC LIMIT 1",
    ),
    ("What is the average quantity per line item?", "SELECT avg(l_quantity) FROM lineitem"),
    (
        "How many line items were shipped to customers in JAPAN in 1996?",
        "SELECT count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey JOIN customer c "
        "ON o.o_custkey = c.c_custkey JOIN nation n ON c.c_nationkey = n.n_nationkey "
        "WHERE n.n_name = 'JAPAN' AND year(l.l_shipdate) = 1996",
    ),
    ("What is the highest order total price?", "SELECT max(o_totalprice) FROM orders"),
    ("How many distinct part types are there?", "SELECT count(DISTINCT p_type) FROM part"),
    (
        "How many suppliers are in CANADA?",
        "SELECT count(*) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey WHERE n.n_name = 'CANADA'",
    ),
    ("What is the total available quantity of parts in stock?", "SELECT sum(ps_availqty) FROM partsupp"),
    (
        "How many orders were placed by customers in the AUTOMOBILE segment?",
        "SELECT count(*) FROM orders o JOIN customer c ON o.o_custkey = c.c_custkey WHERE c.c_mktsegment = 'AUTOMOBILE'",
    ),
]
DEV_UNANSWERABLE = [
    ("chinook", "What is the average customer rating of each album?"),
    ("tpch", "What is the carbon footprint of each ship mode?"),
    ("chinook", "How many followers does AC/DC have on social media?"),
    ("tpch", "How many employees does each supplier have?"),
    ("chinook", "What was the weather in Oslo on the days invoices were issued?"),
    ("tpch", "What is the customer satisfaction score per nation?"),
    ("chinook", "Which employee has the highest salary?"),
    ("tpch", "Which port did the shipments to GERMANY arrive at?"),
    ("chinook", "What is the profit margin of each genre?"),
    ("tpch", "What will the weather be tomorrow?"),
]


# Held-out set #1: written before the first round's tuning; development data since the second round.
ALBUM_ARTIST = "JOIN Artist ar ON al.ArtistId = ar.ArtistId"
HELDOUT_CHINOOK = [
    ("How many genres are there?", "SELECT count(*) FROM Genre"),
    ("How many customers are there?", "SELECT count(*) FROM Customer"),
    (
        "How many albums does Metallica have?",
        f"SELECT count(*) FROM Album al {ALBUM_ARTIST} WHERE ar.Name = 'Metallica'",
    ),
    ("How many tracks does Pearl Jam have?", f"SELECT count(*) FROM Track t {AC_DC} WHERE ar.Name = 'Pearl Jam'"),
    (
        "List the titles of the albums by Audioslave.",
        f"SELECT al.Title FROM Album al {ALBUM_ARTIST} WHERE ar.Name = 'Audioslave'",
    ),
    ("How many customers live in Germany?", "SELECT count(*) FROM Customer WHERE Country = 'Germany'"),
    ("How many invoices were billed to Canada?", "SELECT count(*) FROM Invoice WHERE BillingCountry = 'Canada'"),
    ("What is the average invoice total?", "SELECT avg(Total) FROM Invoice"),
    ("What is the lowest invoice total?", "SELECT min(Total) FROM Invoice"),
    (
        "Which media type has the most tracks?",
        "SELECT m.Name FROM MediaType m JOIN Track t ON t.MediaTypeId = m.MediaTypeId GROUP BY m.Name ORDER BY count(*) DESC LIMIT 1",
    ),
    (
        "Which billing country has the highest total invoice amount?",
        "SELECT BillingCountry FROM Invoice GROUP BY BillingCountry ORDER BY sum(Total) DESC LIMIT 1",
    ),
    (
        "How many tracks are in the Blues genre?",
        "SELECT count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE g.Name = 'Blues'",
    ),
    ("What is the name of the shortest track?", "SELECT Name FROM Track ORDER BY Milliseconds ASC LIMIT 1"),
    (
        "How many tracks are on the playlist Brazilian Music?",
        "SELECT count(*) FROM PlaylistTrack pt JOIN Playlist p ON pt.PlaylistId = p.PlaylistId WHERE p.Name = 'Brazilian Music'",
    ),
    (
        "How many employees have the title Sales Support Agent?",
        "SELECT count(*) FROM Employee WHERE Title = 'Sales Support Agent'",
    ),
    ("How many invoice lines are there?", "SELECT count(*) FROM InvoiceLine"),
    ("How many tracks cost 1.99?", "SELECT count(*) FROM Track WHERE UnitPrice = 1.99"),
    ("What is the average unit price of tracks?", "SELECT avg(UnitPrice) FROM Track"),
    ("How many customers live in Paris?", "SELECT count(*) FROM Customer WHERE City = 'Paris'"),
    (
        "What is the total invoice amount per year?",
        "SELECT year(InvoiceDate), sum(Total) FROM Invoice GROUP BY year(InvoiceDate)",
    ),
    (
        "How many tracks are there per media type?",
        "SELECT m.Name, count(*) FROM Track t JOIN MediaType m ON t.MediaTypeId = m.MediaTypeId GROUP BY m.Name",
    ),
    ("How many invoices were issued in 2022?", "SELECT count(*) FROM Invoice WHERE year(InvoiceDate) = 2022"),
    (
        "How many artists have more than 5 albums?",
        "SELECT count(*) FROM (SELECT ArtistId FROM Album GROUP BY ArtistId HAVING count(*) > 5)",
    ),
    ("What is the total size in bytes of all tracks?", "SELECT sum(Bytes) FROM Track"),
    ("How many tracks were composed by Jimi Hendrix?", "SELECT count(*) FROM Track WHERE Composer = 'Jimi Hendrix'"),
    (
        "What is the total amount spent by customers from France?",
        "SELECT sum(i.Total) FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId WHERE c.Country = 'France'",
    ),
    ("How many distinct billing countries are there?", "SELECT count(DISTINCT BillingCountry) FROM Invoice"),
]
HELDOUT_TPCH = [
    ("How many orders were placed in 1997?", "SELECT count(*) FROM orders WHERE year(o_orderdate) = 1997"),
    (
        "How many customers are in the MACHINERY market segment?",
        "SELECT count(*) FROM customer WHERE c_mktsegment = 'MACHINERY'",
    ),
    (
        "How many nations are in the region AFRICA?",
        "SELECT count(*) FROM nation n JOIN region r ON n.n_regionkey = r.r_regionkey WHERE r.r_name = 'AFRICA'",
    ),
    (
        "List the names of the nations in EUROPE.",
        "SELECT n_name FROM nation n JOIN region r ON n.n_regionkey = r.r_regionkey WHERE r.r_name = 'EUROPE'",
    ),
    ("How many parts are there?", "SELECT count(*) FROM part"),
    ("What is the average account balance of suppliers?", "SELECT avg(s_acctbal) FROM supplier"),
    ("How many line items were shipped by TRUCK?", "SELECT count(*) FROM lineitem WHERE l_shipmode = 'TRUCK'"),
    (
        "How many line items were shipped by RAIL in 1995?",
        "SELECT count(*) FROM lineitem WHERE l_shipmode = 'RAIL' AND year(l_shipdate) = 1995",
    ),
    (
        "What is the average transit time in days per ship mode?",
        "SELECT l_shipmode, avg(l_receiptdate - l_shipdate) FROM lineitem GROUP BY l_shipmode",
    ),
    ("How many orders have order status O?", "SELECT count(*) FROM orders WHERE o_orderstatus = 'O'"),
    (
        "What is the total revenue per ship mode?",
        "SELECT l_shipmode, sum(l_extendedprice * (1 - l_discount)) FROM lineitem GROUP BY l_shipmode",
    ),
    (
        "How many suppliers are from FRANCE?",
        "SELECT count(*) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey WHERE n.n_name = 'FRANCE'",
    ),
    (
        "Which nation has the most suppliers?",
        "SELECT n.n_name FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey GROUP BY n.n_name "
        "ORDER BY count(*) DESC LIMIT 1",
    ),
    ("How many orders have priority 5-LOW?", "SELECT count(*) FROM orders WHERE o_orderpriority = '5-LOW'"),
    ("How many parts are made by Manufacturer#3?", "SELECT count(*) FROM part WHERE p_mfgr = 'Manufacturer#3'"),
    ("How many line items have line status O?", "SELECT count(*) FROM lineitem WHERE l_linestatus = 'O'"),
    (
        "How many customers are there per market segment?",
        "SELECT c_mktsegment, count(*) FROM customer GROUP BY c_mktsegment",
    ),
    (
        "Which region has the most suppliers?",
        "SELECT r.r_name FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey JOIN region r "
        "ON n.n_regionkey = r.r_regionkey GROUP BY r.r_name ORDER BY count(*) DESC LIMIT 1",
    ),
    ("What is the average discount of line items?", "SELECT avg(l_discount) FROM lineitem"),
    (
        "How many orders did customers in BRAZIL place in 1994?",
        "SELECT count(*) FROM orders o JOIN customer c ON o.o_custkey = c.c_custkey JOIN nation n "
        "ON c.c_nationkey = n.n_nationkey WHERE n.n_name = 'BRAZIL' AND year(o.o_orderdate) = 1994",
    ),
    ("What is the lowest retail price of a part?", "SELECT min(p_retailprice) FROM part"),
    ("How many distinct brands are there?", "SELECT count(DISTINCT p_brand) FROM part"),
    ("How many parts come in the container SM BOX?", "SELECT count(*) FROM part WHERE p_container = 'SM BOX'"),
    (
        "How many line items shipped by MAIL arrived after their commit date?",
        f"SELECT count(*) FROM lineitem WHERE l_shipmode = 'MAIL' AND {LATE}",
    ),
    (
        "What is the total value of the orders placed in 1993?",
        "SELECT sum(o_totalprice) FROM orders WHERE year(o_orderdate) = 1993",
    ),
    ("How many line items have a discount above 0.05?", "SELECT count(*) FROM lineitem WHERE l_discount > 0.05"),
]
HELDOUT_UNANSWERABLE = [
    ("chinook", "How many times was each track streamed?"),
    ("tpch", "What is the fuel cost of each shipment?"),
    ("chinook", "Which album won a Grammy award?"),
    ("tpch", "Which truck driver delivered the most orders?"),
    ("chinook", "How old is each artist?"),
    ("tpch", "What is the warehouse temperature per region?"),
    ("chinook", "How many stars did customers give each track in reviews?"),
    ("tpch", "What is the exchange rate of each nation's currency?"),
    ("chinook", "How much rent did the store pay last year?"),
    ("tpch", "What is the stock market price of each supplier?"),
    ("chinook", "What is the email open rate of each customer?"),
    ("tpch", "How many returns were caused by damaged packaging?"),
]


# Held-out set #2: written before the second (declines) round; do not change after a run on them.
HELDOUT2_CHINOOK = [
    (
        "How many tracks are on the album Let There Be Rock?",
        "SELECT count(*) FROM Track t JOIN Album al ON t.AlbumId = al.AlbumId WHERE al.Title = 'Let There Be Rock'",
    ),
    ("How many employees live in Calgary?", "SELECT count(*) FROM Employee WHERE City = 'Calgary'"),
    (
        "What is the total invoice amount billed to Berlin?",
        "SELECT sum(Total) FROM Invoice WHERE BillingCity = 'Berlin'",
    ),
    ("How many employees were hired in 2002?", "SELECT count(*) FROM Employee WHERE year(HireDate) = 2002"),
    ("How many customers are there in each country?", "SELECT Country, count(*) FROM Customer GROUP BY Country"),
    (
        "Which genre has the highest average track length?",
        "SELECT g.Name FROM Genre g JOIN Track t ON t.GenreId = g.GenreId GROUP BY g.Name "
        "ORDER BY avg(t.Milliseconds) DESC LIMIT 1",
    ),
    (
        "What is the average length in milliseconds of tracks in the Metal genre?",
        "SELECT avg(t.Milliseconds) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE g.Name = 'Metal'",
    ),
    ("How many customers have a company listed?", "SELECT count(*) FROM Customer WHERE Company IS NOT NULL"),
    ("How long is the longest track in milliseconds?", "SELECT max(Milliseconds) FROM Track"),
]
HELDOUT2_TPCH = [
    (
        "How many suppliers are in the region ASIA?",
        "SELECT count(*) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey JOIN region r "
        "ON n.n_regionkey = r.r_regionkey WHERE r.r_name = 'ASIA'",
    ),
    ("What is the average retail price of parts?", "SELECT avg(p_retailprice) FROM part"),
    (
        "What is the total extended price of line items shipped by SHIP?",
        "SELECT sum(l_extendedprice) FROM lineitem WHERE l_shipmode = 'SHIP'",
    ),
    ("How many parts have size 50?", "SELECT count(*) FROM part WHERE p_size = 50"),
    ("What is the highest supply cost?", "SELECT max(ps_supplycost) FROM partsupp"),
    (
        "How many customers from INDIA are in the HOUSEHOLD market segment?",
        "SELECT count(*) FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey "
        "WHERE n.n_name = 'INDIA' AND c.c_mktsegment = 'HOUSEHOLD'",
    ),
    (
        "What is the average order total price per order priority?",
        "SELECT o_orderpriority, avg(o_totalprice) FROM orders GROUP BY o_orderpriority",
    ),
    (
        "Which market segment has the most customers?",
        "SELECT c_mktsegment FROM customer GROUP BY c_mktsegment ORDER BY count(*) DESC LIMIT 1",
    ),
    (
        "How many orders with priority 2-HIGH were placed in 1996?",
        "SELECT count(*) FROM orders WHERE o_orderpriority = '2-HIGH' AND year(o_orderdate) = 1996",
    ),
]
HELDOUT2_UNANSWERABLE = [
    ("chinook", "What is the average age of our customers?"),  # personal data not stored (employees have one)
    ("tpch", "How many warehouses does each nation have?"),  # entity not in the schema
    ("chinook", "How many customers are female?"),  # personal data not stored
    ("tpch", "What is the weight of each part in kilograms?"),  # attribute not in the schema (p_size is not it)
    ("chinook", "Which record label released the most albums?"),  # entity not in the schema
    ("tpch", "What is the population of each nation?"),  # external fact
    ("chinook", "In which year was each album released?"),  # attribute not in the schema
    ("tpch", "How many orders will customers place next year?"),  # future event
    ("chinook", "How many concerts did Iron Maiden play?"),  # entity not in the schema
    ("tpch", "What is the credit score of each customer?"),  # measure the data lacks (c_acctbal is not it)
    ("chinook", "How many tracks will be sold next month?"),  # future event
    ("tpch", "What is the name of the contact person at each supplier?"),  # personal data not stored
    ("chinook", "Who is the lead singer of Queen?"),  # external fact
    ("tpch", "What was the GDP of each region in 1995?"),  # external fact
    ("chinook", "How much royalty is paid to the composer of each track?"),  # measure the data lacks
    ("tpch", "How many customer complaints were filed per market segment?"),  # measure the data lacks
    ("chinook", "How many refunds were issued in 2023?"),  # measure the data lacks
    ("tpch", "Which suppliers are certified as environmentally friendly?"),  # attribute not in the schema
]

# Held-out set #3: written before the fifth round; do not change after a run on them.
ZEP = "JOIN Album al ON t.AlbumId = al.AlbumId JOIN Artist ar ON al.ArtistId = ar.ArtistId"
HELDOUT3_CHINOOK = [
    (
        "how many songs do we have by Led Zeppelin?",
        f"SELECT count(*) FROM Track t {ZEP} WHERE ar.Name = 'Led Zeppelin'",
    ),
    (
        "Show me the albums by Aerosmith",
        "SELECT al.Title FROM Album al JOIN Artist ar ON al.ArtistId = ar.ArtistId WHERE ar.Name = 'Aerosmith'",
    ),
    (
        "How much revenue came from invoices billed to the United Kingdom?",
        "SELECT sum(Total) FROM Invoice WHERE BillingCountry = 'United Kingdom'",
    ),
    (
        "What's the average price of a Classical track?",
        "SELECT avg(t.UnitPrice) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE g.Name = 'Classical'",
    ),
    (
        "Which playlist has the most tracks on it?",
        "SELECT p.Name FROM Playlist p JOIN PlaylistTrack pt ON p.PlaylistId = pt.PlaylistId "
        "GROUP BY p.PlaylistId, p.Name ORDER BY count(*) DESC LIMIT 1",
    ),
    (
        "how many tracks are MPEG audio files?",
        "SELECT count(*) FROM Track t JOIN MediaType m ON t.MediaTypeId = m.MediaTypeId WHERE m.Name = 'MPEG audio file'",
    ),
    (
        "How many invoices has Leonie Köhler received?",
        "SELECT count(*) FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId "
        "WHERE c.FirstName = 'Leonie' AND c.LastName = 'Köhler'",
    ),
    ("How much did we make in 2024?", "SELECT sum(Total) FROM Invoice WHERE year(InvoiceDate) = 2024"),
    (
        "Which customer has spent the most with us overall?",
        "SELECT c.FirstName, c.LastName FROM Customer c JOIN Invoice i ON i.CustomerId = c.CustomerId "
        "GROUP BY c.CustomerId, c.FirstName, c.LastName ORDER BY sum(i.Total) DESC LIMIT 1",
    ),
]
HELDOUT3_TPCH = [
    (
        "how many orders has Customer#000000010 placed?",
        "SELECT count(*) FROM orders o JOIN customer c ON o.o_custkey = c.c_custkey WHERE c.c_name = 'Customer#000000010'",
    ),
    (
        "What's the average discount on line items shipped by FOB?",
        "SELECT avg(l_discount) FROM lineitem WHERE l_shipmode = 'FOB'",
    ),
    (
        "Show the number of suppliers in each nation",
        "SELECT n.n_name, count(*) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey GROUP BY n.n_name",
    ),
    (
        "Which nation's customers have the largest total account balance?",
        "SELECT n.n_name FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey GROUP BY n.n_name "
        "ORDER BY sum(c.c_acctbal) DESC LIMIT 1",
    ),
    (
        "How many parts are of type ECONOMY ANODIZED STEEL?",
        "SELECT count(*) FROM part WHERE p_type = 'ECONOMY ANODIZED STEEL'",
    ),
    (
        "What was the total quantity shipped in 1998?",
        "SELECT sum(l_quantity) FROM lineitem WHERE year(l_shipdate) = 1998",
    ),
    (
        "how many urgent orders were placed in 1993?",
        "SELECT count(*) FROM orders WHERE o_orderpriority = '1-URGENT' AND year(o_orderdate) = 1993",
    ),
    (
        "What is the average account balance of customers in the AMERICA region?",
        "SELECT avg(c.c_acctbal) FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey "
        "JOIN region r ON n.n_regionkey = r.r_regionkey WHERE r.r_name = 'AMERICA'",
    ),
    (
        "How many different customers placed an order in 1998?",
        "SELECT count(DISTINCT o_custkey) FROM orders WHERE year(o_orderdate) = 1998",
    ),
]
HELDOUT3_UNANSWERABLE = [
    ("chinook", "How many streams did each track get last week?"),  # data the database lacks
    ("tpch", "What will our total revenue be next year?"),  # future
    ("chinook", "Which album is the best one in the catalog?"),  # opinion
    ("tpch", "What is the email address of each supplier?"),  # plausible field, absent
    ("chinook", "How many albums does Taylor Swift have?"),  # absent value
    ("tpch", "How many customers are in the STUDENT market segment?"),  # absent value
    ("chinook", "What is the phone number of each artist?"),  # plausible field, absent (customers have one)
    ("tpch", "What was the shipping cost of each order?"),  # data the database lacks
    ("chinook", "What rating do customers give each track on average?"),  # data the database lacks
    ("tpch", "Which ship mode do customers like best?"),  # opinion
    ("chinook", "How many tracks will we sell in the next quarter?"),  # future
    ("tpch", "How many suppliers are based in AUSTRALIA?"),  # absent value
    ("chinook", "What is the bitrate of each track?"),  # plausible field, absent
    ("tpch", "How many trucks does each supplier own?"),  # data the database lacks
    ("chinook", "Show me the tracks in the K-Pop genre"),  # absent value
    ("tpch", "What is the tax rate of each nation?"),  # plausible field, absent (line items have l_tax)
    ("chinook", "Which employee is the friendliest with customers?"),  # opinion
    ("tpch", "How many orders were delivered by drone?"),  # absent value (ship modes do not include it)
]

# Held-out set #4: written before the sixth round; do not change after a run on them.
HELDOUT4_ANSWERABLE = {
    "chinook": [
        (
            "how many Metallica songs are in the catalog?",
            f"SELECT count(*) FROM Track t {ZEP} WHERE ar.Name = 'Metallica'",
        ),
        (
            "What did customers in France spend in total?",
            "SELECT sum(i.Total) FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId WHERE c.Country = 'France'",
        ),
        (
            "Which support rep looks after the most customers?",
            "SELECT e.FirstName, e.LastName FROM Employee e JOIN Customer c ON c.SupportRepId = e.EmployeeId "
            "GROUP BY e.EmployeeId, e.FirstName, e.LastName ORDER BY count(*) DESC LIMIT 1",
        ),
    ],
    "tpch": [
        (
            "how many parts does Supplier#000000001 supply?",
            "SELECT count(*) FROM partsupp ps JOIN supplier s ON ps.ps_suppkey = s.s_suppkey "
            "WHERE s.s_name = 'Supplier#000000001'",
        ),
        (
            "What's the total price of all orders from customers in JAPAN?",
            "SELECT sum(o.o_totalprice) FROM orders o JOIN customer c ON o.o_custkey = c.c_custkey "
            "JOIN nation n ON c.c_nationkey = n.n_nationkey WHERE n.n_name = 'JAPAN'",
        ),
        (
            "Give me the number of orders per order priority",
            "SELECT o_orderpriority, count(*) FROM orders GROUP BY o_orderpriority",
        ),
    ],
    "movies": [
        (
            "how many films did Alfred Hitchcock direct?",
            "SELECT count(*) FROM omdb WHERE Director = 'Alfred Hitchcock'",
        ),
        (
            "What's the average critics meter for movies that came out in 2005?",
            "SELECT avg(t.Meter) FROM tomatoes t JOIN omdb o ON o.ID = t.ID WHERE o.Year = 2005",
        ),
    ],
    "world": [
        (
            "Which country had the lowest life expectancy in 1990?",
            "SELECT country FROM indicators WHERE year = 1990 AND life_expectancy IS NOT NULL "
            "ORDER BY life_expectancy LIMIT 1",
        ),
        (
            "what was China's population in 1980?",
            "SELECT population FROM indicators WHERE country = 'China' AND year = 1980",
        ),
    ],
    "flights": [
        (
            "how many routes go from LAX to JFK?",
            "SELECT count(*) FROM routes WHERE Source = 'LAX' AND Destination = 'JFK'",
        ),
        (
            "How many medium-sized airports are in the United States?",
            "SELECT count(*) FROM airports WHERE Type = 'medium_airport' AND Country = 'United States'",
        ),
    ],
    "store": [
        ("How much profit did we make on Phones?", "SELECT sum(profit) FROM orders WHERE sub_category = 'Phones'"),
        (
            "what's the average sale amount in the Consumer segment?",
            "SELECT avg(sales) FROM orders WHERE segment = 'Consumer'",
        ),
    ],
}
HELDOUT4_UNANSWERABLE = [
    ("chinook", "How many songs by Beyoncé do we have?"),  # absent value
    ("tpch", "How many orders came from customers in SWITZERLAND?"),  # absent value
    ("movies", "Which movie would you recommend for a family night?"),  # opinion
    ("world", "What was the GDP per capita of Kenya in 2005?"),  # data the database lacks
    ("flights", "How many routes does Ryanair fly?"),  # absent value
    ("store", "How many orders did Sean Miller place?"),  # absent value, customers not stored
    ("chinook", "What's the salary of each employee?"),  # plausible field, absent
    ("tpch", "Which supplier is the most reliable?"),  # opinion
    ("movies", "How many movies did Chloé Zhao direct?"),  # absent value
    ("world", "What was the population of Taiwan in 2000?"),  # absent value
    ("flights", "What's the average delay on routes out of ATL?"),  # data the database lacks
    ("store", "What were the total sales in Ontario?"),  # absent value
    ("chinook", "Which genre should we promote more?"),  # opinion
    ("tpch", "What's the credit score of each customer?"),  # plausible field, absent
    ("movies", "How much was the lead actor of each movie paid?"),  # data the database lacks
    ("world", "Which country will have the most people in 2050?"),  # future
    ("flights", "What's the runway length at DEN?"),  # plausible field, absent
    ("store", "Which products do our customers love the most?"),  # opinion
    ("chinook", "What's the Spotify play count of each track?"),  # data the database lacks (outside source)
    ("tpch", "Which warehouse holds each part?"),  # data the database lacks
    ("store", "What's the delivery date of each order?"),  # plausible field, absent
]

SETS = {
    "dev": (DEV_CHINOOK, DEV_TPCH, DEV_UNANSWERABLE),
    "heldout": (HELDOUT_CHINOOK, HELDOUT_TPCH, HELDOUT_UNANSWERABLE),  # held-out #1, now development data
    "heldout2": (HELDOUT2_CHINOOK, HELDOUT2_TPCH, HELDOUT2_UNANSWERABLE),
    "heldout3": (HELDOUT3_CHINOOK, HELDOUT3_TPCH, HELDOUT3_UNANSWERABLE),
}
