"""A person's kept answer to the field question counts whatever the asking setting (round 25): with asking off, a
term they mapped to a column is answered with it (the planner's decline is overruled, and a term the planner does
not list is still mapped), a term they said the data does not hold is declined at once saying so; a term in other
words, or on another connection, is judged on the data as before."""

from __future__ import annotations

from orrery.bi.agent import BIAgent
from orrery.bi.examples import ExampleMemory, open_examples, use_examples
from orrery.llm.scripted import ScriptedModel

QUESTION = "how many inhabitants did each region have in 2000"
PLANNED = {"request": "Inhabitants per region in 2000", "kind": "cannot_answer", "values": [], "fields": "inhabitants"}
SQL = {
    "sql": "SELECT c.region, SUM(i.population) AS n FROM indicators i JOIN countries c ON c.code = i.code "
    "WHERE i.year = 2000 GROUP BY c.region"
}
AGAIN = "what was the number of Inhabitants per region in 1995"
DECLINED_AGAIN = {"request": "Inhabitants per region in 1995", "kind": "cannot_answer", "values": [], "fields": ""}
SQL_AGAIN = {"sql": SQL["sql"].replace("2000", "1995")}
KNOWN = "'Inhabitants' is indicators.population"  # the user's own words


def agent_on(bi, model, path, clarify: bool) -> BIAgent:
    agent = BIAgent(model, bi.engine, store=path, prose=False, sql_mode="sql", clarify=clarify)
    return use_examples(agent, path, embedder=None)


def answered(bi, path, said: str) -> None:
    """The field question asked with asking on and answered `said` (kept for the connection)."""
    agent = agent_on(bi, ScriptedModel([PLANNED, {"intent": "exact_answer"}, SQL]), path, clarify=True)
    assert agent.ask(QUESTION).status == "paused"
    agent.ask(said)


def test_a_mapped_term_is_answered_with_its_column_with_asking_off(indicators, tmp_path):
    path = tmp_path / "s.db"
    answered(indicators, path, "population")
    model = ScriptedModel([DECLINED_AGAIN, SQL_AGAIN])  # the planner declines and lists no field
    done = agent_on(indicators, model, path, clarify=False).ask(AGAIN)
    assert done.status == "completed" and "SUM(i.population)" in done.sql
    assert KNOWN in model.seen[-1][-1].content  # the SQL step is told the column the person named


def test_without_a_kept_answer_asking_off_still_declines(indicators, tmp_path):
    declined = agent_on(indicators, ScriptedModel([DECLINED_AGAIN]), tmp_path / "s.db", clarify=False).ask(AGAIN)
    assert declined.status == "declined" and "no field or value for 'inhabitants'" in declined.answer.lower()


def test_a_term_said_not_held_is_declined_at_once_with_asking_off_saying_so(indicators, tmp_path):
    path = tmp_path / "s.db"
    answered(indicators, path, "none of these")
    model = ScriptedModel([])  # no model call at all: the shape check declines
    declined = agent_on(indicators, model, path, clarify=False).ask(AGAIN)
    assert declined.status == "declined" and "you said the data does not hold 'inhabitants'" in declined.answer.lower()
    assert model.seen == []


def test_the_same_term_in_other_words_is_not_reused(indicators, tmp_path):
    path = tmp_path / "s.db"
    answered(indicators, path, "population")
    other = "how many residents did each region have in 1995"
    planned = {**DECLINED_AGAIN, "fields": "residents"}
    declined = agent_on(indicators, ScriptedModel([planned]), path, clarify=False).ask(other)
    assert declined.status == "declined" and "'residents'" in declined.answer.lower()


def test_another_connection_does_not_see_the_answer_with_asking_off(indicators, tmp_path):
    path = tmp_path / "s.db"
    ExampleMemory(open_examples(path, embedder=None)).keep_field(
        "other_db", indicators.semantic, "inhabitants", "indicators.population"
    )
    declined = agent_on(indicators, ScriptedModel([DECLINED_AGAIN]), path, clarify=False).ask(AGAIN)
    assert declined.status == "declined" and "no field or value for 'inhabitants'" in declined.answer.lower()


def test_terms_match_by_their_words_aggregate_words_and_plurals_aside(indicators, tmp_path):
    memory = ExampleMemory(open_examples(tmp_path / "s.db", embedder=None))
    memory.keep_field("db", indicators.semantic, "birth rate", "indicators.fertility")
    assert memory.mapped("db", "the average Birth Rates") is not None
    assert memory.mapped("db", "rate") is None and memory.mapped("db", "kids per woman") is None
    said = memory.said_fields("db", indicators.semantic, "Birth rates of Asia, per year")
    assert [(words, k.column) for words, k in said] == [("Birth rates", "indicators.fertility")]
    assert memory.said_fields("db", indicators.semantic, "the rate of birth") == []
    memory.keep_field("db", indicators.semantic, "babies", "indicators.fertility")
    assert [w for w, _ in memory.said_fields("db", indicators.semantic, "the most Babies in 1990")] == ["Babies"]
    memory.keep_field("db", indicators.semantic, "number of birth rates", None)  # the same term: replaced
    kept = next(k for k in memory.fields("db") if k.term != "baby")
    assert (
        len(memory.fields("db")) == 2
        and kept.column is None
        and memory.said_fields("db", indicators.semantic, "birth rate") == []
    )
