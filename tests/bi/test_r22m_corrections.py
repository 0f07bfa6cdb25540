"""A person's correction teaches the connection's layer alone (issue 26, round 22): a pair approved as a correction
(`approve(agent, sql=...)` marks it `CORRECTED`) teaches a phrase it aligns to one column without a second pair,
when the phrase is a term the decline judgment asks about; an agent's approved answer still needs SUPPORT pairs, a
verb or function word of a corrected question is never taught, and another connection's correction teaches
nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi import decline
from orrery.bi.agent import bi_agent
from orrery.bi.engines import SQLiteEngine
from orrery.bi.examples import CORRECTED, ExampleMemory, approve, lessons, open_examples, teach
from orrery.bi.semantic import draft, rank_fields
from orrery.bi.tools import BIContext
from orrery.llm.scripted import ScriptedModel
from orrery.recall import ApprovedExamples
from orrery.recall.examples import Example

CORRECTED_Q = "What was the headcount of each country in the year 1980?"
FIX = "SELECT country, population FROM countries WHERE year = 1980"
# An agent's answer nearer to the later question by its words, so the correction is not among the k=1 pairs the
# decline evidence reads (`ExampleMemory.covers`): only the taught layer can carry 'headcount' to it.
NEARER = ("What was the population of India in 1990?", "SELECT population FROM countries WHERE country = 'India'")
LATER = "What was the headcount of India in 1990?"


@pytest.fixture
def world(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(decline, "_embedder", lambda: None)  # the lexical rules alone: 'headcount' is unspelt
    path = tmp_path / "w.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE countries (country TEXT, year INTEGER, population INTEGER, area REAL)")
        rows = [(c, y, 1000 * i + y, 10.0 * i) for i, c in enumerate(("India", "Chile", "Peru")) for y in (1980, 1990)]
        con.executemany("INSERT INTO countries VALUES (?, ?, ?, ?)", rows)
    engine = SQLiteEngine("w", path)
    bi = BIContext(engine, draft(engine), None)
    bi.approved = ExampleMemory(ApprovedExamples(tmp_path / "m.db", embedder=None), k=1, floor=None)
    yield bi
    engine.close()


def test_one_correction_teaches_its_term_and_a_later_question_is_not_declined(world):
    examples = world.approved.examples
    examples.approve("w", *NEARER)
    assert decline.shape_decline(world, LATER)  # 'headcount': no field
    examples.approve("w", CORRECTED_Q, FIX, **{CORRECTED: True})
    teach(world, LATER)
    assert [e.question for e in world.approved.nearest("w", LATER)] == [NEARER[0]]  # no evidence from it
    assert rank_fields(world.semantic, "headcount")[0][2] == {"table": "countries", "column": "population"}
    assert decline.shape_decline(world, LATER) is None
    assert "headcount" in world.semantic.render(["countries"])  # the SQL prompt's slice says it too


def test_a_correction_alone_teaches_the_term_it_asks_about(world):
    asked = Example(2, CORRECTED_Q, FIX, extra={CORRECTED: True})
    assert lessons(world.semantic, [asked]) == {("countries", "population"): ["headcount"]}


def test_an_agent_approved_pair_alone_still_teaches_nothing(world):
    world.approved.examples.approve("w", *NEARER)
    world.approved.examples.approve("w", CORRECTED_Q, FIX)  # the same pair, approved as the agent's own answer
    teach(world, LATER)
    assert not decline.maps(world, "headcount") and decline.shape_decline(world, LATER)


def test_a_verb_or_function_word_of_a_correction_is_never_taught(world):
    layer = world.semantic
    said = Example(1, "how many people did we count there in the year 1980", FIX, extra={CORRECTED: True})
    assert lessons(layer, [said]) == {}  # 'people', 'count', 'there': no term the decline judgment asks about
    asked = Example(2, CORRECTED_Q, FIX, extra={CORRECTED: True})
    assert lessons(layer, [Example(3, CORRECTED_Q, FIX)]) == {}  # unmarked: the agent's answer, SUPPORT applies
    other = Example(
        4, "What was the headcount of each country in the year 1990?", "SELECT country, area FROM countries"
    )
    assert lessons(layer, [asked, other]) == {}  # aligned to two columns: ambiguous, taught to neither


def test_another_connections_correction_teaches_nothing(world):
    world.approved.examples.approve("other", CORRECTED_Q, FIX, **{CORRECTED: True})
    teach(world, LATER)
    assert not decline.maps(world, "headcount") and decline.shape_decline(world, LATER)


@pytest.mark.usefixtures("bi_home")
def test_approve_with_sql_marks_the_pair_a_correction(tmp_path):
    store = str(tmp_path / "sessions.db")
    a = bi_agent(ScriptedModel([]), db="tpch", store=store, session_id="s1", clarify=False)
    a.ask("How many nations are there?")  # no reply: fails before any query, a correction can still be kept
    examples = open_examples(store, embedder=None)
    approve(a, examples, sql="SELECT count(*) FROM nation")
    [kept] = examples.list("tpch")
    assert kept.extra == {CORRECTED: True}
