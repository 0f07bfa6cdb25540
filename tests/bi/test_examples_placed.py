"""Where a term the decline judgment let through lives (`examples.placements`, bench/bi_memory.md round 11): a
run of the question's words that nothing names is written on the one table or column an approved query near the
question reads whose name MiniLM puts near each of its words; two such names, or a word of a stored value, place
nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from orrery.bi.context import BIContext
from orrery.bi.engines import SQLiteEngine
from orrery.bi.examples import COLUMN_MEANING, PLACED, ExampleMemory, stored_words, taught, untaught
from orrery.bi.semantic import draft, rank_fields
from orrery.recall import ApprovedExamples

ASKED = "how many clients do we have in Canada?"
BY_CUSTOMER = ("How many customers are in France?", "SELECT count(*) FROM Customer WHERE Country = 'France'")
REVENUE = "what is the revenue in Canada?"
BY_INVOICE = ("What is the total billed in France?", "SELECT sum(Billed), sum(Discount) FROM Invoice")


class Vectors:
    """An embedder whose vectors are set by hand: a text given is (cosine c with the axis named) c on that axis and
    the rest on its own; a text not given is a unit vector of its own, orthogonal to every other."""

    def __init__(self, near: dict[str, dict[str, float]]):
        self.near, self.own = near, {}

    def embed(self, texts):
        return np.array([self._vector(t) for t in texts])

    def _vector(self, text):
        v = np.zeros(64)
        v[self.own.setdefault(text, 8 + len(self.own))] = 1.0
        for axis, c in self.near.get(text, {}).items():
            v *= np.sqrt(1 - c**2)
            v[["a", "b", "c"].index(axis)] = c
        return v / np.linalg.norm(v)


@pytest.fixture
def layer_and_bi(tmp_path: Path):
    path = tmp_path / "c.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE Customer (CustomerId INTEGER PRIMARY KEY, FirstName TEXT, Country TEXT)")
        con.execute(
            "CREATE TABLE Invoice (InvoiceId INTEGER PRIMARY KEY, CustomerId INTEGER, Billed REAL, Discount REAL)"
        )
        con.executemany(
            "INSERT INTO Customer VALUES (?, ?, ?)", [(i, f"n{i}", ("Canada", "France")[i % 2]) for i in range(20)]
        )
        con.executemany("INSERT INTO Invoice VALUES (?, ?, ?, ?)", [(i, i % 20, 1.0 + i, 0.1) for i in range(40)])
    engine = SQLiteEngine("c", path)
    layer = draft(engine)
    yield layer, BIContext(engine, layer, None)
    engine.close()


def memory_of(tmp_path: Path, pair: tuple[str, str], near: dict[str, dict[str, float]]) -> ExampleMemory:
    """The approved `pair`, near both asked questions (cosine 0.8 on axis 'a')."""
    questions = {ASKED: {"a": 1.0}, REVENUE: {"a": 1.0}, pair[0]: {"a": 0.8}}
    examples = ApprovedExamples(tmp_path / "m.db", embedder=Vectors(questions | near))
    examples.approve("c", *pair)
    return ExampleMemory(examples, k=3, placing=True)


def test_placing_is_off_by_default(tmp_path, layer_and_bi):
    layer, bi = layer_and_bi
    cosines = {"clients": {"b": COLUMN_MEANING + 0.02}, "customer": {"b": 1.0}}
    memory = memory_of(tmp_path, BY_CUSTOMER, cosines)
    memory.placing = ExampleMemory(memory.examples).placing  # the default (bench/bi_memory.md, round 11b's guard)
    assert PLACED not in taught(layer, memory, "c", ASKED, valued=stored_words(bi)).tables["Customer"]


def test_a_word_near_one_table_an_approved_query_read_is_written_on_that_table(tmp_path, layer_and_bi):
    layer, bi = layer_and_bi
    memory = memory_of(tmp_path, BY_CUSTOMER, {"clients": {"b": COLUMN_MEANING + 0.02}, "customer": {"b": 1.0}})
    got = taught(layer, memory, "c", ASKED, valued=stored_words(bi))
    assert got.tables["Customer"][PLACED] == ["clients"]
    assert "clients" in got.render(["Customer"])  # the SQL prompt's schema says it
    assert untaught(got).to_dict() == layer.to_dict()


def test_a_word_near_one_column_becomes_its_synonym_for_field_mapping(tmp_path, layer_and_bi):
    layer, bi = layer_and_bi
    memory = memory_of(tmp_path, BY_INVOICE, {"revenue": {"b": 0.7}, "billed": {"b": 1.0}})
    got = taught(layer, memory, "c", REVENUE, valued=stored_words(bi))
    assert got.tables["Invoice"]["columns"]["Billed"][PLACED] == ["revenue"]
    assert rank_fields(got, "revenue")[0][2] == {"table": "Invoice", "column": "Billed"}
    assert rank_fields(layer, "revenue")[0][2] != {"table": "Invoice", "column": "Billed"}


def test_a_word_near_two_read_names_is_placed_nowhere(tmp_path, layer_and_bi):
    layer, bi = layer_and_bi
    near = {"revenue": {"b": 0.7}, "billed": {"b": 1.0}, "discount": {"b": 0.9}}  # 'revenue' ~ profit and sales
    memory = memory_of(tmp_path, BY_INVOICE, near)
    assert taught(layer, memory, "c", REVENUE, valued=stored_words(bi)).to_dict() == layer.to_dict()


def test_a_stored_value_written_in_lower_case_is_placed_nowhere(tmp_path, layer_and_bi):
    layer, bi = layer_and_bi
    asked = "how many customers in canada?"
    near = {asked: {"a": 1.0}, "canada": {"c": 0.9}, "country": {"c": 1.0}}
    memory = memory_of(tmp_path, BY_CUSTOMER, near)
    assert taught(layer, memory, "c", asked).tables["Customer"]["columns"]["Country"][PLACED] == ["canada"]
    assert taught(layer, memory, "c", asked, valued=stored_words(bi)).to_dict() == layer.to_dict()


def test_a_table_placed_word_names_its_rows_where_compose_counts_them(tmp_path, layer_and_bi):
    """'how many clients ... in Canada': a COUNT(*) filtered on a customer's value counts the customers, not the
    invoices that refer to them, once 'clients' names the Customer table (its key column's synonym)."""
    from orrery.bi.compose import QueryParts, compose

    layer, bi = layer_and_bi
    memory = memory_of(tmp_path, BY_CUSTOMER, {"clients": {"b": COLUMN_MEANING + 0.02}, "customer": {"b": 1.0}})
    parts = QueryParts(select=["count(*)"], where=[], group_by=["Customer.Country"], having=[], order_by=[])
    canada = [{"mention": "Canada", "table": "Customer", "column": "Country", "value": "Canada"}]
    assert "Invoice" in compose(parts, layer, ["Customer"], canada, "sqlite", ASKED)  # what it did without placing
    got = taught(layer, memory, "c", ASKED, valued=stored_words(bi))
    assert got.tables["Customer"]["columns"]["CustomerId"]["synonyms"] == ["clients"]
    assert "Invoice" not in compose(parts, got, ["Customer"], canada, "sqlite", ASKED)
