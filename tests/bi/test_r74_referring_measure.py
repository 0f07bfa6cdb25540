"""Round 74 (bench/bi_r74.md): an average or total of a lookup's column that measures nothing (a text flag, a
code), over the lookup alone filtered by one of its values, is the measure the question names in the table that
refers to the lookup, joined. Counter-examples where nothing changes: the lookup's own measure, two joins into the
lookup (two roles), no measure or two measures named, no filter on the lookup."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose

SCRIPT = (
    "CREATE TABLE wards (ward_cd INTEGER, ward_nm TEXT, acute_flg TEXT, bed_cnt INTEGER);"
    "CREATE TABLE stays (stay_id INTEGER, ward_cd INTEGER, bill_amt INTEGER, nurse_hrs INTEGER, wait_hrs INTEGER);"
)
WARDS = [(1, "Cardiac", "Y", 20), (2, "Maternity", "N", 30), (3, "Surgical", "Y", 25), (4, "Geriatric", "N", 40)]
ROWS = {"wards": WARDS, "stays": [(i, 1 + i % 4, 100 + 13 * i, 5 + i % 7, i % 5) for i in range(80)]}

# a second layer: journeys refer to stations twice (from and to)
ROUTES = (
    "CREATE TABLE stations (station_id INTEGER, town TEXT, staffed TEXT);"
    "CREATE TABLE journeys (journey_id INTEGER, from_station INTEGER, to_station INTEGER, ticket_amt INTEGER);"
)
STATIONS = [(i, ("Leeds", "York", "Hull", "Bath")[i % 4], "Y" if i % 2 else "N") for i in range(1, 9)]
JOURNEYS = [(i, 1 + i % 8, 1 + (i * 3) % 8, 10 + i) for i in range(60)]


@pytest.fixture
def bi(sqlite_bi):
    bi = sqlite_bi(SCRIPT, ROWS)
    assert bi.semantic.joins == ["stays.ward_cd = wards.ward_cd"]  # inferred: no declared keys
    return bi


def composed(bi, question: str, tables: list[str], **parts) -> str:
    return compose(QueryParts(**parts), bi.semantic, tables, [], bi.engine.dialect, question, bi.values)


def mean_bill(bi, ward: str) -> float:
    sql = f"SELECT AVG(bill_amt) FROM stays JOIN wards USING (ward_cd) WHERE ward_nm = '{ward}'"
    return bi.engine.execute(sql).rows[0][0]


@pytest.mark.parametrize("question", ["whats the avg cardiac bill", "average bill for a stay on the cardiac ward"])
def test_an_average_of_a_lookup_flag_is_the_referring_tables_named_measure(bi, question):
    sql = composed(bi, question, ["wards"], select=["AVG(wards.acute_flg)"], where=["wards.ward_nm = 'Cardiac'"])
    assert "AVG(stays.bill_amt)" in sql and "JOIN" in sql
    assert bi.engine.execute(sql).rows[0][0] == pytest.approx(mean_bill(bi, "Cardiac"))


def test_a_total_of_a_lookup_code_is_the_referring_tables_named_measure(bi):
    sql = composed(
        bi, "total nurse hours on the surgical ward", ["wards"], select=["SUM(wards.ward_cd)"],
        where=["wards.ward_nm = 'Surgical'"],
    )  # fmt: skip
    want = "SELECT SUM(nurse_hrs) FROM stays JOIN wards USING (ward_cd) WHERE ward_nm = 'Surgical'"
    assert bi.engine.execute(sql).rows == bi.engine.execute(want).rows


def test_a_filter_on_the_lookups_column_stays_a_filter(bi):
    sql = composed(
        bi, "mean bill on the cardiac ward", ["wards"], select=["AVG(wards.ward_nm)"],
        where=["wards.ward_nm = 'Cardiac'"],
    )  # fmt: skip
    assert "AVG(stays.bill_amt)" in sql and "wards.ward_nm" in sql.split("WHERE")[1]
    assert bi.engine.execute(sql).rows[0][0] == pytest.approx(mean_bill(bi, "Cardiac"))


@pytest.mark.parametrize(
    ("question", "select", "where"),
    [
        # the lookup's own measure: its beds are what is averaged
        ("average beds of the acute wards", ["AVG(wards.bed_cnt)"], ["wards.acute_flg = 'Y'"]),
        # no measure of the referring table named
        ("whats the avg for cardiac", ["AVG(wards.acute_flg)"], ["wards.ward_nm = 'Cardiac'"]),
        # two measures named ('hours' names nurse_hrs and wait_hrs): which one is a guess
        ("average hours on the cardiac ward", ["AVG(wards.acute_flg)"], ["wards.ward_nm = 'Cardiac'"]),
        # no filter on the lookup: not 'the lookup's rows for one value'
        ("average bill", ["AVG(wards.acute_flg)"], []),
    ],
)
def test_counter_examples_stay_as_written(bi, question, select, where):
    sql = composed(bi, question, ["wards"], select=select, where=where)
    assert "stays" not in sql


def test_two_joins_into_the_lookup_are_two_roles_and_nothing_is_guessed(sqlite_bi):
    bi = sqlite_bi(ROUTES, {"stations": STATIONS, "journeys": JOURNEYS})
    assert len(bi.semantic.joins) == 2, bi.semantic.joins
    sql = composed(
        bi, "avg ticket for york", ["stations"], select=["AVG(stations.staffed)"], where=["stations.town = 'York'"]
    )
    assert "journeys" not in sql
