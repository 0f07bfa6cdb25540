"""Round 15 (bench/bi_memory.md): a lower-case word that names a stored value in another form is a value word, so
the question's condition reads a filter and a pair without one does not fit it: a country's demonym, another form
of a category's value, or either misspelt by one edit. A word that is neither stays no value word."""

from __future__ import annotations

import sqlite3

import pytest

from orrery.bi.context import BIContext
from orrery.bi.engines import SQLiteEngine
from orrery.bi.examples import condition, fits, value_test
from orrery.bi.semantic import draft
from orrery.recall.examples import Example


@pytest.fixture
def shop(tmp_path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE customers (name TEXT, country TEXT, region TEXT, total REAL)")
        places = [("Brazil", "Americas"), ("Canada", "Americas"), ("Nigeria", "Africa"), ("Norway", "Europe")]
        rows = [(f"Customer {i}", *places[i % 4], float(i)) for i in range(40)]
        con.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)", rows)
    engine = SQLiteEngine("shop", path)
    yield BIContext(engine, draft(engine), None)
    engine.close()


@pytest.mark.parametrize("word", ["nigerian", "canadian", "european", "brazillian", "canadien", "nigerians"])
def test_a_demonym_another_form_or_a_misspelling_of_a_stored_value_is_a_value_word(shop, word):
    assert value_test(shop)(word)


@pytest.mark.parametrize("word", ["japanese", "buyers", "average", "typical", "brazzilliann", "norwegians"])
def test_a_word_naming_no_stored_value_is_none(shop, word):
    # 'japanese': Japan is not stored; 'brazzilliann': two edits; 'norwegians': the demonym of a stored value, held
    assert value_test(shop)(word) is (word == "norwegians")


def test_a_misspelt_demonym_reads_a_filter_and_a_pair_without_one_does_not_fit(shop):
    test = value_test(shop)
    question = "brazillian buyers - typical invoice amount (mean)"
    assert condition(question) == "none" and condition(question, test) == "filter"
    plain = Example(1, "How many customers are there?", "SELECT count(*) FROM customers")
    assert fits("How many customers do we have?", plain, valued=test)
    assert not fits("How many brazillian customers do we have?", plain, valued=test)
