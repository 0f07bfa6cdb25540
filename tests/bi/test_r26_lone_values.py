"""Round 26 (bench/bi.md "Round 26"): a category's value written in lower case as one word ('furniture', 'a gas')."""

from __future__ import annotations

import pytest

from orrery.bi import decline

MAKES = ("ford", "datsun", "fiat")
NAMES = ("torino", "custom", "coupe", "wagon")


@pytest.fixture
def store(sqlite_bi):
    """Orders by category, ship mode and state code; cars by make and model: values that are words of questions."""
    return sqlite_bi(
        "CREATE TABLE orders (id INTEGER, category TEXT, shipmode TEXT, state TEXT, sales REAL);"
        "CREATE TABLE cars (id INTEGER, make TEXT, model TEXT, mpg REAL);",
        {
            "orders": [
                (
                    i,
                    ("Furniture", "Technology", "Office Supplies")[i % 3],
                    ("TRUCK", "AIR", "MAIL")[i % 3],
                    ("IN", "OR", "TX")[i % 3],
                    10.0 + i,
                )
                for i in range(30)
            ],
            # too many model names to be a category; the make is one
            "cars": [(i, MAKES[i % 3], f"{MAKES[i % 3]} {NAMES[i % 4]} {i}", 20.0 + i) for i in range(150)]
            + [(150, "ford", "ford pinto", 22.0), (151, "datsun", "datsun 810 maxima", 30.0)],
        },
    )


def _values(bi, question: str) -> set[str]:
    return {str(r["value"]) for r in decline.category_values(bi, question)}


def test_a_lower_case_word_that_is_a_whole_category_value_is_that_value(store):
    assert _values(store, "what percentage of our total sales is furniture?") == {"Furniture"}
    assert _values(store, "furniture sales in each state") == {"Furniture"}


def test_grammar_and_short_words_are_no_codes(store):
    assert _values(store, "sales in or out of state") == set()  # 'in', 'or': no state codes


def test_a_word_of_a_longer_stored_name_the_question_writes_is_no_category_value(store):
    assert _values(store, "mean mpg of a ford pinto") == set()  # 'ford' of the model 'ford pinto'
    assert _values(store, "how much did a datsun 810 cost new") == set()


def test_a_word_inside_a_thing_the_data_does_not_hold_is_no_value(store):
    assert _values(store, "Which truck driver delivered the most orders?") == set()  # a person's role
    assert _values(store, "total sales shipped by truck") == {"TRUCK"}  # the same word as a value


def test_a_hyphenated_value_written_in_lower_case_is_that_value(sqlite_bi):
    bi = sqlite_bi(
        "CREATE TABLE countries (name TEXT, region TEXT, pop REAL);",
        {"countries": [(f"c{i}", ("Sub-Saharan Africa", "South Asia", "Europe")[i % 3], 1.0 * i) for i in range(9)]},
    )
    assert _values(bi, "what was the combined pop of sub-saharan africa in 1990?") == {"Sub-Saharan Africa"}


@pytest.fixture
def codes(sqlite_bi):
    """An order priority with a code's digits, airport types with their kind, an awards text beside an oscars count."""
    return sqlite_bi(
        "CREATE TABLE orders (id INTEGER, priority TEXT);"
        "CREATE TABLE airports (id INTEGER, type TEXT);"
        "CREATE TABLE movies (id INTEGER, awards TEXT, oscars INTEGER);",
        {
            "orders": [(i, ("1-URGENT", "2-HIGH", "5-LOW")[i % 3]) for i in range(9)],
            "airports": [(i, ("large_airport", "medium_airport", "heliport")[i % 3]) for i in range(9)],
            "movies": [(i, ("Won 1 Oscar.", "Nominated for 2 Oscars.")[i % 2], i % 2) for i in range(6)],
        },
    )


def test_a_word_beside_a_codes_digits_or_its_own_kind_is_that_value(codes):
    assert _values(codes, "how many urgent orders were placed") == {"1-URGENT"}
    assert _values(codes, "count of urgent-priority orders") == {"1-URGENT"}
    assert _values(codes, "How many medium-sized airports are there?") == {"medium_airport"}


def test_a_word_beside_another_columns_name_is_no_part_value(codes):
    assert _values(codes, "which movie won the most oscars?") == set()  # 'Won 1 Oscar.': 'oscars' is a column
