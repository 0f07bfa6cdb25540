"""Round 38 (bench/bi.md, round 38, rule U): an amount the question asks by 'units' or 'headcount', written by the model
as a count of rows, is the sum of the one number column the noun names ('units sold per shipping mode':
`SUM(orders.quantity)`; 'india and china headcount': `SUM(indicators.population)`); a count the question asks
('how many orders', 'the total number of orders', 'supplier headcount': the suppliers) stays a count."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose

SHOP = (
    "CREATE TABLE orders (order_id INTEGER, ship_mode TEXT, quantity INTEGER, sales REAL);"
    "CREATE TABLE suppliers (supplier_id INTEGER, country TEXT);"
)
SHOP_ROWS = {
    "orders": [(i, ["Air", "Rail"][i % 2], 1 + i % 5, 10.0 * i) for i in range(20)],
    "suppliers": [(i, ["France", "Peru"][i % 2]) for i in range(6)],
}
WORLD = (
    "CREATE TABLE countries (name TEXT, region TEXT);"
    "CREATE TABLE indicators (country TEXT, year INTEGER, population REAL, fertility REAL);"
)
WORLD_ROWS = {
    "countries": [("India", "South Asia"), ("Nepal", "South Asia"), ("Chile", "America")],
    "indicators": [
        (c, y, 1000.0 * (i + 1) + y, 2.5) for i, c in enumerate(["India", "Nepal", "Chile"]) for y in (1980, 2010)
    ],
}


@pytest.fixture
def shop(sqlite_bi):
    return sqlite_bi(SHOP, SHOP_ROWS)


def sql(bi, question: str, tables: list[str], resolved: tuple[dict, ...] = (), **parts) -> str:
    return compose(QueryParts(**parts), bi.semantic, tables, list(resolved), bi.engine.dialect, question, bi.values)


def test_units_counted_as_rows_are_the_quantitys_sum(shop):
    written = sql(
        shop,
        "units sold per shipping mode",
        ["orders"],
        select=["orders.ship_mode", "COUNT(*)"],
        group_by=["orders.ship_mode"],
    )
    assert "SUM(orders.quantity)" in written and "COUNT(*)" not in written
    assert sorted(shop.engine.execute(written).rows) == [("Air", 30), ("Rail", 30)]  # a count: 10 each


def test_a_places_headcount_counted_as_rows_is_its_populations_sum(sqlite_bi):
    world = sqlite_bi(WORLD, WORLD_ROWS)
    written = sql(
        world,
        "headcount of all South Asian nations together, 2010",
        ["countries", "indicators"],
        ({"mention": "South Asian", "table": "countries", "column": "region", "value": "South Asia"},),
        select=["COUNT(*)"],
        where=["countries.region = 'South Asia'", "indicators.year = 2010"],
    )
    assert world.engine.execute(written).rows == [(1000 + 2010 + 2000 + 2010,)]


@pytest.mark.parametrize(
    "question",
    ["how many orders were shipped per shipping mode", "the total number of orders by shipping mode"],
)
def test_a_count_the_question_asks_stays_a_count(shop, question):
    written = sql(shop, question, ["orders"], select=["orders.ship_mode", "COUNT(*)"], group_by=["orders.ship_mode"])
    assert "COUNT(*)" in written and "SUM" not in written


def test_the_headcount_of_a_table_counts_its_rows(sqlite_bi):
    # the population of each supplier's country, beside it: the noun names it, the word before names the table
    script = SHOP.replace("country TEXT", "country TEXT, population REAL")
    bi = sqlite_bi(script, {**SHOP_ROWS, "suppliers": [(i, ["France", "Peru"][i % 2], 6e7) for i in range(6)]})
    written = sql(
        bi,
        "supplier headcount broken down by country",
        ["suppliers"],
        select=["suppliers.country", "COUNT(*)"],
        group_by=["suppliers.country"],
    )
    assert "COUNT(*)" in written and "SUM" not in written
