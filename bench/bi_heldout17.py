"""Held-out set #17 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `abx` one included (Burtin's 1951 table of how much
penicillin, streptomycin and neomycin it takes to stop 16 bacteria, as three tables joined by undeclared keys
whose names differ: `mic_results.bact_id` -> `organisms.org_no`, `mic_results.abx_cd` -> `drugs.drug_code`).

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 34
answerable (two per database on the fifteen older ones, four on abx), worded as users write (terse, chatty,
lower case, a typo or two, everyday words for what the columns hold, abbreviations, demonyms, several named
values in a third of them, counts over undeclared joins, a share, a year range), and 18 unanswerable of varied
kinds (values the data lacks, checked absent by `ABSENT_CHECKS`; plausible fields it lacks; opinions and advice;
the future; facts from outside; years outside the data). Every gold query is executed and returns rows
(`python bench/bi_nokeys.py --check --set heldout17`); the top-1 golds were checked for ties. Run once, on two
codes side by side.
"""

from __future__ import annotations

ABX = "FROM mic_results r JOIN organisms o ON r.bact_id = o.org_no JOIN drugs d ON r.abx_cd = d.drug_code"
CNTY = "FROM counties c JOIN unemployment u ON c.fips = u.fips JOIN states s ON c.state = s.code"
PENG = "FROM penguin_obs o JOIN species s ON o.species_id = s.id JOIN islands i ON o.isl_cd = i.isl_cd"
GLASS = "FROM frag_samples f JOIN glass_classes c ON f.gls_cls = c.cls_code"

