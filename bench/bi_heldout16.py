"""Held-out set #16 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `capex` one included (the yearly investment of eleven
U.S. firms, 1935-1954, joined to the firms by an undeclared key whose names differ: `inv_annual.firm_cd`,
`companies.co_code`).

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 32
answerable (two or three per database, four on capex; two on each of the fourteen older databases is 28, so the
set has 32 where #15 had 30), worded as users write (terse, chatty, lower case, a typo or two, everyday words for
what the columns hold, abbreviations, demonyms, several named values in a third of them, counts over undeclared
joins, a share, a year range), and 18 unanswerable of varied kinds (values the data lacks, checked absent by
`ABSENT_CHECKS`; plausible fields it lacks; opinions and advice; the future; facts from outside; years outside
the data). Every gold query is executed and returns rows (`python bench/bi_nokeys.py --check --set heldout16`);
the top-1 golds were checked for ties. Run once, on two codes side by side.
"""

from __future__ import annotations

CAPEX = "FROM inv_annual a JOIN companies c ON a.firm_cd = c.co_code"
ELEM = "FROM elem e JOIN elem_cat k ON e.cat_cd = k.cat_cd JOIN phys_props p ON e.sym = p.sym"
MILK = "FROM milk_samples m JOIN breeds b ON m.brd_cd = b.breed_code"
PENG = "FROM penguin_obs o JOIN species s ON o.species_id = s.id JOIN islands i ON o.isl_cd = i.isl_cd"

HELDOUT16_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "blues + jazz songs, how many altogether",
            "SELECT count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE g.Name IN ('Blues', 'Jazz')",
        ),
        (
            "brazillian buyers - typical invoice amount (mean)",
            "SELECT avg(i.Total) FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId "
            "WHERE c.Country = 'Brazil'",
        ),
    ],
    "tpch": [
        (
            "line items going by AIR versus RAIL, give me both counts",
            "SELECT l_shipmode, count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'RAIL') GROUP BY l_shipmode",
        ),
        (
            "sum of order value across everything booked in 1997",
            "SELECT sum(o_totalprice) FROM orders WHERE year(o_orderdate) = 1997",
        ),
    ],
    "movies": [
        (
            "spielberg vs scorsese - number of films each",
            "SELECT Director, count(*) FROM omdb WHERE Director IN ('Steven Spielberg', 'Martin Scorsese') "
            "GROUP BY Director",
        ),
        (
            "biggest earner at the box office among 2010 releases",
            "SELECT o.Title FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Year = 2010 "
            "ORDER BY t.BoxOffice DESC LIMIT 1",
        ),
    ],
    "world": [
        (
            "how many people lived in india, and in china, in 2000",
            "SELECT country, population FROM indicators WHERE country IN ('India', 'China') AND year = 2000",
        ),
        (
            "kids per woman across europe & central asia in 1980, avg",
            "SELECT avg(i.fertility) FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE c.region = 'Europe & Central Asia' AND i.year = 1980",
        ),
    ],
    "flights": [
        (
            "puerto rico's airports - names",
            "SELECT Name FROM airports WHERE Country = 'Puerto Rico'",
        ),
        (
            "count the routes that start at jfk",
            "SELECT count(*) FROM routes WHERE Source = 'JFK'",
        ),
    ],
    "store": [
        (
            "units moved: chairs vs tables",
            "SELECT sub_category, sum(quantity) FROM orders WHERE sub_category IN ('Chairs', 'Tables') "
            "GROUP BY sub_category",
        ),
        (
            "revenue from corporate clients in the western states",
            "SELECT sum(o.sales) FROM orders o JOIN states s ON o.state = s.state "
            "WHERE o.segment = 'Corporate' AND s.region = 'West'",
        ),
    ],
    "cars": [
        (
            "4-cylinder cars, europe and asia, count for both",
            "SELECT g.name, count(*) FROM cars c JOIN origins g ON c.origin = g.origin "
            "WHERE g.name IN ('Europe', 'Asia') AND c.cyl = 4 GROUP BY g.name",
        ),
        (
            "mean hp for model year 82",
            "SELECT avg(hp) FROM cars WHERE yr = 82",
        ),
    ],
    "counties": [
        (
            "texas & oklahoma: counties where over 10 pct were out of work, per state",
            "SELECT s.name, count(*) FROM counties c JOIN unemployment u ON c.fips = u.fips "
            "JOIN states s ON c.state = s.code WHERE s.name IN ('Texas', 'Oklahoma') AND u.rate > 10 GROUP BY s.name",
        ),
        (
            "of the states in the central region, which one had the worst avg unemploymnt",
            "SELECT s.name FROM counties c JOIN unemployment u ON c.fips = u.fips JOIN states s ON c.state = s.code "
            "WHERE s.region = 'Central' GROUP BY s.name ORDER BY avg(u.rate) DESC LIMIT 1",
        ),
    ],
    "olympics": [
        (
            "sochi medal haul, germans vs russians",
            "SELECT l.cntry_nm, t.tot FROM sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd "
            "WHERE l.cntry_nm IN ('Germany', 'Russian Fed.')",
        ),
        (
            "how many times has an american sprinter medalled in the 100m",
            "SELECT count(*) FROM m100_medalists WHERE noc = 'USA'",
        ),
    ],
    "elements": [
        (
            "halogens, average electronegativity",
            f"SELECT avg(p.en) {ELEM} WHERE k.cat_nm = 'halogen'",
        ),
        (
            "noble gasses with their atomic weights",
            "SELECT e.name, e.atm_mass FROM elem e JOIN elem_cat k ON e.cat_cd = k.cat_cd WHERE k.cat_nm = 'noble gas'",
        ),
    ],
    "penguins": [
        (
            "flipper length of female gentoos, mean",
            f"SELECT avg(o.flipper_mm) {PENG} WHERE s.common_name = 'Gentoo' AND o.sex = 'FEMALE'",
        ),
        (
            "number of adelies spotted on biscoe, and on dream",
            f"SELECT i.isl_name, count(*) {PENG} WHERE s.common_name = 'Adelie' AND i.isl_name IN ('Biscoe', 'Dream') "
            "GROUP BY i.isl_name",
        ),
    ],
    "titanic": [
        (
            "3rd class women who made it - count",
            "SELECT count(*) FROM passengers WHERE pclass = '3rd' AND sex = 'female' AND survived = 1",
        ),
        (
            "age of the youngest survivor",
            "SELECT min(age) FROM passengers WHERE survived = 1",
        ),
    ],
    "dairy": [
        (
            "jersey milk, top butterfat % recorded",
            f"SELECT max(m.bf_pct) {MILK} WHERE b.breed_nm = 'Jersey'",
        ),
        (
            "the scottish breed vs the dutch one: avg fat content of each",
            f"SELECT b.breed_nm, avg(m.bf_pct) {MILK} WHERE b.orig_cntry IN ('Scotland', 'Netherlands') "
            "GROUP BY b.breed_nm",
        ),
    ],
    "glass": [
        (
            "samples containing any barium, by kind of glass",
            "SELECT c.cls_desc, count(*) FROM frag_samples f JOIN glass_classes c ON f.gls_cls = c.cls_code "
            "WHERE f.ba_wt > 0 GROUP BY c.cls_desc",
        ),
        (
            "headlight glass - mean silica",
            "SELECT avg(f.si_wt) FROM frag_samples f JOIN glass_classes c ON f.gls_cls = c.cls_code "
            "WHERE c.cls_desc = 'headlamp'",
        ),
    ],
    "capex": [
        (
            "GE and westinghouse, total capital spending 1940-45 for each",
            f"SELECT c.co_name, sum(a.gross_inv) {CAPEX} WHERE c.co_name IN ('General Electric', 'Westinghouse') "
            "AND a.fy BETWEEN 1940 AND 1945 GROUP BY c.co_name",
        ),
        (
            "who was worth the most at year end 1954",
            f"SELECT c.co_name {CAPEX} WHERE a.fy = 1954 ORDER BY a.mkt_val DESC LIMIT 1",
        ),
        (
            "in how many years did chrysler invest over 100m",
            f"SELECT count(*) {CAPEX} WHERE c.co_name = 'Chrysler' AND a.gross_inv > 100",
        ),
        (
            "oil cos. - what % of all the investment over the whole period was theirs",
            f"SELECT 100.0 * sum(CASE WHEN c.sector = 'petroleum' THEN a.gross_inv ELSE 0 END) / sum(a.gross_inv) "
            f"{CAPEX}",
        ),
    ],
}

