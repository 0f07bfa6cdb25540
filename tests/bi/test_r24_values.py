"""Round 24 (bench/bi.md "Round 24"): values a question names in words the value index does not spell as they are."""

from __future__ import annotations

import pytest

from orrery.bi import decline, tools
from orrery.tools.core import RunContext


@pytest.fixture
def shop(sqlite_bi):
    """Customers by country, tracks by title (one sounds like a demonym), cars by a region table, and a director
    column with too many names to index."""
    return sqlite_bi(
        "CREATE TABLE customers (id INTEGER, name TEXT, country TEXT);"
        "CREATE TABLE tracks (id INTEGER, title TEXT);"
        "CREATE TABLE regions (code INTEGER, region TEXT);"
        "CREATE TABLE cars (id INTEGER, model TEXT, origin INTEGER, mpg REAL);",
        {
            "customers": [(i, f"Customer {i}", ("Germany", "France", "Canada", "Norway")[i % 4]) for i in range(40)],
            "tracks": [(i, ("Monkey Wrench", "Blue Train", "So What", "Giant Steps")[i % 4]) for i in range(8)],
            "regions": [(1, "Europe"), (2, "Asia"), (3, "America")],
            "cars": [(i, f"model {i}", 1 + i % 3, 20.0 + i) for i in range(30)],
        },
    )


def _values(bi, question: str) -> set[str]:
    return {str(r["value"]) for r in decline.demonym_values(bi, question)}


def test_a_demonym_in_lower_case_or_opening_the_question_is_its_country(shop):
    assert _values(shop, "germans plus french - total customer count") == {"Germany", "France"}
    assert _values(shop, "Norwegian customers: how many?") == {"Norway"}  # the first word's capital is no reason
    assert _values(shop, "norwegians and canadians, customers each") == {"Norway", "Canada"}


def test_an_adjective_of_a_stored_place_is_that_place(shop):
    assert _values(shop, "fuel economy of the japanese/asian cars, mean mpg") == {"Asia"}  # no Japan stored
    assert _values(shop, "European-made models, their mean mpg?") == {"Europe"}


def test_a_word_that_is_no_demonym_or_is_part_of_a_longer_name_is_no_place(shop):
    assert _values(shop, "how many customers plus tracks in total") == set()
    assert _values(shop, "Who is the CEO of American Airlines?") == set()  # a word of a name, not the US
    assert _values(shop, "which region has the most cars") == set()  # 'region' is the schema's, no adjective


def test_entity_resolution_reads_french_as_france_not_a_track_that_sounds_like_it(shop):
    shop.question = "germans plus french - total customer count"
    got = tools.entity_resolution(RunContext(deps=shop, options={}), ["german", "french"])["resolved"]
    assert {r["value"] for r in got} == {"Germany", "France"}
