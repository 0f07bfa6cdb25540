"""Held-out set #22 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `carbon` one included (CO2 emissions per person of
201 countries, 1950-2012, as three tables joined by undeclared keys whose names differ: `co2_pcap.iso2_cd` ->
`ctry_dim.ctry_iso`, `ctry_dim.rgn_id` -> `rgn_dim.rgn_cd`).

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 44
answerable (two per database on the twenty older ones, four on carbon), worded as users write (terse, chatty,
lower case, a typo or two, everyday words for what the columns hold, abbreviations, demonyms, several named
values in a third of them, counts over undeclared joins, shares, year ranges), and 18 unanswerable of varied
kinds (values the data lacks, checked absent by `ABSENT_CHECKS`; plausible fields it lacks; opinions and advice;
the future; facts from outside; years outside the data). Every gold query is executed and returns rows
(`python bench/bi_nokeys.py --check --set heldout22`); the top-1 golds were checked for ties. Run once, on two
codes side by side.
"""

from __future__ import annotations

CO2 = "FROM co2_pcap p JOIN ctry_dim c ON p.iso2_cd = c.ctry_iso"
RGN = f"{CO2} JOIN rgn_dim r ON c.rgn_id = r.rgn_cd"
PX = "FROM eod_px p JOIN issuers i ON p.tkr = i.ticker_sym JOIN exch_venues v ON i.list_mic = v.mic_code"
MODE = "FROM trip_opts o JOIN travel_modes m ON o.md_cd = m.mode_code"
EDU = "FROM svy_resp r JOIN edu_levels e ON r.edu_lvl = e.edu_code"
PTY = "FROM svy_resp r JOIN party_ids p ON r.pid_cd = p.party_code"
DEG = "FROM ba_f_share s JOIN study_fields f ON s.fld_cd = f.field_code"
ABX = "FROM mic_results r JOIN organisms o ON r.bact_id = o.org_no JOIN drugs d ON r.abx_cd = d.drug_code"
CAPEX = "FROM inv_annual a JOIN companies c ON a.firm_cd = c.co_code"
GLASS = "FROM frag_samples f JOIN glass_classes c ON f.gls_cls = c.cls_code"
MILK = "FROM milk_samples m JOIN breeds b ON m.brd_cd = b.breed_code"
PENG = "FROM penguin_obs o JOIN islands i ON o.isl_cd = i.isl_cd JOIN species s ON o.species_id = s.id"
ELEM = "FROM elem e JOIN phys_props p ON e.sym = p.sym JOIN elem_cat c ON e.cat_cd = c.cat_cd"
MEDAL = "FROM sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd"
CNTY = "FROM counties c JOIN unemployment u ON c.fips = u.fips"
STORE = "FROM orders o JOIN states s ON o.state = s.state JOIN sub_categories c ON o.sub_category = c.sub_category"

