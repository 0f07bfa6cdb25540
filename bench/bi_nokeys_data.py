"""The databases of the no-key development set (bench/bi_nokeys.py): SQLite files built from data in an
installed registry package, with no primary or foreign keys declared, as a user's own database often is.

- movies: bokeh-sampledata's `movies.db` (Wikidata snapshot, CC0-1.0) copied as it is: `omdb` and
  `tomatoes`, one row per film in each, both keyed by `ID` (not declared); both also have a `Rating`
  column that means different things (an MPAA rating, a critics' score) and a `lastUpdated`.
- world: bokeh-sampledata's gapminder (CC-BY-2.0, Gapminder.org): `indicators` (country, year, fertility,
  life_expectancy, population) and `countries` (name, region, code); `indicators.country` names
  `countries.name`.
- flights: bokeh-sampledata's airport_routes (public domain, OurAirports and U.S. BTS): `airports` and
  `routes` (columns that hold no value dropped); `routes.SourceID` and `routes.DestinationID` both hold an
  `airports.AirportID`.
- store: bokeh-sampledata's Sample Superstore (CC0-1.0) split in three: `orders` (one row per order line,
  with an `order_line` number added), `states` (state, region, country) and `sub_categories`
  (sub_category, category); column names in snake case.

The databases of held-out set #5 (bench/bi_heldout5.py), other domains, built the same way:

- cars: bokeh-sampledata's autompg (CC0-1.0; the 1983 ASA Data Exposition's cars, 392 complete records from
  StatLib), split in two: `cars` (the source's short column names: `mpg`, `cyl`, `displ`, `hp`, `weight`,
  `accel`, `yr` as two digits, `name`, `mfr` and the `origin` code 1-3) and `origins` (`origin`, `name`:
  North America, Europe, Asia); `cars.origin` holds an `origins.origin`, while the two `name` columns mean
  different things (a car model, a region).
- counties: bokeh-sampledata's us_counties and us_states (U.S. Census Bureau TIGER/Line, public domain,
  redistribution with acknowledgement to the Census Bureau; geometry dropped) and unemployment (U.S. Bureau
  of Labor Statistics, 2009 county rates, public domain): `counties` (fips, state_fips, county_fips, state,
  name, detailed_name), `states` (code, name, region) and `unemployment` (fips, year, rate: one row per
  county, all 2009, in percent); `counties.fips` is `unemployment.fips`, `counties.state` holds a
  `states.code`, and both `name` columns mean different things (a county, a state).

The database of held-out set #7 (bench/bi_heldout7.py), sport, built the same way:

- olympics: bokeh-sampledata's olympics2014 (medal table of the 2014 Winter Games at Sochi, from public news
  sources) and sprint (every Olympic men's 100 m medallist 1896-2012, after the New York Times' 2012
  graphic), both BSD-3-Clause (Bokeh contributors): `lkp_cntry` (`cntry_cd`, `cntry_nm`: the 87 nations of the
  medal table, names as the source writes them, "Russian Fed."), `sochi14_tally` (`cntry_cd`, `gold`,
  `silver`, `bronze`, `tot`) and `m100_medalists` (`athlete`, `noc`, `medal` GOLD/SILVER/BRONZE, `time_s`,
  `yr`). `sochi14_tally.cntry_cd` holds a `lkp_cntry.cntry_cd`; `m100_medalists.noc` uses the IOC's codes
  (GER, NED, URS) while the tally's are ISO-like (DEU, NLD), so only 7 of its 19 codes are in the lookup
  (USA, GBR, JAM, CAN, AUS, HUN, NZL), as two sources joined by hand often are.

The database of held-out set #9 (bench/bi_heldout9.py), chemistry, built the same way:

- elements: bokeh-sampledata's periodic_table (public domain, as the package states) split in three:
  `elem` (`z` the atomic number, `sym`, `name`, `atm_mass`, `period`, `grp` 1-18 or NULL for the lanthanoids
  and actinoids, `cat_cd`, `yr_disc` as the source writes it: a year or "Ancient"), `elem_cat` (`cat_cd`,
  `cat_nm`: the source's ten categories, "transition metal", "noble gas", ..., under short codes) and
  `phys_props` (`sym`, `std_state`, `bond_type`, `mp_k`, `bp_k` in kelvin, `dens` in g/cm3, `en` the Pauling
  electronegativity, `ie1` the first ionisation energy in kJ/mol). `elem.cat_cd` holds an `elem_cat.cat_cd`
  and `phys_props.sym` an `elem.sym`; the two `name`-like columns mean different things (an element, a
  category).

The database of held-out set #11 (bench/bi_heldout11.py), wildlife biology, built the same way:

- penguins: bokeh-sampledata's penguins (the Palmer Archipelago, Antarctica, penguin data of Kristen Gorman and
  Palmer Station LTER via palmerpenguins and seaborn-data, CC0-1.0 as the palmerpenguins project states), 344
  birds, split in three: `penguin_obs` (`obs_id` 1-344 in the source's order, `species_id`, `isl_cd`,
  `bill_len_mm`, `bill_depth_mm`, `flipper_mm`, `body_mass_g`, `sex` MALE/FEMALE or NULL), `species` (`id`,
  `common_name` Adelie/Chinstrap/Gentoo, `sci_name` the binomial, written here) and `islands` (`isl_cd`,
  `isl_name`: Biscoe, Dream, Torgersen under short codes). `penguin_obs.species_id` holds a `species.id` and
  `penguin_obs.isl_cd` an `islands.isl_cd`.

The database of held-out set #13 (bench/bi_heldout13.py), maritime history, built the same way:

- titanic: bokeh-sampledata's titanic (the passengers of RMS Titanic, 1912: name, class, age, sex, survived; 1313
  rows; public domain, as the package states) split in two: `passengers` (`pax_no` 1-1313 in the source's
  order, `full_name` as the source writes it, "Allen, Miss Elisabeth Walton", `pclass` 1st/2nd/3rd and one
  row "*", `age` in years or NULL for 557, `sex` male/female, `survived` 1 or 0) and `travel_classes`
  (`class_cd` 1st/2nd/3rd, `class_desc` "First class", ...). `passengers.pclass` holds a
  `travel_classes.class_cd` (the "*" row none).

The database of held-out set #14 (bench/bi_heldout14.py), dairy farming, built the same way:

- dairy: bokeh-sampledata's cows (butterfat percentage in the milk of five cattle breeds, 100 samples; public
  domain, as the package states) split in two: `milk_samples` (`smpl_id` 1-100 in the source's order,
  `brd_cd` a short breed code, `age_grp` MAT for mature cows or 2YO for two-year-olds, `bf_pct` the
  butterfat in percent) and `breeds` (`breed_code` AYR/CAN/GUE/HOL/JER, `breed_nm` as the source writes it,
  "Holstein-Friesian", `orig_cntry` the breed's country of origin, written here). `milk_samples.brd_cd`
  holds a `breeds.breed_code`.

The database of held-out set #15 (bench/bi_heldout15.py), forensic science, built the same way:

- glass: bokeh-sampledata's forensic_glass (the refractive index and oxide content of 214 glass fragments of six
  kinds, the forensic glass data of the UCI repository and R's MASS::fgl; public domain, as the package states)
  split in two: `frag_samples` (`frag_no` 1-214 in the source's order, `ri_dev` the refractive index as the
  source gives it, a deviation from 1.518 in units of 1e-5, `na_wt` `mg_wt` `al_wt` `si_wt` `k_wt` `ca_wt`
  `ba_wt` `fe_wt` the weight percent of each element's oxide, `gls_cls` a short class code) and
  `glass_classes` (`cls_code` BWF/BWN/VWF/CNT/TBL/HLP, `cls_desc` "building window, float processed", ...,
  `use_area` building/vehicle/household, written here). `frag_samples.gls_cls` holds a
  `glass_classes.cls_code`.

The database of held-out set #16 (bench/bi_heldout16.py), corporate investment, built the same way:

- capex: statsmodels' grunfeld dataset (Grunfeld's 1950 investment data of 11 U.S. firms, 1935-1954, as
  recreated by Kleiber and Zeileis; public domain, as statsmodels states) split in two: `inv_annual` (`firm_cd`
  a short company code, `fy` the year, `gross_inv` the gross investment, `mkt_val` the market value at
  December 31, `cap_stk` the stock of plant and equipment, all in millions of 1947 dollars; 220 rows) and
  `companies` (`co_code` GM/USS/GE/CHR/ARF/IBM/UO/WH/GY/DM/AS, `co_name` as the source writes it,
  "General Motors", `sector` the firm's line of business, written here). `inv_annual.firm_cd` holds a
  `companies.co_code`.

The database of held-out set #17 (bench/bi_heldout17.py), microbiology, built the same way:

- abx: bokeh-sampledata's antibiotics (Will Burtin's 1951 table of the minimum inhibitory concentration of
  penicillin, streptomycin and neomycin against 16 bacteria, with each one's Gram stain; MIT licence, as the
  package states) split in three: `mic_results` (`bact_id`, `abx_cd`, `mic_ugml` the lowest concentration that
  stops the organism's growth in micrograms per millilitre; 48 rows, one per organism and drug), `organisms`
  (`org_no` 1-16 in the source's order, `org_name` as the source writes it, "Staphylococcus aureus", `genus`
  its first word, `gram_stn` POS/NEG) and `drugs` (`drug_code` PEN/STM/NEO, `drug_nm`, `drug_cls`
  beta-lactam/aminoglycoside, written here). `mic_results.bact_id` holds an `organisms.org_no` and
  `mic_results.abx_cd` a `drugs.drug_code`.

The database of held-out set #18 (bench/bi_heldout18.py), higher education, built the same way:

- degrees: bokeh-sampledata's degrees (the percentage of U.S. bachelor's degrees earned by women in 17 fields,
  1970-2011, from the NCES Digest of Education Statistics via Kaggle; CC0-1.0, as the package states) split in
  two: `ba_f_share` (`acad_yr` the year, `fld_cd` a short field code, `pct_f` the percent of that year's
  bachelor's degrees in the field earned by women; 714 rows, one per year and field) and `study_fields`
  (`field_code` AGR/ARC/ART/BIO/BUS/CMJ/CSC/EDU/ENG/ENL/FLG/HLT/MTH/PHS/PSY/PAD/SSH, `field_nm` as the source
  writes it, "Math and Statistics", `stem_flg` Y/N and `div_nm` the broad division, written here).
  `ba_f_share.fld_cd` holds a `study_fields.field_code`.

The database of held-out set #19 (bench/bi_heldout19.py), election polling, built the same way:

- election: statsmodels' anes96 dataset (944 respondents of the 1996 American National Election Study; public
  domain, as statsmodels states) split in three: `svy_resp` (`resp_id` 1-944 in the source's order,
  `plc_pop_k` the population of the respondent's Census place in thousands, `tv_news_dpw` the days a week the
  respondent watches TV news, `lr_self` `lr_clinton` `lr_dole` the respondent's placement of self, Clinton and
  Dole on the source's seven-point scale from 1 extremely liberal to 7 extremely conservative, `pid_cd` the
  party identification code, `age_yrs`, `edu_lvl` the education code, `hh_inc_min` the lower bound of the
  household's income bracket in dollars, `vote_pref` Clinton/Dole the expected vote; logpopul dropped),
  `party_ids` (`party_code` 0-6, `party_desc` as the source writes it, "Independent-Democrat", `pty_grp`
  Democrat/Independent/Republican, leaners counted independent, written here) and `edu_levels` (`edu_code`
  1-7, `edu_desc` as the source writes it, "Some high school", `coll_grad` Y/N, written here).
  `svy_resp.pid_cd` holds a `party_ids.party_code` and `svy_resp.edu_lvl` an `edu_levels.edu_code`.

The database of held-out set #20 (bench/bi_heldout20.py), intercity travel, built the same way:

- travel: statsmodels' modechoice dataset (Greene and Hensher's travel mode choice data: 210 travellers between
  Sydney and Melbourne, each offered air, train, bus and car; public domain, as statsmodels states) split in
  three: `trip_opts` (`trvlr_no` 1-210, `md_cd` 1-4 the mode code as the source numbers them, `term_wait_min`
  the waiting time at the terminal in minutes, 0 for the car, `fare_amt` the in-vehicle cost in dollars,
  `veh_time_min` the time in the vehicle in minutes, `gen_cost` the generalized cost measure, `chosen_flg` 1 for
  the mode the traveller took; 840 rows, one per traveller and mode), `travellers` (`pax_id` 1-210, `hh_inc_k`
  the household income in thousands of dollars, `party_sz` the number of people travelling together) and
  `travel_modes` (`mode_code` 1-4, `mode_nm` Air/Train/Bus/Car, `pub_trnsp` Y/N, written here).
  `trip_opts.trvlr_no` holds a `travellers.pax_id` and `trip_opts.md_cd` a `travel_modes.mode_code`.

The database of held-out set #21 (bench/bi_heldout21.py), equity markets, built the same way:

- equities: bokeh-sampledata's stocks (daily prices of five U.S. stocks, AAPL, FB, GOOG, IBM and MSFT, from March
  2000, or their listing, to March 1, 2013, from Quandl's WIKI prices; public domain, as the package states:
  Quandl declared the data public domain) split in three: `eod_px` (`tkr` the ticker, `px_dt` the trading day
  as YYYY-MM-DD text, `open_px` `hi_px` `lo_px` `cls_px` the day's open, high, low and close in dollars,
  unadjusted, `vol_shs` the shares traded, `adj_cls_px` the close adjusted for splits and dividends as the
  source gives it; 12,154 rows, one per ticker and trading day), `issuers` (`ticker_sym`, `issuer_nm` the
  company's legal name in 2013, "International Business Machines Corporation", `hq_city`, `hq_st`,
  `gics_subind` its GICS sub-industry in 2013, `list_mic` the exchange's MIC code, written here) and
  `exch_venues` (`mic_code` XNAS/XNYS, `venue_nm`, `oper_nm` the exchange's operator in 2013, written here).
  `eod_px.tkr` holds an `issuers.ticker_sym` and `issuers.list_mic` an `exch_venues.mic_code`.

The database of held-out set #22 (bench/bi_heldout22.py), carbon emissions, built the same way:

- carbon: bokeh-sampledata's emissions (CO2 emissions per person, in metric tons, of 201 countries, 1950 to
  2012, not every country every year; public domain, as the package states) joined to the country names,
  two-letter codes and region groups of bokeh-sampledata's gapminder (CC-BY-2.0, Gapminder.org), split in three:
  `co2_pcap` (`iso2_cd` the country's two-letter code, `yr`, `t_co2_pc` the tonnes of CO2 per person; 10,526
  rows, one per country and year), `ctry_dim` (`ctry_iso`, `ctry_nm`, `rgn_id` a region code; 244 rows) and
  `rgn_dim` (`rgn_cd` EAP/ECA/LAC/MENA/SAS/SSA, `rgn_desc` Gapminder's group name, written here).
  `co2_pcap.iso2_cd` holds a `ctry_dim.ctry_iso` and `ctry_dim.rgn_id` a `rgn_dim.rgn_cd`.

The database of held-out set #23 (bench/bi_heldout23.py), crime statistics, built the same way:

- crime: statsmodels' statecrime dataset (Statewide Crime Data 2009 of the 50 U.S. states and DC, from the
  Statistical Abstract of the United States and the 2009 American Community Survey; public domain, as statsmodels
  states) with the states' postal codes and FIPS numbers of bokeh-sampledata's us_states and us_counties (U.S.
  Census Bureau, public domain) and the Census Bureau's divisions and regions (public domain, written here), split
  in three: `ucr_st_rates` (`jur_cd` the state's postal code, `rpt_yr` 2009, `viol_rt_100k` violent crimes and
  `mrdr_rt_100k` murders per 100,000 people, `hs_grad_pct` the percent with high school or more, `pov_pct` the
  percent below the poverty line, `sngl_par_pct` single-parent families in percent of family households,
  `wht_only_pct` the percent white alone, `urb_pct` the percent living in urbanized areas; 51 rows),
  `geo_state` (`usps_abbr`, `st_nm`, `st_fips`, `cdiv_no` the Census division 1-9; 51 rows) and `census_div`
  (`div_id` 1-9, `div_nm` "New England", ..., `rgn_nm` Northeast/Midwest/South/West).
  `ucr_st_rates.jur_cd` holds a `geo_state.usps_abbr` and `geo_state.cdiv_no` a `census_div.div_id`.

The database of held-out set #24 (bench/bi_heldout24.py), population by age and sex, built the same way:

- demog: bokeh-sampledata's population (United Nations, Department of Economic and Social Affairs, Population
  Division (2024), World Population Prospects 2024, medium variant; CC BY 3.0 IGO, as bokeh-sampledata states;
  the estimates of 1950 to 2020 only, its projections and its aggregate areas left out) with the ISO codes,
  continents and subregions of countryinfo's country data (MIT) and subregion codes written here, split in three:
  `wpp_popn` (`loc_cd` the area's ISO alpha-3 code, `ref_yr` 1950, 1955, ..., 2020, `sex_cd` M/F, `age_grp`
  "0-4", ..., "100+", `age_lo` the group's first age, `pop_cnt` persons on 1 July; 149,310 rows), `cntry_ref`
  (`iso3_cd`, `m49_no` the UN location number, `area_nm` the UN's name, `sreg_no`; 237 rows) and `geo_sreg`
  (`sreg_key`, `sreg_nm` "Western Europe", ..., `cont_nm` Africa/Americas/Asia/Europe/Oceania; 17 rows).
  `wpp_popn.loc_cd` holds a `cntry_ref.iso3_cd` and `cntry_ref.sreg_no` a `geo_sreg.sreg_key`.

The database of held-out set #25 (bench/bi_heldout25.py), U.S. macroeconomic series, built the same way:

- macro: statsmodels' macrodata dataset (quarterly U.S. macroeconomic series 1959Q1-2009Q3 from FRED, Federal
  Reserve Bank of St. Louis, and the Bureau of Labor Statistics; public domain, as statsmodels states), split in
  two: `nipa_qtr` (`prd_id` the period as yyyyq, e.g. 19591, `rl_gdp_bn` real GDP, `rl_pce_bn` real personal
  consumption, `rl_gpdi_bn` real private investment, `rl_govt_bn` real government spending and `rl_dpi_bn` real
  disposable income, billions of chained 2005 dollars; `cpi_u` the consumer price index, `m1_bn` the M1 money
  stock, `tb3m_pct` the 3-month Treasury bill rate, `unemp_rt` the unemployment rate, `pop_mn` population in
  millions, `infl_pct` inflation, `rl_int_pct` the real interest rate; 203 rows) and `cal_prd` (`period_key`,
  `cal_yr`, `cal_qtr` 1-4, `dec_lbl` "1960s", ...; 203 rows). `nipa_qtr.prd_id` holds a `cal_prd.period_key`.

The database of held-out set #26 (bench/bi_heldout26.py), a holiday calendar, built the same way:

- holidays: bokeh-sampledata's us_holidays (U.S. federal holidays as the Office of Personnel Management observes
  them, Monday to Friday, and selected cultural and Easter-based Christian observances, nominal years 2000-2030,
  dates calculated from calendar rules; BSD-3-Clause, as the package states), as a small star schema in three
  tables: `hol_evt` (`evt_id` 1-723 in date order, `dt_sk` the date as a yyyymmdd number, `hol_ref` a short
  holiday code, `hol_yr` the holiday's nominal year: New Year's Day 2000 is observed on 1999-12-31; 723 rows),
  `hol_def` (`hol_cd`, `hol_nm` as the source writes it without its "(US-OPM)" marker, "Washington's Birthday",
  `hol_type` federal/christian/cultural, written here; 24 rows) and `dim_date` (`date_key` yyyymmdd, `cal_dt`
  YYYY-MM-DD text, `cal_yr`, `mo_no` 1-12, `mo_nm` "January", ..., `dow_nm` "Monday", ..., `wknd_flg` Y/N; one
  row per day from 1999-12-31 to 2030-12-31, 11,324 rows). `hol_evt.dt_sk` holds a `dim_date.date_key` and
  `hol_evt.hol_ref` a `hol_def.hol_cd`.

The database of held-out set #27 (bench/bi_heldout27.py), a marriage survey, built the same way:

- marital: statsmodels' fair dataset (Ray Fair's 1978 "A Theory of Extramarital Affairs", Journal of Political
  Economy: 6,366 married women who answered a 1974 magazine survey; "included with permission of the author", as
  statsmodels states), split in three: `rdbk_resp` (`resp_no` 1-6366 in the source's order, `mrg_rtg_cd` the
  woman's rating of her marriage 1-5, `age_yrs` her age as the source bands it, 17.5, 22, 27, ..., 42, `yrs_wed`
  the years married as the source approximates them, 0.5, 2.5, 6, 9, 13, 16.5, 23, `kid_cnt` her children, 5.5
  for five or more, `relig_lvl` how religious she is, not/mildly/fairly/strongly, `educ_yrs` her schooling in
  years, 9 grade school, 12 high school, 14 some college, 16 college graduate, 17 some graduate school, 20 an
  advanced degree, `occ_cd` her occupation, `hsb_occ_cd` her husband's, `xm_afr_tm` the source's measure of time
  spent in extramarital affairs, 0 for none; 6,366 rows), `occ_lkp` (`occ_key` 1-6 as the source numbers them,
  `occ_desc` its wording, "white-collar", ..., `occ_abbr` a short label, written here; 6 rows) and `mrg_rtg`
  (`rtg_key` 1-5, `rtg_lbl` "very poor", ..., "very good", as the source labels them; 5 rows).
  `rdbk_resp.occ_cd` and `rdbk_resp.hsb_occ_cd` each hold an `occ_lkp.occ_key`, `rdbk_resp.mrg_rtg_cd` a
  `mrg_rtg.rtg_key`.

The database of held-out set #28 (bench/bi_heldout28.py), a novel's characters, built the same way:

- lesmis: bokeh-sampledata's les_mis (the characters of Victor Hugo's Les Miserables who appear together, from
  Donald Knuth's Stanford GraphBase `jean.dat`, copyright 1993 Stanford University: redistribution permitted,
  changed files renamed and identified as not part of the GraphBase, as bokeh-sampledata states; Knuth describes
  the data as public domain; this database is not part of the Stanford GraphBase), split in two: `lm_chr`
  (`chr_key` 1-77, the source's node index plus one, `chr_nm` the name as the source writes it, "Mme.Thenardier",
  "MotherInnocent", `cmty_no` the group bokeh-sampledata computed by Louvain community detection, 0-5; 77 rows)
  and `lm_enc` (`enc_id` 1-254 in the source's order, `src_ref` and `tgt_ref` the two characters of a pair, each
  pair once, in the source's order, `enc_cnt` the times the two appear together; 254 rows). `lm_enc.src_ref` and
  `lm_enc.tgt_ref` each hold an `lm_chr.chr_key`.

    python bench/bi_nokeys_data.py      # builds them under $ORRERY_BI_HOME/nokeys (default ~/.cache/orrery/bi)
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd

DATABASES = ("movies", "world", "flights", "store")
HELDOUT5_DATABASES = ("cars", "counties")
HELDOUT7_DATABASES = ("olympics",)
HELDOUT9_DATABASES = ("elements",)
HELDOUT11_DATABASES = ("penguins",)
HELDOUT13_DATABASES = ("titanic",)
HELDOUT14_DATABASES = ("dairy",)
HELDOUT15_DATABASES = ("glass",)
HELDOUT16_DATABASES = ("capex",)
HELDOUT17_DATABASES = ("abx",)
HELDOUT18_DATABASES = ("degrees",)
HELDOUT19_DATABASES = ("election",)
HELDOUT20_DATABASES = ("travel",)
HELDOUT21_DATABASES = ("equities",)
HELDOUT22_DATABASES = ("carbon",)
HELDOUT23_DATABASES = ("crime",)
HELDOUT24_DATABASES = ("demog",)
HELDOUT25_DATABASES = ("macro",)
HELDOUT26_DATABASES = ("holidays",)
HELDOUT27_DATABASES = ("marital",)
HELDOUT28_DATABASES = ("lesmis",)
# the U.S. Census Bureau's nine divisions (numbered as it numbers them), their regions and their states' postal codes
CENSUS_DIVISIONS = (
    (1, "New England", "Northeast", "CT ME MA NH RI VT"),
    (2, "Middle Atlantic", "Northeast", "NJ NY PA"),
    (3, "East North Central", "Midwest", "IL IN MI OH WI"),
    (4, "West North Central", "Midwest", "IA KS MN MO NE ND SD"),
    (5, "South Atlantic", "South", "DE DC FL GA MD NC SC VA WV"),
    (6, "East South Central", "South", "AL KY MS TN"),
    (7, "West South Central", "South", "AR LA OK TX"),
    (8, "Mountain", "West", "AZ CO ID MT NV NM UT WY"),
    (9, "Pacific", "West", "AK CA HI OR WA"),
)
# the six region groups of gapminder's countries, coded as the World Bank abbreviates its regions
RGN_DIM = pd.DataFrame(
    [
        ("EAP", "East Asia & Pacific"),
        ("ECA", "Europe & Central Asia"),
        ("LAC", "America"),
        ("MENA", "Middle East & North Africa"),
        ("SAS", "South Asia"),
        ("SSA", "Sub-Saharan Africa"),
    ],
    columns=["rgn_cd", "rgn_desc"],
)
# the five issuers of the stocks data as they stood in 2013 (names, head offices, GICS sub-industries, listings)
ISSUERS = pd.DataFrame(
    [
        ("AAPL", "Apple Inc.", "Cupertino", "CA", "Computer Hardware", "XNAS"),
        ("FB", "Facebook, Inc.", "Menlo Park", "CA", "Internet Software & Services", "XNAS"),
        ("GOOG", "Google Inc.", "Mountain View", "CA", "Internet Software & Services", "XNAS"),
        (
            "IBM",
            "International Business Machines Corporation",
            "Armonk",
            "NY",
            "IT Consulting & Other Services",
            "XNYS",
        ),
        ("MSFT", "Microsoft Corporation", "Redmond", "WA", "Systems Software", "XNAS"),
    ],
    columns=["ticker_sym", "issuer_nm", "hq_city", "hq_st", "gics_subind", "list_mic"],
)
EXCH_VENUES = pd.DataFrame(
    [("XNAS", "NASDAQ Stock Market", "NASDAQ OMX Group"), ("XNYS", "New York Stock Exchange", "NYSE Euronext")],
    columns=["mic_code", "venue_nm", "oper_nm"],
)
# the four modes of the travel mode choice data, numbered as the source numbers them, with a public transport flag
TRAVEL_MODES = pd.DataFrame(
    [(1, "Air", "Y"), (2, "Train", "Y"), (3, "Bus", "Y"), (4, "Car", "N")],
    columns=["mode_code", "mode_nm", "pub_trnsp"],
)
# the 1996 election study's party identification scale (codes and labels as the source lists them), each
# grouped in three as the study's summary does (leaners with the independents)
PARTY_IDS = pd.DataFrame(
    [
        (0, "Strong Democrat", "Democrat"),
        (1, "Weak Democrat", "Democrat"),
        (2, "Independent-Democrat", "Independent"),
        (3, "Independent-Independent", "Independent"),
        (4, "Independent-Republican", "Independent"),
        (5, "Weak Republican", "Republican"),
        (6, "Strong Republican", "Republican"),
    ],
    columns=["party_code", "party_desc", "pty_grp"],
)
# its education codes as the source lists them, with a college degree flag
EDU_LEVELS = pd.DataFrame(
    [
        (1, "1-8 grades", "N"),
        (2, "Some high school", "N"),
        (3, "High school graduate", "N"),
        (4, "Some college", "N"),
        (5, "College degree", "Y"),
        (6, "Master's degree", "Y"),
        (7, "PhD", "Y"),
    ],
    columns=["edu_code", "edu_desc", "coll_grad"],
)
# the lower bound in dollars of each of its 24 household income brackets (1: none or less than $2,999)
INCOME_FLOORS = dict(
    enumerate(
        [0, 3000, 5000, 7000, 9000, 10000, 11000, 12000, 13000, 14000, 15000, 17000]
        + [20000, 22000, 25000, 30000, 35000, 40000, 45000, 50000, 60000, 75000, 90000, 105000],
        start=1,
    )
)
# the 17 fields of the degrees data under short codes, with a STEM flag and a broad division of each
STUDY_FIELDS = pd.DataFrame(
    [
        ("AGR", "Agriculture", "Y", "science and engineering"),
        ("ARC", "Architecture", "N", "professional"),
        ("ART", "Art and Performance", "N", "arts and humanities"),
        ("BIO", "Biology", "Y", "science and engineering"),
        ("BUS", "Business", "N", "professional"),
        ("CMJ", "Communications and Journalism", "N", "social sciences"),
        ("CSC", "Computer Science", "Y", "science and engineering"),
        ("EDU", "Education", "N", "professional"),
        ("ENG", "Engineering", "Y", "science and engineering"),
        ("ENL", "English", "N", "arts and humanities"),
        ("FLG", "Foreign Languages", "N", "arts and humanities"),
        ("HLT", "Health Professions", "N", "professional"),
        ("MTH", "Math and Statistics", "Y", "science and engineering"),
        ("PHS", "Physical Sciences", "Y", "science and engineering"),
        ("PSY", "Psychology", "N", "social sciences"),
        ("PAD", "Public Administration", "N", "professional"),
        ("SSH", "Social Sciences and History", "N", "social sciences"),
    ],
    columns=["field_code", "field_nm", "stem_flg", "div_nm"],
)
# Burtin's three antibiotics under short codes, keyed by the source's column names, with each drug's class
DRUGS = pd.DataFrame(
    {
        "src": ["penicillin", "streptomycin", "neomycin"],
        "drug_code": ["PEN", "STM", "NEO"],
        "drug_nm": ["Penicillin", "Streptomycin", "Neomycin"],
        "drug_cls": ["beta-lactam", "aminoglycoside", "aminoglycoside"],
    }
)
# the eleven firms of Grunfeld's data under short codes, with each firm's line of business
COMPANIES = pd.DataFrame(
    {
        "co_code": ["GM", "USS", "GE", "CHR", "ARF", "IBM", "UO", "WH", "GY", "DM", "AS"],
        "co_name": [
            "General Motors",
            "US Steel",
            "General Electric",
            "Chrysler",
            "Atlantic Refining",
            "IBM",
            "Union Oil",
            "Westinghouse",
            "Goodyear",
            "Diamond Match",
            "American Steel",
        ],
        "sector": [
            "automobiles",
            "steel",
            "electrical equipment",
            "automobiles",
            "petroleum",
            "office machines",
            "petroleum",
            "electrical equipment",
            "tires and rubber",
            "matches and wood products",
            "steel",
        ],
    }
)
# the six kinds of glass of the forensic data under short codes, keyed by the source's labels
GLASS_CLASSES = pd.DataFrame(
    {
        "src": ["WinF", "WinNF", "Veh", "Con", "Tabl", "Head"],
        "cls_code": ["BWF", "BWN", "VWF", "CNT", "TBL", "HLP"],
        "cls_desc": [
            "building window, float processed",
            "building window, non-float processed",
            "vehicle window, float processed",
            "container",
            "tableware",
            "headlamp",
        ],
        "use_area": ["building", "building", "vehicle", "household", "household", "vehicle"],
    }
)
# the cattle breeds under short codes, with each breed's standard country of origin
BREEDS = pd.DataFrame(
    {
        "breed_code": ["AYR", "CAN", "GUE", "HOL", "JER"],
        "breed_nm": ["Ayrshire", "Canadian", "Guernsey", "Holstein-Friesian", "Jersey"],
        "orig_cntry": ["Scotland", "Canada", "Guernsey", "Netherlands", "Jersey"],
    }
)
TRAVEL_CLASSES = pd.DataFrame(
    {"class_cd": ["1st", "2nd", "3rd"], "class_desc": ["First class", "Second class", "Third class"]}
)
# the penguins' species and islands as lookup tables (the binomials are the species' standard names)
SPECIES = pd.DataFrame(
    {
        "id": [1, 2, 3],
        "common_name": ["Adelie", "Chinstrap", "Gentoo"],
        "sci_name": ["Pygoscelis adeliae", "Pygoscelis antarcticus", "Pygoscelis papua"],
    }
)
ISLANDS = pd.DataFrame({"isl_cd": ["BIS", "DRM", "TOR"], "isl_name": ["Biscoe", "Dream", "Torgersen"]})
# the periodic table's categories under short codes, as a lookup table of a user's schema often holds them
CATEGORY_CODES = {
    "alkali metal": "ALK",
    "alkaline earth metal": "AEM",
    "transition metal": "TM",
    "lanthanoid": "LAN",
    "actinoid": "ACT",
    "metal": "PTM",
    "metalloid": "MLD",
    "nonmetal": "NM",
    "halogen": "HAL",
    "noble gas": "NG",
}

# the holidays of the us_holidays calendar under short codes, keyed by the source's names (the "(US-OPM)" marker
# dropped: it marks the federal ones), each with its kind as the source groups them
HOL_DEF = pd.DataFrame(
    [
        ("NYD", "New Year's Day", "federal"),
        ("MLK", "Birthday of Martin Luther King, Jr.", "federal"),
        ("WAS", "Washington's Birthday", "federal"),
        ("MEM", "Memorial Day", "federal"),
        ("JUN", "Juneteenth National Independence Day", "federal"),
        ("IND", "Independence Day", "federal"),
        ("LAB", "Labor Day", "federal"),
        ("COL", "Columbus Day", "federal"),
        ("VET", "Veterans Day", "federal"),
        ("THX", "Thanksgiving Day", "federal"),
        ("XMS", "Christmas Day", "federal"),
        ("ASH", "Ash Wednesday", "christian"),
        ("PLM", "Palm Sunday", "christian"),
        ("GFR", "Good Friday", "christian"),
        ("EAS", "Easter Sunday", "christian"),
        ("ASC", "Ascension Day", "christian"),
        ("PEN", "Pentecost", "christian"),
        ("TRN", "Trinity Sunday", "christian"),
        ("VAL", "Valentine's Day", "cultural"),
        ("MOM", "Mother's Day", "cultural"),
        ("FLG", "Flag Day", "cultural"),
        ("DAD", "Father's Day", "cultural"),
        ("HAL", "Halloween", "cultural"),
        ("KWZ", "Kwanzaa", "cultural"),
    ],
    columns=["hol_cd", "hol_nm", "hol_type"],
)


# the six occupation codes of Fair's survey in its wording, with a short label of each
OCC_LKP = pd.DataFrame(
    [
        (1, "student", "STUDENT"),
        (2, "farming, agriculture; semi-skilled or unskilled worker", "FARM/UNSKILLED"),
        (3, "white-collar", "WHITE COLLAR"),
        (4, "teacher, counselor, social worker, nurse; artist, writer; technician, skilled worker", "TEACH/SKILLED"),
        (5, "managerial, administrative, business", "MGMT/BUSINESS"),
        (6, "professional with advanced degree", "PROFESSIONAL"),
    ],
    columns=["occ_key", "occ_desc", "occ_abbr"],
)
# its five-point scale of how a woman rates her marriage, as the source labels it
MRG_RTG = pd.DataFrame(
    [(1, "very poor"), (2, "poor"), (3, "fair"), (4, "good"), (5, "very good")], columns=["rtg_key", "rtg_lbl"]
)
RELIG_LVLS = {1: "not", 2: "mildly", 3: "fairly", 4: "strongly"}


def _home() -> Path:
    return Path(os.environ.get("ORRERY_BI_HOME") or Path.home() / ".cache" / "orrery" / "bi") / "nokeys"


def _write(con: sqlite3.Connection, frames: dict[str, pd.DataFrame]) -> None:
    for name, frame in frames.items():
        frame.to_sql(name, con, index=False)  # pandas declares no keys


def _movies(path: Path) -> None:
    from bokeh_sampledata import movies_data

    src = Path(movies_data.__file__).parent / "_data" / "movies.db"
    shutil.copyfile(src, path)


def _world(path: Path) -> None:
    from bokeh_sampledata import gapminder

    data = Path(gapminder.__file__).parent / "_data"
    indicators = pd.read_csv(data / "gapminder.csv.gz")
    countries = pd.read_csv(data / "gapminder_regions.csv").rename(
        columns={"Country": "name", "Group": "region", "ID": "code"}
    )
    with sqlite3.connect(path) as con:
        _write(con, {"countries": countries, "indicators": indicators})


def _flights(path: Path) -> None:
    from bokeh_sampledata.airport_routes import airports, routes

    airports = airports.dropna(axis=1, how="all").drop(columns=["source"], errors="ignore")
    routes = routes.dropna(axis=1, how="all")
    with sqlite3.connect(path) as con:
        _write(con, {"airports": airports, "routes": routes})


def _store(path: Path) -> None:
    from bokeh_sampledata.sample_superstore import data as superstore

    df = superstore.rename(columns=lambda c: c.lower().replace(" ", "_").replace("-", "_"))
    df.insert(0, "order_line", range(1, len(df) + 1))
    states = df[["state", "region", "country"]].drop_duplicates("state").sort_values("state")
    subs = df[["sub_category", "category"]].drop_duplicates("sub_category").sort_values("sub_category")
    orders = df.drop(columns=["region", "country", "category"])
    with sqlite3.connect(path) as con:
        _write(con, {"orders": orders, "states": states, "sub_categories": subs})


def _cars(path: Path) -> None:
    from bokeh_sampledata.autompg import autompg, autompg_clean

    cars = autompg.assign(mfr=autompg_clean["mfr"])  # the source's origin codes, the cleaned maker names
    origins = pd.DataFrame({"origin": [1, 2, 3], "name": ["North America", "Europe", "Asia"]})
    assert (autompg_clean["origin"] == autompg["origin"].map(origins.set_index("origin")["name"])).all()
    with sqlite3.connect(path) as con:
        _write(con, {"cars": cars, "origins": origins})


def _counties(path: Path) -> None:
    from bokeh_sampledata import unemployment, us_counties, us_states

    counties = pd.DataFrame(us_counties.records()).drop(columns=["geometry"])
    counties = counties[["fips", "state_fips", "county_fips", "state", "name", "detailed_name"]]
    states = pd.DataFrame(us_states.records()).drop(columns=["geometry"])
    rates = pd.DataFrame(sorted(unemployment.by_fips.items()), columns=["fips", "rate"])
    rates.insert(1, "year", 2009)
    with sqlite3.connect(path) as con:
        _write(con, {"counties": counties, "states": states, "unemployment": rates})


def _olympics(path: Path) -> None:
    from bokeh_sampledata.olympics2014 import data as sochi
    from bokeh_sampledata.sprint import sprint

    nations = pd.DataFrame([{"cntry_cd": d["abbr"], "cntry_nm": d["name"], **d["medals"]} for d in sochi["data"]])
    lookup = nations[["cntry_cd", "cntry_nm"]].sort_values("cntry_cd")
    tally = nations[["cntry_cd", "gold", "silver", "bronze", "total"]].rename(columns={"total": "tot"})
    sprint = sprint.rename(
        columns={"Name": "athlete", "Country": "noc", "Medal": "medal", "Time": "time_s", "Year": "yr"}
    )
    with sqlite3.connect(path) as con:
        _write(con, {"lkp_cntry": lookup, "sochi14_tally": tally.sort_values("cntry_cd"), "m100_medalists": sprint})


def _elements(path: Path) -> None:
    from bokeh_sampledata.periodic_table import elements

    df = elements.rename(columns=lambda c: c.replace(" ", "_"))
    elem = pd.DataFrame(
        {
            "z": df["atomic_number"],
            "sym": df["symbol"],
            "name": df["name"],
            "atm_mass": pd.to_numeric(df["atomic_mass"].astype(str).str.strip("[]"), errors="coerce"),
            "period": df["period"],
            "grp": pd.to_numeric(df["group"], errors="coerce").astype("Int64"),
            "cat_cd": df["metal"].map(CATEGORY_CODES),
            "yr_disc": df["year_discovered"].astype(str),
        }
    )
    assert elem["cat_cd"].notna().all()
    cats = pd.DataFrame(sorted((c, n) for n, c in CATEGORY_CODES.items()), columns=["cat_cd", "cat_nm"])
    phys = df[["symbol", "standard_state", "bonding_type", "melting_point", "boiling_point", "density"]]
    phys = phys.assign(en=df["electronegativity"], ie1=df["IE-1"]).rename(
        columns={
            "symbol": "sym",
            "standard_state": "std_state",
            "bonding_type": "bond_type",
            "melting_point": "mp_k",
            "boiling_point": "bp_k",
            "density": "dens",
        }
    )
    with sqlite3.connect(path) as con:
        _write(con, {"elem": elem, "elem_cat": cats, "phys_props": phys.sort_values("sym")})


def _penguins(path: Path) -> None:
    from bokeh_sampledata.penguins import data

    obs = pd.DataFrame(
        {
            "obs_id": range(1, len(data) + 1),
            "species_id": data["species"].map(SPECIES.set_index("common_name")["id"]),
            "isl_cd": data["island"].map(ISLANDS.set_index("isl_name")["isl_cd"]),
            "bill_len_mm": data["bill_length_mm"],
            "bill_depth_mm": data["bill_depth_mm"],
            "flipper_mm": data["flipper_length_mm"],
            "body_mass_g": data["body_mass_g"],
            "sex": data["sex"],
        }
    )
    assert obs[["species_id", "isl_cd"]].notna().all().all()
    with sqlite3.connect(path) as con:
        _write(con, {"penguin_obs": obs, "species": SPECIES, "islands": ISLANDS})


def _titanic(path: Path) -> None:
    from bokeh_sampledata.titanic import data

    pax = pd.DataFrame(
        {
            "pax_no": range(1, len(data) + 1),
            "full_name": data["name"],
            "pclass": data["class"],
            "age": data["age"],
            "sex": data["sex"],
            "survived": data["survived"],
        }
    )
    with sqlite3.connect(path) as con:
        _write(con, {"passengers": pax, "travel_classes": TRAVEL_CLASSES})


def _dairy(path: Path) -> None:
    from bokeh_sampledata.cows import data

    codes = dict(zip(BREEDS["breed_nm"], BREEDS["breed_code"], strict=True))
    samples = pd.DataFrame(
        {
            "smpl_id": range(1, len(data) + 1),
            "brd_cd": data["breed"].map(codes),
            "age_grp": data["age"].map({"Mature": "MAT", "2 years old": "2YO"}),
            "bf_pct": data["butterfat"],
        }
    )
    with sqlite3.connect(path) as con:
        _write(con, {"milk_samples": samples, "breeds": BREEDS})


def _glass(path: Path) -> None:
    from bokeh_sampledata.forensic_glass import data

    codes = dict(zip(GLASS_CLASSES["src"], GLASS_CLASSES["cls_code"], strict=True))
    oxides = {f"{el.lower()}_wt": data[el] for el in ("Na", "Mg", "Al", "Si", "K", "Ca", "Ba", "Fe")}
    frags = pd.DataFrame(
        {"frag_no": range(1, len(data) + 1), "ri_dev": data["RI"], **oxides, "gls_cls": data["type"].map(codes)}
    )
    assert frags["gls_cls"].notna().all()
    with sqlite3.connect(path) as con:
        _write(con, {"frag_samples": frags, "glass_classes": GLASS_CLASSES.drop(columns="src")})


def _capex(path: Path) -> None:
    from statsmodels.datasets import grunfeld

    data = grunfeld.load_pandas().data
    codes = dict(zip(COMPANIES["co_name"], COMPANIES["co_code"], strict=True))
    annual = pd.DataFrame(
        {
            "firm_cd": data["firm"].map(codes),
            "fy": data["year"].astype(int),
            "gross_inv": data["invest"],
            "mkt_val": data["value"],
            "cap_stk": data["capital"],
        }
    )
    assert annual["firm_cd"].notna().all()
    with sqlite3.connect(path) as con:
        _write(con, {"inv_annual": annual, "companies": COMPANIES})


def _abx(path: Path) -> None:
    from bokeh_sampledata.antibiotics import data

    organisms = pd.DataFrame(
        {
            "org_no": range(1, len(data) + 1),
            "org_name": data["bacteria"],
            "genus": data["bacteria"].str.split().str[0],
            "gram_stn": data["gram"].map({"positive": "POS", "negative": "NEG"}),
        }
    )
    assert organisms["gram_stn"].notna().all()
    results = data.assign(bact_id=organisms["org_no"]).melt(
        id_vars="bact_id", value_vars=list(DRUGS["src"]), var_name="abx_cd", value_name="mic_ugml"
    )
    results["abx_cd"] = results["abx_cd"].map(dict(zip(DRUGS["src"], DRUGS["drug_code"], strict=True)))
    with sqlite3.connect(path) as con:
        _write(con, {"mic_results": results, "organisms": organisms, "drugs": DRUGS.drop(columns="src")})


def _degrees(path: Path) -> None:
    from bokeh_sampledata.degrees import data

    codes = dict(zip(STUDY_FIELDS["field_nm"], STUDY_FIELDS["field_code"], strict=True))
    shares = data.melt(id_vars="Year", var_name="fld_cd", value_name="pct_f").rename(columns={"Year": "acad_yr"})
    shares["fld_cd"] = shares["fld_cd"].map(codes)
    assert shares["fld_cd"].notna().all()
    with sqlite3.connect(path) as con:
        _write(con, {"ba_f_share": shares.sort_values(["acad_yr", "fld_cd"]), "study_fields": STUDY_FIELDS})


def _election(path: Path) -> None:
    from statsmodels.datasets import anes96

    data = anes96.load_pandas().data
    resp = pd.DataFrame(
        {
            "resp_id": range(1, len(data) + 1),
            "plc_pop_k": data["popul"],
            "tv_news_dpw": data["TVnews"].astype(int),
            "lr_self": data["selfLR"].astype(int),
            "lr_clinton": data["ClinLR"].astype(int),
            "lr_dole": data["DoleLR"].astype(int),
            "pid_cd": data["PID"].astype(int),
            "age_yrs": data["age"].astype(int),
            "edu_lvl": data["educ"].astype(int),
            "hh_inc_min": data["income"].astype(int).map(INCOME_FLOORS),
            "vote_pref": data["vote"].map({0: "Clinton", 1: "Dole"}),
        }
    )
    assert resp.notna().all().all()
    with sqlite3.connect(path) as con:
        _write(con, {"svy_resp": resp, "party_ids": PARTY_IDS, "edu_levels": EDU_LEVELS})


def _travel(path: Path) -> None:
    from statsmodels.datasets import modechoice

    data = modechoice.load_pandas().data.astype(int)  # every column holds whole numbers
    opts = pd.DataFrame(
        {
            "trvlr_no": data["individual"],
            "md_cd": data["mode"],
            "term_wait_min": data["ttme"],
            "fare_amt": data["invc"],
            "veh_time_min": data["invt"],
            "gen_cost": data["gc"],
            "chosen_flg": data["choice"],
        }
    )
    people = data.groupby("individual", as_index=False).first()
    travellers = pd.DataFrame({"pax_id": people["individual"], "hh_inc_k": people["hinc"], "party_sz": people["psize"]})
    with sqlite3.connect(path) as con:
        _write(con, {"trip_opts": opts, "travellers": travellers, "travel_modes": TRAVEL_MODES})


def _equities(path: Path) -> None:
    from bokeh_sampledata.stocks import data

    px = pd.DataFrame(
        {
            "tkr": data["ticker"],
            "px_dt": data["date"].dt.strftime("%Y-%m-%d"),
            "open_px": data["open"],
            "hi_px": data["high"],
            "lo_px": data["low"],
            "cls_px": data["close"],
            "vol_shs": data["volume"],
            "adj_cls_px": data["adj_close"],
        }
    )
    assert px["tkr"].isin(ISSUERS["ticker_sym"]).all()
    with sqlite3.connect(path) as con:
        _write(con, {"eod_px": px, "issuers": ISSUERS, "exch_venues": EXCH_VENUES})


def _carbon(path: Path) -> None:
    from bokeh_sampledata import gapminder
    from bokeh_sampledata.emissions import data

    regions = pd.read_csv(Path(gapminder.__file__).parent / "_data" / "gapminder_regions.csv")
    regions["ID"] = regions["ID"].fillna("NA")  # the source leaves Namibia's code empty
    codes = dict(zip(RGN_DIM["rgn_desc"], RGN_DIM["rgn_cd"], strict=True))
    ctry = pd.DataFrame(
        {"ctry_iso": regions["ID"], "ctry_nm": regions["Country"], "rgn_id": regions["Group"].map(codes)}
    )
    iso = dict(zip(ctry["ctry_nm"], ctry["ctry_iso"], strict=True))
    co2 = pd.DataFrame(
        {"iso2_cd": data["country"].map(iso), "yr": data["year"].astype(int), "t_co2_pc": data["emissions"]}
    )
    assert co2["iso2_cd"].notna().all() and ctry["rgn_id"].notna().all()
    with sqlite3.connect(path) as con:
        _write(con, {"co2_pcap": co2, "ctry_dim": ctry, "rgn_dim": RGN_DIM})


def _crime(path: Path) -> None:
    import statsmodels.api as sm
    from bokeh_sampledata import us_counties, us_states

    src = sm.datasets.statecrime.load_pandas().data
    src.index = src.index.str.strip()  # the source pads some names ("Kansas ")
    code = {v["name"]: k for k, v in us_states.data.items()}
    fips = {c["state"]: int(c["state_fips"]) for c in us_counties.records()}
    division = {st: d for d, _, _, states in CENSUS_DIVISIONS for st in states.split()}
    states = pd.DataFrame({"usps_abbr": [code[n] for n in src.index], "st_nm": src.index})
    states["st_fips"] = states["usps_abbr"].map(fips)
    states["cdiv_no"] = states["usps_abbr"].map(division)
    assert states.notna().all().all() and len(division) == len(states)
    rates = pd.DataFrame({"jur_cd": states["usps_abbr"].to_numpy(), "rpt_yr": 2009})
    columns = {"violent": "viol_rt_100k", "murder": "mrdr_rt_100k", "hs_grad": "hs_grad_pct", "poverty": "pov_pct"}
    columns |= {"single": "sngl_par_pct", "white": "wht_only_pct", "urban": "urb_pct"}
    for old, new in columns.items():
        rates[new] = src[old].to_numpy()
    divisions = pd.DataFrame([d[:3] for d in CENSUS_DIVISIONS], columns=["div_id", "div_nm", "rgn_nm"])
    with sqlite3.connect(path) as con:
        _write(con, {"ucr_st_rates": rates, "geo_state": states, "census_div": divisions})


def _demog(path: Path) -> None:
    from bokeh_sampledata import population
    from countryinfo import CountryInfo

    src = population.data
    src = src[(src["LocID"] < 900) & (src["Year"] <= 2020)]  # countries and areas only; estimates, not projections
    iso = {int(v["ISO"]["numeric"]): v for v in CountryInfo.all().values() if v.get("ISO", {}).get("numeric")}
    kosovo = {"ISO": {"alpha3": "XKX"}, "subregion": "Southern Europe"}  # countryinfo has no number for it
    areas = src[["LocID", "Location"]].drop_duplicates()
    info = [iso.get(n, kosovo if n == 412 else None) for n in areas["LocID"]]
    sreg = {nm: i for i, nm in enumerate(sorted({c["subregion"] for c in info}), start=11)}
    cntry = pd.DataFrame({"iso3_cd": [c["ISO"]["alpha3"] for c in info], "m49_no": areas["LocID"].to_numpy()})
    cntry["area_nm"] = areas["Location"].to_numpy()
    cntry["sreg_no"] = [sreg[c["subregion"]] for c in info]
    cont = {c["subregion"]: c.get("region", "Europe") for c in info}
    geo = pd.DataFrame([(i, nm, cont[nm]) for nm, i in sreg.items()], columns=["sreg_key", "sreg_nm", "cont_nm"])
    popn = pd.DataFrame({"loc_cd": src["LocID"].map(cntry.set_index("m49_no")["iso3_cd"]).to_numpy()})
    popn["ref_yr"] = src["Year"].to_numpy()
    popn["sex_cd"] = src["Sex"].str[0].to_numpy()
    popn["age_grp"] = src["AgeGrp"].to_numpy()
    popn["age_lo"] = src["AgeGrpStart"].to_numpy()
    popn["pop_cnt"] = src["Value"].round().astype(int).to_numpy()
    with sqlite3.connect(path) as con:
        _write(con, {"wpp_popn": popn, "cntry_ref": cntry, "geo_sreg": geo})


def _macro(path: Path) -> None:
    import statsmodels.api as sm

    src = sm.datasets.macrodata.load_pandas().data
    key = (src["year"] * 10 + src["quarter"]).astype(int)
    periods = pd.DataFrame(
        {"period_key": key, "cal_yr": src["year"].astype(int), "cal_qtr": src["quarter"].astype(int)}
    )
    periods["dec_lbl"] = (periods["cal_yr"] // 10 * 10).astype(str) + "s"
    series = pd.DataFrame({"prd_id": key})
    columns = {"realgdp": "rl_gdp_bn", "realcons": "rl_pce_bn", "realinv": "rl_gpdi_bn", "realgovt": "rl_govt_bn"}
    columns |= {"realdpi": "rl_dpi_bn", "cpi": "cpi_u", "m1": "m1_bn", "tbilrate": "tb3m_pct", "unemp": "unemp_rt"}
    columns |= {"pop": "pop_mn", "infl": "infl_pct", "realint": "rl_int_pct"}
    for old, new in columns.items():
        series[new] = src[old].to_numpy()
    with sqlite3.connect(path) as con:
        _write(con, {"nipa_qtr": series, "cal_prd": periods})


def _holidays(path: Path) -> None:
    from bokeh_sampledata.us_holidays import us_holidays

    src = pd.DataFrame(us_holidays, columns=["dt", "name"])
    src["dt"] = pd.to_datetime(src["dt"])
    codes = dict(zip(HOL_DEF["hol_nm"], HOL_DEF["hol_cd"], strict=True))
    new_year_early = src["name"].str.startswith("New Year") & (src["dt"].dt.month == 12)  # observed the Friday before
    evt = pd.DataFrame(
        {
            "evt_id": range(1, len(src) + 1),
            "dt_sk": src["dt"].dt.strftime("%Y%m%d").astype(int),
            "hol_ref": src["name"].str.removesuffix(" (US-OPM)").map(codes),
            "hol_yr": src["dt"].dt.year + new_year_early,
        }
    )
    assert evt["hol_ref"].notna().all()
    days = pd.Series(pd.date_range(src["dt"].min(), f"{src['dt'].max().year}-12-31"))
    dates = pd.DataFrame(
        {
            "date_key": days.dt.strftime("%Y%m%d").astype(int),
            "cal_dt": days.dt.strftime("%Y-%m-%d"),
            "cal_yr": days.dt.year,
            "mo_no": days.dt.month,
            "mo_nm": days.dt.month_name(),
            "dow_nm": days.dt.day_name(),
            "wknd_flg": (days.dt.dayofweek >= 5).map({True: "Y", False: "N"}),
        }
    )
    with sqlite3.connect(path) as con:
        _write(con, {"hol_evt": evt, "hol_def": HOL_DEF, "dim_date": dates})


def _marital(path: Path) -> None:
    from statsmodels.datasets import fair

    data = fair.load_pandas().data
    resp = pd.DataFrame(
        {
            "resp_no": range(1, len(data) + 1),
            "mrg_rtg_cd": data["rate_marriage"].astype(int),
            "age_yrs": data["age"],
            "yrs_wed": data["yrs_married"],
            "kid_cnt": data["children"],
            "relig_lvl": data["religious"].astype(int).map(RELIG_LVLS),
            "educ_yrs": data["educ"].astype(int),
            "occ_cd": data["occupation"].astype(int),
            "hsb_occ_cd": data["occupation_husb"].astype(int),
            "xm_afr_tm": data["affairs"],
        }
    )
    assert resp.notna().all().all()
    with sqlite3.connect(path) as con:
        _write(con, {"rdbk_resp": resp, "occ_lkp": OCC_LKP, "mrg_rtg": MRG_RTG})


def _lesmis(path: Path) -> None:
    from bokeh_sampledata.les_mis import data

    nodes, links = pd.DataFrame(data["nodes"]), pd.DataFrame(data["links"])
    chars = pd.DataFrame({"chr_key": nodes.index + 1, "chr_nm": nodes["name"], "cmty_no": nodes["group"]})
    enc = pd.DataFrame(
        {
            "enc_id": range(1, len(links) + 1),
            "src_ref": links["source"] + 1,
            "tgt_ref": links["target"] + 1,
            "enc_cnt": links["value"],
        }
    )
    with sqlite3.connect(path) as con:
        _write(con, {"lm_chr": chars, "lm_enc": enc})


BUILDERS: dict[str, Callable[[Path], None]] = {
    "movies": _movies,
    "world": _world,
    "flights": _flights,
    "store": _store,
    "cars": _cars,
    "counties": _counties,
    "olympics": _olympics,
    "elements": _elements,
    "penguins": _penguins,
    "titanic": _titanic,
    "dairy": _dairy,
    "glass": _glass,
    "capex": _capex,
    "abx": _abx,
    "degrees": _degrees,
    "election": _election,
    "travel": _travel,
    "equities": _equities,
    "carbon": _carbon,
    "crime": _crime,
    "demog": _demog,
    "macro": _macro,
    "holidays": _holidays,
    "marital": _marital,
    "lesmis": _lesmis,
}


def path_of(name: str) -> Path:
    """The SQLite file of one database, built on first use (a temp file renamed into place)."""
    target = _home() / f"{name}.sqlite"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f"{name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    os.unlink(tmp)
    try:
        BUILDERS[name](Path(tmp))
        os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return target


if __name__ == "__main__":
    for db in (
        *DATABASES,
        *HELDOUT5_DATABASES,
        *HELDOUT7_DATABASES,
        *HELDOUT9_DATABASES,
        *HELDOUT11_DATABASES,
        *HELDOUT13_DATABASES,
        *HELDOUT14_DATABASES,
        *HELDOUT15_DATABASES,
        *HELDOUT16_DATABASES,
        *HELDOUT17_DATABASES,
        *HELDOUT18_DATABASES,
        *HELDOUT19_DATABASES,
        *HELDOUT20_DATABASES,
        *HELDOUT21_DATABASES,
        *HELDOUT22_DATABASES,
        *HELDOUT23_DATABASES,
        *HELDOUT24_DATABASES,
        *HELDOUT25_DATABASES,
        *HELDOUT26_DATABASES,
        *HELDOUT27_DATABASES,
        *HELDOUT28_DATABASES,
    ):
        print(db, path_of(db))
