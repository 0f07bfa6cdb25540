"""A person's answer to 'the data has no field named X; do you mean' is kept for the connection in the approved
examples' store (`ExampleMemory.keep_field`), and a later question with the same term (its normal form) maps it
without asking, or declines at once where they said the data does not hold it; removing it asks again."""

from __future__ import annotations

import pytest

from orrery.bi.agent import BIAgent
from orrery.bi.examples import ExampleMemory, approve, field_term, open_examples, use_examples
from orrery.errors import DataError
from orrery.llm.scripted import ScriptedModel

QUESTION = "how many inhabitants did each region have in 2000"
PLANNED = {"request": "Inhabitants per region in 2000", "kind": "cannot_answer", "values": [], "fields": "inhabitants"}
SQL = {
    "sql": "SELECT c.region, SUM(i.population) AS n FROM indicators i JOIN countries c ON c.code = i.code "
    "WHERE i.year = 2000 GROUP BY c.region"
}
AGAIN = "what were the Inhabitants per region in 1995"
PLANNED_AGAIN = {
    "request": "Inhabitants per region in 1995",
    "kind": "cannot_answer",
    "values": [],
    "fields": "inhabitant",
}
SQL_AGAIN = {"sql": SQL["sql"].replace("2000", "1995")}


def agent_on(bi, model, path) -> BIAgent:
    return use_examples(BIAgent(model, bi.engine, store=path, prose=False, sql_mode="sql"), path, embedder=None)


def test_an_answer_is_kept_and_the_next_question_with_the_term_reads_the_column_without_asking(indicators, tmp_path):
    path = tmp_path / "s.db"
    model = ScriptedModel([PLANNED, {"intent": "exact_answer"}, SQL])
    agent = agent_on(indicators, model, path)
    assert agent.ask(QUESTION).status == "paused"
    assert agent.ask("population").status == "completed"
    later = agent_on(indicators, ScriptedModel([PLANNED_AGAIN, SQL_AGAIN]), path)  # a restart: a new agent
    done = later.ask(AGAIN)
    assert done.status == "completed" and "SUM(i.population)" in done.sql
    [kept] = later.bi.approved.fields(indicators.engine.name)
    assert (kept.term, kept.column) == ("inhabitant", "indicators.population")
    assert later.bi.approved.examples.remove(indicators.engine.name, kept.id)  # what `bi memory remove` calls
    again = agent_on(indicators, ScriptedModel([PLANNED_AGAIN]), path).ask(AGAIN)
    assert again.status == "paused" and "no field named" in again.clarification


def test_none_is_kept_and_a_later_question_declines_at_once_naming_the_term(indicators, tmp_path):
    path = tmp_path / "s.db"
    agent = agent_on(indicators, ScriptedModel([PLANNED, {"intent": "exact_answer"}]), path)
    assert agent.ask(QUESTION).status == "paused"
    assert agent.ask("none of these").status == "declined"
    declined = agent_on(indicators, ScriptedModel([PLANNED_AGAIN]), path).ask(AGAIN.lower())
    assert (
        declined.status == "declined" and "you said the data does not hold 'inhabitants'" in declined.answer
    )  # their words


def test_another_connection_never_sees_a_kept_answer_and_a_guess_is_never_kept(indicators, tmp_path):
    memory = ExampleMemory(open_examples(tmp_path / "s.db", embedder=None))
    memory.keep_field("other_db", indicators.semantic, "inhabitants", "indicators.population")
    assert memory.kept_field(indicators.engine.name, indicators.semantic, "inhabitants") is None
    assert memory.kept_field("other_db", indicators.semantic, "Inhabitants") is not None
    path = tmp_path / "off.db"
    off = use_examples(
        BIAgent(ScriptedModel([PLANNED]), indicators.engine, store=path, prose=False, clarify=False),
        path,
        embedder=None,
    )
    off.ask(QUESTION)  # asking off: nobody answered, nothing is kept
    assert off.bi.approved.fields(indicators.engine.name) == []


def test_a_forged_column_or_term_is_rejected_before_it_is_kept(indicators, tmp_path):
    memory = ExampleMemory(open_examples(tmp_path / "s.db", embedder=None))
    with pytest.raises(DataError, match="not a column"):
        memory.keep_field("db", indicators.semantic, "inhabitants", "indicators.secret")
    with pytest.raises(DataError, match="not kept"):
        memory.keep_field("db", indicators.semantic, "x'; DROP TABLE t --", None)
    assert field_term("word " * 20) is None and field_term("below 1 ug/ml") is None
    assert field_term(" Ship  Modes ") == "ship mode" and memory.fields("db") == []


def test_an_answer_for_a_term_that_cannot_be_a_key_is_used_for_the_run_and_not_kept(indicators, tmp_path):
    from orrery.bi.tools import ask_field

    indicators.approved = ExampleMemory(open_examples(tmp_path / "s.db", embedder=None))
    assert ask_field(indicators, "inhabitants/km2", "population") == {"table": "indicators", "column": "population"}
    assert ask_field(indicators, "inhabitants", "population")["column"] == "population"
    assert [f.term for f in indicators.approved.fields(indicators.engine.name)] == ["inhabitant"]


def test_ask_answer_approve_then_a_later_question(indicators, tmp_path):
    path = tmp_path / "s.db"
    agent = agent_on(indicators, ScriptedModel([PLANNED, {"intent": "exact_answer"}, SQL]), path)
    agent.ask(QUESTION)
    agent.ask("population")
    approve(agent)
    memory = agent.bi.approved
    assert [e.question for e in memory.examples.list(indicators.engine.name)] == [QUESTION]
    assert [f.column for f in memory.fields(indicators.engine.name)] == ["indicators.population"]
    done = agent_on(indicators, ScriptedModel([PLANNED_AGAIN, SQL_AGAIN]), path).ask(AGAIN)
    assert done.status == "completed" and "population" in done.sql


def test_the_memory_commands_list_and_remove_a_kept_field(indicators, tmp_path):
    from typer.testing import CliRunner

    from orrery.bi.cli import app

    store = str(tmp_path / "s.db")
    field = ExampleMemory(open_examples(store, embedder=None)).keep_field("tpch", indicators.semantic, "babies", None)
    listed = CliRunner().invoke(app, ["memory", "list", "--db", "tpch", "--store", store]).output
    assert "field 'baby'" in listed and "not held" in listed
    assert CliRunner().invoke(app, ["memory", "remove", str(field), "--db", "tpch", "--store", store]).exit_code == 0
    assert ExampleMemory(open_examples(store, embedder=None)).fields("tpch") == []
