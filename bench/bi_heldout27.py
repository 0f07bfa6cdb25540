"""Held-out set #27 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `marital` one included (statsmodels' fair dataset: Ray
Fair's 1978 survey data on marriage and extramarital affairs, 6,366 married women; "included with permission of
the author", as statsmodels states), in three tables joined by undeclared keys whose names differ:
`rdbk_resp.occ_cd` and `rdbk_resp.hsb_occ_cd` -> `occ_lkp.occ_key` (the wife's and the husband's occupation, two
keys into one table), `rdbk_resp.mrg_rtg_cd` -> `mrg_rtg.rtg_key`.

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 54
answerable (two per database on the twenty-five older ones, demog, macro and holidays included, four on marital),
worded as users write (terse, chatty, lower case, a typo or two, everyday words for what the columns hold,
abbreviations, demonyms, several named values in a third of them, counts over undeclared joins, shares, year
ranges), and 18 unanswerable of varied kinds (values the data lacks, checked absent by `ABSENT_CHECKS` (4);
plausible fields it lacks (6); opinions and advice (2); the future (2); facts from outside (2); years outside the
data (2), checked absent too). Every gold query is executed and returns rows (`python bench/bi_nokeys.py --check
--set heldout27`); the top-1 golds were checked for ties; no question is within rapidfuzz ratio 72 of an earlier
question of bench/ or a string of tests/. Run once, on two codes side by side.
"""

from __future__ import annotations

WED = "FROM rdbk_resp r JOIN occ_lkp o ON r.occ_cd = o.occ_key"
HSB = "FROM rdbk_resp r JOIN occ_lkp h ON r.hsb_occ_cd = h.occ_key"
RTG = "FROM rdbk_resp r JOIN mrg_rtg g ON r.mrg_rtg_cd = g.rtg_key"
HOL = "FROM hol_evt e JOIN hol_def h ON e.hol_ref = h.hol_cd JOIN dim_date d ON e.dt_sk = d.date_key"
MACRO = "FROM nipa_qtr n JOIN cal_prd p ON n.prd_id = p.period_key"
POP = "FROM wpp_popn p JOIN cntry_ref c ON p.loc_cd = c.iso3_cd"
CRIME = "FROM ucr_st_rates r JOIN geo_state g ON r.jur_cd = g.usps_abbr"
CDIV = f"{CRIME} JOIN census_div d ON g.cdiv_no = d.div_id"
CO2 = "FROM co2_pcap p JOIN ctry_dim c ON p.iso2_cd = c.ctry_iso"
MODE = "FROM trip_opts o JOIN travel_modes m ON o.md_cd = m.mode_code"
PARTY = "FROM svy_resp r JOIN party_ids p ON r.pid_cd = p.party_code"
EDU = "FROM svy_resp r JOIN edu_levels e ON r.edu_lvl = e.edu_code"
DEG = "FROM ba_f_share s JOIN study_fields f ON s.fld_cd = f.field_code"
ABX = "FROM mic_results r JOIN organisms o ON r.bact_id = o.org_no JOIN drugs d ON r.abx_cd = d.drug_code"
CAPEX = "FROM inv_annual a JOIN companies c ON a.firm_cd = c.co_code"
GLASS = "FROM frag_samples f JOIN glass_classes c ON f.gls_cls = c.cls_code"
MILK = "FROM milk_samples m JOIN breeds b ON m.brd_cd = b.breed_code"
PENG = "FROM penguin_obs o JOIN islands i ON o.isl_cd = i.isl_cd JOIN species s ON o.species_id = s.id"
ELEM = "FROM elem e JOIN elem_cat c ON e.cat_cd = c.cat_cd JOIN phys_props p ON e.sym = p.sym"
MEDAL = "FROM sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd"
CNTY = "FROM counties c JOIN unemployment u ON c.fips = u.fips JOIN states s ON c.state = s.code"
STORE = "FROM orders o JOIN states s ON o.state = s.state"

