"""Held-out set #23 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `crime` one included (2009 crime and social rates of
the 50 U.S. states and DC, as three tables joined by undeclared keys whose names differ: `ucr_st_rates.jur_cd` ->
`geo_state.usps_abbr`, `geo_state.cdiv_no` -> `census_div.div_id`).

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 46
answerable (two per database on the twenty older ones, four on crime), worded as users write (terse, chatty,
lower case, a typo or two, everyday words for what the columns hold, abbreviations, demonyms, several named
values in a third of them, counts over undeclared joins, shares, year ranges), and 18 unanswerable of varied
kinds (values the data lacks, checked absent by `ABSENT_CHECKS`; plausible fields it lacks; opinions and advice;
the future; facts from outside; years outside the data). Every gold query is executed and returns rows
(`python bench/bi_nokeys.py --check --set heldout23`); the top-1 golds were checked for ties. Run once, on two
codes side by side.
"""

from __future__ import annotations

CRIME = "FROM ucr_st_rates r JOIN geo_state g ON r.jur_cd = g.usps_abbr"
CDIV = f"{CRIME} JOIN census_div d ON g.cdiv_no = d.div_id"
CO2 = "FROM co2_pcap p JOIN ctry_dim c ON p.iso2_cd = c.ctry_iso"
RGN = f"{CO2} JOIN rgn_dim r ON c.rgn_id = r.rgn_cd"
PX = "FROM eod_px p JOIN issuers i ON p.tkr = i.ticker_sym"
MODE = "FROM trip_opts o JOIN travel_modes m ON o.md_cd = m.mode_code"
PTY = "FROM svy_resp r JOIN party_ids p ON r.pid_cd = p.party_code"
EDU = "FROM svy_resp r JOIN edu_levels e ON r.edu_lvl = e.edu_code"
DEG = "FROM ba_f_share s JOIN study_fields f ON s.fld_cd = f.field_code"
ABX = "FROM mic_results r JOIN organisms o ON r.bact_id = o.org_no JOIN drugs d ON r.abx_cd = d.drug_code"
CAPEX = "FROM inv_annual a JOIN companies c ON a.firm_cd = c.co_code"
GLASS = "FROM frag_samples f JOIN glass_classes c ON f.gls_cls = c.cls_code"
MILK = "FROM milk_samples m JOIN breeds b ON m.brd_cd = b.breed_code"
PENG = "FROM penguin_obs o JOIN islands i ON o.isl_cd = i.isl_cd JOIN species s ON o.species_id = s.id"
ELEM = "FROM elem e JOIN phys_props p ON e.sym = p.sym JOIN elem_cat c ON e.cat_cd = c.cat_cd"
MEDAL = "FROM sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd"
CNTY = "FROM counties c JOIN unemployment u ON c.fips = u.fips"
STORE = "FROM orders o JOIN states s ON o.state = s.state"
REP = "FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId JOIN Employee e ON c.SupportRepId = e.EmployeeId"
SONGS = "FROM Track t JOIN Album al ON t.AlbumId = al.AlbumId JOIN Artist ar ON al.ArtistId = ar.ArtistId"

