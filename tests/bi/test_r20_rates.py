"""Round 20: 'per U' right after a word is the unit of a rate ('births per woman', 'miles per gallon'), which groups
nothing, so a unit the data does not spell is no missing group; 'per U' after a comma, and 'each U', stay groups
the data must hold (orrery/bi/decline.py: `_rate_unit`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi.decline import asked_terms, missing_asked, shape_decline
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def bi(tmp_path: Path) -> BIContext:
    """Countries' yearly fertility (births per woman) and cars' fuel use (miles per gallon), with orders that
    record no courier."""
    path = tmp_path / "r.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE indicators (country TEXT, region TEXT, year INTEGER, fertility REAL);
            CREATE TABLE cars (name TEXT, origin TEXT, mpg REAL);
            CREATE TABLE orders (order_id INTEGER, status TEXT, amount REAL);
        """)
        con.executemany(
            "INSERT INTO indicators VALUES (?, ?, ?, ?)",
            [(c, r, y, 2.0 + y / 1000) for c, r in [("Chile", "Americas"), ("Japan", "Asia")] for y in (1970, 1990)],
        )
        con.executemany(
            "INSERT INTO cars VALUES (?, ?, ?)", [(f"car {i}", ("Asia", "Europe")[i % 2], 20.0 + i) for i in range(6)]
        )
        con.executemany(
            "INSERT INTO orders VALUES (?, ?, ?)", [(i, ("Open", "Closed")[i % 2], 5.0 * i) for i in range(6)]
        )
    engine = SQLiteEngine("r", path)
    yield BIContext(engine, draft(engine), ScriptedModel([]))
    engine.close()


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("average births per woman for each region in 1970", ["region"]),
        ("babies per woman in Japan and Chile back in 1990?", []),
        ("average miles per gallon of Asian cars versus European ones", []),
    ],
)
def test_the_unit_of_a_rate_is_no_group_asked(question, asked):
    assert asked_terms(question) == asked


@pytest.mark.parametrize(
    "question",
    [
        "average births per woman for each region in 1970",
        "babies per woman in Japan and Chile back in 1990?",
        "average miles per gallon of Asian cars versus European ones",
    ],
)
def test_a_rate_whose_unit_the_data_does_not_spell_is_not_declined(bi, question):
    assert shape_decline(bi, question) is None


@pytest.mark.parametrize(
    "question",
    [
        "How many orders, per courier?",  # after a comma: a group
        "How many orders went to each courier?",  # 'each': a group
    ],
)
def test_a_group_the_data_lacks_is_still_missing(bi, question):
    assert missing_asked(bi, question) == ["courier"]


def test_a_group_of_two_words_after_per_is_still_a_group(bi):
    assert missing_asked(bi, "total amount per courier depot") == ["courier depot"]
