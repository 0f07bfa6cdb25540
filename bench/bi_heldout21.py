"""Held-out set #21 of bench/bi_nokeys.py: questions over Chinook and TPC-H (DuckDB, declared keys) and every
no-key SQLite database of bench/bi_nokeys_data.py, the new `equities` one included (daily prices of five U.S.
stocks, 2000-2013, as three tables joined by undeclared keys whose names differ: `eod_px.tkr` ->
`issuers.ticker_sym`, `issuers.list_mic` -> `exch_venues.mic_code`).

Written new, by a helper who had not read the agent's rules, and committed before any model run on them: 42
answerable (two per database on the nineteen older ones, four on equities), worded as users write (terse,
chatty, lower case, a typo or two, everyday words for what the columns hold, abbreviations, demonyms, several
named values in a third of them, counts over undeclared joins, shares, year ranges), and 18 unanswerable of
varied kinds (values the data lacks, checked absent by `ABSENT_CHECKS`; plausible fields it lacks; opinions and
advice; the future; facts from outside; years outside the data). Every gold query is executed and returns rows
(`python bench/bi_nokeys.py --check --set heldout21`); the top-1 golds were checked for ties. Run once, on two
codes side by side.
"""

from __future__ import annotations

PX = "FROM eod_px p JOIN issuers i ON p.tkr = i.ticker_sym"
VENUE = f"{PX} JOIN exch_venues v ON i.list_mic = v.mic_code"
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

