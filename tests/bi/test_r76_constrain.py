"""Round 76 (bench/bi_r76.md; measured, not shipped: `constrain` is not wired into the BI steps, a measure for the
next round): the SQL the model would write is decoded under a pattern whose identifiers are the slice's
real tables and columns, so it cannot name a column no table has ('no table has a column named ...', 20 of 29 stored
errors whose last SQL survives). The pattern is read here with Python's `re` (plain syntax: the grammar's reading)."""

from __future__ import annotations

import re

import pytest

from orrery.bi.compose import PARTS_SCHEMA
from orrery.bi.constrain import constrained, sql_pattern
from orrery.bi.tools import QUERY_SCHEMA

SLICE = ["birds", "species"]


def matches(pattern: str, text: str) -> bool:
    return re.fullmatch(pattern, text) is not None


@pytest.mark.parametrize(
    "item",
    [
        "avg(birds.mass_g)",
        "count(*)",
        "species.common_name = 'Gentoo'",
        "birds.mass_g > 3000.5 AND species.common_name IN ('Adelie', 'Chinstrap')",
        "max(birds.mass_g) - min(birds.mass_g) AS spread",
        "count(DISTINCT birds.bird_id) DESC",
        "CASE WHEN birds.mass_g >= 2800 THEN 1 ELSE 0 END",
        "ROUND(100.0 * SUM(mass_g) / COUNT(*), 2)",
        "species.common_name LIKE '%too' AND birds.mass_g IS NOT NULL",
        "CAST(birds.mass_g AS INTEGER)",
        "EXTRACT(YEAR FROM birds.mass_g) = 1995",
    ],
)
def test_sql_over_real_columns_is_admitted(birds, item):
    assert matches(sql_pattern(birds.semantic, SLICE, aliases=False), item)


@pytest.mark.parametrize(
    "item",
    [
        "avg(birds.weight)",  # a name no table has ('heaviest gentoo weighed' wrote `weight`)
        "birds.beak_length_mm",
        "species.mass_g",  # a real column under a table that lacks it
        "islands.isl_name",  # a table outside the slice
        "avg(mass_gram)",  # a real name, lengthened
        "mass_gbird_id",  # two real names run together spell nothing real
        'common_name"',  # no quotes around identifiers: the JSON string would escape them
    ],
)
def test_an_invented_column_is_not(birds, item):
    assert not matches(sql_pattern(birds.semantic, SLICE, aliases=False), item)


def test_words_cannot_be_glued_into_a_name(sqlite_bi):
    """Counter-example of another domain: with columns `ship` and `mode`, `shipmode` (or `ship_mode`) is no column."""
    bi = sqlite_bi(
        "CREATE TABLE shipments (id INTEGER, ship TEXT, mode TEXT, units INTEGER);", {"shipments": [(1, "a", "air", 3)]}
    )
    pattern = sql_pattern(bi.semantic, ["shipments"], aliases=False)
    assert matches(pattern, "sum(shipments.units)") and matches(pattern, "shipments.mode")
    assert not any(
        matches(pattern, s) for s in ("shipmode", "shipments.shipmode", "ship_mode", "shipping_mode", "modeunits")
    )


def test_sql_over_the_schema_may_alias_its_tables(birds):
    """The SQL step writes its own FROM: `T1.mass_g` qualifies by alias; the column must still be real."""
    sql = (
        "SELECT AVG(T1.mass_g) FROM birds AS T1 JOIN species AS T2 ON T1.species_id = T2.id "
        "WHERE T2.common_name = 'Gentoo'"
    )
    assert matches(sql_pattern(birds.semantic, SLICE, aliases=True), sql)
    assert not matches(sql_pattern(birds.semantic, SLICE, aliases=True), sql.replace("T1.mass_g", "T1.weight_g"))
    assert not matches(sql_pattern(birds.semantic, SLICE, aliases=False), sql)


def test_a_name_that_needs_quotes_leaves_the_schema_free(sqlite_bi):
    bi = sqlite_bi('CREATE TABLE t ("unit price" REAL, qty INTEGER);', {"t": [(1.0, 2)]})
    assert sql_pattern(bi.semantic, ["t"], aliases=False) is None
    assert constrained(PARTS_SCHEMA, None) == PARTS_SCHEMA


def test_every_sql_string_is_constrained_but_the_decline(birds):
    pattern = sql_pattern(birds.semantic, SLICE, aliases=True)
    parts = constrained(PARTS_SCHEMA, pattern)
    assert all(parts["properties"][k]["items"]["pattern"] == pattern for k in ("select", "where", "order_by"))
    query = constrained(QUERY_SCHEMA, pattern)
    assert query["anyOf"][0]["properties"]["sql"]["pattern"] == pattern
    assert "pattern" not in query["anyOf"][1]["properties"]["cannot_answer"]
    assert "pattern" not in PARTS_SCHEMA["properties"]["select"]["items"]  # the shared shape is left alone
