"""Round 35 (bench/bi.md, round 35): a decade the question names ('the 1940s', 'the 80s'), written by the SQL step as its
first year (`fy = 1940`, `Year = 80`), is the decade's range; a number that is no decade is left as written."""

from __future__ import annotations

import pytest
from bi_compose_helpers import compose_sql, rows, sqlite_engine

SCHEMA = (
    "CREATE TABLE invest (firm TEXT, fy INTEGER, investment REAL);"
    "CREATE TABLE films (title TEXT, year INTEGER, runtime INTEGER);"
    "CREATE TABLE autos (name TEXT, yr INTEGER, hp INTEGER);"
)
DATA = {
    "invest": [(f, 1935 + i, size * (i + 1)) for i in range(20) for f, size in (("steel", 10.0), ("oil", 5.0))],
    "films": [(f"film {i}", 1970 + i, 90 + i) for i in range(40)],
    "autos": [(f"car {i}", 70 + i % 13, 80 + i) for i in range(26)],
}


@pytest.fixture
def engine(tmp_path):
    e = sqlite_engine(tmp_path / "decades.sqlite", SCHEMA, DATA)
    yield e
    e.close()


def test_a_decade_written_as_its_first_year_is_its_range(engine):
    q = "steel firms' average investment in the 1940s"
    sql = compose_sql(
        engine, ["invest"], q, select=["AVG(invest.investment)"], where=["invest.fy = 1940", "invest.firm = 'steel'"]
    )
    assert "invest.fy BETWEEN 1940 AND 1949" in sql
    assert rows(engine, sql) == [(sum(10.0 * (i + 1) for i in range(5, 15)) / 10,)]


def test_a_decade_of_two_digits_is_in_the_columns_century_or_its_own_digits(engine):
    sql = compose_sql(
        engine,
        ["films"],
        "mean runtime of films from the 80s",
        select=["AVG(films.runtime)"],
        where=["films.year = 80"],
    )
    assert "films.year BETWEEN 1980 AND 1989" in sql and rows(engine, sql) == [(104.5,)]
    sql = compose_sql(engine, ["autos"], "how many cars from the '70s", select=["COUNT(*)"], where=["autos.yr = 1970"])
    assert "autos.yr BETWEEN 70 AND 79" in sql  # a two-digit year column keeps its two digits


def test_the_year_column_filtered_stays_when_the_measure_is_put_right(engine):
    q = "steel firms' average investment in the 1940s"
    sql = compose_sql(
        engine, ["invest"], q, select=["AVG(invest.fy)"], where=["invest.fy = 1940", "invest.firm = 'steel'"]
    )
    assert "AVG(invest.investment)" in sql and "invest.fy BETWEEN 1940 AND 1949" in sql


def test_a_number_that_is_no_decade_is_left(engine):
    for q, where in (
        ("investment in 1940", "invest.fy = 1940"),  # a year, not a decade
        ("firms with investment of 1940s worth", "invest.investment = 1940"),  # not a column of years
        ("investment in the 1945s", "invest.fy = 1945"),  # no decade begins there
    ):
        sql = compose_sql(engine, ["invest"], q, select=["invest.firm"], where=[where])
        assert "BETWEEN" not in sql, q
