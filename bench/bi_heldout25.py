"""Held-out set #25 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `macro` one included (quarterly U.S. macroeconomic
series 1959Q1-2009Q3, as two tables joined by an undeclared key whose names differ: `nipa_qtr.prd_id` ->
`cal_prd.period_key`).

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 48
answerable (two per database on the twenty-one older ones, four on macro), worded as users write (terse, chatty,
lower case, a typo or two, everyday words for what the columns hold, abbreviations, demonyms, several named
values in a third of them, counts over undeclared joins, shares, year ranges), and 18 unanswerable of varied
kinds (values the data lacks, checked absent by `ABSENT_CHECKS`; plausible fields it lacks; opinions and advice;
the future; facts from outside; years outside the data). Every gold query is executed and returns rows
(`python bench/bi_nokeys.py --check --set heldout25`); the top-1 golds were checked for ties. Run once, on two
codes side by side.
"""

from __future__ import annotations

MACRO = "FROM nipa_qtr n JOIN cal_prd p ON n.prd_id = p.period_key"
CRIME = "FROM ucr_st_rates r JOIN geo_state g ON r.jur_cd = g.usps_abbr"
CDIV = f"{CRIME} JOIN census_div d ON g.cdiv_no = d.div_id"
CO2 = "FROM co2_pcap p JOIN ctry_dim c ON p.iso2_cd = c.ctry_iso"
RGN = f"{CO2} JOIN rgn_dim r ON c.rgn_id = r.rgn_cd"
PX = "FROM eod_px p JOIN issuers i ON p.tkr = i.ticker_sym"
VENUE = "FROM issuers i JOIN exch_venues v ON i.list_mic = v.mic_code"
MODE = "FROM trip_opts o JOIN travel_modes m ON o.md_cd = m.mode_code"
PTY = "FROM svy_resp r JOIN party_ids p ON r.pid_cd = p.party_code"
DEG = "FROM ba_f_share s JOIN study_fields f ON s.fld_cd = f.field_code"
ABX = "FROM mic_results r JOIN organisms o ON r.bact_id = o.org_no JOIN drugs d ON r.abx_cd = d.drug_code"
CAPEX = "FROM inv_annual a JOIN companies c ON a.firm_cd = c.co_code"
GLASS = "FROM frag_samples f JOIN glass_classes c ON f.gls_cls = c.cls_code"
MILK = "FROM milk_samples m JOIN breeds b ON m.brd_cd = b.breed_code"
PENG = "FROM penguin_obs o JOIN islands i ON o.isl_cd = i.isl_cd JOIN species s ON o.species_id = s.id"
ELEM = "FROM elem e JOIN phys_props p ON e.sym = p.sym"
MEDAL = "FROM sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd"
CNTY = "FROM counties c JOIN unemployment u ON c.fips = u.fips"
STORE = "FROM orders o JOIN states s ON o.state = s.state JOIN sub_categories k ON o.sub_category = k.sub_category"
GENRE = "FROM Track t JOIN Genre g ON t.GenreId = g.GenreId"

