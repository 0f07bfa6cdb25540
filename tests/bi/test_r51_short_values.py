"""Round 51, rule S: a category's value the user writes in a clipped short form ('comp sci', 'psych', 'e. coli'),
which the value index cannot spell, is that value when exactly one value reads so. On a database of its own:
students of fields of study from regions, and germs of kinds."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext, entity_resolution, short_values
from orrery.tools.core import RunContext

FIELDS = ["Computer Science", "Computer Engineering", "Psychology", "Biology", "History"]
REGIONS = [("EUR", "Europe"), ("FIN", "Finland"), ("ASI", "Asia")]
GERMS = [("Escherichia coli", "Rod"), ("Staphylococcus aureus", "Coccus"), ("Bacillus cereus", "Rod")]
KINDS = ["Metalloid", "Transition Metal", "Noble Gas"]


@pytest.fixture
def school(tmp_path: Path):
    path = tmp_path / "s.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE students (student_id INTEGER, field_nm TEXT, region_cd TEXT, grade REAL);"
            "CREATE TABLE regions (region_cd TEXT, region_nm TEXT);"
            "CREATE TABLE germs (germ_id INTEGER, org_name TEXT, shape TEXT, mic REAL);"
            "CREATE TABLE elements (symbol TEXT, kind TEXT, density REAL);"
        )
        con.executemany("INSERT INTO regions VALUES (?, ?)", REGIONS)
        con.executemany(
            "INSERT INTO students VALUES (?, ?, ?, ?)",
            [(i, FIELDS[i % 5], REGIONS[i % 3][0], i / 10) for i in range(60)],
        )
        con.executemany("INSERT INTO germs VALUES (?, ?, ?, ?)", [(i, *GERMS[i % 3], i / 4) for i in range(30)])
        con.executemany("INSERT INTO elements VALUES (?, ?, ?)", [(f"E{i}", KINDS[i % 3], i) for i in range(30)])
    engine = SQLiteEngine("s", path)
    yield BIContext(engine, draft(engine), None)
    engine.close()


def _read(bi: BIContext, question: str) -> dict[str, str]:
    return {r["mention"]: r["value"] for r in short_values(bi, question)}


def test_a_clipped_word_or_phrase_is_the_one_value_it_begins(school):
    assert _read(school, "average grade of euro students in psych") == {"euro": "Europe", "psych": "Psychology"}
    assert _read(school, "how many comp sci students") == {"comp sci": "Computer Science"}
    assert _read(school, "mean mic, staph aureus vs e. coli") == {
        "staph aureus": "Staphylococcus aureus",
        "e. coli": "Escherichia coli",
    }


def test_entity_resolution_resolves_a_short_form_no_fuzzy_match_finds(school):
    school.question = "average grade of the comp sci students"
    got = entity_resolution(RunContext(deps=school, options={}), ["comp sci"])
    assert {(r["column"], r["value"]) for r in got["resolved"]} == {("field_nm", "Computer Science")}


def test_a_prefix_of_two_values_a_whole_word_of_a_value_and_a_code_stay_unread(school):
    assert _read(school, "how many comp students") == {}  # Computer Science or Computer Engineering: no guess
    assert _read(school, "average density of the metals") == {}  # 'metal' of Transition Metal, not Metalloid
    assert _read(school, "students who finished with the top grade") == {}  # the code FIN is no short form of it
    assert _read(school, "how many students are in the us") == {}  # a grammar word, two letters
    assert _read(school, "grade of the students per region") == {}  # schema words


def test_the_plan_resolves_a_short_form_the_planner_left_out(school, tmp_path):
    """A question whose only value is a clipped form: the planner's reply names no value, the agent adds the short
    form, so entity resolution runs and the SQL step is told the stored value."""
    from orrery.bi.agent import BIAgent
    from orrery.llm.scripted import ScriptedModel

    model = ScriptedModel(
        [
            {"request": "Average grade of comp sci students", "kind": "query", "values": [], "fields": ["grade"]},
            {"sql": "SELECT avg(grade) AS g FROM students WHERE field_nm = 'Computer Science'"},
        ]
    )
    r = BIAgent(model, school.engine, store=tmp_path / "s.db", prose=False, sql_mode="sql").ask(
        "avg grade of comp sci students"
    )
    assert r.status == "completed"
    resolved = [t["result"] for t in r.todos if t["tool"] == "entity_resolution"]
    assert resolved and '"value": "Computer Science"' in resolved[0]