HELDOUT22_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "reggae and latin side by side - song totals",
            "SELECT g.Name, count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId "
            "WHERE g.Name IN ('Reggae', 'Latin') GROUP BY g.Name",
        ),
        (
            "all-time money we took from customers living in canada",
            "SELECT sum(i.Total) FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId "
            "WHERE c.Country = 'Canada'",
        ),
    ],
    "tpch": [
        (
            "1-urgent orders placed during 1996 - count pls",
            "SELECT count(*) FROM orders WHERE o_orderpriority = '1-URGENT' AND year(o_orderdate) = 1996",
        ),
        (
            "vendors based in germany vs france, number in each",
            "SELECT n.n_name, count(*) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey "
            "WHERE n.n_name IN ('GERMANY', 'FRANCE') GROUP BY n.n_name",
        ),
    ],
    "movies": [
        (
            "spielbergs 90s output - how long are they on avg, minutes",
            "SELECT avg(Runtime) FROM omdb WHERE Director = 'Steven Spielberg' AND Year BETWEEN 1990 AND 1999",
        ),
        (
            "tomatometer % for the godfather?",
            "SELECT t.Meter FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Title = 'The Godfather'",
        ),
    ],
    "world": [
        (
            "japanese headcount, 1990 then 2010",
            "SELECT year, population FROM indicators WHERE country = 'Japan' AND year IN (1990, 2010)",
        ),
        (
            "south asia 2005: typical lifespan averaged over its countries",
            "SELECT avg(i.life_expectancy) FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE c.region = 'South Asia' AND i.year = 2005",
        ),
    ],
    "flights": [
        (
            "number of airfields listed for puerto rico",
            "SELECT count(*) FROM airports WHERE Country = 'Puerto Rico'",
        ),
        (
            "nonstop routes departing denver, tally",
            "SELECT count(*) FROM routes r JOIN airports a ON r.SourceID = a.AirportID "
            "WHERE a.City = 'Denver' AND r.Stops = 0",
        ),
    ],
    "store": [
        (
            "revenue west region v east region",
            "SELECT s.region, sum(o.sales) FROM orders o JOIN states s ON o.state = s.state "
            "WHERE s.region IN ('West', 'East') GROUP BY s.region",
        ),
        (
            "of all furniture revenue, what fraction shipped first class",
            f"SELECT 100.0 * sum(CASE WHEN o.ship_mode = 'First Class' THEN o.sales ELSE 0 END) / sum(o.sales) "
            f"{STORE} WHERE c.category = 'Furniture'",
        ),
    ],
    "cars": [
        (
            "asian-built four bangers, mean miles per gallon",
            "SELECT avg(c.mpg) FROM cars c JOIN origins o ON c.origin = o.origin WHERE o.name = 'Asia' AND c.cyl = 4",
        ),
        (
            "whats the heaviest vehicle here and its model year",
            "SELECT name, yr, weight FROM cars ORDER BY weight DESC LIMIT 1",
        ),
    ],
    "counties": [
        (
            "texas counties with more than 10 percent out of work in 09",
            f"SELECT count(*) {CNTY} WHERE c.state = 'TX' AND u.rate > 10",
        ),
        (
            "fla and ga: mean county jobless rate, one row per state",
            f"SELECT c.state, avg(u.rate) {CNTY} WHERE c.state IN ('FL', 'GA') GROUP BY c.state",
        ),
    ],
    "olympics": [
        (
            "silvers won at the 2014 winter games by germans and by canadians",
            f"SELECT l.cntry_nm, t.silver {MEDAL} WHERE l.cntry_nm IN ('Germany', 'Canada')",
        ),
        (
            "jamaican medals in the men's 100 metres over the years, how many",
            "SELECT count(*) FROM m100_medalists WHERE noc = 'JAM'",
        ),
    ],
    "elements": [
        (
            "the noble gases and the year each one was found",
            f"SELECT e.name, e.yr_disc {ELEM} WHERE c.cat_nm = 'noble gas'",
        ),
        (
            "top melting point out of all the elemnets - whose is it",
            "SELECT e.name FROM elem e JOIN phys_props p ON e.sym = p.sym WHERE p.mp_k IS NOT NULL "
            "ORDER BY p.mp_k DESC LIMIT 1",
        ),
    ],
    "penguins": [
        (
            "the fattest chinstrap we weighed, g",
            f"SELECT max(o.body_mass_g) {PENG} WHERE s.common_name = 'Chinstrap'",
        ),
        (
            "adelie counts broken out by island",
            f"SELECT i.isl_name, count(*) {PENG} WHERE s.common_name = 'Adelie' GROUP BY i.isl_name",
        ),
    ],
    "titanic": [
        (
            "first-class ladies who were rescued - how many",
            "SELECT count(*) FROM passengers WHERE pclass = '1st' AND sex = 'female' AND survived = 1",
        ),
        (
            "mean age: people who lived vs people who died",
            "SELECT survived, avg(age) FROM passengers GROUP BY survived",
        ),
    ],
    "dairy": [
        (
            "guernsey samples in the dataset, number",
            f"SELECT count(*) {MILK} WHERE b.breed_nm = 'Guernsey'",
        ),
        (
            "leanest milk from a 2 yr old ayrshire",
            f"SELECT min(m.bf_pct) {MILK} WHERE b.breed_nm = 'Ayrshire' AND m.age_grp = '2YO'",
        ),
    ],
    "glass": [
        (
            "sodium content of headlight glass, on average",
            f"SELECT avg(f.na_wt) {GLASS} WHERE c.cls_desc = 'headlamp'",
        ),
        (
            "household vs vehicle fragments, count each",
            f"SELECT c.use_area, count(*) {GLASS} WHERE c.use_area IN ('household', 'vehicle') GROUP BY c.use_area",
        ),
    ],
    "capex": [
        (
            "chryslers capital stock in 1950",
            f"SELECT a.cap_stk {CAPEX} WHERE c.co_name = 'Chrysler' AND a.fy = 1950",
        ),
        (
            "firm that spent the most on investment over the whole period",
            f"SELECT c.co_name {CAPEX} GROUP BY c.co_name ORDER BY sum(a.gross_inv) DESC LIMIT 1",
        ),
    ],
    "abx": [
        (
            "neomycin vs staphylococci - mean inhibitory concentration",
            f"SELECT avg(r.mic_ugml) {ABX} WHERE d.drug_nm = 'Neomycin' AND o.genus = 'Staphylococcus'",
        ),
        (
            "how many gram neg species are tested",
            "SELECT count(*) FROM organisms WHERE gram_stn = 'NEG'",
        ),
    ],
    "degrees": [
        (
            "psych bachelor's - female % in 1990 and in 2000",
            f"SELECT s.acad_yr, s.pct_f {DEG} WHERE f.field_nm = 'Psychology' AND s.acad_yr IN (1990, 2000)",
        ),
        (
            "2010: number of stem fields where more than half the grads were women",
            f"SELECT count(*) {DEG} WHERE f.stem_flg = 'Y' AND s.acad_yr = 2010 AND s.pct_f > 50",
        ),
    ],
    "election": [
        (
            "weak dems and independent-leaning dems: respondent count for both",
            f"SELECT p.party_desc, count(*) {PTY} WHERE p.party_desc IN ('Weak Democrat', 'Independent-Democrat') "
            "GROUP BY p.party_desc",
        ),
        (
            "college graduates - avg nights a week they watch the tv news",
            f"SELECT avg(r.tv_news_dpw) {EDU} WHERE e.coll_grad = 'Y'",
        ),
    ],
    "travel": [
        (
            "plane fares vs rail fares, the average of each",
            f"SELECT m.mode_nm, avg(o.fare_amt) {MODE} WHERE m.mode_nm IN ('Air', 'Train') GROUP BY m.mode_nm",
        ),
        (
            "what % of people ended up going by coach",
            f"SELECT 100.0 * avg(m.mode_nm = 'Bus') {MODE} WHERE o.chosen_flg = 1",
        ),
    ],
    "equities": [
        (
            "googles busiest trading session ever - date and volume",
            f"SELECT p.px_dt, p.vol_shs {PX} WHERE i.ticker_sym = 'GOOG' ORDER BY p.vol_shs DESC LIMIT 1",
        ),
        (
            "for the big board stock, mean gap between daily high and low through 2009",
            f"SELECT avg(p.hi_px - p.lo_px) {PX} WHERE v.venue_nm = 'New York Stock Exchange' "
            "AND p.px_dt LIKE '2009-%'",
        ),
    ],
    "carbon": [
        (
            "per head co2, german and french, for 1990",
            f"SELECT c.ctry_nm, p.t_co2_pc {CO2} WHERE c.ctry_nm IN ('Germany', 'France') AND p.yr = 1990",
        ),
        (
            "sub-saharan nations above one tonne a person in 2010 - how many",
            f"SELECT count(*) {RGN} WHERE r.rgn_desc = 'Sub-Saharan Africa' AND p.yr = 2010 AND p.t_co2_pc > 1",
        ),
        (
            "in south asia who was the top emitter per capita in 2012",
            f"SELECT c.ctry_nm {RGN} WHERE r.rgn_desc = 'South Asia' AND p.yr = 2012 ORDER BY p.t_co2_pc DESC LIMIT 1",
        ),
        (
            "aussie emissions per person averaged across the seventies",
            f"SELECT avg(p.t_co2_pc) {CO2} WHERE c.ctry_nm = 'Australia' AND p.yr BETWEEN 1970 AND 1979",
        ),
    ],
}

