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
TAUGHT_TOO = ("What is the total fuel economy of cars with 120 hp?", "SELECT sum(mpg) FROM cars WHERE hp = 120")
LATER = "What is the fuel economy of car 3?"


def approve_both(examples: ApprovedExamples, connection: str = "c") -> list[int]:
    """Two approved questions that align 'fuel economy' to `mpg` (SUPPORT): what teaches it."""
    return [examples.approve(connection, *pair) for pair in (TAUGHT_BY, TAUGHT_TOO)]


@pytest.fixture
def cars(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(decline, "_embedder", lambda: None)  # the lexical rules alone: 'fuel economy' is unspelt
    path = tmp_path / "c.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE cars (name TEXT, mpg REAL, hp INTEGER, origin TEXT, built TEXT)")
        rows = [
            (f"car {i}", 20.0 + i % 9, 90 + i, ("Europe", "Japan", "USA")[i % 3], f"{1970 + i % 12}-05-01")
            for i in range(60)
        ]
        con.executemany("INSERT INTO cars VALUES (?, ?, ?, ?, ?)", rows)
    engine = SQLiteEngine("c", path)
    bi = BIContext(engine, draft(engine), None)
    bi.approved = ExampleMemory(ApprovedExamples(tmp_path / "m.db", embedder=None), floor=None)
    yield bi
    engine.close()


def test_a_phrase_taught_by_two_approved_pairs_maps_to_its_column_on_a_later_question(cars):
    assert not decline.maps(cars, "fuel economy") and decline.shape_decline(cars, LATER)
    cars.approved.examples.approve("c", *TAUGHT_BY)
    teach(cars, LATER)
    assert not decline.maps(cars, "fuel economy")  # one approved question is not enough (a verb, a slip)
    cars.approved.examples.approve("c", *TAUGHT_TOO)
    teach(cars, LATER)
    best = rank_fields(cars.semantic, "fuel economy")[0]
    assert best[2] == {"table": "cars", "column": "mpg"}
    assert decline.maps(cars, "fuel economy") and decline.shape_decline(cars, LATER) is None
    assert "fuel economy" in cars.semantic.render(["cars"])  # the SQL prompt's slice says it too
    assert not decline.maps(cars, "torque")  # nothing else is held


def test_teaching_again_replaces_what_was_taught_and_untaught_restores_the_layer(cars):
    before = cars.semantic.to_dict()
    approve_both(cars.approved.examples)
    teach(cars, LATER)
    once = cars.semantic.to_dict()
    teach(cars, LATER)
    assert cars.semantic.to_dict() == once  # not piled up
    assert untaught(cars.semantic).to_dict() == before


def test_a_rejected_or_removed_pair_teaches_nothing(cars):
    examples = cars.approved.examples
    examples.reject("c", *TAUGHT_BY)
    examples.reject("c", *TAUGHT_TOO)
    teach(cars, LATER)
    assert not decline.maps(cars, "fuel economy")
    kept = approve_both(examples)
    teach(cars, LATER)
    assert decline.maps(cars, "fuel economy")
    assert examples.remove("c", kept[0])
    teach(cars, LATER)
    assert not decline.maps(cars, "fuel economy")  # one pair left: below SUPPORT
    assert examples.remove("c", kept[1])
    teach(cars, LATER)
    assert decline.shape_decline(cars, LATER)  # and no approved question is evidence for the term any more


def test_a_connection_never_learns_from_another_ones_pairs(cars):
    approve_both(cars.approved.examples, "other")
    teach(cars, LATER)
    assert not decline.maps(cars, "fuel economy")
    assert taught(cars.semantic, cars.approved, "other", LATER).to_dict() != cars.semantic.to_dict()


def test_leave_one_out_a_question_is_not_taught_by_its_own_pair(cars):
    approve_both(cars.approved.examples)
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
    taught_by = [Example(3, *TAUGHT_BY), Example(5, *TAUGHT_TOO)]
    assert lessons(layer, taught_by) == {("cars", "mpg"): ["fuel economy"]}
    assert lessons(layer, taught_by[:1]) == {}  # one approved question alone teaches nothing
    assert lessons(layer, [taught_by[0], Example(6, TAUGHT_BY[0].upper(), TAUGHT_BY[1])]) == {}  # the same question
    disputed = Example(4, "What is the highest fuel economy of cars?", "SELECT max(hp) FROM cars")
    assert lessons(layer, [*taught_by, disputed]) == {}


def test_the_agent_plans_with_the_taught_layer(cars, tmp_path):
    approve_both(cars.approved.examples)
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


RELEASED = ("How many cars were made in 1975?", "SELECT count(*) FROM cars WHERE built LIKE '1975%'")
FROM_JAPAN = ("How many cars come from Japan?", "SELECT count(*) FROM cars WHERE origin = 'Japan'")


def described(layer, column: str) -> str:
    return layer.tables["cars"]["columns"][column].get("description", "")


def test_how_an_approved_query_compared_a_column_with_a_value_reaches_a_later_question_of_that_kind(cars):
    examples = cars.approved.examples
    examples.approve("c", *RELEASED)
    kept = examples.approve("c", *FROM_JAPAN)
    layer = taught(cars.semantic, cars.approved, "c", "What is the average mpg of cars made in 1980?")
    assert "built LIKE '1975%'" in described(layer, "built") and "= 'Japan'" not in described(layer, "origin")
    layer = taught(cars.semantic, cars.approved, "c", "What is the average mpg of cars from USA?")
    assert "origin = 'Japan'" in described(layer, "origin") and "'1975%'" not in described(layer, "built")
    assert "origin = 'Japan'" in layer.render(["cars"])  # the SQL prompt's slice
    plain = taught(cars.semantic, cars.approved, "c", "What is the average mpg of the cars?")
    assert plain.to_dict() == cars.semantic.to_dict()  # a question comparing no value is taught no value
    assert untaught(layer).to_dict() == cars.semantic.to_dict()
    assert examples.remove("c", kept)
    assert "= 'Japan'" not in described(taught(cars.semantic, cars.approved, "c", "cars from USA?"), "origin")
    examples.reject("c", *FROM_JAPAN)
    assert "= 'Japan'" not in described(taught(cars.semantic, cars.approved, "c", "cars from USA?"), "origin")
    assert "= 'Japan'" not in described(taught(cars.semantic, cars.approved, "other", "cars from USA?"), "origin")
