"""The numbers a user writes as words (orrery.grounding): read by BI's filters and markets' windows."""

import pytest

from orrery.grounding import number_words, writes_a_number


@pytest.mark.parametrize(
    "text,values",
    [
        ("four-cylinder fords", {4}),
        ("more than fifteen tracks", {15}),
        ("seventy two and ninety", {70, 2, 90}),
        ("someone said it", set()),  # 'one' inside a word is no number
    ],
)
def test_number_words_are_read_as_whole_words(text, values):
    assert number_words(text) == values


@pytest.mark.parametrize(
    "text,written",
    [
        ("more than fifteen tracks", True),
        ("cars of the eighties", True),
        ("a dozen eggs", True),
        ("after 1990", True),
        ("the biggest cities and counties", False),  # 'cities' ends in -ties but is no number
        ("properties for sale", False),
    ],
)
def test_whether_a_number_is_written_at_all(text, written):
    assert writes_a_number(text) is written