HELDOUT22_UNANSWERABLE: list[tuple[str, str]] = [
    ("carbon", "curacao carbon footprint per resident in 2011"),  # absent: ABSENT_CHECKS
    ("chinook", "anything by beyonce in our store? number of albums"),  # absent: ABSENT_CHECKS
    ("penguins", "emperor penguins - avg body weight"),  # absent: ABSENT_CHECKS
    ("dairy", "brown swiss butterfat, highest sample"),  # absent: ABSENT_CHECKS
    ("carbon", "indias methane output per person in 2000"),  # no methane stored
    ("carbon", "how much of britain's co2 came from coal in 1980"),  # no fuel breakdown stored
    ("flights", "cheapest airfare on routes out of chicago"),  # no fares stored
    ("titanic", "lifeboat no. that carried off the most people"),  # no lifeboats stored
    ("cars", "what did a new plymouth duster cost back then"),  # no prices stored
    ("election", "survey respondents by home state, top 5"),  # no states stored
    ("carbon", "which country ought to cut its emissions first, in your view"),  # opinion
    ("movies", "recommend me a good spielberg flick for tonight"),  # advice
    ("carbon", "chinese per-capita co2 in 2030, est."),  # the future
    ("capex", "gm investment over the coming ten years - forecast"),  # the future
    ("carbon", "the uk's target under the paris agreement?"),  # outside facts
    ("world", "capital city of bolivia"),  # outside facts
    ("carbon", "qatar per-person co2 back in 1935"),  # emissions 1950-2012 only
    ("degrees", "share of women among education grads in 1960"),  # degrees 1970-2011 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("carbon", "SELECT count(*) FROM ctry_dim WHERE ctry_nm LIKE '%cura%'"),
    ("chinook", "SELECT count(*) FROM Artist WHERE Name ILIKE '%beyonc%'"),
    ("penguins", "SELECT count(*) FROM species WHERE common_name LIKE '%emperor%' OR sci_name LIKE '%forsteri%'"),
    ("dairy", "SELECT count(*) FROM breeds WHERE breed_nm LIKE '%swiss%'"),
    ("carbon", "SELECT count(*) FROM co2_pcap WHERE yr < 1950"),
    ("degrees", "SELECT count(*) FROM ba_f_share WHERE acad_yr < 1970"),
]
