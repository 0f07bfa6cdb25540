"""Round 34 (bench/bi.md, round 34, rule Y): the year of a number column whose values are years (`fy` from 1935 to 1954,
`yr`) is the column itself; DuckDB has no YEAR of a number and SQLite's STRFTIME reads one as a count of days."""

from __future__ import annotations

import pytest
from bi_compose_helpers import compose_sql, rows, sqlite_engine

SCHEMA = (
    "CREATE TABLE invest (firm TEXT, fy INTEGER, amount REAL);CREATE TABLE autos (name TEXT, yr INTEGER, hp INTEGER);"
)
DATA = {
    "invest": [(f, 1935 + i, 10.0 * (i + 1)) for i in range(20) for f in ("steel", "oil")],
    "autos": [(f"car {i}", 70 + i % 13, 80 + i) for i in range(26)],
}


@pytest.fixture
def engine(tmp_path):
    e = sqlite_engine(tmp_path / "years.sqlite", SCHEMA, DATA)
    yield e
    e.close()


def test_the_year_of_a_number_column_of_years_is_the_column(engine):
    sql = compose_sql(
        engine, ["invest"], "investment in 1940", select=["SUM(invest.amount)"], where=["YEAR(invest.fy) = 1940"]
    )
    assert "invest.fy = 1940" in sql and "STRFTIME" not in sql.upper()
    assert rows(engine, sql) == [(20.0 * 6,)]
    sql = compose_sql(
        engine, ["autos"], "cars of 1976", select=["COUNT(*)"], where=["EXTRACT(YEAR FROM autos.yr) = 76"]
    )
    assert "autos.yr = 76" in sql and rows(engine, sql) == [(2,)]  # a column named as a year, of two digits


def test_the_year_of_a_date_column_is_left(tmp_path):
    e = sqlite_engine(
        tmp_path / "d.sqlite", "CREATE TABLE sales (sold DATE, amount REAL);", {"sales": [("1999-05-01", 2.0)]}
    )
    sql = compose_sql(e, ["sales"], "sales in 1999", select=["SUM(sales.amount)"], where=["YEAR(sales.sold) = 1999"])
    assert "STRFTIME" in sql.upper() and rows(e, sql) == [(2.0,)]
    e.close()
