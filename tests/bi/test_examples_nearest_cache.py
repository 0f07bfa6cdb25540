"""`ExampleMemory.nearest` keeps its answer per (connection, question, k) while the connection's stored pairs are
the same ones: asked again, nothing is embedded; an approval or a removal between two asks (through any store
object on the same database) is seen by the next one. Each text is embedded once (round 15): the question for all
its searches and cosines, a pair's question for every question near it."""

from __future__ import annotations

from orrery.bi.examples import ExampleMemory
from orrery.recall import ApprovedExamples

ASKED = "How many customers are there?"


class Counting:
    """A bag-of-words embedder that counts the texts it embeds."""

    VOCAB = ("count", "how", "many", "list", "names", "customers", "orders")

    def __init__(self):
        self.texts = 0
        self.given: list[str] = []

    def embed(self, texts):
        import numpy as np

        self.texts += len(texts)
        self.given += texts
        rows = np.array([[float(w in t.lower()) for w in self.VOCAB] for t in texts]) + 1e-9
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def memory_of(tmp_path) -> tuple[ExampleMemory, Counting]:
    embedder = Counting()
    examples = ApprovedExamples(tmp_path / "m.db", embedder=embedder)
    examples.approve("tpch", "How many orders are there?", "SELECT count(*) FROM orders")
    return ExampleMemory(examples, k=3), embedder


def test_asking_again_embeds_nothing(tmp_path):
    memory, embedder = memory_of(tmp_path)
    first = memory.nearest("tpch", ASKED)
    before = embedder.texts
    assert memory.nearest("tpch", ASKED) == first and first
    assert memory.covers("tpch", "orders", ASKED)  # the decline judgment's ask reads the same kept answer
    assert embedder.texts == before


def test_an_approval_between_two_asks_is_seen(tmp_path):
    memory, embedder = memory_of(tmp_path)
    assert [e.question for e in memory.nearest("tpch", ASKED)] == ["How many orders are there?"]
    other = ApprovedExamples(tmp_path / "m.db", embedder=embedder)  # another store object: the web app's, the CLI's
    other.approve("tpch", "How many customers are there in all?", "SELECT count(*) FROM customer")
    assert len(memory.nearest("tpch", ASKED)) == 2


def test_a_removal_between_two_asks_is_seen(tmp_path):
    memory, _ = memory_of(tmp_path)
    [pair] = memory.nearest("tpch", ASKED)
    assert memory.examples.remove("tpch", pair.id)
    assert memory.nearest("tpch", ASKED) == []


def test_the_answer_is_kept_per_connection_and_question(tmp_path):
    memory, _ = memory_of(tmp_path)
    assert memory.nearest("tpch", ASKED)
    assert memory.nearest("chinook", ASKED) == []  # another connection's pairs never count
    assert memory.nearest("tpch", "List the names") == []  # another question: its own search (below the floor)


def test_a_stored_pair_is_embedded_once_whatever_is_asked(tmp_path):
    memory, embedder = memory_of(tmp_path)
    memory.examples.approve("tpch", "How many customers are there in all?", "SELECT count(*) FROM customer")
    embedder.given.clear()  # what the approvals embedded (the stored items' texts)
    for question in (ASKED, "How many orders do we have?", "List the names of customers"):
        memory.nearest("tpch", question)
        memory.shown("tpch", question)  # another k: another search of the same question
        memory.candidates("tpch", question)
    assert embedder.given.count("How many orders are there?") == 1
    assert embedder.given.count("How many customers are there in all?") == 1
    assert embedder.given.count(ASKED) == 1  # the question once for its three searches and its cosines
