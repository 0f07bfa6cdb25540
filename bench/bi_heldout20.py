"""Held-out set #20 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `travel` one included (Greene and Hensher's travel
mode choice data: 210 Sydney-Melbourne travellers each offered air, train, bus and car, as three tables joined by
undeclared keys whose names differ: `trip_opts.trvlr_no` -> `travellers.pax_id`, `trip_opts.md_cd` ->
`travel_modes.mode_code`).

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 40
answerable (two per database on the eighteen older ones, four on travel), worded as users write (terse, chatty,
lower case, a typo or two, everyday words for what the columns hold, abbreviations, demonyms, several named values
in a third of them, counts over undeclared joins, shares, year ranges), and 18 unanswerable of varied kinds
(values the data lacks, checked absent by `ABSENT_CHECKS`; plausible fields it lacks; opinions and advice; the
future; facts from outside; years outside the data). Every gold query is executed and returns rows
(`python bench/bi_nokeys.py --check --set heldout20`); the top-1 golds were checked for ties. Run once, on two
codes side by side.
"""

from __future__ import annotations

TRIP = "FROM trip_opts o JOIN travellers t ON o.trvlr_no = t.pax_id JOIN travel_modes m ON o.md_cd = m.mode_code"
MODE = "FROM trip_opts o JOIN travel_modes m ON o.md_cd = m.mode_code"
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
STORE = "FROM orders o JOIN states s ON o.state = s.state JOIN sub_categories c ON o.sub_category = c.sub_category"

