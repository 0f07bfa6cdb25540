"""A span of years the question writes ('1935-1944', '1990 thru 1999', 'from 1995 to 1998'), written by the SQL step
as one of its ends (`fy = 1935`), is the whole span (compose._year_span); two years listed, or both ends kept,
stay as written."""

from __future__ import annotations

import pytest
from bi_compose_helpers import compose_sql, rows, sqlite_engine

SCHEMA = "CREATE TABLE invest (firm TEXT, fy INTEGER, investment REAL, outlay REAL);"
DATA = {
    "invest": [(f, 1935 + i, size * (i + 1), 7.0) for i in range(20) for f, size in (("steel", 10.0), ("oil", 5.0))]
}


@pytest.fixture
def engine(tmp_path):
    e = sqlite_engine(tmp_path / "spans.sqlite", SCHEMA, DATA)
    yield e
    e.close()


@pytest.mark.parametrize(
    ("question", "where"),
    [
        ("steel mean yearly investment 1935-1944", "invest.fy = 1935"),
        ("steel mean yearly investment 1935 thru 1944", "invest.fy = 1944"),  # the span's last year alone
        ("steel mean investment from 1935 to 1944", "invest.fy = 1935"),
        ("steel mean investment between 1935 and 1944", "invest.fy = 1935"),
    ],
)
def test_one_end_of_a_span_the_question_writes_is_the_whole_span(engine, question, where):
    sql = compose_sql(
        engine, ["invest"], question, select=["AVG(invest.investment)"], where=[where, "invest.firm = 'steel'"]
    )
    assert "invest.fy BETWEEN 1935 AND 1944" in sql
    assert rows(engine, sql) == [(sum(10.0 * (i + 1) for i in range(10)) / 10,)]


@pytest.mark.parametrize(
    ("question", "where"),
    [
        ("steel investment in 1935 and 1944", "invest.fy = 1935"),  # 'and' without 'between' lists two years
        ("steel investment 1935 then 1944", "invest.fy = 1935"),
        ("steel investment in 1940, up from 1935-1936?", "invest.fy = 1940"),  # not an end of the span
        ("steel investment of 1935-1944 worth", "invest.investment = 1935"),  # not a column of years
        ("steel investment 1944-1935", "invest.fy = 1935"),  # no span runs backwards
    ],
)
def test_a_year_that_is_no_end_of_a_written_span_is_left(engine, question, where):
    sql = compose_sql(engine, ["invest"], question, select=["invest.firm"], where=[where])
    assert "BETWEEN" not in sql, question


RATED = "CREATE TABLE resp (id INTEGER, rtg TEXT);"


@pytest.fixture
def rated(tmp_path):
    data = {"resp": [(i, lbl) for i, lbl in enumerate(["very poor", "poor", "poor", "good", "very good"] * 2)]}
    e = sqlite_engine(tmp_path / "rated.sqlite", RATED, data)
    yield e
    e.close()


def test_a_value_whose_words_are_the_longer_ones_said_is_dropped(rated):
    where = ["resp.rtg = 'very poor'", "resp.rtg = 'poor'"]
    sql = compose_sql(rated, ["resp"], "people who call it very poor, how many", select=["COUNT(*)"], where=where)
    assert "'very poor'" in sql and "rtg = 'poor'" not in sql
    assert rows(rated, sql) == [(2,)]


def test_two_values_not_inside_each_other_or_not_said_stay(rated):
    where = ["resp.rtg = 'good'", "resp.rtg = 'poor'"]
    sql = compose_sql(rated, ["resp"], "people who call it good, how many", select=["COUNT(*)"], where=where)
    assert "'good'" in sql and "'poor'" in sql  # not one inside the other: left to the other rules
    where = ["resp.rtg = 'very poor'", "resp.rtg = 'poor'"]
    sql = compose_sql(rated, ["resp"], "people who rate it badly, how many", select=["COUNT(*)"], where=where)
    assert "'very poor'" in sql and "'poor'" in sql  # the question writes neither
