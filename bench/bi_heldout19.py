"""Held-out set #19 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `election` one included (944 respondents of the 1996
American National Election Study, as three tables joined by undeclared keys whose names differ:
`svy_resp.pid_cd` -> `party_ids.party_code`, `svy_resp.edu_lvl` -> `edu_levels.edu_code`).

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 38
answerable (two per database on the seventeen older ones, four on election), worded as users write (terse,
chatty, lower case, a typo or two, everyday words for what the columns hold, abbreviations, demonyms, several
named values in a third of them, counts over undeclared joins, a share, a year range), and 18 unanswerable of
varied kinds (values the data lacks, checked absent by `ABSENT_CHECKS`; plausible fields it lacks; opinions and
advice; the future; facts from outside; years outside the data). Every gold query is executed and returns rows
(`python bench/bi_nokeys.py --check --set heldout19`); the top-1 golds were checked for ties. Run once, on two
codes side by side.
"""

from __future__ import annotations

VOTE = "FROM svy_resp r JOIN party_ids p ON r.pid_cd = p.party_code"
EDU = "FROM svy_resp r JOIN edu_levels e ON r.edu_lvl = e.edu_code"
CNTY = "FROM counties c JOIN unemployment u ON c.fips = u.fips JOIN states s ON c.state = s.code"
PENG = "FROM penguin_obs o JOIN islands i ON o.isl_cd = i.isl_cd JOIN species s ON o.species_id = s.id"
GLASS = "FROM frag_samples f JOIN glass_classes c ON f.gls_cls = c.cls_code"
ABX = "FROM mic_results r JOIN organisms o ON r.bact_id = o.org_no JOIN drugs d ON r.abx_cd = d.drug_code"
CAPEX = "FROM inv_annual a JOIN companies c ON a.firm_cd = c.co_code"
DEG = "FROM ba_f_share s JOIN study_fields f ON s.fld_cd = f.field_code"
ELEM = "FROM elem e JOIN phys_props p ON e.sym = p.sym JOIN elem_cat c ON e.cat_cd = c.cat_cd"
MILK = "FROM milk_samples m JOIN breeds b ON m.brd_cd = b.breed_code"

