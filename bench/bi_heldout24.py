"""Held-out set #24 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `demog` one included (the UN's 1950-2020 population
estimates of 237 countries and areas by sex and five-year age group, as three tables joined by undeclared keys
whose names differ: `wpp_popn.loc_cd` -> `cntry_ref.iso3_cd`, `cntry_ref.sreg_no` -> `geo_sreg.sreg_key`).

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 48
answerable (two per database on the twenty-one older ones, four on demog), worded as users write (terse, chatty,
lower case, a typo or two, everyday words for what the columns hold, abbreviations, demonyms, several named
values in a third of them, counts over undeclared joins, shares, year ranges), and 18 unanswerable of varied
kinds (values the data lacks, checked absent by `ABSENT_CHECKS`; plausible fields it lacks; opinions and advice;
the future; facts from outside; years outside the data). Every gold query is executed and returns rows
(`python bench/bi_nokeys.py --check --set heldout24`); the top-1 golds were checked for ties. Run once, on two
codes side by side.
"""

from __future__ import annotations

POP = "FROM wpp_popn p JOIN cntry_ref c ON p.loc_cd = c.iso3_cd"
SREG = f"{POP} JOIN geo_sreg g ON c.sreg_no = g.sreg_key"
CRIME = "FROM ucr_st_rates r JOIN geo_state g ON r.jur_cd = g.usps_abbr"
CO2 = "FROM co2_pcap p JOIN ctry_dim c ON p.iso2_cd = c.ctry_iso"
RGN = f"{CO2} JOIN rgn_dim r ON c.rgn_id = r.rgn_cd"
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
STORE = "FROM orders o JOIN states s ON o.state = s.state"
GENRE = "FROM InvoiceLine il JOIN Track t ON il.TrackId = t.TrackId JOIN Genre g ON t.GenreId = g.GenreId"

