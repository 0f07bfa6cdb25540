"""Round 44 (bench/bi.md, round 44, rule R): 'Which agent's clients spent the most?' asks for the row `clients.agent_id`
points to: the clients grouped and ranked are shown as their agent (the agents' name, grouped by the key, joined),
not as the clients themselves. A question that asks for the clients first keeps them; a referenced table with no
column that names its rows (only codes) changes nothing."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose

SCRIPT = (
    "CREATE TABLE agents (agent_id INTEGER, agent_name TEXT, region TEXT);"
    "CREATE TABLE clients (client_id INTEGER, client_name TEXT, agent_id INTEGER, spend REAL);"
)
ROWS = {
    "agents": [(1, "Ann Lee", "North"), (2, "Bo Diaz", "South"), (3, "Cy Park", "West")],
    # Bo's clients spend the most together; the one biggest client is Ann's
    "clients": [
        (i, f"client {i}", 1 if i == 0 else 2 + i % 2, 100.0 if i == 0 else [30.0, 5.0][i % 2]) for i in range(12)
    ],
}


@pytest.fixture
def store(sqlite_bi):
    bi = sqlite_bi(SCRIPT, ROWS)
    assert "clients.agent_id = agents.agent_id" in bi.semantic.joins  # inferred from the data: no declared keys
    return bi


def ranked(bi, question: str, group_by: list[str]) -> str:
    parts = QueryParts(select=["clients.client_name"], group_by=group_by, order_by=["SUM(clients.spend) DESC"], limit=1)
    return compose(parts, bi.semantic, ["clients"], [], bi.engine.dialect, question, bi.values)


@pytest.mark.parametrize("group_by", [["clients.client_name"], ["clients.agent_id", "clients.client_name"]])
def test_the_referring_rows_grouped_are_shown_as_the_row_their_key_points_to(store, group_by):
    sql = ranked(store, "Which agent's clients spent the most with us?", group_by)
    assert "GROUP BY clients.agent_id, agents.agent_name" in sql
    assert store.engine.execute(sql).rows == [("Bo Diaz",)]


def test_a_question_that_asks_for_the_referring_rows_keeps_them(store):
    sql = ranked(store, "Which client of our agents spent the most?", ["clients.client_name"])
    assert "agents" not in sql
    assert store.engine.execute(sql).rows == [("client 0",)]


def test_a_referenced_table_with_only_codes_names_nothing(sqlite_bi):
    script = SCRIPT.replace("agent_name TEXT", "agent_code TEXT")
    bi = sqlite_bi(script, ROWS)
    assert "clients.agent_id = agents.agent_id" in bi.semantic.joins
    assert "agents" not in ranked(bi, "Which agent's clients spent the most with us?", ["clients.client_name"])