HELDOUT27_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "metal, reggae, latin: how many songs in each",
            "SELECT g.Name, count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId "
            "WHERE g.Name IN ('Metal', 'Reggae', 'Latin') GROUP BY g.Name",
        ),
        (
            "how much have german customers spent in total",
            "SELECT sum(i.Total) FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId "
            "WHERE c.Country = 'Germany'",
        ),
    ],
    "tpch": [
        (
            "orders marked high prio (2-high) back in '97 - number",
            "SELECT count(*) FROM orders WHERE o_orderpriority = '2-HIGH' AND year(o_orderdate) = 1997",
        ),
        (
            "avg retail price for brand#23 parts",
            "SELECT avg(p_retailprice) FROM part WHERE p_brand = 'Brand#23'",
        ),
    ],
    "movies": [
        (
            "spielberg movies rated pg-13 - how many",
            "SELECT count(*) FROM omdb WHERE Director = 'Steven Spielberg' AND Rating = 'PG-13'",
        ),
        (
            "biggest box office film of 2010, title and gross",
            "SELECT o.Title, t.BoxOffice FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Year = 2010 "
            "ORDER BY t.BoxOffice DESC LIMIT 1",
        ),
    ],
    "world": [
        (
            "vietnam vs thailand, people living there in 1985",
            "SELECT country, population FROM indicators WHERE country IN ('Vietnam', 'Thailand') AND year = 1985",
        ),
        (
            "avg births per woman across sub-saharan africa in 1980",
            "SELECT avg(i.fertility) FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE c.region = 'Sub-Saharan Africa' AND i.year = 1980",
        ),
    ],
    "flights": [
        (
            "airports we have in puerto rico? names pls",
            "SELECT Name FROM airports WHERE Country = 'Puerto Rico'",
        ),
        (
            "jfk -> lax nonstop, number of airlines flying it",
            "SELECT count(DISTINCT Airline) FROM routes WHERE Source = 'JFK' AND Destination = 'LAX'",
        ),
    ],
    "store": [
        (
            "copier profit in the west, all states summed",
            f"SELECT sum(o.profit) {STORE} WHERE s.region = 'West' AND o.sub_category = 'Copiers'",
        ),
        (
            "number of order lines sent same-day shipping",
            "SELECT count(*) FROM orders WHERE ship_mode = 'Same Day'",
        ),
    ],
    "cars": [
        (
            "most fuel efficent car in here + its mpg",
            "SELECT name, mpg FROM cars ORDER BY mpg DESC LIMIT 1",
        ),
        (
            "v8s from north america up to '72, how many",
            "SELECT count(*) FROM cars c JOIN origins o ON c.origin = o.origin "
            "WHERE o.name = 'North America' AND c.cyl = 8 AND c.yr <= 72",
        ),
    ],
    "counties": [
        (
            "ohio and michigan, # of counties above 12% jobless, each",
            f"SELECT s.name, count(*) {CNTY} WHERE s.name IN ('Ohio', 'Michigan') AND u.rate > 12 GROUP BY s.name",
        ),
        (
            "cali county w/ the worst jobless rate and what it was",
            f"SELECT c.name, u.rate {CNTY} WHERE s.name = 'California' ORDER BY u.rate DESC LIMIT 1",
        ),
    ],
    "olympics": [
        (
            "sochi medal totals for germany, russia and the usa",
            f"SELECT l.cntry_nm, t.tot {MEDAL} WHERE l.cntry_nm IN ('Germany', 'Russian Fed.', 'United States')",
        ),
        (
            "british sprinters who medalled in the 100m, with the year",
            "SELECT athlete, yr FROM m100_medalists WHERE noc = 'GBR'",
        ),
    ],
    "elements": [
        (
            "transition metals - mean electronegativity",
            f"SELECT avg(p.en) {ELEM} WHERE c.cat_nm = 'transition metal'",
        ),
        (
            "period 4: how many are solids at room temp",
            "SELECT count(*) FROM elem e JOIN phys_props p ON e.sym = p.sym WHERE e.period = 4 AND p.std_state = 'solid'",
        ),
    ],
    "penguins": [
        (
            "heaviest gentoo weighed, grams",
            f"SELECT max(o.body_mass_g) {PENG} WHERE s.common_name = 'Gentoo'",
        ),
        (
            "female birds on torgersen - count",
            f"SELECT count(*) {PENG} WHERE i.isl_name = 'Torgersen' AND o.sex = 'FEMALE'",
        ),
    ],
    "titanic": [
        (
            "second-class women who survived, number",
            "SELECT count(*) FROM passengers WHERE sex = 'female' AND pclass = '2nd' AND survived = 1",
        ),
        (
            "children younger than 12: % that survived",
            "SELECT 100.0 * avg(survived) FROM passengers WHERE age < 12",
        ),
    ],
    "dairy": [
        (
            "canadian breed samples: mature cows vs 2 yr olds, how many of each",
            f"SELECT m.age_grp, count(*) {MILK} WHERE b.breed_nm = 'Canadian' GROUP BY m.age_grp",
        ),
        (
            "top single butterfat reading - which breed had it",
            f"SELECT b.breed_nm, m.bf_pct {MILK} ORDER BY m.bf_pct DESC LIMIT 1",
        ),
    ],
    "glass": [
        (
            "barium in headlamp glass, on average",
            f"SELECT avg(f.ba_wt) {GLASS} WHERE c.cls_desc = 'headlamp'",
        ),
        (
            "how many bits of float-processed car window glass",
            f"SELECT count(*) {GLASS} WHERE c.cls_desc = 'vehicle window, float processed'",
        ),
    ],
    "capex": [
        (
            "atlantic refining, mean yearly investment 1935-1944",
            f"SELECT avg(a.gross_inv) {CAPEX} WHERE c.co_name = 'Atlantic Refining' AND a.fy BETWEEN 1935 AND 1944",
        ),
        (
            "oil companies' total market value in 1952",
            f"SELECT sum(a.mkt_val) {CAPEX} WHERE c.sector = 'petroleum' AND a.fy = 1952",
        ),
    ],
    "abx": [
        (
            "brucella abortus - which drug beats it at the lowest concentration",
            f"SELECT d.drug_nm, r.mic_ugml {ABX} WHERE o.org_name = 'Brucella abortus' ORDER BY r.mic_ugml LIMIT 1",
        ),
        (
            "bug needing the highest penicillin dose to be stopped",
            f"SELECT o.org_name, r.mic_ugml {ABX} WHERE d.drug_nm = 'Penicillin' ORDER BY r.mic_ugml DESC LIMIT 1",
        ),
    ],
    "degrees": [
        (
            "comp sci: year women's share peaked, and the pct",
            f"SELECT s.acad_yr, s.pct_f {DEG} WHERE f.field_nm = 'Computer Science' ORDER BY s.pct_f DESC LIMIT 1",
        ),
        (
            "stem subjects 2011, mean % female grads",
            f"SELECT avg(s.pct_f) {DEG} WHERE f.stem_flg = 'Y' AND s.acad_yr = 2011",
        ),
    ],
    "election": [
        (
            "weak dems who say they'll vote dole, count",
            f"SELECT count(*) {PARTY} WHERE p.party_desc = 'Weak Democrat' AND r.vote_pref = 'Dole'",
        ),
        (
            "phd holders: avg days/week watching tv news",
            f"SELECT avg(r.tv_news_dpw) {EDU} WHERE e.edu_desc = 'PhD'",
        ),
    ],
    "travel": [
        (
            "people who chose the bus - mean household income",
            f"SELECT avg(t.hh_inc_k) {MODE} JOIN travellers t ON o.trvlr_no = t.pax_id "
            "WHERE m.mode_nm = 'Bus' AND o.chosen_flg = 1",
        ),
        (
            "avg fare offered, air vs train",
            f"SELECT m.mode_nm, avg(o.fare_amt) {MODE} WHERE m.mode_nm IN ('Air', 'Train') GROUP BY m.mode_nm",
        ),
    ],
    "equities": [
        (
            "aapl's busiest trading day by shares and the volume",
            "SELECT px_dt, vol_shs FROM eod_px WHERE tkr = 'AAPL' ORDER BY vol_shs DESC LIMIT 1",
        ),
        (
            "facebook avg closing price over 2012",
            "SELECT avg(cls_px) FROM eod_px WHERE tkr = 'FB' AND px_dt LIKE '2012-%'",
        ),
    ],
    "carbon": [
        (
            "chinese co2 per person: 1960, 1990, 2010",
            f"SELECT p.yr, p.t_co2_pc {CO2} WHERE c.ctry_nm = 'China' AND p.yr IN (1960, 1990, 2010)",
        ),
        (
            "mideast & n. africa, 2005: highest tonnes of co2 a head",
            f"SELECT c.ctry_nm, p.t_co2_pc {CO2} JOIN rgn_dim g ON c.rgn_id = g.rgn_cd "
            "WHERE g.rgn_desc = 'Middle East & North Africa' AND p.yr = 2005 ORDER BY p.t_co2_pc DESC LIMIT 1",
        ),
    ],
    "crime": [
        (
            "which states have over 20% of people in poverty",
            f"SELECT g.st_nm {CRIME} WHERE r.pov_pct > 20",
        ),
        (
            "midwest states, mean murder rate",
            f"SELECT avg(r.mrdr_rt_100k) {CDIV} WHERE d.rgn_nm = 'Midwest'",
        ),
    ],
    "demog": [
        (
            "nigeria's headcount in 2000, both sexes",
            f"SELECT sum(p.pop_cnt) {POP} WHERE c.area_nm = 'Nigeria' AND p.ref_yr = 2000",
        ),
        (
            "indian boys aged 0-4 in 1990",
            f"SELECT p.pop_cnt {POP} WHERE c.area_nm = 'India' AND p.ref_yr = 1990 AND p.sex_cd = 'M' "
            "AND p.age_grp = '0-4'",
        ),
    ],
    "macro": [
        (
            "nineties: peak real gdp quarter",
            f"SELECT p.cal_yr, p.cal_qtr, n.rl_gdp_bn {MACRO} WHERE p.dec_lbl = '1990s' ORDER BY n.rl_gdp_bn DESC LIMIT 1",
        ),
        (
            "3-month tbill yield averaged 1990 thru 1999",
            f"SELECT avg(n.tb3m_pct) {MACRO} WHERE p.cal_yr BETWEEN 1990 AND 1999",
        ),
    ],
    "holidays": [
        (
            "thanksgiving 2022 fell on what date",
            f"SELECT d.cal_dt {HOL} WHERE h.hol_nm = 'Thanksgiving Day' AND e.hol_yr = 2022",
        ),
        (
            "mothers day and fathers day in 2021 - dates",
            f"SELECT h.hol_nm, d.cal_dt {HOL} WHERE h.hol_nm IN ('Mother''s Day', 'Father''s Day') AND e.hol_yr = 2021",
        ),
    ],
    "marital": [
        (
            "women who call their marriage very poor, how many",
            f"SELECT count(*) {RTG} WHERE g.rtg_lbl = 'very poor'",
        ),
        (
            "respondents married to a manager or businessman - count",
            f"SELECT count(*) {HSB} WHERE h.occ_desc = 'managerial, administrative, business'",
        ),
        (
            "% who had any affair: strongly religious wives vs not religious ones",
            "SELECT relig_lvl, 100.0 * avg(xm_afr_tm > 0) FROM rdbk_resp WHERE relig_lvl IN ('strongly', 'not') "
            "GROUP BY relig_lvl",
        ),
        (
            "white collar wives whose husband is a professional w/ an advanced degree, number",
            "SELECT count(*) FROM rdbk_resp r JOIN occ_lkp o ON r.occ_cd = o.occ_key "
            "JOIN occ_lkp h ON r.hsb_occ_cd = h.occ_key "
            "WHERE o.occ_desc = 'white-collar' AND h.occ_desc = 'professional with advanced degree'",
        ),
    ],
}