HELDOUT20_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "brazilians and canadians on our client list - how many of each?",
            "SELECT Country, count(*) FROM Customer WHERE Country IN ('Brazil', 'Canada') GROUP BY Country",
        ),
        (
            "hours of jazz in the catalogue altogether",
            "SELECT sum(t.Milliseconds) / 3600000.0 FROM Track t JOIN Genre g ON t.GenreId = g.GenreId "
            "WHERE g.Name = 'Jazz'",
        ),
    ],
    "tpch": [
        (
            "vendor acct balances, germany against france (mean)",
            "SELECT n.n_name, avg(s.s_acctbal) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey "
            "WHERE n.n_name IN ('GERMANY', 'FRANCE') GROUP BY n.n_name",
        ),
        (
            "orders placed in 1997 - what share of them had HIGH priority",
            "SELECT 100.0 * avg(CASE WHEN o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END) FROM orders "
            "WHERE year(o_orderdate) = 1997",
        ),
    ],
    "movies": [
        (
            "spielberg's eighties output + metascore for each",
            "SELECT Title, Metacritic FROM omdb WHERE Director = 'Steven Spielberg' AND Year BETWEEN 1980 AND 1989",
        ),
        (
            "chinatown - tomatometer?",
            "SELECT t.Meter FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Title = 'Chinatown'",
        ),
    ],
    "world": [
        (
            "india v china lifespan, 1970 then 2010",
            "SELECT country, year, life_expectancy FROM indicators WHERE country IN ('India', 'China') "
            "AND year IN (1970, 2010)",
        ),
        (
            "east asia/pacific nations, avg life expectancy back in '85",
            "SELECT avg(i.life_expectancy) FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE c.region = 'East Asia & Pacific' AND i.year = 1985",
        ),
    ],
    "flights": [
        (
            "airfields in puerto rico, and in guam: counts",
            "SELECT Country, count(*) FROM airports WHERE Country IN ('Puerto Rico', 'Guam') GROUP BY Country",
        ),
        (
            "alaska airlines - number of routes it flies out of seattle",
            "SELECT count(*) FROM routes r JOIN airports a ON r.SourceID = a.AirportID "
            "WHERE a.City = 'Seattle' AND r.Airline = 'AS'",
        ),
    ],
    "store": [
        (
            "how much furniture did we sell in the western states ($)",
            f"SELECT sum(o.sales) {STORE} WHERE s.region = 'West' AND c.category = 'Furniture'",
        ),
        (
            "same-day deliveries: nyc compared to LA, line count",
            "SELECT city, count(*) FROM orders WHERE ship_mode = 'Same Day' "
            "AND city IN ('New York City', 'Los Angeles') GROUP BY city",
        ),
    ],
    "cars": [
        (
            "toyota or honda - which gets better gas mileage on avrage",
            "SELECT mfr, avg(mpg) FROM cars WHERE mfr IN ('toyota', 'honda') GROUP BY mfr",
        ),
        (
            "asian-built models over 100 hp, count them",
            "SELECT count(*) FROM cars c JOIN origins o ON c.origin = o.origin WHERE o.name = 'Asia' AND c.hp > 100",
        ),
    ],
    "counties": [
        (
            "wayne county mich. - jobless figure",
            "SELECT u.rate FROM counties c JOIN unemployment u ON c.fips = u.fips WHERE c.name = 'Wayne' "
            "AND c.state = 'MI'",
        ),
        (
            "count of mid-atlantic counties with over 12% out of work",
            f"SELECT count(*) {CNTY} WHERE s.region = 'Mid-Atlantic' AND u.rate > 12",
        ),
    ],
    "olympics": [
        (
            "canada's and the americans' medal haul at the 2014 winter games",
            "SELECT l.cntry_nm, t.tot FROM sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd "
            "WHERE l.cntry_nm IN ('Canada', 'United States')",
        ),
        (
            "brits who finished runner-up in the 100 metres, with the year",
            "SELECT athlete, yr FROM m100_medalists WHERE noc = 'GBR' AND medal = 'SILVER'",
        ),
    ],
    "elements": [
        (
            "metalloids and the energy to strip their first electron",
            f"SELECT e.name, p.ie1 {ELEM} WHERE c.cat_nm = 'metalloid'",
        ),
        (
            "lowest melting pt among the row-4 elements?",
            "SELECT e.name FROM elem e JOIN phys_props p ON e.sym = p.sym WHERE e.period = 4 ORDER BY p.mp_k LIMIT 1",
        ),
    ],
    "penguins": [
        (
            "chinstraps: shallowest and deepest beak measured",
            "SELECT min(o.bill_depth_mm), max(o.bill_depth_mm) FROM penguin_obs o JOIN species s "
            "ON o.species_id = s.id WHERE s.common_name = 'Chinstrap'",
        ),
        (
            "the lightest bird weighed on dream - its species?",
            f"SELECT s.common_name {PENG} WHERE i.isl_name = 'Dream' ORDER BY o.body_mass_g LIMIT 1",
        ),
    ],
    "titanic": [
        (
            "% of first-class ladies that made it",
            "SELECT 100.0 * avg(survived) FROM passengers WHERE pclass = '1st' AND sex = 'female'",
        ),
        (
            "2nd-class survivors, how old on avg",
            "SELECT avg(age) FROM passengers WHERE pclass = '2nd' AND survived = 1",
        ),
    ],
    "dairy": [
        (
            "ayrshires v guernseys, just the 2 year olds: fat % avg",
            f"SELECT b.breed_nm, avg(m.bf_pct) {MILK} WHERE b.breed_nm IN ('Ayrshire', 'Guernsey') "
            "AND m.age_grp = '2YO' GROUP BY b.breed_nm",
        ),
        (
            "number of milk tests on canadian-bred cattle",
            f"SELECT count(*) {MILK} WHERE b.orig_cntry = 'Canada'",
        ),
    ],
    "glass": [
        (
            "barium in headlight glass vs tableware, averaged",
            f"SELECT c.cls_desc, avg(f.ba_wt) {GLASS} WHERE c.cls_desc IN ('headlamp', 'tableware') GROUP BY c.cls_desc",
        ),
        (
            "building glass pieces carrying more than 1% potash... how many",
            f"SELECT count(*) {GLASS} WHERE c.use_area = 'building' AND f.k_wt > 1",
        ),
    ],
    "capex": [
        (
            "goodyear & union oil capex 1946 thru 1950, seperately",
            f"SELECT c.co_name, sum(a.gross_inv) {CAPEX} WHERE c.co_name IN ('Goodyear', 'Union Oil') "
            "AND a.fy BETWEEN 1946 AND 1950 GROUP BY c.co_name",
        ),
        (
            "who spent the least on new investment in 1948",
            f"SELECT c.co_name {CAPEX} WHERE a.fy = 1948 ORDER BY a.gross_inv LIMIT 1",
        ),
    ],
    "abx": [
        (
            "penicillin's mic on staph aureus",
            f"SELECT r.mic_ugml {ABX} WHERE d.drug_nm = 'Penicillin' AND o.org_name = 'Staphylococcus aureus'",
        ),
        (
            "the salmonellas: neomycin readings for each",
            f"SELECT o.org_name, r.mic_ugml {ABX} WHERE o.genus = 'Salmonella' AND d.drug_nm = 'Neomycin'",
        ),
    ],
    "degrees": [
        (
            "women's share of psych and of biology bachelors, 1990",
            f"SELECT f.field_nm, s.pct_f {DEG} WHERE f.field_nm IN ('Psychology', 'Biology') AND s.acad_yr = 1990",
        ),
        (
            "mean % female over the stem fields in 2005",
            f"SELECT avg(s.pct_f) {DEG} WHERE f.stem_flg = 'Y' AND s.acad_yr = 2005",
        ),
    ],
    "election": [
        (
            "weak democrats who intend to go for dole, count",
            f"SELECT count(*) {VOTE} WHERE p.party_desc = 'Weak Democrat' AND r.vote_pref = 'Dole'",
        ),
        (
            "days a week watching the news: high-school grads next to some-college ppl",
            f"SELECT e.edu_desc, avg(r.tv_news_dpw) {EDU} WHERE e.edu_desc IN ('High school graduate', 'Some college') "
            "GROUP BY e.edu_desc",
        ),
    ],
    "travel": [
        (
            "how many travellers flew",
            f"SELECT count(*) {MODE} WHERE m.mode_nm = 'Air' AND o.chosen_flg = 1",
        ),
        (
            "household income, drivers vs bus riders (avg, in $k)",
            f"SELECT m.mode_nm, avg(t.hh_inc_k) {TRIP} WHERE o.chosen_flg = 1 AND m.mode_nm IN ('Car', 'Bus') "
            "GROUP BY m.mode_nm",
        ),
        (
            "for people going alone, typical train ticket price quoted? mean pls",
            f"SELECT avg(o.fare_amt) {TRIP} WHERE m.mode_nm = 'Train' AND t.party_sz = 1",
        ),
        (
            "what percent chose public transport rather than the car",
            f"SELECT 100.0 * avg(m.pub_trnsp = 'Y') {MODE} WHERE o.chosen_flg = 1",
        ),
    ],
}