HELDOUT21_ANSWERABLE: dict[str, list[tuple[str, str]]] = {
    "chinook": [
        (
            "ac/dc and aerosmith - track count for each band",
            "SELECT ar.Name, count(*) FROM Track t JOIN Album al ON t.AlbumId = al.AlbumId "
            "JOIN Artist ar ON al.ArtistId = ar.ArtistId WHERE ar.Name IN ('AC/DC', 'Aerosmith') GROUP BY ar.Name",
        ),
        (
            "top-earning rep by what their assigned customers paid in invoices",
            "SELECT e.FirstName, e.LastName FROM Employee e JOIN Customer c ON c.SupportRepId = e.EmployeeId "
            "JOIN Invoice i ON i.CustomerId = c.CustomerId GROUP BY e.EmployeeId, e.FirstName, e.LastName "
            "ORDER BY sum(i.Total) DESC LIMIT 1",
        ),
    ],
    "tpch": [
        (
            "# of customers in the machinery segment and in automobile",
            "SELECT c_mktsegment, count(*) FROM customer WHERE c_mktsegment IN ('MACHINERY', 'AUTOMOBILE') "
            "GROUP BY c_mktsegment",
        ),
        (
            "avg discount on AIR-shipped lines in 1995, not counting reg air",
            "SELECT avg(l_discount) FROM lineitem WHERE l_shipmode = 'AIR' AND year(l_shipdate) = 1995",
        ),
    ],
    "movies": [
        (
            "running times of hitchcock's 1950s pictures",
            "SELECT Title, Runtime FROM omdb WHERE Director = 'Alfred Hitchcock' AND Year BETWEEN 1950 AND 1959",
        ),
        (
            "jaws on rotten tomatoes - how many reviews and how many of them fresh",
            "SELECT t.Reviews, t.Fresh FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Title = 'Jaws'",
        ),
    ],
    "world": [
        (
            "brazilian vs mexican birth rate (kids per woman) in 2000",
            "SELECT country, fertility FROM indicators WHERE country IN ('Brazil', 'Mexico') AND year = 2000",
        ),
        (
            "in 1995 how many sub-saharan countries had a life expectancy below 50",
            "SELECT count(*) FROM indicators i JOIN countries c ON i.country = c.name "
            "WHERE c.region = 'Sub-Saharan Africa' AND i.year = 1995 AND i.life_expectancy < 50",
        ),
    ],
    "flights": [
        (
            "atlanta: which airline operates the most routes leaving there",
            "SELECT r.Airline FROM routes r JOIN airports a ON r.SourceID = a.AirportID WHERE a.City = 'Atlanta' "
            "GROUP BY r.Airline ORDER BY count(*) DESC LIMIT 1",
        ),
        (
            "airports higher than 5,000 feet up - how many?",
            "SELECT count(*) FROM airports WHERE Altitude > 5000",
        ),
    ],
    "store": [
        (
            "phones vs copiers profit in california",
            "SELECT sub_category, sum(profit) FROM orders WHERE state = 'California' "
            "AND sub_category IN ('Phones', 'Copiers') GROUP BY sub_category",
        ),
        (
            "units of chairs bought by corporate clients in the southern region",
            f"SELECT sum(o.quantity) {STORE} WHERE s.region = 'South' AND o.segment = 'Corporate' "
            "AND c.sub_category = 'Chairs'",
        ),
    ],
    "cars": [
        (
            "euro cars from 1980 on, average hp",
            "SELECT avg(c.hp) FROM cars c JOIN origins o ON c.origin = o.origin WHERE o.name = 'Europe' AND c.yr >= 80",
        ),
        (
            "v8 fords and chevys in the data: how many of each",
            "SELECT mfr, count(*) FROM cars WHERE cyl = 8 AND mfr IN ('ford', 'chevrolet') GROUP BY mfr",
        ),
    ],
    "counties": [
        (
            "cook county il and LA county - 2009 unemplyment rates",
            "SELECT c.name, u.rate FROM counties c JOIN unemployment u ON c.fips = u.fips "
            "WHERE (c.name = 'Cook' AND c.state = 'IL') OR (c.name = 'Los Angeles' AND c.state = 'CA')",
        ),
        (
            "northeastern state with the highest average county jobless rate",
            f"SELECT s.name {CNTY} WHERE s.region = 'Northeast' GROUP BY s.name ORDER BY avg(u.rate) DESC LIMIT 1",
        ),
    ],
    "olympics": [
        (
            "how many times did norwegians top the podium in sochi",
            "SELECT t.gold FROM sochi14_tally t JOIN lkp_cntry l ON t.cntry_cd = l.cntry_cd WHERE l.cntry_nm = 'Norway'",
        ),
        (
            "quickest winning 100m time by a US sprinter, who and when",
            "SELECT athlete, yr, time_s FROM m100_medalists WHERE noc = 'USA' AND medal = 'GOLD' "
            "ORDER BY time_s LIMIT 1",
        ),
    ],
    "elements": [
        (
            "how dense are gold, silver and platinum",
            "SELECT e.name, p.dens FROM elem e JOIN phys_props p ON e.sym = p.sym "
            "WHERE e.name IN ('Gold', 'Silver', 'Platinum')",
        ),
        (
            "halogens that are a gas at room temperature - how many",
            f"SELECT count(*) {ELEM} WHERE c.cat_nm = 'halogen' AND p.std_state = 'gas'",
        ),
    ],
    "penguins": [
        (
            "gentoo flipper length, males compared with females",
            "SELECT o.sex, avg(o.flipper_mm) FROM penguin_obs o JOIN species s ON o.species_id = s.id "
            "WHERE s.common_name = 'Gentoo' AND o.sex IN ('MALE', 'FEMALE') GROUP BY o.sex",
        ),
        (
            "birds sampled on torgersen: total",
            f"SELECT count(*) {PENG} WHERE i.isl_name = 'Torgersen'",
        ),
    ],
    "titanic": [
        (
            "men in third class who didnt survive - number",
            "SELECT count(*) FROM passengers WHERE pclass = '3rd' AND sex = 'male' AND survived = 0",
        ),
        (
            "survival rate among children under twelve",
            "SELECT 100.0 * avg(survived) FROM passengers WHERE age < 12",
        ),
    ],
    "dairy": [
        (
            "top butterfat reading from a jersey",
            f"SELECT max(m.bf_pct) {MILK} WHERE b.breed_nm = 'Jersey'",
        ),
        (
            "mature holsteins vs mature jerseys, mean fat %",
            f"SELECT b.breed_nm, avg(m.bf_pct) {MILK} WHERE b.breed_nm IN ('Holstein-Friesian', 'Jersey') "
            "AND m.age_grp = 'MAT' GROUP BY b.breed_nm",
        ),
    ],
    "glass": [
        (
            "which glass type averages the most magnesium",
            f"SELECT c.cls_desc {GLASS} GROUP BY c.cls_desc ORDER BY avg(f.mg_wt) DESC LIMIT 1",
        ),
        (
            "vehicle glass bits with any iron in them - count",
            f"SELECT count(*) {GLASS} WHERE c.use_area = 'vehicle' AND f.fe_wt > 0",
        ),
    ],
    "capex": [
        (
            "ge and westinghouse market value in 1954",
            f"SELECT c.co_name, a.mkt_val {CAPEX} WHERE a.fy = 1954 AND c.co_name IN ('General Electric', 'Westinghouse')",
        ),
        (
            "steelmakers' combined gross investment 1940 to 1945",
            f"SELECT sum(a.gross_inv) {CAPEX} WHERE c.sector = 'steel' AND a.fy BETWEEN 1940 AND 1945",
        ),
    ],
    "abx": [
        (
            "bugs that streptomycin stops below 1 microgram per ml",
            f"SELECT o.org_name {ABX} WHERE d.drug_nm = 'Streptomycin' AND r.mic_ugml < 1",
        ),
        (
            "penicillin mic averaged: gram-positives vs gram-negatives",
            f"SELECT o.gram_stn, avg(r.mic_ugml) {ABX} WHERE d.drug_nm = 'Penicillin' GROUP BY o.gram_stn",
        ),
    ],
    "degrees": [
        (
            "women in engineering degrees: 1970 share and 2011 share",
            f"SELECT s.acad_yr, s.pct_f {DEG} WHERE f.field_nm = 'Engineering' AND s.acad_yr IN (1970, 2011)",
        ),
        (
            "field with the smallest share of women graduates in 1985",
            f"SELECT f.field_nm {DEG} WHERE s.acad_yr = 1985 ORDER BY s.pct_f LIMIT 1",
        ),
    ],
    "election": [
        (
            "avg age of strong republicans in the survey",
            f"SELECT avg(r.age_yrs) {VOTE} WHERE p.party_desc = 'Strong Republican'",
        ),
        (
            "phd holders - what percent say they'll vote clinton",
            f"SELECT 100.0 * avg(r.vote_pref = 'Clinton') {EDU} WHERE e.edu_desc = 'PhD'",
        ),
    ],
    "travel": [
        (
            "avg terminal wait, train vs bus",
            f"SELECT m.mode_nm, avg(o.term_wait_min) {MODE} WHERE m.mode_nm IN ('Train', 'Bus') GROUP BY m.mode_nm",
        ),
        (
            "solo travellers who drove: how many",
            f"SELECT count(*) {TRIP} WHERE t.party_sz = 1 AND o.chosen_flg = 1 AND m.mode_nm = 'Car'",
        ),
    ],
    "equities": [
        (
            "appl & msft average shares traded per day in 2008",
            f"SELECT i.issuer_nm, avg(p.vol_shs) {PX} WHERE i.ticker_sym IN ('AAPL', 'MSFT') "
            "AND p.px_dt LIKE '2008-%' GROUP BY i.issuer_nm",
        ),
        (
            "how many daily price records for the stocks listed on nasdaq, all together",
            f"SELECT count(*) {VENUE} WHERE v.venue_nm = 'NASDAQ Stock Market'",
        ),
        (
            "facebook in 2012: % of trading days it closed under its open",
            f"SELECT 100.0 * avg(p.cls_px < p.open_px) {PX} WHERE i.issuer_nm = 'Facebook, Inc.' "
            "AND p.px_dt LIKE '2012-%'",
        ),
        (
            "ibm mean closing price over 2005-2007",
            f"SELECT avg(p.cls_px) {PX} WHERE i.ticker_sym = 'IBM' AND p.px_dt BETWEEN '2005-01-01' AND '2007-12-31'",
        ),
    ],
}

