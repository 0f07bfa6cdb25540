"""Declines judged on the data by the question's shape (orrery/bi/decline.py): what it ranks by, which thing
it asks to identify, and a bare predicate it states, each held or not by a column, a table or a value; the
same shapes on words the data does hold are not declined."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi.agent import BIAgent
from orrery.bi.decline import asked_terms, missing_asked, missing_fields, predicate
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def world(tmp_path: Path) -> SQLiteEngine:
    """Countries with yearly indicators and films with a production company; orders that ship (a ship date,
    a status) but record no return, no customer and no gender."""
    path = tmp_path / "w.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE indicators (country TEXT, year INTEGER, fertility REAL, population INTEGER);
            CREATE TABLE films (title TEXT, Production TEXT, rating TEXT);
            CREATE TABLE orders (order_id INTEGER, ship_date TEXT, status TEXT, amount REAL);
        """)
        con.executemany("INSERT INTO indicators VALUES (?, ?, ?, ?)",
                        [(c, y, 1.5 + i / 10, 1000 * (i + 1)) for i, c in enumerate(["Chile", "Peru", "Japan"])
                         for y in (2000, 2010)])
        con.executemany("INSERT INTO films VALUES (?, ?, ?)",
                        [(f"Film {i}", ("Pixar", "Ghibli", "Aardman")[i % 3], "PG") for i in range(9)])
        con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)",
                        [(i, f"2024-01-{1 + i % 28:02d}", ("Open", "Closed")[i % 2], 10.0 * i) for i in range(20)])
    engine = SQLiteEngine("w", path)
    yield engine
    engine.close()


@pytest.fixture
def bi(world) -> BIContext:
    return BIContext(world, draft(world), ScriptedModel([]))


def test_the_shapes_read_what_a_question_ranks_by_identifies_and_states():
    assert "unemployment rate" in asked_terms("Which country had the highest unemployment rate in 2010?")
    assert "customer bought" in asked_terms("Which customer bought the most?")  # a verb with the noun
    assert asked_terms("Which ship mode is used most often?") == ["ship mode"]  # 'often' is no noun
    assert asked_terms("What share of orders shipped late?") == []  # the noun after 'of' is what is asked
    assert "popular" not in asked_terms("Which genre is the most popular?")  # an adjective after a copula
    assert predicate("How many orders were returned?") == "returned"
    assert predicate("When was each album released?") == "released"
    assert predicate("How many routes are there?") is None
    assert predicate("How many orders were shipped in 2024?") is None  # the year is the condition


@pytest.mark.parametrize(("question", "missing"), [
    ("Which country had the highest unemployment rate in 2010?", ["unemployment rate"]),
    ("Which customer bought the most?", ["customer bought"]),
    ("How many orders were returned?", ["returned"]),
    ("How many orders are female?", ["female"]),
    ("What was the production budget of Film 1?", ["production budget"]),  # a measure: held only as a whole
    ("Who is the lead director of Film 1?", ["lead director"]),
    ("What is the status of the courier of each order?", ["courier"]),  # what a held attribute is of
    ("How much tax was paid on each order?", ["tax"]),
    ("Which record label released the most films?", ["record label"]),  # two nouns before a verb: as a whole
    ("In which year was each film produced?", ["year of film"]),  # films have no date, nor do their neighbours
    ("When was each film produced?", ["date of film"]),
    ("Which rating does each order have?", ["rating of order"]),  # films have one, orders do not
])
def test_a_shape_whose_words_the_data_lacks_is_missing(bi, question, missing):
    assert missing_asked(bi, question) == missing


@pytest.mark.parametrize("question", [
    "Which country had the highest fertility in 2010?",
    "Which Production company made the most films?",
    "How many orders were shipped?",          # 'shipped' ~ ship_date
    "How many orders are closed?",            # a whole value of `status`
    "Which country has the largest population?",
    "What was the fertility of Chile in 2010?",          # the same measure shape, on a column
    "What is the status of the order with the largest amount?",
    "How much amount was paid on each order?",
    "Which Production company released the most films?",  # the column's own name, before the kind
    "In which year was each order shipped?",            # a date column (its type)
    "Which year is each indicator from?",               # a column named for the year
    "Which status is each order in?",
])
def test_the_same_shapes_on_what_the_data_holds_are_not_missing(bi, question):
    assert missing_asked(bi, question) == []


def test_a_text_columns_kind_is_not_a_missing_field_but_a_measure_is(bi):
    # 'production company': Production holds companies; 'production budget' needs a budget column
    assert missing_fields(bi, ["production company"], "Which production company made the most films?") == []
    assert missing_fields(bi, ["production budget"], "What was the production budget of Film 1?") == [
        "production budget"]


def test_the_agent_declines_a_bare_predicate_the_data_lacks_and_answers_one_it_holds(world, tmp_path):
    plan = {"request": "Count the returned orders", "kind": "query", "values": [], "fields": []}
    model = ScriptedModel([plan])
    r = BIAgent(model, world, store=tmp_path / "s.db", sql_mode="parts").ask("How many orders were returned?")
    assert r.status == "declined" and "'returned'" in r.answer and r.sql is None
    assert model.requests == []  # the shape alone declines it: no model call at all

    parts = {"select": ["count(*)"], "where": ["orders.status = 'Closed'"], "group_by": [], "having": [],
             "order_by": [], "limit": None}
    model = ScriptedModel([{**plan, "request": "Count closed orders", "values": ["closed"]}, parts, "10."])
    r = BIAgent(model, world, store=tmp_path / "t.db", sql_mode="parts").ask("How many orders are closed?")
    assert r.status == "completed" and r.rows == [[10]]


def test_a_synonym_does_not_make_a_kind(world):
    """'record' listed among a title's synonyms does not make a 'record label' a kind of title; the column's own
    name does ('Production company')."""
    sem = draft(world)
    sem.tables["films"]["columns"]["title"]["synonyms"] = ["record"]
    bi = BIContext(world, sem, ScriptedModel([]))
    assert missing_fields(bi, ["record label"], "Which record label released the most films?") == ["record label"]
    assert missing_fields(bi, ["production company"], "Which production company released the most films?") == []


def test_a_future_question_and_a_missing_measure_decline_before_any_model_call(world, tmp_path):
    for question, reason in [("How many orders will be shipped next month?", "what will happen"),
                             ("What is the shipping cost of each order?", "'shipping cost'")]:
        model = ScriptedModel([])
        r = BIAgent(model, world, store=tmp_path / "s.db", session_id=question).ask(question)
        assert r.status == "declined" and reason in r.answer and model.requests == []


def test_beside_an_earlier_result_the_planner_is_asked_first(world, tmp_path):
    """With a result to analyze, a question's words may be about that result, not the schema: the plan call
    comes first and the shapes judge its query after it."""
    plan = {"request": "Count orders", "kind": "query", "values": [], "fields": []}
    parts = {"select": ["count(*)"], "where": [], "group_by": [], "having": [], "order_by": [], "limit": None}
    model = ScriptedModel([plan, parts, {**plan, "request": "Count returned orders"}])
    agent = BIAgent(model, world, store=tmp_path / "s.db", prose=False)
    assert agent.ask("How many orders are there?").status == "completed"
    r = agent.ask("How many orders were returned?")
    assert r.status == "declined" and "'returned'" in r.answer and len(model.requests) == 3