HELDOUT20_UNANSWERABLE: list[tuple[str, str]] = [
    ("travel", "number who took the ferry"),  # absent: ABSENT_CHECKS
    ("penguins", "rockhopper weights, average"),  # absent: ABSENT_CHECKS
    ("dairy", "fat content for shorthorns"),  # absent: ABSENT_CHECKS
    ("cars", "mpg of the ferraris in here"),  # absent: ABSENT_CHECKS
    ("travel", "what carrier did most of the air travellers book"),  # no carrier stored
    ("travel", "avg km covered per trip"),  # no distance stored
    ("titanic", "which deck were most steerage passengers berthed on"),  # no decks stored
    ("store", "the salesperson with the most deals closed in texas"),  # no salespeople stored
    ("chinook", "avg beats per minute of our rock songs"),  # no tempo stored
    ("elements", "most abundant element in the earth's crust"),  # no abundance stored
    ("travel", "should i fly or take the train to melbourne"),  # advice
    ("movies", "is the godfather overrated or not"),  # opinion
    ("travel", "what will bus fares be a year from now"),  # the future
    ("chinook", "which artist will top our charts next year"),  # the future
    ("travel", "how far is it from sydney to melbourne by road"),  # outside facts
    ("abx", "what illness does klebsiella cause in people"),  # outside facts
    ("degrees", "female share of comp sci grads in 2018"),  # years 1970-2011 only
    ("capex", "diamond match spending on plant in 1931"),  # years 1935-1954 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("travel", "SELECT count(*) FROM travel_modes WHERE mode_nm LIKE '%ferry%' OR mode_nm LIKE '%boat%'"),
    ("penguins", "SELECT count(*) FROM species WHERE common_name LIKE '%rockhop%' OR sci_name LIKE '%eudyptes%'"),
    ("dairy", "SELECT count(*) FROM breeds WHERE breed_nm LIKE '%shorthorn%'"),
    ("cars", "SELECT count(*) FROM cars WHERE mfr LIKE '%ferrari%' OR name LIKE '%ferrari%'"),
    ("degrees", "SELECT count(*) FROM ba_f_share WHERE acad_yr > 2011"),
    ("capex", "SELECT count(*) FROM inv_annual WHERE fy < 1935"),
]