HELDOUT24_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "top earning music genre by sales $ - just the #1",
            f"SELECT g.Name, sum(il.UnitPrice * il.Quantity) {GENRE} GROUP BY g.Name "
            "ORDER BY sum(il.UnitPrice * il.Quantity) DESC LIMIT 1",
        ),
        (
            "# of brazilian customers and # of german ones",
            "SELECT Country, count(*) FROM Customer WHERE Country IN ('Brazil', 'Germany') GROUP BY Country",
        ),
    ],
    "tpch": [
        (
            "how many orders got flagged urgent in the year 1996",
            "SELECT count(*) FROM orders WHERE o_orderpriority = '1-URGENT' AND year(o_orderdate) = 1996",
        ),
        (
            "do we have more japanese suppliers or chinese suppliers?",
            "SELECT n_name, count(*) FROM supplier JOIN nation ON s_nationkey = n_nationkey "
            "WHERE n_name IN ('JAPAN', 'CHINA') GROUP BY n_name",
        ),
    ],
    "movies": [
        (
            "r-rated flicks out in 1999, typical length in minutes (mean)",
            "SELECT avg(Runtime) FROM omdb WHERE Rating = 'R' AND Year = 1999",
        ),
        (
            "rotten tomatoes critic meter on the matrix?",
            "SELECT t.Meter FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Title = 'The Matrix'",
        ),
    ],
    "world": [
        (
            "swedes - life span at birth in 1990 and again in 2010",
            "SELECT year, life_expectancy FROM indicators WHERE country = 'Sweden' AND year IN (1990, 2010)",
        ),
        (
            "combined headcount of south asia's countries at the turn of the millenium (2000)",
            "SELECT sum(i.population) FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE c.region = 'South Asia' AND i.year = 2000",
        ),
    ],
    "flights": [
        (
            "tally of the airports classed as large",
            "SELECT count(*) FROM airports WHERE Type = 'large_airport'",
        ),
        (
            "which carrier runs the most departures out of denver",
            "SELECT r.Airline, count(*) FROM routes r JOIN airports a ON r.SourceID = a.AirportID "
            "WHERE a.City = 'Denver' GROUP BY r.Airline ORDER BY count(*) DESC LIMIT 1",
        ),
    ],
    "store": [
        (
            "corporate customers w/ same-day delivery - sum of sales",
            "SELECT sum(sales) FROM orders WHERE ship_mode = 'Same Day' AND segment = 'Corporate'",
        ),
        (
            "furnture profit broken out by region",
            f"SELECT s.region, sum(o.profit) {STORE} JOIN sub_categories c ON o.sub_category = c.sub_category "
            "WHERE c.category = 'Furniture' GROUP BY s.region",
        ),
    ],
    "cars": [
        (
            "heaviest vehicle listed? name + lbs",
            "SELECT name, weight FROM cars ORDER BY weight DESC LIMIT 1",
        ),
        (
            "fuel economy four-cylinder vs six-cylinder engines, mean of each",
            "SELECT cyl, avg(mpg) FROM cars WHERE cyl IN (4, 6) GROUP BY cyl",
        ),
    ],
    "counties": [
        (
            "texas - number of counties with jobless rates under 5 pct",
            f"SELECT count(*) {CNTY} WHERE c.state = 'TX' AND u.rate < 5",
        ),
        (
            "southwest region states: avg joblessness across their counties",
            f"SELECT avg(u.rate) {CNTY} JOIN states s ON c.state = s.code WHERE s.region = 'Southwest'",
        ),
    ],
    "olympics": [
        (
            "medal haul at sochi, germans against canadians (totals)",
            f"SELECT l.cntry_nm, t.tot {MEDAL} WHERE l.cntry_nm IN ('Germany', 'Canada')",
        ),
        (
            "quickest gold-winning 100 m time prior to 1960",
            "SELECT min(time_s) FROM m100_medalists WHERE medal = 'GOLD' AND yr < 1960",
        ),
    ],
    "elements": [
        (
            "how many elemnts got discovered during the 19th century",
            "SELECT count(*) FROM elem WHERE CAST(yr_disc AS INTEGER) BETWEEN 1800 AND 1899",
        ),
        (
            "tungsten & iron - at what temperature do they melt (kelvin)",
            f"SELECT e.name, p.mp_k {ELEM} WHERE e.name IN ('Tungsten', 'Iron')",
        ),
    ],
    "penguins": [
        (
            "biggest body weight recorded for an adelie on torgersen",
            f"SELECT max(o.body_mass_g) {PENG} WHERE s.common_name = 'Adelie' AND i.isl_name = 'Torgersen'",
        ),
        (
            "bill length avg: adelie compared to chinstrap",
            f"SELECT s.common_name, avg(o.bill_len_mm) {PENG} WHERE s.common_name IN ('Adelie', 'Chinstrap') "
            "GROUP BY s.common_name",
        ),
    ],
    "titanic": [
        (
            "children younger than 10 who lived through it - number",
            "SELECT count(*) FROM passengers WHERE age < 10 AND survived = 1",
        ),
        (
            "% of female passengers saved, first class compared with third",
            "SELECT pclass, 100.0 * avg(survived) FROM passengers WHERE sex = 'female' AND pclass IN ('1st', '3rd') "
            "GROUP BY pclass",
        ),
    ],
    "dairy": [
        (
            "guernsey milk - top fat % ever measured",
            f"SELECT max(m.bf_pct) {MILK} WHERE b.breed_nm = 'Guernsey'",
        ),
        (
            "two-year-old heifers, butterfat avg for each breed",
            f"SELECT b.breed_nm, avg(m.bf_pct) {MILK} WHERE m.age_grp = '2YO' GROUP BY b.breed_nm",
        ),
    ],
    "glass": [
        (
            "calcium in tableware glass - mean wt %",
            f"SELECT avg(f.ca_wt) {GLASS} WHERE c.cls_desc = 'tableware'",
        ),
        (
            "car-related glass: fragment count in each type",
            f"SELECT c.cls_desc, count(*) {GLASS} WHERE c.use_area = 'vehicle' GROUP BY c.cls_desc",
        ),
    ],
    "capex": [
        (
            "gm yearly gross investment for 1935-39",
            f"SELECT a.fy, a.gross_inv {CAPEX} WHERE c.co_name = 'General Motors' AND a.fy BETWEEN 1935 AND 1939",
        ),
        (
            "who held the biggest stock of plant & equipment in 1954",
            f"SELECT c.co_name, a.cap_stk {CAPEX} WHERE a.fy = 1954 ORDER BY a.cap_stk DESC LIMIT 1",
        ),
    ],
    "abx": [
        (
            "neomycin against the gram-positive species - mean mic",
            f"SELECT avg(r.mic_ugml) {ABX} WHERE d.drug_nm = 'Neomycin' AND o.gram_stn = 'POS'",
        ),
        (
            "salmonella strains: mic for every antibiotic",
            f"SELECT o.org_name, d.drug_nm, r.mic_ugml {ABX} WHERE o.genus = 'Salmonella'",
        ),
    ],
    "degrees": [
        (
            "comp sci bachelor's going to women, pct in 1984 and in 2011",
            f"SELECT s.acad_yr, s.pct_f {DEG} WHERE f.field_nm = 'Computer Science' AND s.acad_yr IN (1984, 2011)",
        ),
        (
            "averaged across the stem majors, what was the female share in 2000",
            f"SELECT avg(s.pct_f) {DEG} WHERE f.stem_flg = 'Y' AND s.acad_yr = 2000",
        ),
    ],
    "election": [
        (
            "pure independents - how did they split between the two candidates",
            f"SELECT r.vote_pref, count(*) {PTY} WHERE p.party_desc = 'Independent-Independent' GROUP BY r.vote_pref",
        ),
        (
            "ppl with a college degree: on avg how many days a week do they tune in to tv news",
            "SELECT avg(r.tv_news_dpw) FROM svy_resp r JOIN edu_levels e ON r.edu_lvl = e.edu_code "
            "WHERE e.coll_grad = 'Y'",
        ),
    ],
    "travel": [
        (
            "what's the bus fare on avg",
            f"SELECT avg(o.fare_amt) {MODE} WHERE m.mode_nm = 'Bus'",
        ),
        (
            "households making more than 50k - how many ended up driving",
            f"SELECT count(*) {MODE} JOIN travellers t ON o.trvlr_no = t.pax_id "
            "WHERE m.mode_nm = 'Car' AND o.chosen_flg = 1 AND t.hh_inc_k > 50",
        ),
    ],
    "equities": [
        (
            "google's all time high closing price in here",
            "SELECT max(cls_px) FROM eod_px WHERE tkr = 'GOOG'",
        ),
        (
            "days facebook finished under $20",
            "SELECT count(*) FROM eod_px WHERE tkr = 'FB' AND cls_px < 20",
        ),
    ],
    "carbon": [
        (
            "south asian nations, mean tonnes co2 a head in 1990",
            f"SELECT avg(p.t_co2_pc) {RGN} WHERE r.rgn_desc = 'South Asia' AND p.yr = 1990",
        ),
        (
            "qatar emissions per capita for 1970, 1990, 2010",
            f"SELECT p.yr, p.t_co2_pc {CO2} WHERE c.ctry_nm = 'Qatar' AND p.yr IN (1970, 1990, 2010)",
        ),
    ],
    "crime": [
        (
            "homicide rates of the pacific division, state by state",
            f"SELECT g.st_nm, r.mrdr_rt_100k {CRIME} JOIN census_div d ON g.cdiv_no = d.div_id "
            "WHERE d.div_nm = 'Pacific'",
        ),
        (
            "state with the lowest share finishing high school",
            f"SELECT g.st_nm, r.hs_grad_pct {CRIME} ORDER BY r.hs_grad_pct LIMIT 1",
        ),
    ],
    "demog": [
        (
            "nigeria head count 2020",
            f"SELECT sum(p.pop_cnt) {POP} WHERE c.area_nm = 'Nigeria' AND p.ref_yr = 2020",
        ),
        (
            "japan's 65-and-over population, 1990 vs 2020",
            f"SELECT p.ref_yr, sum(p.pop_cnt) {POP} WHERE c.area_nm = 'Japan' AND p.age_lo >= 65 "
            "AND p.ref_yr IN (1990, 2020) GROUP BY p.ref_yr",
        ),
        (
            "oceania - number of countries/territories with fewer than 100k residents in 2020",
            f"SELECT count(*) FROM (SELECT c.iso3_cd {SREG} WHERE g.cont_nm = 'Oceania' AND p.ref_yr = 2020 "
            "GROUP BY c.iso3_cd HAVING sum(p.pop_cnt) < 100000)",
        ),
        (
            "what percentage of indians were under 15 back in 1950",
            f"SELECT 100.0 * sum(CASE WHEN p.age_lo < 15 THEN p.pop_cnt ELSE 0 END) / sum(p.pop_cnt) {POP} "
            "WHERE c.area_nm = 'India' AND p.ref_yr = 1950",
        ),
    ],
}

