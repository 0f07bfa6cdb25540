"""A reading whose value is a part of another reading's value that the same mention says whole is dropped ('New
York State' read as the city 'York' beside the state 'New York'); two values the question names apart both stay."""

from __future__ import annotations

from orrery.bi.tools import _not_covered, entity_resolution
from orrery.tools.core import RunContext


def reading(mention: str, column: str, value: str) -> dict:
    return {"mention": mention, "table": "orders", "column": column, "value": value}


def test_a_part_of_a_value_the_mention_says_whole_is_dropped():
    city = reading("New York State", "city", "York")
    state = reading("new york", "state", "New York")
    assert _not_covered([city, state]) == [state]


def test_two_values_named_apart_both_stay():
    york, new_york = reading("York", "city", "York"), reading("New York", "city", "New York")
    assert _not_covered([york, new_york]) == [york, new_york]  # 'York' says no 'new'
    one, other = reading("Ohio", "state", "Ohio"), reading("Ohio", "county", "Ohio")
    assert _not_covered([one, other]) == [one, other]  # the same words: a choice, not a part


def test_the_state_said_whole_is_no_city_named_by_its_last_word(sqlite_bi):
    bi = sqlite_bi(
        "CREATE TABLE orders (city TEXT, state TEXT, profit REAL);",
        {"orders": [("York", "Pennsylvania", 1.0), ("Albany", "New York", 2.0), ("Buffalo", "New York", 3.0)]},
    )
    bi.question = "tech products profit in new york state"
    got = entity_resolution(RunContext(deps=bi, options={}), ["New York State"])["resolved"]
    assert [(r["column"], r["value"]) for r in got] == [("state", "New York")]
