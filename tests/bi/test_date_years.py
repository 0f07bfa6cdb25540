"""A two-digit year the question writes, compared with a date's year ('by air in 97' written `YEAR(shipped) = 97`),
is the four-digit year of the column's span in the drafted layer (bench/bi.md, "Held-out #18"); on SQLite a date's year
is written as strftime, which it runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from bi_compose_helpers import compose_sql, rows, sqlite_engine


@pytest.fixture
def ships(tmp_path: Path):
    engine = sqlite_engine(
        tmp_path / "ships.sqlite",
        "CREATE TABLE ships (ship_no INTEGER, mode TEXT, shipped DATE);",
        {"ships": [(i, "AIR" if i % 2 else "RAIL", f"{1992 + i % 7}-0{1 + i % 9}-15") for i in range(70)]},
    )
    yield engine
    engine.close()


def test_a_two_digit_year_of_a_date_is_the_year_of_the_columns_span(ships):
    sql = compose_sql(
        ships, ["ships"], "shipments by air in 97, how many", select=["COUNT(*)"], where=["YEAR(ships.shipped) = 97"]
    )
    gold = "SELECT COUNT(*) FROM ships WHERE shipped LIKE '1997-%'"
    assert rows(ships, sql) == rows(ships, gold) != [(0,)], sql  # SQLite runs it: a date's year as strftime


def test_a_two_digit_number_outside_the_span_or_not_written_as_a_year_is_left(ships):
    for question in ("shipments in 47, how many", "47 shipments, which year"):  # 1947 / 2047: neither in 1992-1998
        sql = compose_sql(ships, ["ships"], question, select=["COUNT(*)"], where=["YEAR(ships.shipped) = 47"])
        assert "47" in sql and "1947" not in sql and "2047" not in sql, sql


def test_a_dates_year_the_rules_write_runs_on_sqlite(ships):
    # `shipped = '1997'` is the year 1997 (`_year_filters`): SQLite has no EXTRACT nor YEAR()
    sql = compose_sql(ships, ["ships"], "shipments in 1997", select=["COUNT(*)"], where=["ships.shipped = '1997'"])
    assert rows(ships, sql) == rows(ships, "SELECT COUNT(*) FROM ships WHERE shipped LIKE '1997-%'"), sql


@pytest.mark.parametrize("question", ["shipments by air in calendar 97, how many", "air shipments, fy 97"])
def test_a_two_digit_year_reads_as_the_whole_year_filter_reads_it(ships, question):
    # round 45: one reading of a two-digit year (compose._SHORT_YEAR) for a date's year and for the whole year
    sql = compose_sql(ships, ["ships"], question, select=["COUNT(*)"], where=["YEAR(ships.shipped) = 97"])
    assert rows(ships, sql) == rows(ships, "SELECT COUNT(*) FROM ships WHERE shipped LIKE '1997-%'"), sql