HELDOUT16_UNANSWERABLE: list[tuple[str, str]] = [
    ("capex", "ford motor co, investment in 1950"),  # absent: ABSENT_CHECKS
    ("dairy", "brown swiss herd - butterfat avg"),  # absent: ABSENT_CHECKS
    ("flights", "any service from reykjavik? number of routes"),  # absent: ABSENT_CHECKS
    ("chinook", "beyonce songs we carry?"),  # absent: ABSENT_CHECKS
    ("capex", "IBM headcount in 1950"),  # no employees stored
    ("capex", "net profit GM made in 1953"),  # no profit stored
    ("titanic", "what did 1st class passage cost"),  # no fares stored
    ("penguins", "how old was the heaviest bird"),  # no age stored
    ("tpch", "which region's vendors get the best quality ratings"),  # no rating stored
    ("cars", "sticker price of a 1975 pinto"),  # no prices stored
    ("capex", "which of these firms would u have put money in back then"),  # advice
    ("store", "what's ur personal favourite among our product lines"),  # opinion
    ("olympics", "who'll take gold in the 100m at the next games"),  # the future
    ("world", "how long will people in japan live on avg by 2040"),  # the future
    ("elements", "name of the chemist that first isolated oxygen"),  # outside facts
    ("movies", "where did they shoot titanic"),  # outside facts
    ("capex", "us steel gross investment, 1960"),  # years 1935-1954 only
    ("chinook", "what were sales like in 2003"),  # invoices of later years only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("capex", "SELECT count(*) FROM companies WHERE co_name LIKE '%ford%' OR co_code LIKE '%ford%'"),
    ("dairy", "SELECT count(*) FROM breeds WHERE breed_nm LIKE '%swiss%' OR orig_cntry LIKE '%switz%'"),
    ("flights", "SELECT count(*) FROM airports WHERE City LIKE '%reykjav%' OR Name LIKE '%reykjav%'"),
    ("flights", "SELECT count(*) FROM routes WHERE Source IN ('KEF', 'RKV') OR Destination IN ('KEF', 'RKV')"),
    ("chinook", "SELECT count(*) FROM Artist WHERE Name ILIKE '%beyonc%'"),
    ("chinook", "SELECT count(*) FROM Track WHERE Composer ILIKE '%beyonc%'"),
    ("capex", "SELECT count(*) FROM inv_annual WHERE fy > 1954"),
    ("chinook", "SELECT count(*) FROM Invoice WHERE year(InvoiceDate) = 2003"),
]
