"""What approved answers teach a connection's semantic layer (`examples.taught`): a phrase of an approved question
that no schema name spells becomes a synonym of the one column its SQL used unnamed; only approved pairs teach,
a removed one stops teaching, and a connection never learns from another's pairs."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi import decline
from orrery.bi.agent import BIAgent
from orrery.bi.engines import SQLiteEngine
from orrery.bi.examples import ExampleMemory, lessons, taught, teach, untaught
from orrery.bi.semantic import draft, rank_fields
from orrery.bi.tools import BIContext
from orrery.llm.scripted import ScriptedModel
from orrery.recall import ApprovedExamples
from orrery.recall.examples import Example

TAUGHT_BY = ("What is the average fuel economy of cars with 150 hp?", "SELECT avg(mpg) FROM cars WHERE hp = 150")
LATER = "What is the fuel economy of car 3?"


@pytest.fixture
def cars(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(decline, "_embedder", lambda: None)  # the lexical rules alone: 'fuel economy' is unspelt
    path = tmp_path / "c.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE cars (name TEXT, mpg REAL, hp INTEGER, origin TEXT)")
        rows = [(f"car {i}", 20.0 + i % 9, 90 + i, ("Europe", "Japan", "USA")[i % 3]) for i in range(60)]
        con.executemany("INSERT INTO cars VALUES (?, ?, ?, ?)", rows)
    engine = SQLiteEngine("c", path)
    bi = BIContext(engine, draft(engine), None)
    bi.approved = ExampleMemory(ApprovedExamples(tmp_path / "m.db", embedder=None), floor=None)
    yield bi
    engine.close()


def test_a_phrase_taught_by_an_approved_pair_maps_to_its_column_on_a_later_question(cars):
    assert not decline.maps(cars, "fuel economy") and decline.shape_decline(cars, LATER)
    cars.approved.examples.approve("c", *TAUGHT_BY)
    teach(cars, LATER)
    best = rank_fields(cars.semantic, "fuel economy")[0]
    assert best[2] == {"table": "cars", "column": "mpg"}
    assert decline.maps(cars, "fuel economy") and decline.shape_decline(cars, LATER) is None
    assert "fuel economy" in cars.semantic.render(["cars"])  # the SQL prompt's slice says it too
    assert not decline.maps(cars, "torque")  # nothing else is held


def test_teaching_again_replaces_what_was_taught_and_untaught_restores_the_layer(cars):
    before = cars.semantic.to_dict()
    cars.approved.examples.approve("c", *TAUGHT_BY)
    teach(cars, LATER)
    once = cars.semantic.to_dict()
    teach(cars, LATER)
    assert cars.semantic.to_dict() == once  # not piled up
    assert untaught(cars.semantic).to_dict() == before


def test_a_rejected_or_removed_pair_teaches_nothing(cars):
    examples = cars.approved.examples
    examples.reject("c", *TAUGHT_BY)
    teach(cars, LATER)
    assert not decline.maps(cars, "fuel economy")
    kept = examples.approve("c", *TAUGHT_BY)
    teach(cars, LATER)
    assert decline.maps(cars, "fuel economy")
    assert examples.remove("c", kept)
    teach(cars, LATER)
    assert not decline.maps(cars, "fuel economy") and decline.shape_decline(cars, LATER)


def test_a_connection_never_learns_from_another_ones_pairs(cars):
    cars.approved.examples.approve("other", *TAUGHT_BY)
    teach(cars, LATER)
    assert not decline.maps(cars, "fuel economy")
    assert taught(cars.semantic, cars.approved, "other", LATER).to_dict() != cars.semantic.to_dict()


def test_leave_one_out_a_question_is_not_taught_by_its_own_pair(cars):
    cars.approved.examples.approve("c", *TAUGHT_BY)
    cars.approved.leave_one_out = True
    teach(cars, TAUGHT_BY[0].upper())
    assert not decline.maps(cars, "fuel economy")
    teach(cars, LATER)
    assert decline.maps(cars, "fuel economy")


def test_only_an_unspelt_phrase_beside_one_unnamed_column_is_learned_and_a_disputed_one_by_none(cars):
    layer = cars.semantic
    two_unnamed = Example(1, "What is the fuel economy of the fastest car?", "SELECT mpg FROM cars ORDER BY hp DESC")
    assert lessons(layer, [two_unnamed]) == {}  # hp and mpg both unnamed ('fastest' is a superlative): no lesson
    named = Example(
        2, "What is the average mpg of cars from Japan?", "SELECT avg(mpg) FROM cars WHERE origin = 'Japan'"
    )
    assert lessons(layer, [named]) == {}  # every column named, 'Japan' a literal: nothing to learn
    assert lessons(layer, [Example(3, *TAUGHT_BY)]) == {("cars", "mpg"): ["fuel economy"]}
    disputed = Example(4, "What is the highest fuel economy of cars?", "SELECT max(hp) FROM cars")
    assert lessons(layer, [Example(3, *TAUGHT_BY), disputed]) == {}


def test_the_agent_plans_with_the_taught_layer(cars, tmp_path):
    cars.approved.examples.approve("c", *TAUGHT_BY)
    parts = {"select": ["avg(cars.mpg)"], "where": [], "group_by": [], "having": [], "order_by": [], "limit": None}
    model = ScriptedModel([{"request": "average mpg", "kind": "query", "values": [], "fields": []}, parts])
    agent = BIAgent(model, cars.engine, semantic=cars.semantic, store=tmp_path / "s.db", clarify=False, prose=False)
    question = "What is the average fuel economy of the cars?"
    assert agent.ask(question).status == "declined"  # no memory: 'fuel economy' is not in the data
    agent = BIAgent(model, cars.engine, semantic=cars.semantic, store=tmp_path / "s.db", clarify=False, prose=False)
    agent.bi.approved = cars.approved
    answer = agent.ask(question)
    assert answer.status == "completed" and "mpg" in answer.sql


def test_the_decline_evidence_reads_two_glued_words_and_still_no_part_of_a_word(tmp_path):
    memory = ExampleMemory(ApprovedExamples(tmp_path / "m.db", embedder=None), floor=None)
    memory.examples.approve("tpch", "How many line items were shipped by RAIL?", "SELECT count(*) FROM lineitem")
    question = "How many line items were shipped by AIR?"
    assert memory.covers("tpch", "lineitem number", question)  # 'line items' says the table `lineitem`
    assert not memory.covers("tpch", "air line item count", question)  # 'air' is in no approved question
    assert not memory.covers("other", "lineitem number", question)
