"""Round 29 (bench/bi_r29.md, rule H): a condition on an aggregate the model wrote in WHERE (SQLite's "misuse of
aggregate") is moved to HAVING without a model call; an aggregate inside a subquery of WHERE stays. On a database
of its own: counties with their share out of work."""

from __future__ import annotations

import pytest

from orrery.bi import tools
from orrery.bi.tools import aggregates_to_having, build_sql

COUNTIES = "CREATE TABLE county (name TEXT, state TEXT, jobless REAL);"
ROWS = {"county": [(f"c{i}", ["TX", "OK", "KS"][i % 3], 4.0 + i % 9) for i in range(30)]}
IN_WHERE = "SELECT state, COUNT(*) FROM county WHERE jobless > 10 AND COUNT(*) > 2 GROUP BY state"


@pytest.fixture
def counties(sqlite_bi):
    return sqlite_bi(COUNTIES, ROWS)


def test_an_aggregate_condition_in_where_moves_to_having_and_runs(counties):
    error = tools.dry_run(counties.engine, IN_WHERE)
    assert error is not None and "misuse of aggregate" in error
    moved = aggregates_to_having(IN_WHERE, error, "sqlite")
    assert moved == "SELECT state, COUNT(*) FROM county WHERE jobless > 10 GROUP BY state HAVING COUNT(*) > 2"
    assert tools.dry_run(counties.engine, moved) is None


def test_an_aggregate_in_a_subquery_or_another_error_is_left(counties):
    below = "SELECT name FROM county WHERE jobless > (SELECT AVG(jobless) FROM county)"
    assert aggregates_to_having(below, "misuse of aggregate: AVG()", "sqlite") is None
    assert aggregates_to_having(IN_WHERE, "no such column: jobles", "sqlite") is None


def test_the_query_builder_moves_it_without_a_model_call(counties, monkeypatch):
    replies = iter([IN_WHERE])
    monkeypatch.setattr(tools, "write_sql", lambda *_: next(replies))  # a second call would raise StopIteration
    built = build_sql(counties, "fallback", "", ["county"], [], "counties over 10 pct jobless, per state", str)
    assert "HAVING COUNT(*) > 2" in built["sql"] and "WHERE jobless > 10" in built["sql"]
