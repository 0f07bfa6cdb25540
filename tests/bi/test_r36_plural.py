"""Round 36, rule Q: a row's own name cannot be what rows asked in the plural are ('how many counties does Texas
have': the state, not the county named Texas). On a database of its own: towns in zones, one town named after a
zone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext, _qualifier


@pytest.fixture
def towns(tmp_path: Path):
    path = tmp_path / "t.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE towns (town_id INTEGER, name TEXT, code TEXT, people INTEGER);"
            "CREATE TABLE zones (code TEXT, name TEXT);"
        )
        zones = [("ON", "Ontario"), ("QC", "Quebec"), ("AB", "Alberta"), ("OR", "Orland"), ("IN", "Inland")]
        con.executemany("INSERT INTO zones VALUES (?, ?)", zones)
        con.executemany(
            "INSERT INTO towns VALUES (?, ?, ?, ?)",
            [(i, "Ontario" if i == 7 else f"Place{i}", zones[i % 5][0], 100 * i) for i in range(40)],
        )
    from orrery.bi.engines import SQLiteEngine

    engine = SQLiteEngine("t", path)
    yield BIContext(engine, draft(engine), None)
    engine.close()


def test_a_rows_name_is_no_value_of_rows_asked_in_the_plural(towns):
    town = next(c for c in towns.index() if c.table == "towns" and c.value == "Ontario")
    for question in ("how many towns does Ontario have?", "which towns have most people, Ontario only"):
        moved, why = _qualifier(towns, town, question)
        assert (moved.table, moved.column) == ("zones", "name") and "town rows" in why, question


def test_the_rows_own_name_stays_in_the_singular_or_when_named(towns):
    town = next(c for c in towns.index() if c.table == "towns" and c.value == "Ontario")
    for question in (
        "people of Ontario town against the other towns",  # the one town named Ontario
        "towns named Ontario",
        "how many people live in Ontario?",  # no town asked about
    ):
        assert _qualifier(towns, town, question) == (town, None), question
