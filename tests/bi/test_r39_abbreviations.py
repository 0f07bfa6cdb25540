"""Round 39: the short forms of a word a column's name uses that field mapping missed ('len' length, 'wt' weight,
'mpg' miles per gallon), read against the user's term, and what they must not read."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose
from orrery.bi.decline import missing_fields
from orrery.bi.semantic import abbreviates, rank_fields


@pytest.fixture
def birds(sqlite_bi):
    """Measurements whose names are short forms, two sharing a prefix, three sharing a suffix."""
    return sqlite_bi(
        "CREATE TABLE obs (bill_len_mm REAL, bill_depth_mm REAL, mg_wt REAL, k_wt REAL, na_wt REAL, mpg REAL,"
        " cd TEXT);",
        {"obs": [(39.1, 18.7, 3.6, 0.1, 13.6, 18.0, "A"), (46.5, 17.9, 0.0, 0.6, 14.1, 24.0, "B")]},
    )


def _top(bi, term: str) -> tuple[float, str]:
    score, _, field = rank_fields(bi.semantic, term)[0]
    return score, field.get("column", "")


def test_a_prefix_before_the_last_consonants_and_a_words_first_and_last_letters():
    assert abbreviates("len", "length") and abbreviates("mon", "month")
    assert abbreviates("wt", "weight") and abbreviates("ht", "height")


def test_short_words_and_inflections_are_no_such_short_form():
    assert not abbreviates("cd", "card")  # a word of four letters
    assert not abbreviates("cd", "counted") and not abbreviates("cd", "compared")  # a verb's ending, not its letters
    assert not abbreviates("vote", "voters")  # a bare prefix of four letters is a word, not a short form
    assert not abbreviates("age", "average") and not abbreviates("age", "agent")  # a prefix ending in a vowel
    assert not abbreviates("county", "country")


def test_the_users_words_find_the_column_their_short_form_names(birds):
    assert _top(birds, "bill length") == (90.0, "bill_len_mm")
    assert _top(birds, "bill depth")[1] == "bill_depth_mm"  # two columns sharing a prefix keep apart
    assert _top(birds, "miles per gallon") == (100.0, "mpg")  # a one-word name of initials
    assert missing_fields(birds, ["bill length"], "which species has the longest bill length") == []
    sql = compose(QueryParts(select=["AVG(bill_length)"]), birds.semantic, ["obs"], [], "sqlite", "avg bill length")
    assert "bill_len_mm" in sql


def test_a_word_several_columns_write_out_ranks_none_first(birds):
    scores = {f.get("column"): s for s, _, f in rank_fields(birds.semantic, "weight")}
    assert scores["mg_wt"] == scores["k_wt"] == scores["na_wt"] == 90.0  # the letters left over decide nothing
    assert rank_fields(birds.semantic, "mg weight")[0][2]["column"] == "mg_wt"
