"""Declines judged on the data by the question's shape (orrery/bi/decline.py): what it ranks by, which thing
it asks to identify, and a bare predicate it states, each held or not by a column, a table or a value; the
same shapes on words the data does hold are not declined."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi.agent import BIAgent
from orrery.bi.decline import (
    asked_terms,
    future,
    judgment,
    missing_asked,
    missing_fields,
    missing_values,
    named_values,
    predicate,
    shape_decline,
)
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
        con.executemany(
            "INSERT INTO indicators VALUES (?, ?, ?, ?)",
            [
                (c, y, 1.5 + i / 10, 1000 * (i + 1))
                for i, c in enumerate(["Chile", "Peru", "Japan"])
                for y in (2000, 2010)
            ],
        )
        con.executemany(
            "INSERT INTO films VALUES (?, ?, ?)",
            [(f"Film {i}", ("Pixar", "Ghibli", "Aardman")[i % 3], "PG") for i in range(9)],
        )
        con.executemany(
            "INSERT INTO orders VALUES (?, ?, ?, ?)",
            [(i, f"2024-01-{1 + i % 28:02d}", ("Open", "Closed")[i % 2], 10.0 * i) for i in range(20)],
        )
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


@pytest.mark.parametrize(
    ("question", "missing"),
    [
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
    ],
)
def test_a_shape_whose_words_the_data_lacks_is_missing(bi, question, missing):
    assert missing_asked(bi, question) == missing


@pytest.mark.parametrize(
    "question",
    [
        "Which country had the highest fertility in 2010?",
        "Which Production company made the most films?",
        "How many orders were shipped?",  # 'shipped' ~ ship_date
        "How many orders are closed?",  # a whole value of `status`
        "Which country has the largest population?",
        "What was the fertility of Chile in 2010?",  # the same measure shape, on a column
        "What is the status of the order with the largest amount?",
        "How much amount was paid on each order?",
        "Which Production company released the most films?",  # the column's own name, before the kind
        "In which year was each order shipped?",  # a date column (its type)
        "Which year is each indicator from?",  # a column named for the year
        "Which status is each order in?",
    ],
)
def test_the_same_shapes_on_what_the_data_holds_are_not_missing(bi, question):
    assert missing_asked(bi, question) == []


def test_a_text_columns_kind_is_not_a_missing_field_but_a_measure_is(bi):
    # 'production company': Production holds companies; 'production budget' needs a budget column
    assert missing_fields(bi, ["production company"], "Which production company made the most films?") == []
    assert missing_fields(bi, ["production budget"], "What was the production budget of Film 1?") == [
        "production budget"
    ]


def test_the_agent_declines_a_bare_predicate_the_data_lacks_and_answers_one_it_holds(world, tmp_path):
    plan = {"request": "Count the returned orders", "kind": "query", "values": [], "fields": []}
    model = ScriptedModel([plan])
    r = BIAgent(model, world, store=tmp_path / "s.db", sql_mode="parts", clarify=False).ask(
        "How many orders were returned?"
    )
    assert r.status == "declined" and "'returned'" in r.answer and r.sql is None
    assert model.requests == []  # the shape alone declines it: no model call at all

    parts = {
        "select": ["count(*)"],
        "where": ["orders.status = 'Closed'"],
        "group_by": [],
        "having": [],
        "order_by": [],
        "limit": None,
    }
    model = ScriptedModel([{**plan, "request": "Count closed orders", "values": ["closed"]}, parts, "10."])
    r = BIAgent(model, world, store=tmp_path / "t.db", sql_mode="parts", clarify=False).ask(
        "How many orders are closed?"
    )
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
    for question, reason in [
        ("How many orders will be shipped next month?", "what will happen"),
        ("What is the shipping cost of each order?", "'shipping cost'"),
    ]:
        model = ScriptedModel([])
        r = BIAgent(model, world, store=tmp_path / "s.db", session_id=question, clarify=False).ask(question)
        assert r.status == "declined" and reason in r.answer and model.requests == []


def test_beside_an_earlier_result_the_planner_is_asked_first(world, tmp_path):
    """With a result to analyze, a question's words may be about that result, not the schema: the plan call
    comes first and the shapes judge its query after it."""
    plan = {"request": "Count orders", "kind": "query", "values": [], "fields": []}
    parts = {"select": ["count(*)"], "where": [], "group_by": [], "having": [], "order_by": [], "limit": None}
    model = ScriptedModel([plan, parts, {**plan, "request": "Count returned orders"}])
    agent = BIAgent(model, world, store=tmp_path / "s.db", prose=False, clarify=False)
    assert agent.ask("How many orders are there?").status == "completed"
    r = agent.ask("How many orders were returned?")
    assert r.status == "declined" and "'returned'" in r.answer and len(model.requests) == 3


def test_the_values_a_question_names_are_read_from_quotes_and_capitals():
    assert named_values("How many albums does Taylor Swift have?") == ["Taylor Swift"]
    assert named_values("How many customers are in the STUDENT segment?") == ["STUDENT"]
    assert named_values("Show me the tracks in the K-Pop genre") == ["K-Pop"]  # the first word is the sentence's
    assert named_values("How many countries are in Middle East & North Africa?") == ["Middle East & North Africa"]
    assert named_values("What was China's population?") == ["China"]
    assert named_values("Count orders with status 'on hold'") == ["on hold"]


@pytest.mark.parametrize(
    ("question", "missing"),
    [
        ("What was the population of Brazil in 2000?", ["'Brazil'"]),  # no row holds it
        ("How many films did Pixer make?", ["'Pixer' (the nearest is 'Pixar')"]),  # a near value is offered
        ("How many orders are 'on hold'?", ["'on hold'"]),
    ],
)
def test_a_named_value_no_column_holds_is_missing(bi, question, missing):
    assert missing_values(bi, question) == missing
    assert shape_decline(bi, question) is not None


@pytest.mark.parametrize(
    "question",
    [
        "What was the population of Japan in 2000?",  # an indexed value
        "What was the population of JAPAN in 2000?",  # case aside
        "How many films did Pixar make?",
        "Which films are rated PG?",
        "How many Production companies are there?",  # a column's name, not a value
        "How many orders shipped in January?",  # a month
        "How many films are called Film 3?",  # a stored value
    ],
)
def test_a_named_value_the_data_holds_is_not_missing(bi, question):
    assert missing_values(bi, question) == []
    assert shape_decline(bi, question) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which film is the best one?", True),
        ("Which film would you recommend?", True),
        ("Why did the amount of orders drop?", True),
        ("Which status should we use more?", True),
        ("Which films do people like best?", True),
        ("What is my favourite film?", True),
        ("Which are the best-selling films?", False),  # a measure, not a judgment
        ("Which film has the highest rating?", False),
        ("is a longer film a good idea for a debut, your take?", True),  # the assistant's own view
        ("What do you think of the PG films?", True),
        ("pg films: overrated or not", True),
        ("Was 1995 a bad choice of year to release films?", True),
        ("How many films did we take in 1995?", False),  # 'take' without 'your'
        ("What is the idea behind the Film 3 title?", False),  # 'idea' without 'a good'
        ("Which films did your team rate?", False),  # 'your' before no word of a view
        ("is film 3 any good, what do u think", True),  # the assistant's view, as texted
        ("ur take on the PG films?", True),
        ("What do units of film stock cost?", False),  # 'do u...' is no 'do u think'
    ],
)
def test_an_opinion_or_advice_is_a_judgment_the_data_cannot_give(question, expected):
    assert bool(judgment(question)) is expected


@pytest.mark.parametrize(
    ("question", "missing"),
    [
        ("What is the email address of each order?", ["email address of order"]),
        ("What is the production status of each order?", ["production status of order"]),  # Production is a film's
        ("What is the rating of each order?", ["rating of order"]),  # films have one, orders do not
        ("How old is each film?", ["date of film"]),  # no date in films nor beside them
    ],
)
def test_a_measure_of_a_thing_needs_a_column_of_that_things_table(bi, question, missing):
    assert set(missing) <= set(missing_asked(bi, question))


@pytest.mark.parametrize(
    "question",
    [
        "What is the ship date of each order?",
        "What is the rating of each film?",
        "What is the production of each film?",
        "How old is each order?",  # its ship date
        "Which country has spent the most with us overall?",  # 'with us': the superlative is an adverb
    ],
)
def test_the_same_measure_of_a_thing_that_holds_it_is_not_missing(bi, question):
    assert missing_asked(bi, question) == []


def test_an_opinion_and_a_missing_value_decline_before_any_model_call(world, tmp_path):
    for question, reason in [
        ("Which film is the best one?", "opinion"),
        ("How many films did Disney make?", "'Disney'"),
    ]:
        model = ScriptedModel([])
        r = BIAgent(model, world, store=tmp_path / "s.db", session_id=str(len(question))).ask(question)
        assert r.status == "declined" and reason in r.answer and r.sql is None and model.requests == []


@pytest.mark.parametrize(
    "question",
    [
        "who's going to win the men's 100m at the next olympics",
        "what is going to happen to sales",
        "how many medals will Kenya take in the coming year",
        "upcoming releases by this artist",
        "which new routes open out of Boston next summer",
        "sales next season",
    ],
)
def test_an_event_still_to_come_is_the_future(question):
    assert future(question)


@pytest.mark.parametrize(
    "question",
    [
        "how many orders are going to France",
        "which customers are going to the store",
        "total sales in the next-day shipping mode",
        "who shipped the next order after order 5",
        "sales in the summer after the next-season launch",
    ],
)
def test_a_place_or_a_next_day_mode_is_not_the_future(question):
    assert future(question) is None


def test_asking_whether_something_is_worth_doing_is_advice_but_net_worth_is_a_measure():
    assert judgment("is it worth dropping the tables line since it bleeds profit")
    assert judgment("which line is not worth it")
    assert judgment("what is the net worth of our top customer") is None
    assert judgment("is that album worth buying?")  # a thing worth doing: advice
    assert judgment("is the alpha release worth watching tonight")
    assert judgment("which shares were worth nothing at the close") is None  # a value, no advice
    assert judgment("the worth of sporting goods sold") is None