HELDOUT19_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "german & french buyers - lifetime spend, broken out by country",
            "SELECT BillingCountry, sum(Total) FROM Invoice WHERE BillingCountry IN ('Germany', 'France') "
            "GROUP BY BillingCountry",
        ),
        (
            "jane peacock looks after how many customers",
            "SELECT count(*) FROM Customer c JOIN Employee e ON c.SupportRepId = e.EmployeeId "
            "WHERE e.FirstName = 'Jane' AND e.LastName = 'Peacock'",
        ),
    ],
    "tpch": [
        (
            "# of orders flagged urgent in calendar 95",
            "SELECT count(*) FROM orders WHERE o_orderpriority = '1-URGENT' AND year(o_orderdate) = 1995",
        ),
        (
            "auto-segment custs located in japan - how many are there",
            "SELECT count(*) FROM customer c JOIN nation n ON c.c_nationkey = n.n_nationkey "
            "WHERE n.n_name = 'JAPAN' AND c.c_mktsegment = 'AUTOMOBILE'",
        ),
    ],
    "movies": [
        (
            "kubrick pictures and how long each one runs",
            "SELECT Title, Runtime FROM omdb WHERE Director = 'Stanley Kubrick'",
        ),
        (
            "pg13 flicks from the nineties, avg lenght in mins?",
            "SELECT avg(Runtime) FROM omdb WHERE Rating = 'PG-13' AND Year BETWEEN 1990 AND 1999",
        ),
    ],
    "world": [
        (
            "births per woman in 1990, japanese vs south korean",
            "SELECT country, fertility FROM indicators WHERE country IN ('Japan', 'Korea, Rep.') AND year = 1990",
        ),
        (
            "MENA - no. of nations in the list",
            "SELECT count(*) FROM countries WHERE region = 'Middle East & North Africa'",
        ),
    ],
    "flights": [
        (
            "DL and UA, number of routes for each carrier",
            "SELECT Airline, count(*) FROM routes WHERE Airline IN ('DL', 'UA') GROUP BY Airline",
        ),
        (
            "names of the airports serving chicago and houston",
            "SELECT Name FROM airports WHERE City IN ('Chicago', 'Houston')",
        ),
    ],
    "store": [
        (
            "texas profit on phones & on copiers, separately",
            "SELECT sub_category, sum(profit) FROM orders WHERE state = 'Texas' "
            "AND sub_category IN ('Phones', 'Copiers') GROUP BY sub_category",
        ),
        (
            "whats the typical discount corporate buyers get (mean)",
            "SELECT avg(discount) FROM orders WHERE segment = 'Corporate'",
        ),
    ],
    "cars": [
        (
            "fuel economy by number of cylinders, '80 to '82 model years only",
            "SELECT cyl, avg(mpg) FROM cars WHERE yr BETWEEN 80 AND 82 GROUP BY cyl",
        ),
        (
            "which european model weighs the most",
            "SELECT c.name FROM cars c JOIN origins o ON c.origin = o.origin WHERE o.name = 'Europe' "
            "ORDER BY c.weight DESC LIMIT 1",
        ),
    ],
    "counties": [
        (
            "county total for calif.?",
            "SELECT count(*) FROM counties c JOIN states s ON c.state = s.code WHERE s.name = 'California'",
        ),
        (
            "state whose counties averaged the worst jobless numbers",
            f"SELECT s.name {CNTY} GROUP BY s.name ORDER BY avg(u.rate) DESC LIMIT 1",
        ),
    ],
    "olympics": [
        (
            "gold medals the norwegians took home from sochi, and the dutch",
            "SELECT l.cntry_nm, t.gold FROM sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd "
            "WHERE l.cntry_nm IN ('Norway', 'Netherlands')",
        ),
        (
            "who owns the fastest gold-winning olympic 100m run here + the time",
            "SELECT athlete, time_s FROM m100_medalists WHERE medal = 'GOLD' ORDER BY time_s LIMIT 1",
        ),
    ],
    "elements": [
        (
            "number of elements first found during the 19th century",
            "SELECT count(*) FROM elem WHERE yr_disc <> 'Ancient' AND CAST(yr_disc AS INTEGER) BETWEEN 1800 AND 1899",
        ),
        (
            "alkali metals w/ their electronegativities",
            f"SELECT e.name, p.en {ELEM} WHERE c.cat_nm = 'alkali metal'",
        ),
    ],
    "penguins": [
        (
            "heaviest chinstrap weighed in at how many grams",
            "SELECT max(o.body_mass_g) FROM penguin_obs o JOIN species s ON o.species_id = s.id "
            "WHERE s.common_name = 'Chinstrap'",
        ),
        (
            "biscoe birds - beak length on avg, males and females apart",
            f"SELECT o.sex, avg(o.bill_len_mm) {PENG} WHERE i.isl_name = 'Biscoe' AND o.sex IN ('MALE', 'FEMALE') "
            "GROUP BY o.sex",
        ),
    ],
    "titanic": [
        (
            "second-class deaths, total",
            "SELECT count(*) FROM passengers WHERE pclass = '2nd' AND survived = 0",
        ),
        (
            "for passengers aged 13 to 19, how many lived and how many didnt",
            "SELECT survived, count(*) FROM passengers WHERE age BETWEEN 13 AND 19 GROUP BY survived",
        ),
    ],
    "dairy": [
        (
            "holstein milkfat: heifers of 2 yrs compared with mature cows",
            f"SELECT m.age_grp, avg(m.bf_pct) {MILK} WHERE b.breed_nm = 'Holstein-Friesian' GROUP BY m.age_grp",
        ),
        (
            "ayrshire min fat %",
            f"SELECT min(m.bf_pct) {MILK} WHERE b.breed_nm = 'Ayrshire'",
        ),
    ],
    "glass": [
        (
            "magnesium, average by kind of glass",
            f"SELECT c.cls_desc, avg(f.mg_wt) {GLASS} GROUP BY c.cls_desc",
        ),
        (
            "tally of tableware bits and of container bits",
            f"SELECT c.cls_desc, count(*) {GLASS} WHERE c.cls_desc IN ('tableware', 'container') GROUP BY c.cls_desc",
        ),
    ],
    "capex": [
        (
            "chrysler market value year by year, 1940-45",
            f"SELECT a.fy, a.mkt_val {CAPEX} WHERE c.co_name = 'Chrysler' AND a.fy BETWEEN 1940 AND 1945",
        ),
        (
            "total capex by the steelmakers in 1950",
            f"SELECT sum(a.gross_inv) {CAPEX} WHERE c.sector = 'steel' AND a.fy = 1950",
        ),
    ],
    "abx": [
        (
            "gram neg organisms streptomycin knocks out at 1 ug/ml or under: count?",
            f"SELECT count(*) {ABX} WHERE d.drug_nm = 'Streptomycin' AND o.gram_stn = 'NEG' AND r.mic_ugml <= 1",
        ),
        (
            "neomycin compared to penicillin, mean mic over all the bacteria",
            f"SELECT d.drug_nm, avg(r.mic_ugml) {ABX} WHERE d.drug_nm IN ('Neomycin', 'Penicillin') GROUP BY d.drug_nm",
        ),
    ],
    "degrees": [
        (
            "engineering grads who were women, % for each yr 2000 thru 2005",
            f"SELECT s.acad_yr, s.pct_f {DEG} WHERE f.field_nm = 'Engineering' AND s.acad_yr BETWEEN 2000 AND 2005",
        ),
        (
            "in 2011 which major was the most female-dominated",
            f"SELECT f.field_nm {DEG} WHERE s.acad_yr = 2011 ORDER BY s.pct_f DESC LIMIT 1",
        ),
    ],
    "election": [
        (
            "strong republicans: clinton vs dole headcount",
            f"SELECT r.vote_pref, count(*) {VOTE} WHERE p.party_desc = 'Strong Republican' GROUP BY r.vote_pref",
        ),
        (
            "what % of the phd folks say theyre voting dole",
            f"SELECT 100.0 * avg(r.vote_pref = 'Dole') {EDU} WHERE e.edu_desc = 'PhD'",
        ),
        (
            "avg age for dems, indies and the gop",
            f"SELECT p.pty_grp, avg(r.age_yrs) {VOTE} GROUP BY p.pty_grp",
        ),
        (
            "college grads with household income of 50k or more backing clinton, how many",
            f"SELECT count(*) {EDU} WHERE e.coll_grad = 'Y' AND r.hh_inc_min >= 50000 AND r.vote_pref = 'Clinton'",
        ),
    ],
}

