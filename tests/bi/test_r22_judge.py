"""Round 22: a word the shape check's word test does not place (`unplaced`) declines a question before the plan
only when the model, shown the nearest columns, judges none of them holds it (`judged_held`, one call per term);
a question the shape declines for another reason, or does not decline, pays no judge call."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi.agent import BIAgent
from orrery.bi.decline import nearest_columns, shape_decline, unplaced
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext
from orrery.llm.scripted import ScriptedModel

RETURNED = "How many orders were returned?"
INHABITANTS = "Which country had the most inhabitants in 2010?"


@pytest.fixture
def world(tmp_path: Path) -> SQLiteEngine:
    path = tmp_path / "w.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE indicators (country TEXT, year INTEGER, population INTEGER);
            CREATE TABLE orders (order_id INTEGER, ship_date TEXT, status TEXT, amount REAL);
        """)
        con.executemany(
            "INSERT INTO indicators VALUES (?, ?, ?)",
            [(c, y, 1000 * (i + 1)) for i, c in enumerate(["Chile", "Peru", "Japan"]) for y in (2000, 2010)],
        )
        con.executemany(
            "INSERT INTO orders VALUES (?, ?, ?, ?)",
            [(i, f"2024-01-{1 + i % 28:02d}", ("Open", "Closed")[i % 2], 10.0 * i) for i in range(20)],
        )
    engine = SQLiteEngine("w", path)
    yield engine
    engine.close()


def test_the_words_judged_are_the_ones_nothing_places_and_the_judge_sees_the_nearest_columns(world):
    bi = BIContext(world, draft(world), ScriptedModel([]))
    assert unplaced(bi, RETURNED) == ["returned"] and unplaced(bi, INHABITANTS) == ["inhabitants"]
    shown = nearest_columns(bi, "inhabitants")
    assert len(shown) == 4 and any(c.startswith("indicators.population: ") for c in shown)


def test_a_word_the_judge_says_no_column_holds_still_declines_before_the_plan(world, tmp_path):
    model = ScriptedModel([{"column": "none"}])
    r = BIAgent(model, world, store=tmp_path / "s.db", sql_mode="parts").ask(RETURNED)
    assert r.status == "declined" and "'returned'" in r.answer and r.sql is None
    assert len(model.requests) == 1  # the judge's call only: no plan
    assert "Word: returned" in model.requests[0]["messages"][-1].content


def test_a_word_the_judge_says_a_column_holds_goes_on_to_the_plan(world, tmp_path):
    plan = {"request": "The country with the most people in 2010", "kind": "query", "values": [], "fields": []}
    parts = {
        "select": ["indicators.country"],
        "where": ["indicators.year = 2010"],
        "group_by": [],
        "having": [],
        "order_by": ["indicators.population DESC"],
        "limit": 1,
    }
    model = ScriptedModel([{"column": "indicators.population"}, plan, parts, "Japan."])
    r = BIAgent(model, world, store=tmp_path / "s.db", sql_mode="parts").ask(INHABITANTS)
    assert r.status == "completed" and r.rows == [["Japan"]]


def test_a_question_the_shape_declines_for_another_reason_pays_no_judge_call(world, tmp_path):
    bi = BIContext(world, draft(world), ScriptedModel([]))
    question = "Which country will have the most inhabitants in 2050?"
    assert shape_decline(bi, question) is not None and shape_decline(bi, question, ["inhabitants"]) is not None
    model = ScriptedModel([])
    r = BIAgent(model, world, store=tmp_path / "s.db", sql_mode="parts").ask(question)
    assert r.status == "declined" and model.requests == []
