"""Round 14 (bench/bi_memory.md): the shape words a question uses read as written, so that an approved pair of the
same shape is not left out by a misread word ('avg', 'kids per woman', 'the average invoice total')."""

from __future__ import annotations

import pytest

from orrery.bi.examples import compares, fits, shape
from orrery.recall.examples import Example


@pytest.mark.parametrize(
    ("question", "want"),
    [
        ("kids per woman across europe in 1980, avg", {"avg", "time"}),  # 'per' a unit; 'avg' an average
        ("gdp per capita in 2000", {"time"}),
        ("What is the average invoice total?", {"avg"}),  # 'total' closing a noun: a column's name
        ("What is the average invoice total per customer country?", {"avg", "group"}),
        ("blues songs, how many altogether", {"count"}),  # the count's total, not a sum
        ("give me both counts for AIR and RAIL", {"count"}),
    ],
)
def test_shape_words_are_read_as_written(question, want):
    assert shape(question) == want


@pytest.mark.parametrize(
    ("question", "want"),
    [
        ("sales per region", {"group"}),  # 'per' before a grouping word stays a grouping
        ("What is the total invoice amount per year?", {"group", "sum"}),
        ("What is the total?", {"sum"}),
        ("What is the grand total of sales?", {"sum"}),
        ("revenue of every store, altogether", {"group", "sum"}),  # 'altogether' with no count is a sum
    ],
)
def test_sum_and_grouping_words_still_read(question, want):
    assert shape(question) == want


def test_plus_joins_a_comparison_but_a_values_own_ampersand_does_not():
    assert compares("how many songs, Blues + Jazz")
    assert not compares("How many countries are in Europe & Central Asia?")


def test_a_pair_of_the_same_shape_is_shown_for_an_abbreviated_average():
    pair = Example(
        1,
        "What was the average fertility in Europe & Central Asia in 1990?",
        "SELECT AVG(fertility) FROM indicators WHERE year = 1990 AND region = 'Europe & Central Asia'",
    )
    assert fits("kids per woman across Europe & Central Asia in 1980, avg", pair)
    assert not fits("kids per woman across Europe & Central Asia in 1980", pair)  # no average asked
