"""A term no rule spells is placed by its meaning (MiniLM) against the layer's names, descriptions and categorical
values, on a layer nothing was written for; below the threshold (`decline.MEANING_FLOOR`, the one place it is read
from) it still declines, naming it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi import decline
from orrery.bi.agent import BIAgent
from orrery.bi.decline import meaning_of, missing_fields, missing_values, shape_decline
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def fields(tmp_path: Path) -> SQLiteEngine:
    """Airfields with an `altitude`; podium counts per European country (a categorical column)."""
    path = tmp_path / "fields.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE airfields (code TEXT, altitude INTEGER);
            CREATE TABLE podiums (cntry_nm TEXT, gold INTEGER);
        """)
        con.executemany("INSERT INTO airfields VALUES (?, ?)", [(f"A{i}", 100 * i) for i in range(6)])
        countries = ["Netherlands", "France", "Germany", "Norway", "Sweden", "Italy", "Spain", "Austria", "Belgium"]
        countries += ["Switzerland", "Finland", "Poland", "Denmark", "Portugal", "Greece", "Ireland"]
        con.executemany("INSERT INTO podiums VALUES (?, ?)", [(c, i) for i, c in enumerate(countries)])
    engine = SQLiteEngine("fields", path)
    yield engine
    engine.close()


@pytest.fixture
def bi(fields) -> BIContext:
    return BIContext(fields, draft(fields), None)


def test_a_term_no_name_spells_is_placed_on_the_column_it_means(bi):
    assert meaning_of(bi, "elevation") == {"table": "airfields", "column": "altitude"}
    assert shape_decline(bi, "Which airfield has the highest elevation?") is None


def test_a_term_is_placed_on_a_categorical_value_but_a_name_is_not(bi):
    assert meaning_of(bi, "swiss") == {"table": "podiums", "column": "cntry_nm", "value": "Switzerland"}
    # a name near a categorical value is as often a member of that kind the column lacks ('Brazil' is nearer
    # 'germany' than 'germany' is to any other European country here) as another form of it: not placed
    assert meaning_of(bi, "Brazil", values=False) is None
    assert "Brazil" in " ".join(missing_values(bi, "How many golds did Brazil win?"))


def test_a_phrase_of_spelt_words_is_placed_as_a_whole(bi):
    question = "What is the airfield count?"
    assert missing_fields(bi, ["airfield count"], question) == []  # the airfields counted


def test_a_term_with_no_meaning_in_the_data_still_declines_naming_it(bi):
    assert meaning_of(bi, "salary") is None
    assert "salary" in (shape_decline(bi, "What is the average salary at each airfield?") or "")


def test_the_threshold_is_read_from_one_place(bi, monkeypatch):
    monkeypatch.setattr(decline, "MEANING_FLOOR", 1.01)  # above every cosine: the lexical tests alone
    monkeypatch.setattr(decline, "MEANING_MARGIN", float("inf"))  # and no column singled out by its margin
    assert meaning_of(bi, "elevation") is None
    assert "elevation" in (shape_decline(bi, "Which airfield has the highest elevation?") or "")
    assert meaning_of(bi, "swiss") is None


def test_field_mapping_maps_the_planners_term_by_its_meaning(fields, tmp_path):
    model = ScriptedModel(
        [
            {"request": "Highest airfield", "kind": "query", "values": [], "fields": ["elevation"]},
            {"sql": "SELECT code FROM airfields ORDER BY altitude DESC LIMIT 1"},
        ]
    )
    r = BIAgent(model, fields, store=tmp_path / "s.db", prose=False, sql_mode="sql").ask(
        "Which airfield has the highest elevation?"
    )
    assert r.status == "completed" and r.rows == [["A5"]]
    assert '"column": "altitude"' in str(r.todos)