HELDOUT23_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "ac/dc or aerosmith, who has more songs on sale? give me both numbers",
            f"SELECT ar.Name, count(*) {SONGS} WHERE ar.Name IN ('AC/DC', 'Aerosmith') GROUP BY ar.Name",
        ),
        (
            "support rep whose customers paid us the most in total",
            f"SELECT e.FirstName, e.LastName, sum(i.Total) {REP} GROUP BY e.EmployeeId, e.FirstName, e.LastName "
            "ORDER BY sum(i.Total) DESC LIMIT 1",
        ),
    ],
    "tpch": [
        (
            "machinery segment custs: mean acct balance",
            "SELECT avg(c_acctbal) FROM customer WHERE c_mktsegment = 'MACHINERY'",
        ),
        (
            "line items sent by air and by rail during 1995, how many of each",
            "SELECT l_shipmode, count(*) FROM lineitem WHERE l_shipmode IN ('AIR', 'RAIL') "
            "AND year(l_shipdate) = 1995 GROUP BY l_shipmode",
        ),
    ],
    "movies": [
        (
            "kubrick pictures in the db - how many are there",
            "SELECT count(*) FROM omdb WHERE Director = 'Stanley Kubrick'",
        ),
        (
            "metascore pulp fiction and fight club",
            "SELECT Title, Metacritic FROM omdb WHERE Title IN ('Pulp Fiction', 'Fight Club')",
        ),
    ],
    "world": [
        (
            "what was brazil's births-per-woman number in 1970",
            "SELECT fertility FROM indicators WHERE country = 'Brazil' AND year = 1970",
        ),
        (
            "in 2010, how many mideast/north african countries had average lifespans past 75",
            "SELECT count(*) FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE c.region = 'Middle East & North Africa' AND i.year = 2010 AND i.life_expectancy > 75",
        ),
    ],
    "flights": [
        (
            "count the airports above 5,000 feet elevation",
            "SELECT count(*) FROM airports WHERE Altitude > 5000",
        ),
        (
            "routes departing atlanta compared with departing chicago",
            "SELECT a.City, count(*) FROM routes r JOIN airports a ON r.SourceID = a.AirportID "
            "WHERE a.City IN ('Atlanta', 'Chicago') GROUP BY a.City",
        ),
    ],
    "store": [
        (
            "profit from copiers & from machines, separately",
            "SELECT sub_category, sum(profit) FROM orders WHERE sub_category IN ('Copiers', 'Machines') "
            "GROUP BY sub_category",
        ),
        (
            "central region order lines that had some discount on them, how many",
            f"SELECT count(*) {STORE} WHERE s.region = 'Central' AND o.discount > 0",
        ),
    ],
    "cars": [
        (
            "european models avg hp?",
            "SELECT avg(c.hp) FROM cars c JOIN origins o ON c.origin = o.origin WHERE o.name = 'Europe'",
        ),
        (
            "toyotas built from 75 to 80, count them",
            "SELECT count(*) FROM cars WHERE mfr = 'toyota' AND yr BETWEEN 75 AND 80",
        ),
    ],
    "counties": [
        (
            "in ohio what county had the least joblessness in 09",
            f"SELECT c.name, u.rate {CNTY} WHERE c.state = 'OH' ORDER BY u.rate LIMIT 1",
        ),
        (
            "oregon + washington - number of counties w/ jobless rate 12% or higher, per state",
            f"SELECT c.state, count(*) {CNTY} WHERE c.state IN ('OR', 'WA') AND u.rate >= 12 GROUP BY c.state",
        ),
    ],
    "olympics": [
        (
            "norwegian golds in sochi",
            f"SELECT t.gold {MEDAL} WHERE l.cntry_nm = 'Norway'",
        ),
        (
            "how often has the usa taken gold in the mens 100m",
            "SELECT count(*) FROM m100_medalists WHERE noc = 'USA' AND medal = 'GOLD'",
        ),
    ],
    "elements": [
        (
            "halogens that are a gas at standard conditions - count",
            f"SELECT count(*) {ELEM} WHERE c.cat_nm = 'halogen' AND p.std_state = 'gas'",
        ),
        (
            "gold, silver, copper densities pls",
            "SELECT e.name, p.dens FROM elem e JOIN phys_props p ON e.sym = p.sym "
            "WHERE e.name IN ('Gold', 'Silver', 'Copper')",
        ),
    ],
    "penguins": [
        (
            "female gentoo flippers, avergae mm",
            f"SELECT avg(o.flipper_mm) {PENG} WHERE s.common_name = 'Gentoo' AND o.sex = 'FEMALE'",
        ),
        (
            "dream island birds split by male/female",
            f"SELECT o.sex, count(*) {PENG} WHERE i.isl_name = 'Dream' AND o.sex IN ('MALE', 'FEMALE') GROUP BY o.sex",
        ),
    ],
    "titanic": [
        (
            "age of the youngest 2nd class traveller",
            "SELECT min(age) FROM passengers WHERE pclass = '2nd'",
        ),
        (
            "what percent of third class men made it",
            "SELECT 100.0 * avg(survived) FROM passengers WHERE pclass = '3rd' AND sex = 'male'",
        ),
    ],
    "dairy": [
        (
            "average butterfat jersey cows vs holsteins",
            f"SELECT b.breed_nm, avg(m.bf_pct) {MILK} WHERE b.breed_nm IN ('Jersey', 'Holstein-Friesian') "
            "GROUP BY b.breed_nm",
        ),
        (
            "how many mature-cow readings for the canadian breed",
            f"SELECT count(*) {MILK} WHERE b.breed_nm = 'Canadian' AND m.age_grp = 'MAT'",
        ),
    ],
    "glass": [
        (
            "mean magnesium oxide in float glass from building windows",
            f"SELECT avg(f.mg_wt) {GLASS} WHERE c.cls_desc = 'building window, float processed'",
        ),
        (
            "building window pieces (non-float) that show some iron - count",
            f"SELECT count(*) {GLASS} WHERE c.cls_desc = 'building window, non-float processed' AND f.fe_wt > 0",
        ),
    ],
    "capex": [
        (
            "what was westinghouse worth on the market in 1940 and again in 1950",
            f"SELECT a.fy, a.mkt_val {CAPEX} WHERE c.co_name = 'Westinghouse' AND a.fy IN (1940, 1950)",
        ),
        (
            "steel firms, total gross investment 1945 through 1954, each one",
            f"SELECT c.co_name, sum(a.gross_inv) {CAPEX} WHERE c.sector = 'steel' AND a.fy BETWEEN 1945 AND 1954 "
            "GROUP BY c.co_name",
        ),
    ],
    "abx": [
        (
            "streptomycin mic for e. coli",
            f"SELECT r.mic_ugml {ABX} WHERE d.drug_nm = 'Streptomycin' AND o.org_name = 'Escherichia coli'",
        ),
        (
            "organisms penicillin inhibts at 1 microgram per ml or lower, count",
            f"SELECT count(*) {ABX} WHERE d.drug_nm = 'Penicillin' AND r.mic_ugml <= 1",
        ),
    ],
    "degrees": [
        (
            "engineering degrees earned by women, avg percent over 2000-2009",
            f"SELECT avg(s.pct_f) {DEG} WHERE f.field_nm = 'Engineering' AND s.acad_yr BETWEEN 2000 AND 2009",
        ),
        (
            "which major had the fewest women proportionally in 85",
            f"SELECT f.field_nm, s.pct_f {DEG} WHERE s.acad_yr = 1985 ORDER BY s.pct_f LIMIT 1",
        ),
    ],
    "election": [
        (
            "strong republicans planning to vote for clinton - number of them",
            f"SELECT count(*) {PTY} WHERE p.party_desc = 'Strong Republican' AND r.vote_pref = 'Clinton'",
        ),
        (
            "avg age, phd holders vs people with a masters",
            f"SELECT e.edu_desc, avg(r.age_yrs) {EDU} WHERE e.edu_desc IN ('PhD', 'Master''s degree') "
            "GROUP BY e.edu_desc",
        ),
    ],
    "travel": [
        (
            "mean in-vehicle minutes on the train",
            f"SELECT avg(o.veh_time_min) {MODE} WHERE m.mode_nm = 'Train'",
        ),
        (
            "how many people going alone took the plane",
            f"SELECT count(*) {MODE} JOIN travellers t ON o.trvlr_no = t.pax_id "
            "WHERE m.mode_nm = 'Air' AND o.chosen_flg = 1 AND t.party_sz = 1",
        ),
    ],
    "equities": [
        (
            "msft close on 12/31/2010",
            "SELECT cls_px FROM eod_px WHERE tkr = 'MSFT' AND px_dt = '2010-12-31'",
        ),
        (
            "aapl & ibm avg daily volume in 2012",
            f"SELECT i.ticker_sym, avg(p.vol_shs) {PX} WHERE i.ticker_sym IN ('AAPL', 'IBM') "
            "AND p.px_dt LIKE '2012-%' GROUP BY i.ticker_sym",
        ),
    ],
    "carbon": [
        (
            "mexico vs brazil co2 per person, 2012",
            f"SELECT c.ctry_nm, p.t_co2_pc {CO2} WHERE c.ctry_nm IN ('Mexico', 'Brazil') AND p.yr = 2012",
        ),
        (
            "2005: europe & central asia countries emitting over 10 t per capita, how many",
            f"SELECT count(*) {RGN} WHERE r.rgn_desc = 'Europe & Central Asia' AND p.yr = 2005 AND p.t_co2_pc > 10",
        ),
    ],
    "crime": [
        (
            "murders per 100k: louisiana v mississippi",
            f"SELECT g.st_nm, r.mrdr_rt_100k {CRIME} WHERE g.st_nm IN ('Louisiana', 'Mississippi')",
        ),
        (
            "southern states with violent crime above 500 per 100,000 - how many",
            f"SELECT count(*) {CDIV} WHERE d.rgn_nm = 'South' AND r.viol_rt_100k > 500",
        ),
        (
            "in new england, which state has the biggest poverty rate",
            f"SELECT g.st_nm, r.pov_pct {CDIV} WHERE d.div_nm = 'New England' ORDER BY r.pov_pct DESC LIMIT 1",
        ),
        (
            "avg violent crime rate in each census region",
            f"SELECT d.rgn_nm, avg(r.viol_rt_100k) {CDIV} GROUP BY d.rgn_nm",
        ),
    ],
}

