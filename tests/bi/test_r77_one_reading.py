"""Round 77 (bench/bi_r77.md): one reading per concept. The ranking words are one list (`decline.RANKING`), read by
the decline checks and the memory alike."""

from __future__ import annotations

import pytest

from orrery.bi import decline, examples
from orrery.bi.decline import RANKING, predicate_phrase


def test_the_memory_and_the_decline_checks_read_one_list_of_ranking_words():
    assert examples.RANKING is RANKING
    assert {"top", "higher", "cheaper", "older", "better", "greatest", "most", "fewest"} <= RANKING
    assert not {"price", "rated", "best-known", "top-up"} & RANKING


@pytest.mark.parametrize(
    "question",
    ["Which suppliers are rated higher overall?", "Which films are ranked top overall?"],
)
def test_a_comparative_or_extreme_after_the_copula_ranks_and_is_no_condition(question):
    # the memory's list had 'higher' and 'top'; the decline checks' did not, and read a phrase to decline on
    assert predicate_phrase(question) == []


def test_a_phrase_with_no_ranking_word_is_still_the_condition():
    assert predicate_phrase("Which suppliers are certified as environmentally friendly?") == [
        "certified",
        "environmentally",
        "friendly",
    ]


@pytest.mark.parametrize("word", ["better", "worse"])
def test_a_degree_word_beside_a_kept_term_makes_no_longer_noun(word):
    # the decline checks' list had them, the memory's did not: 'better fuel economy' is the kept term ranked
    assert not examples._extends(word, frozenset(), None, after=False)
    assert examples._extends("diesel", frozenset(), None, after=False)  # a content word still extends it


def test_a_ranking_word_is_no_condition_on_a_held_field(sqlite_bi):
    bi = sqlite_bi(
        "CREATE TABLE parts (part_id INTEGER, category TEXT, price REAL);",
        {"parts": [(i, ("Chairs", "Desks")[i % 2], 5.0 * i) for i in range(8)]},
    )
    assert decline._without_conditions(bi, ["top", "price", "of", "chairs"]) == ["price", "of"]
