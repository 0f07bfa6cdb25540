"""Round 65 through the agent (bench/bi.md, round 65): a name the planner passes to entity resolution that the data holds
in no form declines the turn with one line naming it, instead of a query that counts every row. Needs the line of
bench/bi.md, round 65 in tools.entity_resolution."""

from __future__ import annotations

from orrery.bi.agent import BIAgent
from orrery.llm.scripted import ScriptedModel


def _agent(tpch, tmp_path, values: list[str], sql: str) -> BIAgent:
    plan = {"request": "Count the suppliers of a nation", "kind": "query", "values": values, "fields": []}
    turns = [plan, {"sql": sql}, "Done."]
    return BIAgent(ScriptedModel(turns), tpch, store=tmp_path / "s.db", session_id="s", clarify=False, sql_mode="sql")


def test_an_absent_name_declines_before_the_query(tpch, tmp_path):
    agent = _agent(tpch, tmp_path, ["Atlantis"], "SELECT count(*) FROM supplier")  # the filter dropped
    r = agent.ask("suppliers located in atlantis, how many")
    assert r.status == "declined" and "the data holds no value like 'Atlantis'" in r.output
    assert r.sql is None


def test_a_held_name_is_answered(tpch, tmp_path):
    sql = "SELECT count(*) FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey WHERE n.n_name = 'GERMANY'"
    r = _agent(tpch, tmp_path, ["Germany"], sql).ask("suppliers located in germany, how many")
    assert r.status == "completed" and r.rows and r.rows[0][0] > 0
