"""Held-out set #26 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `holidays` one included (bokeh-sampledata's
us_holidays, BSD-3-Clause as the package states: U.S. federal holidays as observed, Easter-based Christian and
cultural observances, nominal years 2000-2030, as a star schema of three tables joined by undeclared keys whose
names differ: `hol_evt.dt_sk` -> `dim_date.date_key`, `hol_evt.hol_ref` -> `hol_def.hol_cd`).

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 52
answerable (two per database on the twenty-four older ones, demog and macro included, four on holidays), worded
as users write (terse, chatty, lower case, a typo or two, everyday words for what the columns hold,
abbreviations, demonyms, several named values in a third of them, counts over undeclared joins, shares, year
ranges), and 18 unanswerable of varied kinds (values the data lacks, checked absent by `ABSENT_CHECKS` (4);
plausible fields it lacks (6); opinions and advice (2); the future (2); facts from outside (2); years outside the
data (2), checked absent too). Every gold query is executed and returns rows (`python bench/bi_nokeys.py --check
--set heldout26`); the top-1 golds were checked for ties; no question is within rapidfuzz ratio 72 of an earlier
question of bench/ or a string of tests/. Run once, on two codes side by side.
"""

from __future__ import annotations

HOL = "FROM hol_evt e JOIN hol_def h ON e.hol_ref = h.hol_cd JOIN dim_date d ON e.dt_sk = d.date_key"
MACRO = "FROM nipa_qtr n JOIN cal_prd p ON n.prd_id = p.period_key"
POP = "FROM wpp_popn p JOIN cntry_ref c ON p.loc_cd = c.iso3_cd"
CRIME = "FROM ucr_st_rates r JOIN geo_state g ON r.jur_cd = g.usps_abbr"
CDIV = f"{CRIME} JOIN census_div d ON g.cdiv_no = d.div_id"
CO2 = "FROM co2_pcap p JOIN ctry_dim c ON p.iso2_cd = c.ctry_iso"
RGN = f"{CO2} JOIN rgn_dim r ON c.rgn_id = r.rgn_cd"
MODE = "FROM trip_opts o JOIN travel_modes m ON o.md_cd = m.mode_code"
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
STORE = "FROM orders o JOIN states s ON o.state = s.state JOIN sub_categories k ON o.sub_category = k.sub_category"
ARTIST = "FROM Track t JOIN Album a ON t.AlbumId = a.AlbumId JOIN Artist ar ON a.ArtistId = ar.ArtistId"