HELDOUT25_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "count songs tagged jazz, and separately blues",
            f"SELECT g.Name, count(*) {GENRE} WHERE g.Name IN ('Jazz', 'Blues') GROUP BY g.Name",
        ),
        (
            "biggest-spending billing country in 2023 by invoice totals",
            "SELECT BillingCountry, sum(Total) FROM Invoice WHERE year(InvoiceDate) = 2023 GROUP BY BillingCountry "
            "ORDER BY sum(Total) DESC LIMIT 1",
        ),
    ],
    "tpch": [
        (
            "orders with 1-urgent priority, total number",
            "SELECT count(*) FROM orders WHERE o_orderpriority = '1-URGENT'",
        ),
        (
            "qty shipped broken out by return flag",
            "SELECT l_returnflag, sum(l_quantity) FROM lineitem GROUP BY l_returnflag",
        ),
    ],
    "movies": [
        (
            "spielberg + pg-13, number of films",
            "SELECT count(*) FROM omdb WHERE Director = 'Steven Spielberg' AND Rating = 'PG-13'",
        ),
        (
            "top grossing film from 2010 (box office)",
            "SELECT o.Title, t.BoxOffice FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Year = 2010 "
            "AND t.BoxOffice IS NOT NULL ORDER BY t.BoxOffice DESC LIMIT 1",
        ),
    ],
    "world": [
        (
            "population of japan as of y2k",
            "SELECT population FROM indicators WHERE country = 'Japan' AND year = 2000",
        ),
        (
            "life expectancy across subsaharan countries, avg for 1990 and 2010",
            "SELECT i.year, avg(i.life_expectancy) FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE c.region = 'Sub-Saharan Africa' AND i.year IN (1990, 2010) GROUP BY i.year",
        ),
    ],
    "flights": [
        (
            "o'hare, dfw and denver - departing routes for each",
            "SELECT Source, count(*) FROM routes WHERE Source IN ('ORD', 'DFW', 'DEN') GROUP BY Source",
        ),
        (
            "how many puerto rican airports are listed",
            "SELECT count(*) FROM airports WHERE Country = 'Puerto Rico'",
        ),
    ],
    "store": [
        (
            "phone sales in texas, add them up",
            "SELECT sum(sales) FROM orders WHERE state = 'Texas' AND sub_category = 'Phones'",
        ),
        (
            "earnings on furniture, west & east side by side",
            f"SELECT s.region, sum(o.profit) {STORE} WHERE k.category = 'Furniture' AND s.region IN ('West', 'East') "
            "GROUP BY s.region",
        ),
    ],
    "cars": [
        (
            "v8s made in north america: how many?",
            "SELECT count(*) FROM cars c JOIN origins o ON c.origin = o.origin WHERE o.name = 'North America' "
            "AND c.cyl = 8",
        ),
        (
            "most fuel efficient asian car, which one",
            "SELECT c.name, c.mpg FROM cars c JOIN origins o ON c.origin = o.origin WHERE o.name = 'Asia' "
            "ORDER BY c.mpg DESC LIMIT 1",
        ),
    ],
    "counties": [
        (
            "calif. counties - typical unemployment %",
            f"SELECT avg(u.rate) {CNTY} WHERE c.state = 'CA'",
        ),
        (
            "count of counties in states tagged mid-atlantic",
            "SELECT count(*) FROM counties c JOIN states s ON c.state = s.code WHERE s.region = 'Mid-Atlantic'",
        ),
    ],
    "olympics": [
        (
            "sochi totals for canada + usa",
            f"SELECT l.cntry_nm, t.tot {MEDAL} WHERE l.cntry_nm IN ('Canada', 'United States')",
        ),
        (
            "fastest champion in the 100m dash - name & seconds",
            "SELECT athlete, time_s, yr FROM m100_medalists WHERE medal = 'GOLD' ORDER BY time_s LIMIT 1",
        ),
    ],
    "elements": [
        (
            "tungsten melting pt (K)",
            f"SELECT p.mp_k {ELEM} WHERE e.name = 'Tungsten'",
        ),
        (
            "noble gasses - how many are in the table",
            "SELECT count(*) FROM elem e JOIN elem_cat c ON e.cat_cd = c.cat_cd WHERE c.cat_nm = 'noble gas'",
        ),
    ],
    "penguins": [
        (
            "heaviest adelie seen on torgersen, in grams",
            f"SELECT max(o.body_mass_g) {PENG} WHERE s.common_name = 'Adelie' AND i.isl_name = 'Torgersen'",
        ),
        (
            "chinstraps, count per island",
            f"SELECT i.isl_name, count(*) {PENG} WHERE s.common_name = 'Chinstrap' GROUP BY i.isl_name",
        ),
    ],
    "titanic": [
        (
            "how many 1st-class women survived the sinking",
            "SELECT count(*) FROM passengers WHERE pclass = '1st' AND sex = 'female' AND survived = 1",
        ),
        (
            "mean age: survivors compared to those lost",
            "SELECT survived, avg(age) FROM passengers GROUP BY survived",
        ),
    ],
    "dairy": [
        (
            "ayrshire two-year-olds, avg fat content",
            f"SELECT avg(m.bf_pct) {MILK} WHERE b.breed_nm = 'Ayrshire' AND m.age_grp = '2YO'",
        ),
        (
            "whose milk is richest on average, breed wise",
            f"SELECT b.breed_nm, avg(m.bf_pct) {MILK} GROUP BY b.breed_nm ORDER BY avg(m.bf_pct) DESC LIMIT 1",
        ),
    ],
    "glass": [
        (
            "number of headlamp shards",
            f"SELECT count(*) {GLASS} WHERE c.cls_desc = 'headlamp'",
        ),
        (
            "refractive index avg, tableware and containers",
            f"SELECT c.cls_desc, avg(f.ri_dev) {GLASS} WHERE c.cls_desc IN ('tableware', 'container') "
            "GROUP BY c.cls_desc",
        ),
    ],
    "capex": [
        (
            "year ibm's market value peaked + the figure",
            f"SELECT a.fy, a.mkt_val {CAPEX} WHERE c.co_name = 'IBM' ORDER BY a.mkt_val DESC LIMIT 1",
        ),
        (
            "1950 plant & equipment stock for the petroleum companies, per company",
            f"SELECT c.co_name, a.cap_stk {CAPEX} WHERE c.sector = 'petroleum' AND a.fy = 1950",
        ),
    ],
    "abx": [
        (
            "gram negative bugs - how many in the list",
            "SELECT count(*) FROM organisms WHERE gram_stn = 'NEG'",
        ),
        (
            "neomycin against tb, mic value",
            f"SELECT r.mic_ugml {ABX} WHERE d.drug_nm = 'Neomycin' AND o.org_name = 'Mycobacterium tuberculosis'",
        ),
    ],
    "degrees": [
        (
            "psychology bachelor's: % women in 2011",
            f"SELECT s.pct_f {DEG} WHERE f.field_nm = 'Psychology' AND s.acad_yr = 2011",
        ),
        (
            "stem majors where women were a majority in 2010 - how many",
            f"SELECT count(*) {DEG} WHERE f.stem_flg = 'Y' AND s.acad_yr = 2010 AND s.pct_f > 50",
        ),
    ],
    "election": [
        (
            "respondents who watch the news on tv all 7 days, count",
            "SELECT count(*) FROM svy_resp WHERE tv_news_dpw = 7",
        ),
        (
            "weak dems: clinton backers vs dole backers",
            f"SELECT r.vote_pref, count(*) {PTY} WHERE p.party_desc = 'Weak Democrat' GROUP BY r.vote_pref",
        ),
    ],
    "travel": [
        (
            "whats the avg bus fare",
            f"SELECT avg(o.fare_amt) {MODE} WHERE m.mode_nm = 'Bus'",
        ),
        (
            "drivers w/ household income above 50k - number who picked the car",
            f"SELECT count(*) {MODE} JOIN travellers t ON o.trvlr_no = t.pax_id "
            "WHERE m.mode_nm = 'Car' AND o.chosen_flg = 1 AND t.hh_inc_k > 50",
        ),
    ],
    "equities": [
        (
            "2011 high close for goog and aapl, each",
            "SELECT tkr, max(cls_px) FROM eod_px WHERE tkr IN ('GOOG', 'AAPL') AND px_dt LIKE '2011-%' GROUP BY tkr",
        ),
        (
            "nasdaq-listed names in here, how many",
            f"SELECT count(*) {VENUE} WHERE v.venue_nm = 'NASDAQ Stock Market'",
        ),
    ],
    "carbon": [
        (
            "indian emissions per head in 1990 and 2010",
            f"SELECT p.yr, p.t_co2_pc {CO2} WHERE c.ctry_nm = 'India' AND p.yr IN (1990, 2010)",
        ),
        (
            "south asia, avg tonnes co2 per capita for 2000",
            f"SELECT avg(p.t_co2_pc) {RGN} WHERE r.rgn_desc = 'South Asia' AND p.yr = 2000",
        ),
    ],
    "crime": [
        (
            "poverty %, kentucky and west virginia",
            f"SELECT g.st_nm, r.pov_pct {CRIME} WHERE g.st_nm IN ('Kentucky', 'West Virginia')",
        ),
        (
            "mountain states with over 90 pct finishing high school, how many",
            f"SELECT count(*) {CDIV} WHERE d.div_nm = 'Mountain' AND r.hs_grad_pct > 90",
        ),
    ],
    "macro": [
        (
            "jobless rate q4 2008",
            f"SELECT n.unemp_rt {MACRO} WHERE p.cal_yr = 2008 AND p.cal_qtr = 4",
        ),
        (
            "inflation on avg, seventies versus eighties",
            f"SELECT p.dec_lbl, avg(n.infl_pct) {MACRO} WHERE p.dec_lbl IN ('1970s', '1980s') GROUP BY p.dec_lbl",
        ),
        (
            "how many quarters had the 3-mo t-bill over 10%",
            "SELECT count(*) FROM nipa_qtr WHERE tb3m_pct > 10",
        ),
        (
            "worst unemployment quarter of the 80s",
            f"SELECT p.cal_yr, p.cal_qtr, n.unemp_rt {MACRO} WHERE p.dec_lbl = '1980s' ORDER BY n.unemp_rt DESC LIMIT 1",
        ),
    ],
}

