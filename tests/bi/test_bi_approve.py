"""BI's SQL execution behind a person's approval (`approve=("sql_executor",)`), and the planner's declined
ending as a BI answer "declined"."""

from __future__ import annotations

import pytest

from orrery.bi.agent import BIAgent
from orrery.errors import ConfigError
from orrery.llm.scripted import ScriptedModel

PLAN = {"request": "Count the nations", "kind": "query", "values": [], "fields": []}
SQL = {"sql": "SELECT count(*) AS nations FROM nation"}


def agent(tpch, tmp_path, turns, **kw) -> BIAgent:
    return BIAgent(
        ScriptedModel(turns),
        tpch,
        store=tmp_path / "s.db",
        session_id="s",
        clarify=False,
        sql_mode="sql",
        chart_dir=tmp_path / "charts",
        **kw,
    )


def test_with_approve_the_sql_waits_for_a_person_then_runs_once(tpch, tmp_path):
    a = agent(tpch, tmp_path, [PLAN, SQL, "There are 25 nations."], approve=("sql_executor",))
    r = a.ask("How many nations are there?")
    assert r.status == "paused" and r.approvals and r.clarification is None and r.rows == [] and r.sql is None
    [pending] = r.approvals
    assert pending["tool"] == "sql_executor" and a.bi.last_result is None  # nothing ran on the database
    result = a.resume({pending["id"]: True})
    assert result.status == "completed" and a.answer.status == "completed" and a.answer.rows == [[25]]
    assert a.answer.sql.lower().startswith("select count(*) as nations from nation")
    assert [(m.todo_key, m.status) for m in a.bi_memory] == [("build_query", "complete"), ("execute_query", "complete")]


def test_a_denied_query_is_not_run(tpch, tmp_path):
    a = agent(tpch, tmp_path, [PLAN, SQL, "I did not run the query."], approve=("sql_executor",))
    pending = a.ask("How many nations are there?").approvals[0]
    a.resume({pending["id"]: False})
    assert a.answer.rows == [] and a.bi.last_result is None and a.answer.status == "completed"
    assert a.bi_memory[-1].status == "denied"


def test_approve_names_a_bi_tool():
    with pytest.raises(ConfigError, match="approve names no BI tool: sql"):
        BIAgent(ScriptedModel([]), None, semantic=object(), approve=("sql",))  # type: ignore[arg-type]


def test_without_approve_nothing_waits_and_a_decline_is_the_planners_declined(tpch, tmp_path):
    a = agent(
        tpch,
        tmp_path,
        [
            PLAN,
            SQL,
            "There are 25 nations.",
            {"request": "Nations next year", "kind": "query", "values": [], "fields": []},
        ],
    )
    assert a.ask("How many nations are there?").rows == [[25]]
    r = a.run("How many nations will there be next year?")
    assert r.status == "declined" and a.answer.status == "declined" and "what will happen" in a.answer.answer


def test_approve_marks_only_that_agents_tool(tpch, tmp_path):
    """The BI tools are module-level, shared by every agent: `approve` pauses its own agent only."""
    from orrery.bi.tools import TOOLS

    waiting = agent(tpch, tmp_path, [PLAN, SQL, "There are 25 nations."], approve=("sql_executor",))
    free = BIAgent(
        ScriptedModel([PLAN, SQL, "There are 25 nations."]),
        tpch,
        store=tmp_path / "t.db",
        session_id="t",
        clarify=False,
        sql_mode="sql",
    )
    assert not any(t.requires_approval for t in TOOLS)
    assert waiting.ask("How many nations are there?").status == "paused"
    r = free.ask("How many nations are there?")
    assert r.status == "completed" and r.rows == [[25]] and free.bi.last_result is not None
    assert waiting.bi.last_result is None  # each tool call read its own agent's BIContext
