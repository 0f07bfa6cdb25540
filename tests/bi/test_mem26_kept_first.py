"""A person's kept field answer is read before any decline (memory round 26): a term they mapped to a column is that
column, not a value (its capitals) nor a missing field, whether the shape check, the planner's decline or entity
resolution would reach it first, asking on or off; a term they said the data does not hold is declined at once
saying so. Counter-examples: no kept answer, other words, another connection: judged on the data as before."""

from __future__ import annotations

import pytest

from orrery.bi.agent import BIAgent
from orrery.bi.examples import ExampleMemory, open_examples, use_examples
from orrery.llm.scripted import ScriptedModel

TERM = "kids per woman"
CAPITALS = "What was the average Kids Per Woman of each region in 1995?"
LOWER = "which region had the highest average kids per woman in 1995"
PLANNED = {"request": "Average kids per woman per region in 1995", "kind": "query", "values": [], "fields": ""}
DECLINED = {**PLANNED, "kind": "cannot_answer"}
AS_VALUE = {**PLANNED, "values": "Kids Per Woman"}  # the planner lists the term as a value to look up
SQL = {
    "sql": "SELECT c.region, AVG(i.fertility) AS kids FROM indicators i JOIN countries c ON c.code = i.code "
    "WHERE i.year = 1995 GROUP BY c.region"
}


def agent_on(bi, model, path, clarify: bool = False) -> BIAgent:
    agent = BIAgent(model, bi.engine, store=path, prose=False, sql_mode="sql", clarify=clarify)
    return use_examples(agent, path, embedder=None)


def kept(bi, path, column: str | None, connection: str | None = None) -> None:
    memory = ExampleMemory(open_examples(path, embedder=None))
    memory.keep_field(connection or bi.engine.name, bi.semantic, TERM, column)


@pytest.mark.parametrize("clarify", [False, True])
def test_a_kept_term_in_capitals_is_the_column_not_a_value(indicators, tmp_path, clarify):
    path = tmp_path / "s.db"
    kept(indicators, path, "indicators.fertility")
    model = ScriptedModel([PLANNED, SQL])
    done = agent_on(indicators, model, path, clarify).ask(CAPITALS)
    assert done.status == "completed" and "AVG(i.fertility)" in done.sql
    assert "'Kids Per Woman' is indicators.fertility" in model.seen[-1][-1].content  # the SQL step is told


def test_a_kept_term_the_planner_lists_as_a_value_is_not_declined_as_an_absent_value(indicators, tmp_path):
    path = tmp_path / "s.db"
    kept(indicators, path, "indicators.fertility")
    done = agent_on(indicators, ScriptedModel([AS_VALUE, SQL]), path).ask(CAPITALS)
    assert done.status == "completed" and "AVG(i.fertility)" in done.sql


def test_a_kept_term_the_shape_check_finds_missing_is_answered_with_asking_off(indicators, tmp_path):
    path = tmp_path / "s.db"
    kept(indicators, path, "indicators.fertility")
    done = agent_on(indicators, ScriptedModel([PLANNED, SQL]), path).ask(LOWER)
    assert done.status == "completed" and "AVG(i.fertility)" in done.sql


def test_a_planner_decline_naming_no_field_is_overruled_by_a_kept_term(indicators, tmp_path):
    path = tmp_path / "s.db"
    kept(indicators, path, "indicators.fertility")
    done = agent_on(indicators, ScriptedModel([DECLINED, SQL]), path).ask(CAPITALS)
    assert done.status == "completed" and "AVG(i.fertility)" in done.sql


@pytest.mark.parametrize("question", [CAPITALS, LOWER])
def test_without_a_kept_answer_the_term_is_declined_as_before(indicators, tmp_path, question):
    model = ScriptedModel([PLANNED, SQL])
    declined = agent_on(indicators, model, tmp_path / "s.db").ask(question)
    assert declined.status == "declined" and "kid" in declined.answer.lower() and "you said" not in declined.answer


def test_another_connection_and_other_words_are_not_read_as_the_kept_term(indicators, tmp_path):
    path = tmp_path / "s.db"
    kept(indicators, path, "indicators.fertility", connection="other_db")
    assert agent_on(indicators, ScriptedModel([PLANNED, SQL]), path).ask(CAPITALS).status == "declined"
    kept(indicators, path, "indicators.fertility")
    other = "What was the average Babies Per Mother of each region in 1995?"
    assert agent_on(indicators, ScriptedModel([PLANNED, SQL]), path).ask(other).status == "declined"


@pytest.mark.parametrize("question", [CAPITALS, LOWER])
def test_a_term_said_not_held_declines_at_once_saying_so(indicators, tmp_path, question):
    path = tmp_path / "s.db"
    kept(indicators, path, None)
    model = ScriptedModel([])  # no model call: the person's answer settles it
    declined = agent_on(indicators, model, path).ask(question)
    assert (
        declined.status == "declined" and "you said the data does not hold 'kids per woman'" in declined.answer.lower()
    )
    assert model.seen == []


def test_the_question_is_read_as_the_person_mapped_it(indicators, tmp_path):
    memory = ExampleMemory(open_examples(tmp_path / "s.db", embedder=None))
    memory.keep_field("db", indicators.semantic, "kids per woman", "indicators.fertility")
    memory.keep_field("db", indicators.semantic, "woman", "indicators.population")  # shorter, inside the longer
    read = memory.as_kept("db", indicators.semantic, "Brazil's Kids Per Woman and its Woman in 1995")
    assert read == "Brazil's fertility and its population in 1995"
    assert memory.as_kept("db", indicators.semantic, "kids, then a woman") == "kids, then a population"
    assert memory.as_kept("other", indicators.semantic, CAPITALS) == CAPITALS
