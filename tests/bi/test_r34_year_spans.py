"""Round 34 (bench/bi_r34.md, rule D): a decade or a bound year the question names ('the 1940s', "the '80s",
'pre-1950', 'since 2000') that the model's query leaves out filters the year column of the query's tables: a number
column named as a year or whose values are years (`fy`), two-digit years kept as two digits, else a date's year."""

from __future__ import annotations

import pytest
from bi_compose_helpers import compose_sql, rows, sqlite_engine

SCHEMA = (
    "CREATE TABLE invest (firm TEXT, fy INTEGER, amount REAL);"
    "CREATE TABLE autos (name TEXT, yr INTEGER, hp INTEGER);"
    "CREATE TABLE shops (name TEXT, customers INTEGER);"
)
DATA = {
    "invest": [(f, 1935 + i, 10.0 * (i + 1)) for i in range(20) for f in ("steel", "oil")],
    "autos": [(f"car {i}", 70 + i % 13, 80 + i) for i in range(26)],
    "shops": [(f"shop {i}", 1000 + 200 * i) for i in range(10)],
}


@pytest.fixture
def engine(tmp_path):
    e = sqlite_engine(tmp_path / "years.sqlite", SCHEMA, DATA)
    yield e
    e.close()


def test_a_decade_the_query_leaves_out_is_the_range_of_its_year_column(engine):
    sql = compose_sql(engine, ["invest"], "steel firms' average investment in the 1940s", select=["AVG(invest.amount)"])
    assert "fy >= 1940" in sql and "fy <= 1949" in sql
    assert rows(engine, sql) == [(sum(10.0 * (y - 1935 + 1) for y in range(1940, 1950)) / 10,)]


def test_a_bound_year_and_a_two_digit_decade(engine):
    sql = compose_sql(engine, ["invest"], "quickest growth pre-1950, total", select=["SUM(invest.amount)"])
    assert "fy < 1950" in sql
    sql = compose_sql(engine, ["autos"], "mean hp of the cars from the '70s", select=["AVG(autos.hp)"])
    assert "yr >= 70" in sql and "yr <= 79" in sql  # the column holds 70 to 82


def test_a_year_the_query_already_filters_or_a_number_that_is_a_quantity_is_left(engine):
    written = compose_sql(
        engine, ["invest"], "average investment since 1950", select=["AVG(invest.amount)"], where=["invest.fy >= 1950"]
    )
    assert written.count("1950") == 1
    quantity = compose_sql(engine, ["shops"], "shops with over 1950 customers", select=["COUNT(*)"])
    assert "WHERE" not in quantity  # no year column, and 'over 1950' is no bound year
    ages = compose_sql(engine, ["autos"], "cars driven by people in their 80s", select=["COUNT(*)"])
    assert "WHERE" not in ages  # '80s' is a decade only after 'the' or an apostrophe


def test_the_year_of_a_number_column_of_years_is_the_column(engine):
    sql = compose_sql(
        engine, ["invest"], "investment in 1940", select=["SUM(invest.amount)"], where=["YEAR(invest.fy) = 1940"]
    )
    assert "invest.fy = 1940" in sql and "STRFTIME" not in sql.upper()
    assert rows(engine, sql) == [(20.0 * 6,)]


def test_the_year_of_a_date_column_is_left(tmp_path):
    e = sqlite_engine(
        tmp_path / "d.sqlite", "CREATE TABLE sales (sold DATE, amount REAL);", {"sales": [("1999-05-01", 2.0)]}
    )
    sql = compose_sql(e, ["sales"], "sales in 1999", select=["SUM(sales.amount)"], where=["YEAR(sales.sold) = 1999"])
    assert "STRFTIME" in sql.upper() and rows(e, sql) == [(2.0,)]
    e.close()
