"""A person's kept field answers are read from the store once per question (memory round 27), however many checks
match the question's terms against them (round 26's shape check, planner, field mapping, absent check: ten reads
per question before), and read again at the next question: an answer kept or removed elsewhere in between is seen."""

from __future__ import annotations

from orrery.bi.agent import BIAgent
from orrery.bi.examples import ExampleMemory, open_examples, use_examples
from orrery.llm.scripted import ScriptedModel

KEPT = "kids per woman"
PLANNED = {"request": "Average kids per woman per region in 1995", "kind": "query", "values": [], "fields": ""}
SQL = {
    "sql": "SELECT c.region, AVG(i.fertility) AS kids FROM indicators i JOIN countries c ON c.code = i.code "
    "WHERE i.year = 1995 GROUP BY c.region"
}


def counted(agent: BIAgent) -> list:
    """The kinds of each store read the agent's memory makes from now on."""
    store, reads = agent.bi.approved.examples.store, []
    items = store.items
    store.items = lambda *a, **k: reads.append(k.get("kinds")) or items(*a, **k)
    return reads


def test_the_kept_answers_are_read_from_the_store_once_per_question(indicators, tmp_path):
    path = tmp_path / "s.db"
    memory = ExampleMemory(open_examples(path, embedder=None))
    memory.keep_field(indicators.engine.name, indicators.semantic, KEPT, "indicators.fertility")
    agent = BIAgent(ScriptedModel([PLANNED, SQL] * 2), indicators.engine, store=path, prose=False, sql_mode="sql")
    agent = use_examples(agent, path, embedder=None)
    reads = counted(agent)
    done = agent.ask("which region had the highest average Kids Per Woman in 1995")
    assert done.status == "completed" and "AVG(i.fertility)" in done.sql
    assert reads.count(["field"]) == 1
    memory.keep_field(indicators.engine.name, indicators.semantic, KEPT, None)  # elsewhere: another process
    declined = agent.ask("which region had the lowest average kids per woman in 1995")
    assert "you said the data does not hold 'kids per woman'" in declined.answer and reads.count(["field"]) == 2


def test_an_answer_kept_during_a_question_is_read_at_once(indicators, tmp_path):
    memory = ExampleMemory(open_examples(tmp_path / "s.db", embedder=None))
    assert memory.fields("db") == []
    memory.keep_field("db", indicators.semantic, KEPT, "indicators.fertility")
    assert [f.column for f in memory.fields("db")] == ["indicators.fertility"]
    memory.keep_field("db", indicators.semantic, "Kids Per Woman", None)  # replaces it
    assert [(f.term, f.column) for f in memory.fields("db")] == [("kid per woman", None)]
