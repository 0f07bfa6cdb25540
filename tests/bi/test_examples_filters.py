"""Approved filters as decline evidence (`ExampleMemory.filter_values`, off by default: bench/bi_memory.md round 12): a declined
term's word is held when it is spelt by, another form of, or (for a value written in lower case, a category's
code) MiniLM near a word of a text value a near approved query filters on; a name's word is spelt, never meant."""

from __future__ import annotations

import math

import numpy as np

from orrery.bi.examples import COLUMN_MEANING, ExampleMemory
from orrery.recall import ApprovedExamples

LARGE = ("How many large airports are there?", "SELECT count(*) FROM airports WHERE Type = 'large_airport'")
BIG = "count of the big airports"
QUEEN = ("How many tracks does Queen have?", "SELECT count(*) FROM Track WHERE Composer LIKE '%Queen%'")
ROYALTY = "How much royalty is paid to Queen?"


class Angles:
    """Each text given a unit vector at its cosine with one reference; a text not given is orthogonal to all."""

    def __init__(self, cosines: dict[str, float]):
        self.angles = {t: math.acos(c) for t, c in cosines.items()}

    def embed(self, texts):
        return np.array(
            [[math.cos(a), math.sin(a), 0.0] if (a := self.angles.get(t)) is not None else [0, 0, 1.0] for t in texts]
        )


def memory_of(tmp_path, approved: tuple[str, str], asked: str, cosines: dict[str, float]) -> ExampleMemory:
    embedder = Angles({asked: 1.0, approved[0]: 0.8, **cosines})
    examples = ApprovedExamples(tmp_path / "m.db", embedder=embedder)
    examples.approve("db", *approved)
    return ExampleMemory(examples, k=3, filter_values=True)  # off by default (round 12: no gain), measured here


def test_a_word_near_a_coded_value_an_approved_query_filters_on_is_covered(tmp_path):
    memory = memory_of(tmp_path, LARGE, BIG, {"big": COLUMN_MEANING + 0.02, "large": 1.0})
    assert memory.covers("db", "big airports", BIG)  # 'big' by 'large' of 'large_airport', 'airports' by the table
    memory.filter_values = False
    assert not memory.covers("db", "big airports", BIG)


def test_a_word_far_from_every_filtered_value_is_not_covered(tmp_path):
    memory = memory_of(tmp_path, LARGE, BIG, {"big": COLUMN_MEANING - 0.02, "large": 1.0})
    assert not memory.covers("db", "big airports", BIG)


def test_a_word_spelt_by_or_another_form_of_a_filtered_name_is_covered(tmp_path):
    approved = ("Count the customers of the old continent", "SELECT count(*) FROM Customer WHERE Region = 'Europe'")
    asked = "european customers"
    memory = memory_of(tmp_path, approved, asked, {"european": 1.0})  # near no name read
    assert memory.covers("db", "european customers", asked)  # 'Europe' is a name: spelt or in another form only
    assert memory.covers("db", "europe", asked)
    memory.filter_values = False
    assert not memory.covers("db", "european customers", asked)


def test_a_name_a_filter_holds_is_no_meaning_for_another_word(tmp_path):
    memory = memory_of(tmp_path, QUEEN, ROYALTY, {"royalty": 0.9, "queen": 1.0})
    assert not memory.covers("db", "royalty", ROYALTY)  # MiniLM puts 'royalty' near 'queen': a band's name
