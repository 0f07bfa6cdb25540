"""Round 29 (bench/bi.md "Round 29", rule Y): a query that finds nothing and compares a column with a year the question
names declines when that column's years do not reach it, judged on the column the query reads (its values, not its
name: a fiscal year 'fy'), not on every date column (another table's dates may reach the year). On databases of
their own: firms' yearly investment, and invoices beside staff hired in other years."""

from __future__ import annotations

import pytest

from orrery.bi import decline, tools
from orrery.bi.tools import NOTHING, CannotAnswer, build_sql, decline_unheld_year

FIRMS = (
    "CREATE TABLE firms (code TEXT, name TEXT);"
    "CREATE TABLE invest (firm TEXT, fy INTEGER, amount REAL, units INTEGER);"
    "CREATE TABLE staff (staff_id INTEGER, hired TEXT);"
    "CREATE TABLE sales (sale_id INTEGER, sold_on TEXT, total REAL);"
)
ROWS = {
    "firms": [("GM", "General Motors"), ("US", "US Steel")],
    "invest": [
        (f, y, 10.0 + y % 7, 1500 + y) for f in ("GM", "US") for y in range(1935, 1955) if (f, y) != ("US", 1950)
    ],
    "staff": [(i, f"{2001 + i}-03-01") for i in range(4)],  # hired 2001 to 2004
    "sales": [(i, f"{2021 + i % 4}-0{1 + i % 9}-15", 5.0 * i) for i in range(40)],  # 2021 to 2024
}


@pytest.fixture
def firms(sqlite_bi):
    return sqlite_bi(FIRMS, ROWS)


def _declines(bi, sql: str, question: str) -> str | None:
    try:
        decline_unheld_year(bi, sql, question, tools.dry_run(bi.engine, sql, probe=bi.probe))
    except CannotAnswer as exc:
        return str(exc)
    return None


def test_a_year_the_queried_column_does_not_reach_declines_and_says_its_range(firms):
    why = _declines(
        firms,
        "SELECT i.amount FROM invest i JOIN firms f ON i.firm = f.code WHERE f.name = 'US Steel' AND i.fy = 1960",
        "us steel investment, 1960",
    )
    assert why is not None and "invest.fy runs from 1935 to 1954" in why and "1960" in why
    after = "SELECT SUM(amount) FROM invest WHERE fy > 1970"
    assert "invest.fy" in (_declines(firms, after, "investment after 1970") or "")


def test_the_column_the_query_reads_decides_not_another_tables_dates(firms):
    # staff were hired in 2003 (decline.years_outside finds a date column that reaches it); sales have none
    for sql in (
        "SELECT SUM(total) FROM sales WHERE strftime('%Y', sold_on) = '2003'",
        "SELECT SUM(total) FROM sales WHERE CAST(strftime('%Y', sold_on) AS INTEGER) = 2003",
    ):
        assert tools.dry_run(firms.engine, sql, probe=firms.probe) == NOTHING
        assert "sales.sold_on runs from 2021 to 2024" in (_declines(firms, sql, "what were sales like in 2003") or "")
    assert decline.years_outside(firms, "what were sales like in 2003") is None


def test_a_year_inside_the_range_or_rows_found_or_no_year_named_stay(firms):
    for sql, question in (
        # US Steel has no row for 1950, but 1950 is inside the data: a wrong filter, not a missing year
        ("SELECT amount FROM invest WHERE firm = 'US' AND fy = 1950", "us steel investment in 1950"),
        ("SELECT amount FROM invest WHERE fy = 1940", "investment in 1940"),  # rows found
        ("SELECT firm FROM invest WHERE units > 3600", "firms with over 3600 units"),  # a quantity, not a year
        ("SELECT firm FROM invest WHERE units = 1960", "which firm put in 1960 units"),  # a quantity before its noun
        ("SELECT firm FROM invest WHERE amount = 1960", "investment of 1960"),  # amount's values are no years
    ):
        assert _declines(firms, sql, question) is None, question


def test_the_query_builder_declines_rather_than_answering_an_empty_set(firms, monkeypatch):
    sql = "SELECT amount FROM invest WHERE fy = 1960"
    monkeypatch.setattr(tools, "write_sql", lambda *_: sql)
    with pytest.raises(CannotAnswer, match="invest.fy runs from 1935 to 1954"):
        build_sql(firms, "fallback", "", ["invest"], [], "investment in 1960", lambda options: options[0])
