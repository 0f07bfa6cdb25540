"""Round 36, rule J: a name resolved in a lookup whose row has a code beside it ('Jamaica', 'JAM'), when the rows the
question asks about are a table joined to nothing that holds the code: the code, on that table's column. On a
database of its own: nations (a lookup) joined to a medal tally, and sprint medalists holding only the code."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext, entity_resolution
from orrery.tools.core import RunContext

NATIONS = [("JAM", "Jamaica"), ("USA", "United States"), ("KEN", "Kenya"), ("NOR", "Norway"), ("CAN", "Canada")]


@pytest.fixture
def games(tmp_path: Path):
    path = tmp_path / "games.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE nations (nation_cd TEXT, nation_nm TEXT);"
            "CREATE TABLE tally (nation_cd TEXT, gold INTEGER, total INTEGER);"
            "CREATE TABLE sprint_medalists (athlete TEXT, noc TEXT, medal TEXT, yr INTEGER);"
        )
        con.executemany("INSERT INTO nations VALUES (?, ?)", NATIONS)
        con.executemany("INSERT INTO tally VALUES (?, ?, ?)", [(c, i, 3 * i) for i, (c, _) in enumerate(NATIONS)])
        con.executemany(
            "INSERT INTO sprint_medalists VALUES (?, ?, ?, ?)",
            [(f"Runner {i}", ("JAM", "USA", "CAN")[i % 3], ("GOLD", "SILVER")[i % 2], 1960 + 4 * i) for i in range(12)],
        )
    engine = SQLiteEngine("games", path)
    layer = draft(engine)
    layer.joins = ["tally.nation_cd = nations.nation_cd"]  # the medalists join nothing, as in the bench's olympics
    yield BIContext(engine, layer, None)
    engine.close()


def resolved(bi: BIContext, question: str, mention: str) -> list[tuple[str, str, str]]:
    bi.question, bi.clarify = question, False
    got = entity_resolution(RunContext(deps=bi, options={}), [mention])["resolved"]
    return [(r["table"], r["column"], r["value"]) for r in got]


def test_a_name_is_its_code_in_the_rows_asked_about(games):
    question = "jamaica's sprint medalists - list athlete and year"
    assert resolved(games, question, "jamaica") == [("sprint_medalists", "noc", "JAM")]


def test_the_name_stays_where_the_rows_asked_about_reach_it(games):
    question = "what is the gold total of Kenya in the tally of nations"
    assert resolved(games, question, "Kenya") == [("nations", "nation_nm", "Kenya")]  # the tally joins nations