HELDOUT26_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "iron maiden, how many songs do we carry by them",
            f"SELECT count(*) {ARTIST} WHERE ar.Name = 'Iron Maiden'",
        ),
        (
            "tracks running past 10 minutes - how many in the catalog",
            "SELECT count(*) FROM Track WHERE Milliseconds > 600000",
        ),
    ],
    "tpch": [
        (
            "suppliers based in europe - count pls",
            "SELECT count(*) FROM supplier JOIN nation ON s_nationkey = n_nationkey "
            "JOIN region ON n_regionkey = r_regionkey WHERE r_name = 'EUROPE'",
        ),
        (
            "mean acct balance, automobile segment vs household segment",
            "SELECT c_mktsegment, avg(c_acctbal) FROM customer WHERE c_mktsegment IN ('AUTOMOBILE', 'HOUSEHOLD') "
            "GROUP BY c_mktsegment",
        ),
    ],
    "movies": [
        (
            "kubrick, hitchcock, tarantino: film count per director",
            "SELECT Director, count(*) FROM omdb WHERE Director IN ('Stanley Kubrick', 'Alfred Hitchcock', "
            "'Quentin Tarantino') GROUP BY Director",
        ),
        (
            "r-rated pictures released in 1995, how many",
            "SELECT count(*) FROM omdb WHERE Year = 1995 AND Rating = 'R'",
        ),
    ],
    "world": [
        (
            "brazilian fertility rate in 1970, then 2010",
            "SELECT year, fertility FROM indicators WHERE country = 'Brazil' AND year IN (1970, 2010)",
        ),
        (
            "east asia/pacific - most populous nation in 2010",
            "SELECT i.country, i.population FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE c.region = 'East Asia & Pacific' AND i.year = 2010 ORDER BY i.population DESC LIMIT 1",
        ),
    ],
    "flights": [
        (
            "atlanta, seattle, boston: routes departing from each",
            "SELECT Source, count(*) FROM routes WHERE Source IN ('ATL', 'SEA', 'BOS') GROUP BY Source",
        ),
        (
            "which airfield lies lowest? name and altitude",
            "SELECT Name, Altitude FROM airports ORDER BY Altitude LIMIT 1",
        ),
    ],
    "store": [
        (
            "typical discount on tables?",
            "SELECT avg(discount) FROM orders WHERE sub_category = 'Tables'",
        ),
        (
            "units of office supplies moved in the central region",
            f"SELECT sum(o.quantity) {STORE} WHERE s.region = 'Central' AND k.category = 'Office Supplies'",
        ),
    ],
    "cars": [
        (
            "4 cyl japanese/asian imports: mean curb weight",
            "SELECT avg(c.weight) FROM cars c JOIN origins o ON c.origin = o.origin WHERE o.name = 'Asia' AND c.cyl = 4",
        ),
        (
            "fords vs chevys vs dodges, number of models each",
            "SELECT mfr, count(*) FROM cars WHERE mfr IN ('ford', 'chevrolet', 'dodge') GROUP BY mfr",
        ),
    ],
    "counties": [
        (
            "counties in georgia and in virginia - totals",
            "SELECT s.name, count(*) FROM counties c JOIN states s ON c.state = s.code "
            "WHERE s.name IN ('Georgia', 'Virginia') GROUP BY s.name",
        ),
        (
            "northwest region states: mean county jobless rate",
            f"SELECT avg(u.rate) {CNTY} WHERE s.region = 'Northwest'",
        ),
    ],
    "olympics": [
        (
            "norway and the netherlands, golds won in sochi",
            f"SELECT l.cntry_nm, t.gold {MEDAL} WHERE l.cntry_nm IN ('Norway', 'Netherlands')",
        ),
        (
            "jamaica's 100 m medals broken down gold/silver/bronze",
            "SELECT medal, count(*) FROM m100_medalists WHERE noc = 'JAM' GROUP BY medal",
        ),
    ],
    "elements": [
        (
            "densest element + its density",
            "SELECT e.name, p.dens FROM elem e JOIN phys_props p ON e.sym = p.sym ORDER BY p.dens DESC LIMIT 1",
        ),
        (
            "halogens that boil under 300 kelvin - how many",
            f"SELECT count(*) {ELEM} WHERE c.cat_nm = 'halogen' AND p.bp_k < 300",
        ),
    ],
    "penguins": [
        (
            "chinstrap bill depth by sex, averaged",
            f"SELECT o.sex, avg(o.bill_depth_mm) {PENG} WHERE s.common_name = 'Chinstrap' GROUP BY o.sex",
        ),
        (
            "total birds recorded on dream",
            f"SELECT count(*) {PENG} WHERE i.isl_name = 'Dream'",
        ),
    ],
    "titanic": [
        (
            "over-60s on board that made it, how many",
            "SELECT count(*) FROM passengers WHERE age > 60 AND survived = 1",
        ),
        (
            "what share of each ticket class lived (1st/2nd/3rd), in pct",
            "SELECT c.class_desc, 100.0 * avg(p.survived) FROM passengers p "
            "JOIN travel_classes c ON p.pclass = c.class_cd GROUP BY c.class_desc",
        ),
    ],
    "dairy": [
        (
            "jersey vs guernsey milk - mean butterfat",
            f"SELECT b.breed_nm, avg(m.bf_pct) {MILK} WHERE b.breed_nm IN ('Jersey', 'Guernsey') GROUP BY b.breed_nm",
        ),
        (
            "lowest fat reading among mature holsteins",
            f"SELECT min(m.bf_pct) {MILK} WHERE b.breed_nm = 'Holstein-Friesian' AND m.age_grp = 'MAT'",
        ),
    ],
    "glass": [
        (
            "iron oxide avg for building window pieces (float and non-float together)",
            f"SELECT avg(f.fe_wt) {GLASS} WHERE c.use_area = 'building'",
        ),
        (
            "fragments with no potassium at all - number",
            "SELECT count(*) FROM frag_samples WHERE k_wt = 0",
        ),
    ],
    "capex": [
        (
            "ge and westinghouse gross investment for 1940, per firm",
            f"SELECT c.co_name, a.gross_inv {CAPEX} WHERE c.co_name IN ('General Electric', 'Westinghouse') "
            "AND a.fy = 1940",
        ),
        (
            "firm w/ the biggest avg market value 1935-54",
            f"SELECT c.co_name, avg(a.mkt_val) {CAPEX} WHERE a.fy BETWEEN 1935 AND 1954 GROUP BY c.co_name "
            "ORDER BY avg(a.mkt_val) DESC LIMIT 1",
        ),
    ],
    "abx": [
        (
            "how many organisms does penicillin stop below 1 ug/ml",
            f"SELECT count(*) {ABX} WHERE d.drug_nm = 'Penicillin' AND r.mic_ugml < 1",
        ),
        (
            "streptomycin on gram-positive bacteria, mean mic",
            f"SELECT avg(r.mic_ugml) {ABX} WHERE d.drug_nm = 'Streptomycin' AND o.gram_stn = 'POS'",
        ),
    ],
    "degrees": [
        (
            "english majors, women's share in 1975 and 2005",
            f"SELECT s.acad_yr, s.pct_f {DEG} WHERE f.field_nm = 'English' AND s.acad_yr IN (1975, 2005)",
        ),
        (
            "in 1990 which field had the smallest female percentage",
            f"SELECT f.field_nm, s.pct_f {DEG} WHERE s.acad_yr = 1990 ORDER BY s.pct_f LIMIT 1",
        ),
    ],
    "election": [
        (
            "dole supporters - avrage age",
            "SELECT avg(age_yrs) FROM svy_resp WHERE vote_pref = 'Dole'",
        ),
        (
            "college grads (degree or higher) split by clinton / dole",
            f"SELECT r.vote_pref, count(*) {EDU} WHERE e.coll_grad = 'Y' GROUP BY r.vote_pref",
        ),
    ],
    "travel": [
        (
            "train trips: avg minutes spent on board",
            f"SELECT avg(o.veh_time_min) {MODE} WHERE m.mode_nm = 'Train'",
        ),
        (
            "pct of travellers who went by plane",
            f"SELECT 100.0 * sum(o.chosen_flg) / count(*) {MODE} WHERE m.mode_nm = 'Air'",
        ),
    ],
    "equities": [
        (
            "msft mean daily share volume during 2008",
            "SELECT avg(vol_shs) FROM eod_px WHERE tkr = 'MSFT' AND px_dt LIKE '2008-%'",
        ),
        (
            "ibm's lowest closing price on record here + which day",
            "SELECT px_dt, cls_px FROM eod_px WHERE tkr = 'IBM' ORDER BY cls_px LIMIT 1",
        ),
    ],
    "carbon": [
        (
            "per person co2 in 2010 for the us, canada and mexico",
            f"SELECT c.ctry_nm, p.t_co2_pc {CO2} WHERE c.ctry_nm IN ('United States', 'Canada', 'Mexico') "
            "AND p.yr = 2010",
        ),
        (
            "americas: countries over 5 tonnes a head in 2010, count",
            f"SELECT count(*) {RGN} WHERE r.rgn_desc = 'America' AND p.yr = 2010 AND p.t_co2_pc > 5",
        ),
    ],
    "crime": [
        (
            "louisiana murders per 100k",
            f"SELECT r.mrdr_rt_100k {CRIME} WHERE g.st_nm = 'Louisiana'",
        ),
        (
            "pacific divison, avg violent crime rate",
            f"SELECT avg(r.viol_rt_100k) {CDIV} WHERE d.div_nm = 'Pacific'",
        ),
    ],
    "demog": [
        (
            "italian women aged 80 or older in 2020",
            f"SELECT sum(p.pop_cnt) {POP} WHERE c.area_nm = 'Italy' AND p.sex_cd = 'F' AND p.age_lo >= 80 "
            "AND p.ref_yr = 2020",
        ),
        (
            "1950 population of france, germany and the uk, one number each",
            f"SELECT c.area_nm, sum(p.pop_cnt) {POP} WHERE c.area_nm IN ('France', 'Germany', 'United Kingdom') "
            "AND p.ref_yr = 1950 GROUP BY c.area_nm",
        ),
    ],
    "macro": [
        (
            "m1 money supply in the last quarter of 2000",
            f"SELECT n.m1_bn {MACRO} WHERE p.cal_yr = 2000 AND p.cal_qtr = 4",
        ),
        (
            "most negative real interest rate during the 1970s, and the quarter",
            f"SELECT p.cal_yr, p.cal_qtr, n.rl_int_pct {MACRO} WHERE p.dec_lbl = '1970s' ORDER BY n.rl_int_pct LIMIT 1",
        ),
    ],
    "holidays": [
        (
            "date of easter sunday 2019",
            f"SELECT d.cal_dt {HOL} WHERE h.hol_nm = 'Easter Sunday' AND e.hol_yr = 2019",
        ),
        (
            "in how many years does easter land in march",
            f"SELECT count(*) {HOL} WHERE h.hol_nm = 'Easter Sunday' AND d.mo_no = 3",
        ),
        (
            "years when halloween falls on a friday",
            f"SELECT d.cal_yr {HOL} WHERE h.hol_nm = 'Halloween' AND d.dow_nm = 'Friday'",
        ),
        (
            "2015: count of federal holidays, and of christian ones",
            f"SELECT h.hol_type, count(*) {HOL} WHERE e.hol_yr = 2015 AND h.hol_type IN ('federal', 'christian') "
            "GROUP BY h.hol_type",
        ),
    ],
}