HELDOUT21_UNANSWERABLE: list[tuple[str, str]] = [
    ("equities", "tesla stock - closing price on its first day of trading"),  # absent: ABSENT_CHECKS
    ("store", "hawaii: how much office supplies revenue"),  # absent: ABSENT_CHECKS
    ("glass", "barium in the camera-lens samples"),  # absent: ABSENT_CHECKS
    ("abx", "chloramphenicol numbers for the typhoid bug"),  # absent: ABSENT_CHECKS
    ("equities", "ibm's dividend per share in 2010"),  # no dividends stored
    ("equities", "apple's market cap at year end 2012"),  # no shares outstanding stored
    ("chinook", "follower counts on our playlists"),  # no followers stored
    ("penguins", "eggs per nest on biscoe, avg"),  # no nests or eggs stored
    ("counties", "population of maricopa county"),  # no populations stored
    ("tpch", "our distribution centres - which one moves the biggest volume"),  # no distribution centres stored
    ("equities", "is now a good time to buy apple shares?"),  # advice
    ("dairy", "which breed would you recommend for a small cheese farm"),  # advice
    ("equities", "where will microsoft close next friday"),  # the future
    ("store", "projected chair sales next holiday season"),  # the future
    ("equities", "who started google and when"),  # outside facts
    ("olympics", "how cold was it in sochi during the games"),  # outside facts
    ("equities", "ibm's closing price on the first trading day of 1998"),  # prices from March 2000 only
    ("olympics", "the 100 m podium in tokyo 2021?"),  # 100 m medallists 1896-2012 only
]

# each returns (0,): a value an unanswerable question names is not in the data
ABSENT_CHECKS: list[tuple[str, str]] = [
    ("equities", "SELECT count(*) FROM issuers WHERE ticker_sym = 'TSLA' OR issuer_nm LIKE '%tesla%'"),
    ("store", "SELECT count(*) FROM orders WHERE state LIKE '%hawai%'"),
    ("store", "SELECT count(*) FROM states WHERE state LIKE '%hawai%'"),
    ("glass", "SELECT count(*) FROM glass_classes WHERE cls_desc LIKE '%lens%'"),
    ("abx", "SELECT count(*) FROM drugs WHERE drug_nm LIKE '%chloramph%'"),
    ("equities", "SELECT count(*) FROM eod_px WHERE px_dt < '2000-01-01'"),
    ("olympics", "SELECT count(*) FROM m100_medalists WHERE yr > 2012"),
]