HELDOUT24_UNANSWERABLE: list[tuple[str, str]] = [
    ("demog", "scottish headcount, 2010"),  # absent: ABSENT_CHECKS
    ("election", "green party voters in the poll, how many"),  # absent: ABSENT_CHECKS
    ("cars", "porsche models - avg horsepower"),  # absent: ABSENT_CHECKS
    ("olympics", "kenya's medals at sochi"),  # absent: ABSENT_CHECKS
    ("demog", "chile life expectancy at birth 2000"),  # no life expectancy stored
    ("demog", "babies born in brazil during 1980"),  # no births stored
    ("demog", "egypt: city dwellers vs rural, 2010"),  # no urban/rural split stored
    ("store", "name of our biggest-spending customer"),  # no customers stored
    ("titanic", "avg ticket price paid in second class"),  # no fares stored
    ("travel", "female travellers in the sample - count"),  # no sex stored
    ("demog", "is india's population growth a good or bad thing, in ur view"),  # opinion
    ("cars", "datsun or toyota - which should i buy?"),  # advice
    ("demog", "china's headcount in 2050 - estimate it"),  # the future
    ("capex", "us steel gross investment next decade, projected"),  # the future
    ("demog", "capital city of kazakhstan?"),  # outside facts
    ("penguins", "winter temps on biscoe island, how cold"),  # outside facts
    ("demog", "pakistan, total inhabitants as of 1940"),  # estimates 1950-2020 only
    ("degrees", "women's share of education degrees in 1965"),  # degrees 1970-2011 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("demog", "SELECT count(*) FROM cntry_ref WHERE area_nm LIKE '%scotland%'"),
    ("election", "SELECT count(*) FROM party_ids WHERE party_desc LIKE '%green%' OR pty_grp LIKE '%green%'"),
    ("cars", "SELECT count(*) FROM cars WHERE mfr LIKE '%porsche%' OR name LIKE '%porsche%'"),
    ("olympics", "SELECT count(*) FROM lkp_cntry WHERE cntry_nm LIKE '%kenya%' OR cntry_cd = 'KEN'"),
    ("demog", "SELECT count(*) FROM wpp_popn WHERE ref_yr < 1950 OR ref_yr > 2020"),
    ("degrees", "SELECT count(*) FROM ba_f_share WHERE acad_yr < 1970"),
]