HELDOUT23_UNANSWERABLE: list[tuple[str, str]] = [
    ("crime", "puerto rico homicide rate"),  # absent: ABSENT_CHECKS
    ("tpch", "suppliers located in italy, how many"),  # absent: ABSENT_CHECKS
    ("capex", "du pont's plant and equipment stock, 1940"),  # absent: ABSENT_CHECKS
    ("abx", "vancomycin vs staph aureus, mic"),  # absent: ABSENT_CHECKS
    ("crime", "car thefts per 100k people in texas"),  # no property crime stored
    ("crime", "police officers per capita, ohio"),  # no police stored
    ("crime", "georgia median household income"),  # no income stored
    ("equities", "how much did apple pay out in dividends per share during 2012"),  # no dividends stored
    ("penguins", "age of the oldest gentoo in years"),  # no ages stored
    ("store", "standard class shipping - typical delivery time in days"),  # no order or ship dates stored
    ("crime", "which state would u say is safest to raise kids in"),  # opinion
    ("elements", "best metal to invest in right now?"),  # advice
    ("crime", "texas murder rate in 2030 - your projection"),  # the future
    ("equities", "forecast ibm's closing price at the end of 2030"),  # the future
    ("crime", "year new mexico joined the union"),  # outside facts
    ("olympics", "which city hosted the 1994 winter games"),  # outside facts
    ("crime", "illinois violent crime rate in 1995"),  # crime 2009 only
    ("world", "india's kids-per-woman in 1950"),  # indicators 1964-2013 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("crime", "SELECT count(*) FROM geo_state WHERE st_nm LIKE '%puerto%' OR usps_abbr = 'PR'"),
    ("tpch", "SELECT count(*) FROM nation WHERE n_name ILIKE '%ital%'"),
    ("capex", "SELECT count(*) FROM companies WHERE co_name LIKE '%pont%'"),
    ("abx", "SELECT count(*) FROM drugs WHERE drug_nm LIKE '%vanco%'"),
    ("crime", "SELECT count(*) FROM ucr_st_rates WHERE rpt_yr <> 2009"),
    ("world", "SELECT count(*) FROM indicators WHERE year < 1964"),
]
