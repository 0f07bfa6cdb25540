"""Round 52 (bench/bi.md, round 52), rule B: 'worst', 'best', 'fastest', 'quickest', 'slowest' rank by what is measured.
A time ranks low for 'fastest' / 'best' (the fastest 100m time is the lowest), a rate or count of a harm high for
'worst' (the worst jobless rate is the highest): the ranking's ORDER BY and a MIN / MAX selected are set so. Any
other measure keeps the direction the model wrote ('the worst survival rate'; 'the fastest car' by its speed), and
under `HAVING agg = (SELECT MAX ...)` 'worst' / 'best' take the subquery's MAX / MIN, no longer 'worst' as low."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose


@pytest.fixture
def data(sqlite_bi):
    """Counties' unemployment rates, 100m winning times, cars' top speeds and wards' survival rates; no keys."""
    return sqlite_bi(
        "CREATE TABLE counties (fips INTEGER, state TEXT, name TEXT);"
        "CREATE TABLE unemployment (fips INTEGER, year INTEGER, rate REAL);"
        "CREATE TABLE races (yr INTEGER, athlete TEXT, time_s REAL);"
        "CREATE TABLE cars (name TEXT, top_mph INTEGER);"
        "CREATE TABLE wards (ward TEXT, state TEXT, surv_rate REAL);"
        "CREATE TABLE crimes (year INTEGER, cases INTEGER);",
        {
            "counties": [(i, "AA" if i < 6 else "BB", f"County {i}") for i in range(12)],
            # state AA's counties average 3.5, BB's 9.5; the highest county rate is County 11's
            "unemployment": [(i, 2009, 1.0 + i) for i in range(12)],
            "races": [(1900 + 4 * i, f"Runner {i}", 11.0 - 0.1 * i) for i in range(12)],
            "cars": [(f"Car {i}", 100 + 10 * i) for i in range(12)],
            "wards": [(f"W{i}", "AA" if i < 6 else "BB", 50.0 + i) for i in range(12)],
            "crimes": [(2000 + i, 100 + (i * 7) % 12) for i in range(12)],
        },
    )


def sql_of(bi, question: str, tables: list[str], **parts) -> str:
    return compose(QueryParts(**parts), bi.semantic, tables, [], bi.engine.dialect, question, bi.values)


def test_the_worst_rate_of_a_harm_is_the_highest(data):
    sql = sql_of(data, "worst county jobless rate in 2009?", ["unemployment"], select=["MIN(unemployment.rate)"])
    assert "MAX(unemployment.rate)" in sql and data.engine.execute(sql).rows == [(12.0,)]


def test_the_worst_average_of_a_harm_ranks_high(data):
    parts = {
        "select": ["counties.state"],
        "group_by": ["counties.state"],
        "order_by": ["AVG(unemployment.rate) ASC"],
        "limit": 1,
    }
    sql = sql_of(data, "which state had the worst avg unemployment", ["unemployment", "counties"], **parts)
    assert "AVG(unemployment.rate) DESC" in sql and data.engine.execute(sql).rows == [("BB",)]


@pytest.mark.parametrize(
    ("question", "parts", "expected"),
    [
        ("the fastest winning 100m time - who ran it", {"order_by": ["races.time_s DESC"], "limit": 1}, "Runner 11"),
        ("the slowest winning 100m time - who ran it", {"order_by": ["races.time_s ASC"], "limit": 1}, "Runner 0"),
    ],
)
def test_a_time_ranks_low_when_fast(data, question, parts, expected):
    sql = sql_of(data, question, ["races"], select=["races.athlete"], **parts)
    assert data.engine.execute(sql).rows == [(expected,)]


def test_the_best_time_is_the_lowest(data):
    sql = sql_of(data, "best 100m time before 1950, in seconds", ["races"], select=["MAX(races.time_s)"])
    assert "MIN(races.time_s)" in sql


@pytest.mark.parametrize("written", ["ASC", "DESC"])
def test_a_measure_of_no_harm_keeps_the_models_direction(data, written):
    parts = {"select": ["wards.ward"], "order_by": [f"wards.surv_rate {written}"], "limit": 1}
    assert f"wards.surv_rate {written}" in sql_of(data, "the ward with the worst survival rate", ["wards"], **parts)


def test_fastest_by_a_speed_is_no_time(data):
    parts = {"select": ["cars.name"], "order_by": ["cars.top_mph DESC"], "limit": 1}
    assert "cars.top_mph DESC" in sql_of(data, "the fastest car", ["cars"], **parts)


def test_worst_under_having_takes_the_subquerys_extreme(data):
    having = "AVG(wards.surv_rate) = (SELECT MAX(avg_rate) FROM (SELECT AVG(surv_rate) AS avg_rate FROM wards))"
    parts = {"select": ["wards.state"], "group_by": ["wards.state"], "having": [having]}
    sql = sql_of(data, "which state has the worst average survival rate", ["wards"], **parts)
    assert "ORDER BY AVG(wards.surv_rate) DESC" in sql and data.engine.execute(sql).rows == [("BB",)]


def test_the_best_time_ordered_is_one_row(data):
    # rule C: 'best' / 'worst' / 'quickest' ask one row, as 'the fastest' does
    sql = sql_of(
        data, "best 100m time before 1950, in seconds", ["races"], select=["races.time_s"], order_by=["races.time_s"]
    )
    assert sql.endswith("LIMIT 1") and data.engine.execute(sql).rows == [(9.9,)]


@pytest.mark.parametrize("question", ["the best-placed runners, by time", "the 3 best times"])
def test_a_compound_or_a_number_of_rows_keeps_the_list(data, question):
    sql = sql_of(data, question, ["races"], select=["races.time_s"], order_by=["races.time_s"])
    assert len(data.engine.execute(sql).rows) == 12


def test_a_year_is_no_measure_of_a_harm(data):
    # the model's ordering by the year of a harm's table is no ranking by the harm: left as written
    parts = {"select": ["crimes.year"], "order_by": ["crimes.year ASC"], "limit": 1}
    assert "crimes.year ASC" in sql_of(data, "the worst year for crime", ["crimes"], **parts)
