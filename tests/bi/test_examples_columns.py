"""Approved columns as decline evidence (`ExampleMemory.covers`, bench/bi_memory.md round 10): a word no approved
question says is held when MiniLM puts it near the name of a table or column an approved query near the question
reads; every word of the term must be placed, and only the near pairs' queries count."""

from __future__ import annotations

import math

from orrery.bi.examples import COLUMN_MEANING, ExampleMemory
from orrery.recall import ApprovedExamples

APPROVED = ("How many customers are in Canada?", "SELECT count(*) FROM Customer WHERE Country = 'Canada'")
ASKED = "how many clients do we have in Canada?"


class Angles:
    """An embedder whose vectors are set by hand: each text's unit vector at the angle given (cosine = similarity);
    a text not given is orthogonal to every text given."""

    def __init__(self, cosines: dict[str, float]):
        self.angles = {t: math.acos(c) for t, c in cosines.items()}

    def embed(self, texts):
        import numpy as np

        return np.array([[0.0, 0.0, 1.0] if t not in self.angles else [*self._unit(t), 0.0] for t in texts])

    def _unit(self, text):
        return math.cos(self.angles[text]), math.sin(self.angles[text])


def memory_of(tmp_path, cosines: dict[str, float], question_cosine: float = 0.8) -> ExampleMemory:
    """The approved pair at `question_cosine` from ASKED; `cosines`: each text's cosine with the reference vector,
    so a word at c and a name at 1.0 are c apart (a text not given, `country`, is near none)."""
    embedder = Angles({ASKED: 1.0, APPROVED[0]: question_cosine, **cosines})
    examples = ApprovedExamples(tmp_path / "m.db", embedder=embedder)
    examples.approve("chinook", *APPROVED)
    return ExampleMemory(examples, k=3)


def test_a_word_near_a_column_an_approved_query_read_is_covered(tmp_path):
    memory = memory_of(tmp_path, {"clients": COLUMN_MEANING + 0.02, "customer": 1.0})
    assert memory.covers("chinook", "clients", ASKED)


def test_a_word_near_no_approved_column_is_not_covered(tmp_path):
    memory = memory_of(tmp_path, {"clients": COLUMN_MEANING - 0.02, "customer": 1.0})
    assert not memory.covers("chinook", "clients", ASKED)


def test_a_spelt_modifier_does_not_lift_a_missing_head(tmp_path):
    asked = "What is the average age of our customers?"
    memory = memory_of(tmp_path, {asked: 1.0, "age": 0.0, "customer": 1.0})
    assert not memory.covers("chinook", "customer age", asked)
    assert memory.covers("chinook", "customer country", ASKED)  # both words spelt by the approved query's names


def test_only_an_approved_query_near_the_question_is_evidence(tmp_path):
    memory = memory_of(tmp_path, {"clients": 0.9, "customer": 1.0}, question_cosine=0.1)
    assert not memory.covers("chinook", "clients", ASKED)  # the pair is below FLOOR (0.3)
    assert not memory.covers("tpch", "clients", ASKED)  # another connection's pairs never count
