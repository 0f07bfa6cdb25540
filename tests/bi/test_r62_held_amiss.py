"""Round 62: two ways a term the data lacks was taken as held (bench/bi.md, round 62): a thing counted that is only a
title's word ('how many stars': a track named 'Stars'), and a near spelling of a data word taken for a predicate
phrase ('caused by damaged packaging': 'package'). Each declines; the same shape with a held word does not, nor a
ranking after the copula (orrery/bi/decline.py: `_only_a_title`, `_phrase_held`, `predicate_phrase`)."""

from __future__ import annotations

import pytest

from orrery.bi.agent import BIAgent, PlanReply
from orrery.bi.decline import shape_decline
from orrery.bi.tools import BIContext
from orrery.llm.scripted import ScriptedModel

NAMES = ["Stars", "Yellow Moon", "Blue Train", *(f"Song number {i}" for i in range(150))]


@pytest.fixture
def shop(sqlite_bi) -> BIContext:
    """Parts with a package type and a supply cost, their returns with a reason, and 153 tracks with a genre."""
    return sqlite_bi(
        "CREATE TABLE parts (part_id INTEGER, part_name TEXT, package_type TEXT, supply_cost REAL);"
        "CREATE TABLE returns (return_id INTEGER, part_id INTEGER, reason TEXT);"
        "CREATE TABLE tracks (track_id INTEGER, name TEXT, genre TEXT);",
        {
            "parts": [(i, f"part {i}", ("SM BOX", "LG CASE")[i % 2], 2.5 * i) for i in range(12)],
            "returns": [(i, i % 12, ("late", "wrong size")[i % 2]) for i in range(20)],
            "tracks": [(i, n, ("Rock", "Jazz", "Drama")[i % 3]) for i, n in enumerate(NAMES)],
        },
    )


def test_a_counted_thing_that_is_only_a_title_declines(shop):
    reason = shape_decline(shop, "How many stars did listeners give each track?")
    assert reason is not None and "'stars'" in reason


@pytest.mark.parametrize(
    "question",
    [
        "How many tracks are called Stars?",  # the title is the value asked for, the tracks are counted
        "How many dramas are there in each genre?",  # a category's value in the plural: a kind of row
    ],
)
def test_a_title_named_as_a_value_or_a_category_counted_stays_answerable(shop, question):
    assert shape_decline(shop, question) is None


def test_a_phrase_held_only_by_a_near_spelling_declines(shop):
    reason = shape_decline(shop, "How many returns were caused by damaged packaging?")
    assert reason is not None and "caused damaged packaging" in reason


@pytest.mark.parametrize(
    "question",
    [
        "How many parts are shipped in a package?",  # 'package': a word of the data as itself
        "How many parts were packaged by hand?",  # the predicate's own word: its near form ('package') holds
        "Which package type is used most often?",  # a ranking after the copula (round 60 declined it)
    ],
)
def test_a_phrase_with_a_word_held_as_itself_stays_answerable(shop, question):
    assert shape_decline(shop, question) is None


def test_with_asking_on_a_term_field_mapping_holds_declines_at_once(shop):
    # field mapping holds 'stars' (a track's name) and would map it, asking nothing: the question is declined now
    reason = shape_decline(shop, "How many stars did listeners give each track?", ask=True)
    assert reason is not None and "'stars'" in reason


def test_with_asking_on_a_term_field_mapping_finds_missing_is_left_to_it(shop):
    assert shape_decline(shop, "How many moods did listeners give each track?", ask=True) is None  # asked about
    assert shape_decline(shop, "How many moods did listeners give each track?") is not None  # asking off: declined


def test_the_planners_judgment_asks_about_a_term_as_the_shape_check_does(shop, tmp_path):
    # one decision for both: a term field mapping holds ('stars', a track's name) is declined, not handed to field
    # mapping (which would map it, asking nothing); a term it finds missing too ('moods') is asked about
    agent = BIAgent(ScriptedModel([]), shop.engine, store=tmp_path / "s.db", prose=False)
    for term, kind in (("stars", "cannot_answer"), ("moods", "query")):
        question = f"How many {term} did listeners give each track?"
        reply = PlanReply(request=question, kind="cannot_answer", fields=[term])
        assert agent.judge_decline(reply, question)[0] == kind
