"""Round 65 (bench/bi.md, round 65): a name the planner passed to entity resolution that stays unresolved, that the user
wrote and that the data holds in no form (`decline.absent_mentions`) is missing: the plan would run on without it
and count every row. Only names are judged (capitalised by the planner or by the user), word by word."""

from __future__ import annotations

import pytest

from orrery.bi.decline import absent_mentions

SCRIPT = (
    "CREATE TABLE routes (route_id INTEGER, src TEXT, airline TEXT, ship_mode TEXT);"
    "CREATE TABLE customers (cust_id INTEGER, nation TEXT, spent REAL);"
)
CITIES = ["OSLO", "LONDON", "PARIS", "BERLIN", "MADRID"]
ROWS = {
    "routes": [(i, CITIES[i % 5], ["Delta", "Ryanair"][i % 2], ["AIR", "RAIL"][i % 2]) for i in range(20)],
    "customers": [(i, ["JAPAN", "CHINA", "FRANCE"][i % 3], 10.0 * i) for i in range(30)],
}


@pytest.fixture
def data(sqlite_bi):
    return sqlite_bi(SCRIPT, ROWS)


def test_a_name_the_data_holds_in_no_form_is_missing(data):
    # the user's lower-case name, capitalised by the planner; a capitalised name past the question's first word
    assert absent_mentions(data, ["Lufthansa"], "lufthansa routes, how many") == ["Lufthansa"]
    assert absent_mentions(data, ["Reykjavik"], "how many routes start in Reykjavik") == ["Reykjavik"]
    # a demonym of a country the data lacks, beside a word the data does not spell
    assert absent_mentions(data, ["Norwegian buyers"], "what have norwegian buyers spent") == ["Norwegian buyers"]


def test_a_misspelt_or_other_form_of_a_held_value_is_not_missing(data):
    assert absent_mentions(data, ["Londn"], "routes out of londn, how many") == []  # a misspelling of LONDON
    assert absent_mentions(data, ["Japanese buyers"], "what have japanese buyers spent") == []  # JAPAN
    assert absent_mentions(data, ["ryanair"], "ryanair routes") == []


def test_what_is_no_name_or_not_the_users_is_not_judged(data):
    for mentions, question in (
        (["shipping mode"], "routes per shipping mode"),  # a field-like phrase the planner listed as a value
        (["highest elevation"], "airport at the highest elevation"),  # lower case: no name
        (["Paramount Pictures"], "how many routes from oslo"),  # the planner's own words
        (["3 Airlines"], "cities with 3 airlines"),  # a quantity
    ):
        assert absent_mentions(data, mentions, question) == [], question