HELDOUT19_UNANSWERABLE: list[tuple[str, str]] = [
    ("election", "how many said they'd vote perot"),  # absent: ABSENT_CHECKS
    ("chinook", "what have our customers in japan spent"),  # absent: ABSENT_CHECKS
    ("abx", "tetracycline mic against e. coli"),  # absent: ABSENT_CHECKS
    ("store", "alaska revenue all time"),  # absent: ABSENT_CHECKS
    ("election", "number of women among the respondents"),  # no sex stored
    ("election", "top state by number of dole voters"),  # no state stored
    ("movies", "avg production budget of horror titles"),  # no budgets stored
    ("flights", "mean departure delay on routes out of ORD"),  # no delays stored
    ("glass", "what colour are the headlamp shards"),  # no colours stored
    ("capex", "GM headcount (employees) in 1950"),  # no employees stored
    ("election", "was dole the stronger candidate than clinton, honestly"),  # opinion
    ("cars", "best used car on this list for a student to buy?"),  # advice
    ("election", "who's going to win the 2028 presidential race"),  # the future
    ("tpch", "projected revenue for next yr"),  # the future
    ("election", "by how many points did clinton actually win in 96"),  # outside facts: intentions only
    ("world", "name kenya's capital city for me"),  # outside facts
    ("counties", "LA county joblessness back in 2015"),  # year 2009 only
    ("world", "nigeria fertility 2019"),  # years 1964-2013 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("election", "SELECT count(*) FROM svy_resp WHERE vote_pref LIKE '%perot%'"),
    (
        "chinook",
        "SELECT (SELECT count(*) FROM Customer WHERE Country ILIKE '%japan%') "
        "+ (SELECT count(*) FROM Invoice WHERE BillingCountry ILIKE '%japan%')",
    ),
    ("abx", "SELECT count(*) FROM drugs WHERE drug_nm LIKE '%tetracyc%'"),
    ("store", "SELECT count(*) FROM states WHERE state LIKE '%alaska%'"),
    ("counties", "SELECT count(*) FROM unemployment WHERE year <> 2009"),
    ("world", "SELECT count(*) FROM indicators WHERE year < 1964 OR year > 2013"),
]