HELDOUT17_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "rock & metal tracks - avg length in mins, each",
            "SELECT g.Name, avg(t.Milliseconds) / 60000.0 FROM Track t JOIN Genre g ON t.GenreId = g.GenreId "
            "WHERE g.Name IN ('Rock', 'Metal') GROUP BY g.Name",
        ),
        (
            "top sales rep by total invoiced $$",
            "SELECT e.FirstName, e.LastName FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId "
            "JOIN Employee e ON c.SupportRepId = e.EmployeeId GROUP BY e.EmployeeId, e.FirstName, e.LastName "
            "ORDER BY sum(i.Total) DESC LIMIT 1",
        ),
    ],
    "tpch": [
        (
            "german-based suppliers: total number",
            "SELECT count(*) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey WHERE n.n_name = 'GERMANY'",
        ),
        (
            "urgent and high priorty orders placed 1995 thru 1996 - count for each",
            "SELECT o_orderpriority, count(*) FROM orders WHERE o_orderpriority IN ('1-URGENT', '2-HIGH') "
            "AND year(o_orderdate) BETWEEN 1995 AND 1996 GROUP BY o_orderpriority",
        ),
    ],
    "movies": [
        (
            "tarantino movies + their tomatometer",
            "SELECT o.Title, t.Meter FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Director = 'Quentin Tarantino'",
        ),
        (
            "mean runtime, horror pics released in the 80s",
            "SELECT avg(Runtime) FROM omdb WHERE Genre LIKE '%Horror%' AND Year BETWEEN 1980 AND 1989",
        ),
    ],
    "world": [
        (
            "japanese life expectancy back in 1964 and in 2010",
            "SELECT year, life_expectancy FROM indicators WHERE country = 'Japan' AND year IN (1964, 2010)",
        ),
        (
            "in 1990 which nation in south asia had the highest births per mother",
            "SELECT i.country FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE c.region = 'South Asia' AND i.year = 1990 ORDER BY i.fertility DESC LIMIT 1",
        ),
    ],
    "flights": [
        (
            "delta out of atlanta - how many routes",
            "SELECT count(*) FROM routes WHERE Airline = 'DL' AND Source = 'ATL'",
        ),
        (
            "large airports in the us, count em",
            "SELECT count(*) FROM airports WHERE Type = 'large_airport' AND Country = 'United States'",
        ),
    ],
    "store": [
        (
            "% of revenue that's office supplies",
            "SELECT 100.0 * sum(CASE WHEN c.category = 'Office Supplies' THEN o.sales ELSE 0 END) / sum(o.sales) "
            "FROM orders o JOIN sub_categories c ON o.sub_category = c.sub_category",
        ),
        (
            "california and new york profit side by side",
            "SELECT state, sum(profit) FROM orders WHERE state IN ('California', 'New York') GROUP BY state",
        ),
    ],
    "cars": [
        (
            "ford or chevy, which is better on gas? avg for both",
            "SELECT mfr, avg(mpg) FROM cars WHERE mfr IN ('ford', 'chevrolet') GROUP BY mfr",
        ),
        (
            "euro cars over 100 hp - how many",
            "SELECT count(*) FROM cars c JOIN origins g ON c.origin = g.origin WHERE g.name = 'Europe' AND c.hp > 100",
        ),
    ],
    "counties": [
        (
            "florida: lowest county jobless rate",
            f"SELECT min(u.rate) {CNTY} WHERE s.name = 'Florida'",
        ),
        (
            "how many counties altogether in the northeast region states",
            "SELECT count(*) FROM counties c JOIN states s ON c.state = s.code WHERE s.region = 'Northeast'",
        ),
    ],
    "olympics": [
        (
            "norwegian and dutch gold counts at sochi",
            "SELECT l.cntry_nm, t.gold FROM sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd "
            "WHERE l.cntry_nm IN ('Norway', 'Netherlands')",
        ),
        (
            "quickest olympic 100m winning time pre-1950",
            "SELECT min(time_s) FROM m100_medalists WHERE medal = 'GOLD' AND yr < 1950",
        ),
    ],
    "elements": [
        (
            "at what temp in kelvin do gold, copper and iron melt",
            "SELECT e.name, p.mp_k FROM elem e JOIN phys_props p ON e.sym = p.sym "
            "WHERE e.name IN ('Iron', 'Copper', 'Gold')",
        ),
        (
            "count of elemnts in gaseous state at standard conditions",
            "SELECT count(*) FROM phys_props WHERE std_state = 'gas'",
        ),
    ],
    "penguins": [
        (
            "chinstrap max body weight, in kg",
            f"SELECT max(o.body_mass_g) / 1000.0 {PENG} WHERE s.common_name = 'Chinstrap'",
        ),
        (
            "torgersen: males vs females, how many of each",
            f"SELECT o.sex, count(*) {PENG} WHERE i.isl_name = 'Torgersen' AND o.sex IN ('MALE', 'FEMALE') "
            "GROUP BY o.sex",
        ),
    ],
    "titanic": [
        (
            "what percent of first-class passengers survived",
            "SELECT 100.0 * avg(survived) FROM passengers WHERE pclass = '1st'",
        ),
        (
            "mean age in 2nd class, men v women",
            "SELECT sex, avg(age) FROM passengers WHERE pclass = '2nd' GROUP BY sex",
        ),
    ],
    "dairy": [
        (
            "two year old cows - how many milk samples",
            "SELECT count(*) FROM milk_samples WHERE age_grp = '2YO'",
        ),
        (
            "which breed has the creamiest milk on average",
            "SELECT b.breed_nm FROM milk_samples m JOIN breeds b ON m.brd_cd = b.breed_code "
            "GROUP BY b.breed_nm ORDER BY avg(m.bf_pct) DESC LIMIT 1",
        ),
    ],
    "glass": [
        (
            "magnesium avg: building glass vs vehicle glass",
            f"SELECT c.use_area, avg(f.mg_wt) {GLASS} WHERE c.use_area IN ('building', 'vehicle') GROUP BY c.use_area",
        ),
        (
            "tableware shards, how many",
            f"SELECT count(*) {GLASS} WHERE c.cls_desc = 'tableware'",
        ),
    ],
    "capex": [
        (
            "ibm market cap at end of 1950",
            "SELECT a.mkt_val FROM inv_annual a JOIN companies c ON a.firm_cd = c.co_code "
            "WHERE c.co_name = 'IBM' AND a.fy = 1950",
        ),
        (
            "steel firms' avg annual investment in the 1940s",
            "SELECT avg(a.gross_inv) FROM inv_annual a JOIN companies c ON a.firm_cd = c.co_code "
            "WHERE c.sector = 'steel' AND a.fy BETWEEN 1940 AND 1949",
        ),
    ],
    "abx": [
        (
            "which bacterium takes the most neomycin to inhibit",
            f"SELECT o.org_name {ABX} WHERE d.drug_nm = 'Neomycin' ORDER BY r.mic_ugml DESC LIMIT 1",
        ),
        (
            "staph aureus vs e. coli, streptomycin mic each",
            f"SELECT o.org_name, r.mic_ugml {ABX} WHERE d.drug_nm = 'Streptomycin' "
            "AND o.org_name IN ('Staphylococcus aureus', 'Escherichia coli')",
        ),
        (
            "gram negatives penicillin stops at 1 ug/ml or less, how many",
            f"SELECT count(*) {ABX} WHERE d.drug_nm = 'Penicillin' AND o.gram_stn = 'NEG' AND r.mic_ugml <= 1",
        ),
        (
            "share of the gram positive bugs that streptomycin inhibits below 1 ug/ml",
            f"SELECT 100.0 * sum(CASE WHEN r.mic_ugml < 1 THEN 1 ELSE 0 END) / count(*) {ABX} "
            "WHERE d.drug_nm = 'Streptomycin' AND o.gram_stn = 'POS'",
        ),
    ],
}