HELDOUT27_UNANSWERABLE: list[tuple[str, str]] = [
    ("marital", "retired women in the survey, how many"),  # absent: ABSENT_CHECKS
    ("cars", "teslas in the dataset - count"),  # absent: ABSENT_CHECKS
    ("dairy", "angus cows: mean butterfat"),  # absent: ABSENT_CHECKS
    ("abx", "cipro on pseudomonas, the mic value"),  # absent: ABSENT_CHECKS
    ("marital", "average yearly household income of the wives"),  # no income stored
    ("penguins", "chicks raised per chinstrap pair"),  # no breeding success stored
    ("store", "how many furniture orders got sent back by customers"),  # no returns stored
    ("flights", "baggage fees southwest charges out of denver"),  # no fees stored
    ("crime", "ohio burglaries per 100k people"),  # no burglary rates stored
    ("chinook", "avg listener star rating for ac/dc songs"),  # no ratings stored
    ("movies", "which kubrick film should i start with"),  # advice
    ("marital", "is marrying young a good idea, your take"),  # opinion
    ("equities", "where does aapl close at the end of next year"),  # the future
    ("demog", "how many people will live in brazil in 2075"),  # the future
    ("olympics", "who lit the olympic cauldron in sochi"),  # outside facts
    ("counties", "current governor of nevada?"),  # outside facts
    ("degrees", "2020 share of biology bachelor's going to women"),  # degrees 1970-2011 only
    ("capex", "chrysler investment spending in 1962"),  # firms 1935-1954 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("marital", "SELECT count(*) FROM occ_lkp WHERE occ_desc LIKE '%retire%' OR occ_abbr LIKE '%RETIR%'"),
    ("cars", "SELECT count(*) FROM cars WHERE mfr LIKE '%tesla%' OR name LIKE '%tesla%'"),
    ("dairy", "SELECT count(*) FROM breeds WHERE breed_nm LIKE '%angus%' OR breed_code = 'ANG'"),
    ("abx", "SELECT count(*) FROM drugs WHERE drug_nm LIKE '%cipro%' OR drug_code = 'CIP'"),
    ("degrees", "SELECT count(*) FROM ba_f_share WHERE acad_yr > 2011"),
    ("capex", "SELECT count(*) FROM inv_annual WHERE fy > 1954"),
]
