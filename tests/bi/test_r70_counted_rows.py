"""Round 70: rows counted under another noun (bench/bi_r70.md). A counted term whose head is a table's first name
token or a short form of it ('inspection count' of `insp_visits`), or a noun for a row ('records', 'entries') whose
other words the data holds, is held (`decline.missing_fields` finds nothing), counted by COUNT(*) of that table; a
count of things no table records ('pylon count', 'staff headcount', 'toll records'), a dictionary word that only
begins a longer one ('car' of 'carrier'), and a count a numeric column holds are not this rule's."""

from __future__ import annotations

import pytest

from orrery.bi.agent import BIAgent
from orrery.bi.decline import counted_table, missing_fields
from orrery.bi.tools import BIContext
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def bridges(sqlite_bi) -> BIContext:
    """Bridge inspections: one row per inspection visit (its score and the widest crack seen), and the bridges."""
    return sqlite_bi(
        "CREATE TABLE insp_visits (visit_no INTEGER, brg_cd TEXT, score REAL, crack_mm REAL);"
        "CREATE TABLE bridges (brg_code TEXT, brg_nm TEXT, river TEXT);",
        {
            "insp_visits": [(i, f"B{i % 6}", 50.0 + i, 0.1 * (i % 7)) for i in range(40)],
            "bridges": [(f"B{i}", f"Crossing {i}", ("Severn", "Tyne", "Wye")[i % 3]) for i in range(6)],
        },
    )


@pytest.fixture
def fleet(sqlite_bi) -> BIContext:
    """Cars of a fleet (a table named by a whole word) and nests with an egg count column."""
    return sqlite_bi(
        "CREATE TABLE car_fleet (car_no INTEGER, depot TEXT, km REAL);"
        "CREATE TABLE nests (nest_no INTEGER, site TEXT, egg_n INTEGER);",
        {
            "car_fleet": [(i, ("north", "south")[i % 2], 1000.0 * i) for i in range(10)],
            "nests": [(i, ("dune", "cliff")[i % 2], i % 4) for i in range(12)],
        },
    )


HELD = [
    ("inspection count", "inspection count for each river", "insp_visits"),
    ("number of inspections", "number of inspections on the Tyne bridges", "insp_visits"),
    ("inspection records", "how many inspection records for the Severn bridges", "insp_visits"),
    ("visit entries", "how many visit entries per river", "insp_visits"),
]


@pytest.mark.parametrize(("term", "question", "table"), HELD)
def test_rows_counted_under_another_noun_are_held(bridges, term, question, table):
    assert counted_table(bridges, term, question) == table
    assert missing_fields(bridges, [term], question) == []


@pytest.mark.parametrize(
    ("term", "question"),
    [
        ("pylon count", "how many pylons does each bridge have"),  # no table records pylons
        ("staff headcount", "staff headcount per river"),
        ("toll records", "how many toll records for the Severn bridges"),  # 'toll' is nothing of the data
        ("inspector", "which inspector did the most visits"),  # not counted: a person the data does not name
    ],
)
def test_a_count_of_what_no_table_records_still_declines(bridges, term, question):
    assert counted_table(bridges, term, question) is None
    assert missing_fields(bridges, [term], question) == [term]


def test_a_dictionary_word_that_begins_a_longer_one_names_no_table(fleet):
    assert counted_table(fleet, "car count", "car count per depot") == "car_fleet"
    assert counted_table(fleet, "carrier count", "how many carriers per depot") is None
    assert missing_fields(fleet, ["carrier count"], "how many carriers per depot") == ["carrier count"]


def test_a_count_a_numeric_column_holds_is_not_a_row_count(fleet):
    assert counted_table(fleet, "egg count", "egg count per site") is None  # a sum of `egg_n`, not COUNT(*)
    assert counted_table(fleet, "nest count", "nest count per site") == "nests"


def test_a_counted_term_becomes_a_query(bridges, tmp_path):
    question = "inspection count for each river"
    plan = {
        "request": "Count inspections per river",
        "kind": "cannot_answer",
        "values": [],
        "fields": ["inspection count"],
    }
    sql = {
        "sql": "SELECT b.river, COUNT(*) AS n FROM insp_visits v JOIN bridges b ON v.brg_cd = b.brg_code "
        "GROUP BY b.river"
    }
    model = ScriptedModel([plan, sql, "Done."])
    answer = BIAgent(model, bridges.engine, store=tmp_path / "s.db", clarify=False, sql_mode="sql").ask(question)
    assert answer.status == "completed" and sorted(answer.rows) == [["Severn", 14], ["Tyne", 13], ["Wye", 13]]