HELDOUT17_UNANSWERABLE: list[tuple[str, str]] = [
    ("abx", "tetracycline vs e coli - the mic?"),  # absent: ABSENT_CHECKS
    ("tpch", "what have norwegian buyers spent altogether"),  # absent: ABSENT_CHECKS
    ("flights", "list canadian airports"),  # absent: ABSENT_CHECKS
    ("penguins", "emperor penguins on dream island - count"),  # absent: ABSENT_CHECKS
    ("abx", "neomycin price per dose"),  # no prices stored
    ("abx", "when were these lab tests run"),  # no dates stored
    ("store", "shipping costs for texas orders, total"),  # no shipping cost stored
    ("counties", "cook co. households, what do they make per year"),  # no income stored
    ("elements", "what does a gram of platinum cost"),  # no prices stored
    ("flights", "flight time lax to jfk in hours"),  # no durations stored
    ("movies", "good date night movie from the 90s, what would u pick"),  # advice
    ("dairy", "which breed should i get for a small family farm"),  # advice
    ("world", "how many ppl will nigeria have in 2060"),  # the future
    ("tpch", "revenue forecast for next quarter"),  # the future
    ("glass", "who invented float glass"),  # outside facts
    ("chinook", "what year did led zeppelin form"),  # outside facts
    ("world", "brazil kids per woman in 1920"),  # years 1964-2013 only
    ("counties", "2015 jobless figures for ohio"),  # 2009 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("abx", "SELECT count(*) FROM drugs WHERE drug_nm LIKE '%tetracyc%' OR drug_code LIKE '%TET%'"),
    ("tpch", "SELECT count(*) FROM nation WHERE n_name ILIKE '%norw%'"),
    ("flights", "SELECT count(*) FROM airports WHERE Country LIKE '%canad%' OR City LIKE '%canad%'"),
    ("penguins", "SELECT count(*) FROM species WHERE common_name LIKE '%emperor%' OR sci_name LIKE '%forsteri%'"),
    ("world", "SELECT count(*) FROM indicators WHERE year > 2013 OR year < 1964"),
    ("counties", "SELECT count(*) FROM unemployment WHERE year <> 2009"),
]