HELDOUT26_UNANSWERABLE: list[tuple[str, str]] = [
    ("holidays", "diwali 2024, which day was it"),  # absent: ABSENT_CHECKS
    ("penguins", "emperor penguins counted on biscoe"),  # absent: ABSENT_CHECKS
    ("crime", "puerto rico violent crime per 100k"),  # absent: ABSENT_CHECKS
    ("capex", "gross investment by ford motor, 1948"),  # absent: ABSENT_CHECKS
    ("holidays", "how many americans travel over thanksgiving weekend"),  # no travel stored
    ("macro", "30-yr mortgage rate in 1981"),  # no mortgage rates stored
    ("dairy", "litres of milk a jersey cow gives per day"),  # no yields stored
    ("equities", "goog short interest mid-2011"),  # no short interest stored
    ("olympics", "names of canada's gold medallists at sochi"),  # no Sochi athletes stored
    ("election", "respondents living in ohio - how many"),  # no state of residence stored
    ("holidays", "whats the best holiday of the year honestly"),  # opinion
    ("travel", "bus or car for my sydney trip, which would u pick"),  # advice
    ("carbon", "uk co2 emissions per capita in 2035, forecast"),  # the future
    ("macro", "next quarter's inflation, what will it be"),  # the future
    ("elements", "which chemist first isolated fluorine"),  # outside facts
    ("titanic", "shipyard that built the titanic?"),  # outside facts
    ("holidays", "thanksgiving day date in 2035"),  # calendar 2000-2030 only
    ("equities", "microsoft close price on 3 jan 1995"),  # prices from March 2000 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("holidays", "SELECT count(*) FROM hol_def WHERE hol_nm LIKE '%diwali%' OR hol_nm LIKE '%deepavali%'"),
    ("penguins", "SELECT count(*) FROM species WHERE common_name LIKE '%emperor%' OR sci_name LIKE '%forsteri%'"),
    ("crime", "SELECT count(*) FROM geo_state WHERE st_nm LIKE '%puerto%' OR usps_abbr = 'PR'"),
    ("capex", "SELECT count(*) FROM companies WHERE co_name LIKE '%ford%' OR co_code = 'F'"),
    ("holidays", "SELECT count(*) FROM hol_evt WHERE hol_yr > 2030"),
    ("equities", "SELECT count(*) FROM eod_px WHERE px_dt < '2000-01-01'"),
]
