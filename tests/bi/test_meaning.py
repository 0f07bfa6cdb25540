"""Words the schema does not spell but covers: a contraction read as its two words by the shape rules, a word
held by its meaning (MiniLM, above a floor) against the names and descriptions of tables and columns, an
aggregate word inside a measure kept ('sale amount' is the sales column); without MiniLM, only the lexical
rules judge."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi import decline
from orrery.bi.agent import BIAgent
from orrery.bi.decline import meaning_of, shape_decline
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def movies(tmp_path: Path) -> SQLiteEngine:
    """A database named 'movies' whose table has an opaque name (`omdb`); dealers that count their `cars`; orders
    with a `sales` figure per segment."""
    path = tmp_path / "movies.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE omdb (Title TEXT, Director TEXT, Year INTEGER);
            CREATE TABLE dealers (name TEXT, cars INTEGER);
            CREATE TABLE orders (segment TEXT, sales REAL);
        """)
        con.executemany(
            "INSERT INTO omdb VALUES (?, ?, ?)", [(f"T{i}", ("Ann Lee", "Bo Ray")[i % 2], 2000 + i) for i in range(8)]
        )
        con.executemany("INSERT INTO dealers VALUES (?, ?)", [(f"D{i}", i) for i in range(5)])
        con.executemany("INSERT INTO orders VALUES (?, ?)", [(("Consumer", "Corporate")[i % 2], i) for i in range(10)])
    engine = SQLiteEngine("movies", path)
    yield engine
    engine.close()


@pytest.fixture
def bi(movies) -> BIContext:
    return BIContext(movies, draft(movies), None)


def test_a_measure_the_data_lacks_declines_before_the_plan(bi):
    reason = shape_decline(bi, "What is the salary of each director?")
    assert reason and "salary" in reason
    assert "budget" in (shape_decline(bi, "How much was the budget of each movie?") or "")


def test_a_word_the_schema_does_not_spell_is_held_by_its_meaning(bi):
    assert meaning_of(bi, "films") == {}  # the database itself
    assert meaning_of(bi, "automobiles") == {"table": "dealers", "column": "cars"}
    assert shape_decline(bi, "how many films did Ann Lee direct?") is None
    assert shape_decline(bi, "How many automobiles does each dealer have?") is None


def test_meaning_holds_no_unrelated_word_nor_a_phrase_whose_own_head_is_missing(bi):
    assert meaning_of(bi, "salary") is None and meaning_of(bi, "passengers") is None
    assert meaning_of(bi, "sales target") is None  # 'sales' is spelt: only 'target' is judged, and fails
    assert "sales target" in (shape_decline(bi, "What is the sales target of each segment?") or "")


def test_without_minilm_only_the_lexical_rules_judge(bi, monkeypatch):
    monkeypatch.setattr(decline, "_embedder", lambda: None)
    assert meaning_of(bi, "films") is None
    assert "films" in (shape_decline(bi, "how many films did Ann Lee direct?") or "")


def test_an_aggregate_word_inside_a_measure_names_no_field(bi):
    assert shape_decline(bi, "what is the average sale amount in the Consumer segment?") is None
    assert decline._own_words("the total invoice amount billed") == ["invoice", "amount", "billed"]


def test_field_mapping_maps_a_term_by_its_meaning(movies, tmp_path):
    model = ScriptedModel(
        [
            {"request": "Total automobiles", "kind": "query", "values": [], "fields": ["automobiles"]},
            {"sql": "SELECT sum(cars) AS n FROM dealers"},
        ]
    )
    r = BIAgent(model, movies, store=tmp_path / "s.db", prose=False, sql_mode="sql").ask(
        "How many automobiles do the dealers have in total?"
    )
    assert r.status == "completed" and r.rows == [[10]]
    assert '"column": "cars"' in str(r.todos)
