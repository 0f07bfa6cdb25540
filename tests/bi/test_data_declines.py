"""Declines that are judgments about the data: a year no date column reaches; the MiniLM loader shared by the
decline check and the approved examples."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi import decline, examples
from orrery.bi.agent import BIAgent
from orrery.bi.decline import named_years, shape_decline, year_ranges, years_outside
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext
from orrery.llm.scripted import ScriptedModel
from orrery.recall import embed


def _engine(tmp_path: Path, script: str, rows: dict[str, list[tuple]]) -> SQLiteEngine:
    path = tmp_path / "d.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(script)
        for table, values in rows.items():
            con.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(values[0]))})", values)
    return SQLiteEngine("d", path)


@pytest.fixture
def sales(tmp_path: Path):
    """Invoices dated as ISO text 2009-2013, a yearly rate with a number year 2005-2007, a month number column."""
    engine = _engine(
        tmp_path,
        "CREATE TABLE invoices (id INTEGER, invoice_date TEXT, total REAL, month INTEGER);"
        "CREATE TABLE rates (year INTEGER, rate REAL);",
        {
            "invoices": [
                (i, f"{2009 + i % 5}-0{1 + i % 9}-1{i % 10} 00:00:00", 1.5 * i, 1 + i % 12) for i in range(40)
            ],
            "rates": [(2005, 1.0), (2006, 2.0), (2007, 3.0)],
        },
    )
    yield BIContext(engine, draft(engine), None)
    engine.close()


@pytest.fixture
def shop(tmp_path: Path):
    """Orders with no column that says when."""
    engine = _engine(
        tmp_path, "CREATE TABLE orders (id INTEGER, city TEXT, sales REAL);", {"orders": [(1, "Oslo", 2.0)]}
    )
    yield BIContext(engine, draft(engine), None)
    engine.close()


def test_the_years_of_each_date_column_are_read_from_the_data(sales):
    spans = year_ranges(sales)
    assert spans[("invoices", "invoice_date")] == (2009, 2013)  # text dates: the years written in them
    assert spans[("rates", "year")] == (2005, 2007)  # a number column of years: MIN / MAX
    assert ("invoices", "month") not in spans  # 1 to 12 are not years


def test_a_year_no_date_column_reaches_declines_and_says_the_range(sales):
    reason = years_outside(sales, "What was the invoice total in 2019?")
    assert reason and "2009 to 2013 (invoices.invoice_date)" in reason and "2005 to 2007 (rates.year)" in reason
    assert "nothing in 2019" in reason
    assert years_outside(sales, "What was the invoice total in 2011?") is None
    assert years_outside(sales, "What was the rate in 2006?") is None  # another column's year counts too
    assert years_outside(sales, "How many invoices after 2015?") and years_outside(sales, "How many before 2001?")
    assert years_outside(sales, "How many invoices since 2010?") is None  # later years exist
    assert years_outside(sales, "How many invoices between 2000 and 2010?") is None  # the range overlaps
    assert "2019" in (shape_decline(sales, "invoice total for 2019") or "")


def test_a_number_that_is_a_quantity_is_no_year(sales):
    assert named_years("Which invoices total more than 2000? Show 1500 invoices") == []
    assert named_years("How many invoices in 1999, and from 2010 to 2012?") == [
        (1999, "in"),
        (2010, "after"),
        (2012, "before"),
    ]
    assert named_years("How many invoices for Customer#000002019?") == []
    assert years_outside(sales, "Which invoices total more than 2000?") is None


def test_a_year_before_the_singular_noun_it_qualifies_is_a_year(sales):
    # a plural after the number makes it a count ('2000 customers'); a singular noun is what the year is of
    assert named_years("2019 invoice total, please") == [(2019, "in")]
    assert named_years("the 2019 share of rock") == [(2019, "in")]
    assert named_years("2000 customers and 1500 invoices") == []
    assert "2019" in (years_outside(sales, "2019 invoice total, please") or "")
    assert years_outside(sales, "2011 invoice total, please") is None


def test_without_a_date_column_a_year_is_no_reason_to_decline(shop):
    assert year_ranges(shop) == {}
    assert years_outside(shop, "What were the sales in Oslo in 1850?") is None


def test_the_agent_declines_a_year_outside_the_data_before_any_model_call(sales, tmp_path):
    agent = BIAgent(ScriptedModel([]), sales.engine, semantic=sales.semantic, store=tmp_path / "s.db", prose=False)
    r = agent.ask("What was the total of the invoices in 2019?")
    assert r.status == "declined" and "2019" in r.answer and r.sql is None


def test_one_lazy_minilm_serves_the_decline_check_and_the_examples(monkeypatch, tmp_path):
    shared = embed.lazy_embedder()
    assert decline._embedder() is shared  # None when the model package is not installed: both fall back alike
    assert examples.open_examples(tmp_path / "a.db").store.embedder is shared
    monkeypatch.setattr(embed, "model_zip", lambda: (_ for _ in ()).throw(embed.ConfigError("not installed")))
    assert embed.lazy_embedder() is None and decline._embedder() is None
    assert examples.open_examples(tmp_path / "b.db").store.embedder is None


@pytest.fixture
def movies(tmp_path: Path):
    """Movies with a director among thousands of names (not indexed: only stored), a rating and a genre."""
    directors = ["Stanley Kubrick", *(f"Director Number{i}" for i in range(2100))]
    rows = [
        (i, title, directors[i % len(directors)], ("R", "PG-13", "G")[i % 3], ("Drama", "Comedy")[i % 2])
        for i, title in enumerate(["Heaven Gates", *(f"Film {i}" for i in range(2200))])
    ]
    engine = _engine(
        tmp_path,
        "CREATE TABLE movies (id INTEGER, title TEXT, director TEXT, rating TEXT, genre TEXT);",
        {"movies": rows},
    )
    yield BIContext(engine, draft(engine), None)
    engine.close()


def test_a_value_written_in_lower_case_before_its_kind_is_held_by_the_stored_value(movies):
    assert ("movies", "director") not in movies.semantic.value_columns()  # found by a bounded probe, not the index
    assert decline.value_word(movies, "kubrick") and not decline.value_word(movies, "spielberg")
    # 'films' is held by its meaning (MiniLM: ~ the movies table), 'kubrick' by a director's name
    assert shape_decline(movies, "how many kubrick films are there?") is None
    assert "spielberg films" in (shape_decline(movies, "how many spielberg films are there?") or "")
    # a lone word inside a title is no evidence: 'gates' of 'Heaven Gates' is no field of a movie
    assert "gates" in (shape_decline(movies, "how many gates does each movie have?") or "")


def test_a_hyphenated_value_with_its_kind_word_is_that_value(movies):
    assert shape_decline(movies, "How many R-rated movies are there?") is None  # 'R' of the rating
    assert "Z-rated" in (shape_decline(movies, "How many Z-rated movies are there?") or "")
    # without a kind word the hyphenated name is one value: 'Drama' alone does not hold 'Neo-Drama'
    assert "Neo-Drama" in (shape_decline(movies, "How many movies are in the Neo-Drama genre?") or "")


def test_a_share_names_no_field(movies):
    question = "What percentage of the movies are rated R?"
    assert decline.missing_fields(movies, ["percentage", "share", "proportion"], question) == []
    assert shape_decline(movies, question) is None


def test_a_planner_term_made_of_a_value_and_a_table_is_in_the_data(movies):
    question = "How many movies are drama movies, and how many are by spielberg?"
    assert decline.missing_fields(movies, ["drama movie count", "spielberg movie count"], question) == [
        "spielberg movie count"
    ]
