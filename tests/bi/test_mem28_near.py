"""A kept term is read only where the question says it as itself (memory round 28): never inside a longer noun phrase
that names another thing, its words extended by a modifier before them ('male inhabitants') or a head after them
('inhabitants growth'). Counter-examples: the term said as itself, beside grammar, aggregate, ranking words, a verb, a
stored value ('Europe inhabitants') or a word of the kept column's own name ('life expectancy' kept as `life`)."""

from __future__ import annotations

import pytest

from orrery.bi.agent import BIAgent
from orrery.bi.decline import as_kept
from orrery.bi.examples import ExampleMemory, open_examples, teach, use_examples
from orrery.llm.scripted import ScriptedModel

PLANNED = {"request": "Highest life expectancy per region in 1995", "kind": "query", "values": [], "fields": ""}
SQL = {
    "sql": "SELECT c.region, MAX(i.life_expectancy) AS e FROM indicators i JOIN countries c ON c.code = i.code "
    "WHERE i.year = 1995 GROUP BY c.region"
}


def memory_with(bi, path, term: str, column: str | None) -> ExampleMemory:
    memory = ExampleMemory(open_examples(path, embedder=None))
    memory.keep_field(bi.engine.name, bi.semantic, term, column)
    return memory


@pytest.mark.parametrize(
    "question",
    [
        "male inhabitants of each region in 1995",  # a modifier before
        "which region had the most urban inhabitants?",
        "inhabitants growth per region",  # a head after
        "the highest inhabitants density in 1995",
        "non-inhabitants by region",  # a hyphen joins
    ],
)
def test_a_kept_term_inside_a_longer_noun_phrase_is_not_read_as_it(indicators, tmp_path, question):
    memory = memory_with(indicators, tmp_path / "s.db", "inhabitants", "indicators.population")
    assert memory.said(indicators.engine.name, indicators.semantic, question) == []
    assert memory.as_kept(indicators.engine.name, indicators.semantic, question) == question


@pytest.mark.parametrize(
    ("term", "question"),
    [
        ("price", "which fund has the highest price index?"),
        ("speed", "speed limit of each road"),
        ("credit", "average credit score by branch"),
        ("temperature", "water temperature in july"),
    ],
)
def test_near_phrases_of_other_terms_do_not_decline_as_not_held(indicators, tmp_path, term, question):
    memory = memory_with(indicators, tmp_path / "s.db", term, None)
    assert memory.said_not_held(indicators.engine.name, indicators.semantic, question) is None


@pytest.mark.parametrize(
    "question",
    [
        "Brazil's inhabitants in 1995",  # a possessive ends the phrase
        "how many inhabitants does Land 1 have",
        "the 3 regions with the most inhabitants",
        "inhabitants, by region",
        "inhabitants counted in 1995 per region",  # a verb after
        "highest inhabitants?",
    ],
)
def test_the_term_said_as_itself_is_still_read(indicators, tmp_path, question):
    memory = memory_with(indicators, tmp_path / "s.db", "inhabitants", "indicators.population")
    assert [k.term for _, k in memory.said(indicators.engine.name, indicators.semantic, question)] == ["inhabitant"]


def test_a_stored_value_or_the_kept_columns_own_word_beside_it_does_not_extend_it(indicators, tmp_path):
    indicators.approved = memory_with(indicators, tmp_path / "s.db", "inhabitants", "indicators.population")
    teach(indicators, "Europe inhabitants in 1995")  # before a question is planned: the value test of its data
    assert as_kept(indicators, "Europe inhabitants in 1995") == "Europe population in 1995"  # 'Europe' is stored
    assert as_kept(indicators, "Lisbon inhabitants in 1995") == "Lisbon inhabitants in 1995"  # not stored
    memory = memory_with(indicators, tmp_path / "t.db", "life", "indicators.life_expectancy")
    assert memory.said(indicators.engine.name, indicators.semantic, "life expectancy in 1995")  # `life_expectancy`
    assert not memory.said(indicators.engine.name, indicators.semantic, "life insurance in 1995")


def agent_on(bi, model, path) -> BIAgent:
    return use_examples(BIAgent(model, bi.engine, store=path, prose=False, sql_mode="sql"), path, embedder=None)


@pytest.mark.parametrize("fields", ["", "life"])  # the planner lists no term, or the kept term's word alone
def test_not_held_does_not_decline_a_longer_phrase(indicators, tmp_path, fields):
    path = tmp_path / "s.db"
    memory_with(indicators, path, "life", None)  # 'life' (another sense) the data does not hold
    done = agent_on(indicators, ScriptedModel([{**PLANNED, "fields": fields}, SQL]), path).ask(
        "which region had the highest life expectancy in 1995"
    )
    assert done.status == "completed" and "life_expectancy" in done.sql and "you said" not in done.answer


def test_a_planner_term_is_the_kept_one_only_where_the_question_says_it_as_itself(indicators, tmp_path):
    indicators.approved = memory_with(indicators, tmp_path / "s.db", "inhabitants", "indicators.population")
    teach(indicators, "male inhabitants of each region")
    assert indicators.approved.mapped(indicators.engine.name, "inhabitants") is None
    teach(indicators, "inhabitants of each region, male inhabitants too")  # said as itself once
    assert indicators.approved.mapped(indicators.engine.name, "inhabitants") is not None
    teach(indicators, "how many people live in each region")  # the planner's own word: the question does not say it
    assert indicators.approved.mapped(indicators.engine.name, "inhabitants") is not None


def test_not_held_said_as_itself_still_declines_at_once(indicators, tmp_path):
    path = tmp_path / "s.db"
    memory_with(indicators, path, "life", None)
    model = ScriptedModel([])
    declined = agent_on(indicators, model, path).ask("which region had the highest life in 1995")
    assert declined.status == "declined" and "you said the data does not hold 'life'" in declined.answer
    assert model.seen == []
