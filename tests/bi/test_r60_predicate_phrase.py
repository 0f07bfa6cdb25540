"""Round 60: a predicate phrase ending a question after its copula ('Which suppliers are certified as
environmentally friendly?') is the question's condition on the rows, as a bare predicate is: when no word of it
is held by the data the question declines; a phrase with a held word, a word of a stored value or a number, does
not (orrery/bi/decline.py: `predicate_phrase`, `unplaced`)."""

from __future__ import annotations

import pytest

from orrery.bi.decline import predicate_phrase, shape_decline
from orrery.bi.tools import BIContext


@pytest.fixture
def parts(sqlite_bi) -> BIContext:
    """Suppliers in two cities and parts of a type whose words include 'brass'."""
    return sqlite_bi(
        "CREATE TABLE suppliers (supplier_id INTEGER, supplier_name TEXT, city TEXT);"
        "CREATE TABLE parts (part_id INTEGER, supplier_id INTEGER, part_type TEXT, price REAL);",
        {
            "suppliers": [(i, f"Supplier {i}", ("Berlin", "Lyon")[i % 2]) for i in range(1, 7)],
            "parts": [(i, 1 + i % 6, ("LARGE BRUSHED BRASS", "SMALL PLATED STEEL")[i % 2], 9.5 * i) for i in range(12)],
        },
    )


def test_the_phrase_is_read_after_the_copula():
    assert predicate_phrase("Which suppliers are certified as environmentally friendly?") == [
        "certified",
        "environmentally",
        "friendly",
    ]
    assert predicate_phrase("How many orders were placed in 1997?") == []  # a number: the condition is the year
    assert predicate_phrase("Which genre is the most popular?") == []  # opens with grammar: no predicate
    assert predicate_phrase("How many customers are there in each country?") == []
    assert predicate_phrase("How many customers are female?") == []  # one word: `predicate`
    assert predicate_phrase("What is the average iron content?") == []  # what 'what is' asks for: a measure
    assert predicate_phrase("Who was the lead singer?") == []
    assert predicate_phrase("How many birds were sampled there?") == []  # one own word: no phrase


def test_a_phrase_no_word_of_the_data_holds_declines(parts):
    reason = shape_decline(parts, "Which suppliers are certified as environmentally friendly?")
    assert reason is not None and "certified environmentally friendly" in reason


@pytest.mark.parametrize(
    "question",
    [
        "How many parts are made of brass?",  # 'brass': a word of a stored part type
        "How many suppliers are located in Berlin?",  # 'Berlin': a stored city
        "Which parts are priced above ten?",  # 'priced': the price column
    ],
)
def test_a_phrase_with_a_held_word_stays_answerable(parts, question):
    assert shape_decline(parts, question) is None
