"""Round 57 (bench/bi.md, round 57, rule O): 'who founded / started / invented ...' asks for the person who began a thing,
a value the data would hold in a text column named by the verb (a founder, an inventor); with none it declines. A
degree after the verb ('who started the most races') is a count over rows; a founder column answers."""

from __future__ import annotations

import pytest

from orrery.bi.decline import origin, shape_decline

ISSUERS = "CREATE TABLE issuers (ticker TEXT, co_name TEXT, yr_listed INTEGER);"
ISSUER_ROWS = [("GOOG", "Alphabet", 2004), ("MSFT", "Microsoft", 1986)]
RACES = "CREATE TABLE starts (race_id INTEGER, driver TEXT, yr INTEGER, won INTEGER);"
RACE_ROWS = [(i, ("Hill", "Senna", "Prost")[i % 3], 1985 + i % 8, i % 2) for i in range(24)]


@pytest.mark.parametrize("question", ["who started google and when", "who invented the company's product"])
def test_who_began_a_thing_declines_where_no_text_column_names_it(sqlite_bi, question):
    bi = sqlite_bi(ISSUERS, {"issuers": ISSUER_ROWS})
    assert "who" in (shape_decline(bi, question) or "")


def test_a_founder_column_answers_who_founded_it(sqlite_bi):
    bi = sqlite_bi(
        "CREATE TABLE firms (co_name TEXT, founder TEXT);", {"firms": [("Alphabet", "Larry Page"), ("Dell", "Dell")]}
    )
    assert origin(bi, "who founded alphabet") is None


@pytest.mark.parametrize(
    "question", ["who started the most races", "who started more races, Hill or Senna", "who won the most in 1990"]
)
def test_a_count_over_rows_or_another_verb_is_no_origin(sqlite_bi, question):
    bi = sqlite_bi(RACES, {"starts": RACE_ROWS})
    assert origin(bi, question) is None
