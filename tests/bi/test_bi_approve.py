"""BI's SQL execution behind a person's approval (`approve=("sql_executor",)`), and the planner's declined
ending as BI's cannot_answer."""

from __future__ import annotations

import sqlite3

import pytest

from orrery.bi.agent import BIAgent
from orrery.errors import ConfigError
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def shop(tmp_path, monkeypatch):
    from orrery.bi.data import open_engine

    monkeypatch.setenv("ORRERY_BI_HOME", str(tmp_path))
    monkeypatch.setenv("ORRERY_DATA_DIR", str(tmp_path))
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE sales (region TEXT, amount INTEGER)")
        con.executemany("INSERT INTO sales VALUES (?, ?)", [("north", 3), ("south", 4), ("north", 5)])
    engine = open_engine(str(path))
    yield engine
    engine.close()


PLAN = {"request": "Total sales amount", "kind": "query", "values": [], "fields": ["amount"]}
SQL = {"sql": "SELECT sum(amount) AS total FROM sales"}


def agent(shop, tmp_path, turns, **kw) -> BIAgent:
    return BIAgent(ScriptedModel(turns), shop, store=tmp_path / "s.db", session_id="s", clarify=False,
                   sql_mode="sql", chart_dir=tmp_path / "charts", **kw)


def test_with_approve_the_sql_waits_for_a_person_then_runs_once(shop, tmp_path):
    a = agent(shop, tmp_path, [PLAN, SQL, "Total sales are 12."], approve=("sql_executor",))
    r = a.ask("What are total sales?")
    assert r.status == "approval" and r.rows == [] and r.sql is None
    [pending] = r.approvals
    assert pending["tool"] == "sql_executor" and a.bi.last_result is None  # nothing ran on the database
    result = a.resume({pending["id"]: True})
    assert result.status == "completed" and a.answer.status == "answered" and a.answer.rows == [[12]]
    assert a.answer.sql.lower().startswith("select sum(amount) as total from sales")
    assert [m.status for m in a.bi_memory] == ["complete", "complete", "complete"]


def test_a_denied_query_is_not_run(shop, tmp_path):
    a = agent(shop, tmp_path, [PLAN, SQL, "I did not run the query."], approve=("sql_executor",))
    pending = a.ask("What are total sales?").approvals[0]
    a.resume({pending["id"]: False})
    assert a.answer.rows == [] and a.bi.last_result is None and a.answer.status == "answered"
    assert a.bi_memory[-1].status == "denied"


def test_approve_names_a_bi_tool():
    with pytest.raises(ConfigError, match="approve names no BI tool: sql"):
        BIAgent(ScriptedModel([]), None, semantic=object(), approve=("sql",))  # type: ignore[arg-type]


def test_without_approve_nothing_waits_and_a_decline_is_the_planners_declined(shop, tmp_path):
    a = agent(shop, tmp_path, [PLAN, SQL, "Total sales are 12.",
                               {"request": "Sales next year", "kind": "query", "values": [], "fields": []}])
    assert a.ask("What are total sales?").rows == [[12]]
    r = a.run("What will sales be next year?")
    assert r.status == "declined" and a.answer.status == "cannot_answer" and "what will happen" in a.answer.answer