HELDOUT25_UNANSWERABLE: list[tuple[str, str]] = [
    ("dairy", "shorthorn cows, fat % of their milk"),  # absent: ABSENT_CHECKS
    ("equities", "where did netflix shares finish on the 1st of june 2012"),  # absent: ABSENT_CHECKS
    ("abx", "chloramphenicol potency on salmonella"),  # absent: ABSENT_CHECKS
    ("store", "printer sales in ohio"),  # absent: ABSENT_CHECKS
    ("macro", "housing starts in 1985"),  # no housing stored
    ("macro", "s&p 500 level at the end of 1999"),  # no stock index stored
    ("macro", "federal deficit in 2003 as a share of gdp"),  # no budget stored
    ("titanic", "what did 3rd class tickets cost on average"),  # no fares stored
    ("flights", "typical ticket price flying from lax to sfo"),  # no prices stored
    ("movies", "avatar - what was its budget in dollars"),  # no budgets stored
    ("macro", "was reagan good for the economy imo"),  # opinion
    ("equities", "should i put my savings in msft or aapl"),  # advice
    ("macro", "expected jobless rate for 2027"),  # the future
    ("carbon", "what will china emit per resident by 2040"),  # the future
    ("macro", "who was fed chairman in 1980"),  # outside facts
    ("capex", "who founded general motors"),  # outside facts
    ("macro", "real gdp in the first quarter of 1950"),  # macrodata 1959-2009 only
    ("degrees", "share of comp sci degrees going to women in 2015"),  # ba_f_share 1970-2011 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("dairy", "SELECT count(*) FROM breeds WHERE breed_nm LIKE '%shorthorn%'"),
    ("equities", "SELECT count(*) FROM issuers WHERE ticker_sym = 'NFLX' OR issuer_nm LIKE '%netflix%'"),
    ("abx", "SELECT count(*) FROM drugs WHERE drug_nm LIKE '%chloram%'"),
    ("store", "SELECT count(*) FROM orders WHERE sub_category LIKE '%print%'"),
    ("macro", "SELECT count(*) FROM cal_prd WHERE cal_yr < 1959"),
    ("degrees", "SELECT count(*) FROM ba_f_share WHERE acad_yr > 2011"),
]
