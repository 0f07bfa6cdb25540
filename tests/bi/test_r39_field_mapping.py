"""Round 39: field mapping hands the column of the table the question names when two tables' columns share a name
(rule C), and the repair after a made-up column names the whole layer's nearest columns with their table (rule
D)."""

from __future__ import annotations

import pytest
from bi_compose_helpers import mapped

from orrery.bi import tools
from orrery.bi.compose import _layer_hints
from orrery.bi.context import NeedsClarification
from orrery.tools.core import RunContext


@pytest.fixture
def trade(sqlite_bi):
    """Customers and suppliers, each with an account balance named alike but for its table's prefix."""
    bi = sqlite_bi(
        "CREATE TABLE customer (c_custkey INTEGER, c_name TEXT, c_acct_bal REAL);"
        "CREATE TABLE supplier (s_suppkey INTEGER, s_name TEXT, s_acct_bal REAL);",
        {"customer": [(1, "Ann", 10.0), (2, "Bob", 20.0)], "supplier": [(1, "Acme", 5.0), (2, "Bolt", 7.0)]},
    )
    bi.clarify = True
    return bi


def test_the_column_of_the_table_the_question_names(trade):
    assert mapped(trade, "average account balance of our suppliers", "account balance") == "supplier.s_acct_bal"
    assert mapped(trade, "customers' mean account balance", "account balance") == "customer.c_acct_bal"


def test_no_table_named_still_asks(trade):
    trade.question = "the average account balance"
    with pytest.raises(NeedsClarification):
        tools.field_mapping(RunContext(deps=trade, options={}), ["account balance"])


@pytest.fixture
def world(sqlite_bi):
    return sqlite_bi(
        "CREATE TABLE countries (name TEXT, region TEXT);"
        "CREATE TABLE indicators (country TEXT, year INTEGER, life_expectancy REAL, population REAL);",
        {
            "countries": [("Kenya", "Africa"), ("Japan", "Asia")],
            "indicators": [("Kenya", 1990, 57.0, 2.3e7), ("Japan", 1990, 79.0, 1.2e8)],
        },
    )


def test_the_repair_names_a_column_of_a_table_outside_the_query(world):
    hints = _layer_hints(world.semantic, ["indicators.lifespan"], ["countries"])
    assert "'indicators.lifespan' may be indicators.life_expectancy" in hints


def test_a_name_nothing_is_like_adds_no_hint(world):
    assert _layer_hints(world.semantic, ["zzqx"], ["countries"]) == ""
