"""Issue 26, round 24: a person's answer to the field question ('The data has no field named X; do you mean ...')
is kept for the connection beside the approved pairs and reused by later questions there (`examples.keep_field`,
`tools.ask_field`); removing it asks again."""

from __future__ import annotations

import itertools

import pytest
from typer.testing import CliRunner

from orrery.bi.agent import BIAgent
from orrery.bi.cli import app
from orrery.bi.examples import approve, field_answers, field_term, keep_field, kept_field, open_examples, use_examples
from orrery.errors import DataError
from orrery.llm.scripted import ScriptedModel
from orrery.recall.examples import APP, OWNER
from orrery.recall.store import Item, Scope

QUESTION = "how many inhabitants did each region have in 2000"
LATER = "how many inhabitants did each region have in 2001"
PLANNED = {"request": "Inhabitants per region in 2000", "kind": "cannot_answer", "values": [], "fields": "inhabitants"}
LATER_PLAN = {**PLANNED, "request": "Inhabitants per region in 2001", "fields": "Inhabitants"}
SQL = {
    "sql": "SELECT c.region, SUM(i.population) AS n FROM indicators i JOIN countries c ON c.code = i.code "
    "WHERE i.year = 2000 GROUP BY c.region"
}
CONVERSATIONS = itertools.count()
LATER_SQL = {"sql": SQL["sql"].replace("2000", "2001")}


def _agent(bi, replies, store):
    """A new agent (a new conversation, as after a restart) on the memory store `store`."""
    sessions = store.parent / f"sessions{next(CONVERSATIONS)}.db"
    agent = BIAgent(ScriptedModel(replies), bi.engine, store=sessions, prose=False, sql_mode="sql")
    return use_examples(agent, store, embedder=None)


def _answered(bi, store, said="population"):
    agent = _agent(bi, [PLANNED, {"intent": "exact_answer"}, *([SQL] if said != "none of these" else [])], store)
    assert agent.ask(QUESTION).status == "paused"
    return agent, agent.ask(said)


def test_a_persons_column_is_kept_and_a_later_question_maps_the_term_without_asking(indicators, tmp_path):
    store = tmp_path / "memory.db"
    _, done = _answered(indicators, store)
    assert done.status == "completed"
    [kept] = field_answers(open_examples(store, embedder=None), indicators.engine.name)
    assert (kept.term, kept.column) == ("inhabitant", "indicators.population")
    later = _agent(indicators, [LATER_PLAN, LATER_SQL], store)  # a new agent: the store survives a restart
    answer = later.ask(LATER)
    assert answer.status == "completed" and answer.clarification is None
    assert "SUM(i.population)" in answer.sql
    sql_prompt = str(later.model.requests[-1]["messages"])
    assert "'Inhabitants' is indicators.population" in sql_prompt  # the SQL step is told the kept column
    open_examples(store, embedder=None).remove(indicators.engine.name, kept.id)
    again = _agent(indicators, [LATER_PLAN], store).ask(LATER)
    assert again.status == "paused" and "no field named 'Inhabitants'" in again.clarification


def test_none_is_kept_and_a_later_question_declines_at_once_naming_the_term(indicators, tmp_path):
    store = tmp_path / "memory.db"
    _, declined = _answered(indicators, store, "none of these")
    assert declined.status == "declined"
    [kept] = field_answers(open_examples(store, embedder=None), indicators.engine.name)
    assert kept.column is None
    later = _agent(indicators, [LATER_PLAN], store)
    answer = later.ask(LATER)
    assert answer.status == "declined" and answer.clarification is None
    assert "you said the data does not hold 'Inhabitants'" in answer.answer
    assert len(later.model.requests) == 1  # the plan only: nothing asked, no SQL written


def test_another_connection_or_store_never_sees_it(indicators, sqlite_bi, tmp_path):
    store = tmp_path / "memory.db"
    _answered(indicators, store)
    other = sqlite_bi(  # the same schema under another connection name
        "CREATE TABLE countries (code TEXT, country_name TEXT, region TEXT);"
        "CREATE TABLE indicators (code TEXT, year INTEGER, fertility REAL, population INTEGER);",
        {"countries": [("C1", "Land 1", "Asia")], "indicators": [("C1", 2001, 1.5, 10)]},
    )
    assert other.engine.name != indicators.engine.name
    assert _agent(other, [LATER_PLAN], store).ask(LATER).status == "paused"
    fresh = _agent(indicators, [LATER_PLAN], tmp_path / "another.db").ask(LATER)
    assert fresh.status == "paused", fresh.answer


def test_a_forged_column_or_term_is_never_kept_and_a_stored_one_the_layer_lacks_is_not_used(indicators, tmp_path):
    use_examples(agent := _agent(indicators, [], tmp_path / "memory.db"), tmp_path / "memory.db", embedder=None)
    bi = agent.bi
    with pytest.raises(DataError):
        keep_field(bi, "inhabitants", "indicators.inhabitants")
    for term in ("x'; DROP TABLE t; --", "a " * 40, "", "one two three four five six"):
        with pytest.raises(DataError):
            keep_field(bi, term, "indicators.population")
    assert field_answers(bi.approved.examples, bi.engine.name) == []
    forged = Item("field", "inhabitant", "field", {"term": "inhabitant", "column": "indicators.secret"})
    bi.approved.examples.store.add(Scope(OWNER, APP, bi.engine.name), [forged])
    assert kept_field(bi, "inhabitants") is None


def test_the_normal_form_reads_case_plurals_and_spacing_alike():
    assert field_term("Ship  Dates") == field_term("ship date") == "ship date"


def test_asking_off_keeps_nothing(indicators, tmp_path):
    agent = BIAgent(ScriptedModel([PLANNED]), indicators.engine, store=tmp_path / "s.db", prose=False, clarify=False)
    use_examples(agent, tmp_path / "memory.db", embedder=None)
    assert agent.ask(QUESTION).status == "declined"
    assert field_answers(agent.bi.approved.examples, indicators.engine.name) == []


def test_ask_answer_approve_then_a_later_question(indicators, tmp_path):
    store = tmp_path / "memory.db"
    agent, done = _answered(indicators, store)
    example = approve(agent)
    examples = open_examples(store, embedder=None)
    assert [e.id for e in examples.list(indicators.engine.name)] == [example]  # the kept answer is no example
    later = _agent(indicators, [LATER_PLAN, LATER_SQL], store)
    answer = later.ask(LATER)
    assert answer.status == "completed" and answer.clarification is None and "population" in answer.sql


def test_the_cli_lists_and_removes_a_kept_answer(indicators, tmp_path):
    store = tmp_path / "memory.db"
    _answered(indicators, store)
    runner, db = CliRunner(), indicators.engine.name
    listed = runner.invoke(app, ["memory", "list", "--db", db, "--store", str(store)]).output
    assert "inhabitant" in listed and "indicators.population" in listed
    [kept] = field_answers(open_examples(store, embedder=None), db)
    assert runner.invoke(app, ["memory", "remove", str(kept.id), "--db", db, "--store", str(store)]).exit_code == 0
    assert field_answers(open_examples(store, embedder=None), db) == []
