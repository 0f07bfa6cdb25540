"""Round 38 (bench/bi.md, round 38, rule K): 'Which state has the highest sales?' written `GROUP BY states.state ORDER BY
orders.state` ranks by the group's own key through the join `orders.state = states.state`; like an ordering on the
key itself, it is ranked by what the superlative names (`SUM(orders.sales)`), one row. An ordering on another
column of the group's table is not the key."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose

SCRIPT = "CREATE TABLE states (state TEXT, region TEXT);CREATE TABLE orders (order_id INTEGER, state TEXT, sales REAL);"
ROWS = {
    "states": [("Texas", "Central"), ("Ohio", "East"), ("Utah", "West")],
    "orders": [(i, ["Texas", "Ohio", "Utah"][i % 3], [5.0, 50.0, 1.0][i % 3]) for i in range(30)],
}


@pytest.fixture
def store(sqlite_bi):
    bi = sqlite_bi(SCRIPT, ROWS)
    assert "orders.state = states.state" in bi.semantic.joins  # inferred from the data: no declared keys
    return bi


def ranked(bi, order_by: str) -> str:
    parts = QueryParts(select=["states.state"], group_by=["states.state"], order_by=[order_by], limit=1)
    question = "Which state has the highest sales?"
    return compose(parts, bi.semantic, ["orders", "states"], [], bi.engine.dialect, question, bi.values)


def test_an_ordering_on_the_group_keys_join_partner_ranks_by_the_measure(store):
    sql = ranked(store, "orders.state")
    assert "ORDER BY SUM(orders.sales) DESC" in sql
    assert store.engine.execute(sql).rows == [("Ohio",)]


def test_an_ordering_on_another_column_is_not_the_key(store):
    assert "SUM(" not in ranked(store, "states.region")
