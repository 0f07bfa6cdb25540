"""Round 36, rule P: a value written by the start of its first word ('strep species': the genus 'Streptococcus'),
in the table the mention's other words mean; a start two values share is not guessed. On a database of its own:
organisms with a genus, and drugs, one drug's name beginning as one genus does."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext, entity_resolution
from orrery.tools.core import RunContext

ORGANISMS = [
    ("Streptococcus fecalis", "Streptococcus"),
    ("Streptococcus viridans", "Streptococcus"),
    ("Pseudomonas aeruginosa", "Pseudomonas"),
    ("Pseudoalteromonas tunicata", "Pseudoalteromonas"),
    ("Brucella abortus", "Brucella"),
    ("Salmonella typhi", "Salmonella"),
]


@pytest.fixture
def lab(tmp_path: Path):
    path = tmp_path / "lab.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE organisms (org_no INTEGER, org_name TEXT, genus TEXT);"
            "CREATE TABLE drugs (drug_code TEXT, drug_nm TEXT);"
        )
        con.executemany("INSERT INTO organisms VALUES (?, ?, ?)", [(i, *o) for i, o in enumerate(ORGANISMS)])
        con.executemany("INSERT INTO drugs VALUES (?, ?)", [("STM", "Streptomycin"), ("PEN", "Penicillin")])
    engine = SQLiteEngine("lab", path)
    yield BIContext(engine, draft(engine), None)
    engine.close()


def resolved(bi: BIContext, question: str, mention: str) -> list[tuple[str, str, str]]:
    bi.question, bi.clarify = question, False
    got = entity_resolution(RunContext(deps=bi, options={}), [mention])["resolved"]
    return [(r["table"], r["column"], r["value"]) for r in got]


def test_a_value_written_by_its_start_in_the_table_the_other_words_mean(lab):
    assert resolved(lab, "strep species in the table - how many", "strep species") == [
        ("organisms", "genus", "Streptococcus")
    ]
    assert resolved(lab, "how many strep drugs are there", "strep drugs") == [("drugs", "drug_nm", "Streptomycin")]


def test_a_start_two_values_share_or_a_short_one_is_not_guessed(lab):
    assert resolved(lab, "pseudo species in the table - how many", "pseudo species") == []  # two genera
    assert resolved(lab, "str species in the table - how many", "str species") == []  # three letters
