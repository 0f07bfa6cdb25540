"""A person's kept field answer found under other words (memory round 27): a phrase of the question, or a term the
planner lists, that means a kept term (MiniLM, at MEANT or above, neither saying every word of the other) is read
as the kept answer: its column, or 'not held' declined at once. Counter-examples: a near phrase ('kids per family',
'male population'), another connection's answer, no embedder (words only). The kept answers are read from the store
once per question."""

from __future__ import annotations

from orrery.bi.agent import BIAgent
from orrery.bi.examples import ExampleMemory, open_examples, use_examples
from orrery.llm.scripted import ScriptedModel

KEPT = "kids per woman"
OTHER_WORDS = "which region had the highest average children per woman in 1995"
NEAR = "which region had the highest average kids per family in 1995"
PLANNED = {"request": "Average children per woman per region in 1995", "kind": "query", "values": [], "fields": ""}
SQL = {
    "sql": "SELECT c.region, AVG(i.fertility) AS kids FROM indicators i JOIN countries c ON c.code = i.code "
    "WHERE i.year = 1995 GROUP BY c.region"
}


def agent_on(bi, model, path) -> BIAgent:
    agent = BIAgent(model, bi.engine, store=path, prose=False, sql_mode="sql", clarify=False)
    return use_examples(agent, path)  # MiniLM


def keep(bi, path, column: str | None, term: str = KEPT, connection: str | None = None) -> None:
    ExampleMemory(open_examples(path)).keep_field(connection or bi.engine.name, bi.semantic, term, column)


def test_a_kept_term_said_in_other_words_is_its_column(indicators, tmp_path):
    path = tmp_path / "s.db"
    keep(indicators, path, "indicators.fertility")
    model = ScriptedModel([PLANNED, SQL])
    done = agent_on(indicators, model, path).ask(OTHER_WORDS)
    assert done.status == "completed" and "AVG(i.fertility)" in done.sql
    assert "'children per woman' is indicators.fertility" in model.seen[-1][-1].content  # the SQL step is told


def test_a_term_kept_not_held_declines_in_other_words_with_no_model_call(indicators, tmp_path):
    path = tmp_path / "s.db"
    keep(indicators, path, None)
    model = ScriptedModel([])
    declined = agent_on(indicators, model, path).ask(OTHER_WORDS)
    assert declined.status == "declined"
    assert "you said the data does not hold 'children per woman'" in declined.answer.lower()
    assert model.seen == []


def test_a_near_phrase_is_not_the_kept_term(indicators, tmp_path):
    path = tmp_path / "s.db"
    keep(indicators, path, None)
    declined = agent_on(indicators, ScriptedModel([PLANNED, SQL]), path).ask(NEAR)
    assert "you said" not in declined.answer
    memory = ExampleMemory(open_examples(path))
    assert memory.said(indicators.engine.name, indicators.semantic, NEAR) == []
    assert memory.mapped(indicators.engine.name, "kids per family") is None


def test_a_phrase_saying_the_kept_term_and_more_is_not_it(indicators, tmp_path):
    memory = ExampleMemory(open_examples(tmp_path / "s.db"))
    memory.keep_field("db", indicators.semantic, "inhabitants", "indicators.population")
    memory.keep_field("db", indicators.semantic, "population", None)
    assert memory.mapped("db", "male population") is None  # similar, but a part of it
    assert memory.mapped("db", "inhabitants per square km") is None  # similar, but a measure of it
    assert memory.mapped("db", "Inhabitant").column == "indicators.population"  # its words: round 26


def test_another_connections_answer_never_matches(indicators, tmp_path):
    path = tmp_path / "s.db"
    keep(indicators, path, None, connection="other_db")
    declined = agent_on(indicators, ScriptedModel([PLANNED, SQL]), path).ask(OTHER_WORDS)
    assert "you said" not in declined.answer
    assert ExampleMemory(open_examples(path)).mapped(indicators.engine.name, "children per woman") is None


def test_without_an_embedder_only_the_words_match(indicators, tmp_path):
    memory = ExampleMemory(open_examples(tmp_path / "s.db", embedder=None))
    memory.keep_field("db", indicators.semantic, KEPT, "indicators.fertility")
    assert memory.said("db", indicators.semantic, OTHER_WORDS) == []
    assert memory.mapped("db", "Kids Per Woman").column == "indicators.fertility"


def test_the_kept_answers_are_read_from_the_store_once_per_question(indicators, tmp_path):
    path = tmp_path / "s.db"
    keep(indicators, path, "indicators.fertility")
    agent = agent_on(indicators, ScriptedModel([PLANNED, SQL, PLANNED, SQL]), path)
    store, reads = agent.bi.approved.examples.store, []
    items = store.items
    store.items = lambda *a, **k: reads.append(k.get("kinds")) or items(*a, **k)
    assert agent.ask("which region had the highest average kids per woman in 1995").status == "completed"
    assert reads.count(["field"]) == 1
    ExampleMemory(open_examples(path)).keep_field(indicators.engine.name, indicators.semantic, KEPT, None)
    declined = agent.ask("which region had the lowest average kids per woman in 1995")  # a removal elsewhere is seen
    assert "you said the data does not hold" in declined.answer and reads.count(["field"]) == 2
