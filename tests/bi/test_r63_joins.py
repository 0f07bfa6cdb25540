"""Round 63: keys whose names differ: a key name glued from its table's words ('cdiv' census_div), and a 1:1 pair
of unique text-code columns (a state's rates, its row of states)."""

from __future__ import annotations

import sqlite3

from orrery.bi.engines import SQLiteEngine
from orrery.bi.joins import _named_alike, discover

CODES = [f"{a}{b}" for a in "ACDFGIKLMN" for b in "AEKLOZ"][:51]  # 51 two-letter codes, like postal codes


def _joins(tmp_path, name: str, script: str, rows: dict[str, list[tuple]]) -> dict[str, str]:
    path = tmp_path / f"{name}.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(script)
        for table, values in rows.items():
            con.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(values[0]))})", values)
    engine = SQLiteEngine(name, path)
    found = {j.on: j.rule for j in discover(engine, engine.tables())}
    engine.close()
    return found


def _divisions(tmp_path, ref: str, lookup: str, key: str, n: int = 9) -> dict[str, str]:
    """A lookup of `n` integer codes and 51 states, each in one of them under `ref`."""
    return _joins(
        tmp_path,
        f"{ref}_{lookup}_{n}",
        f"CREATE TABLE {lookup} ({key} INTEGER, div_nm TEXT);"
        f"CREATE TABLE geo_state (st_fips INTEGER, st_nm TEXT, {ref} INTEGER);",
        {
            lookup: [(i, f"division {i}") for i in range(1, n + 1)],
            "geo_state": [(i, f"state {i}", i % n + 1) for i in range(51)],
        },
    )


def test_a_key_name_glued_from_its_tables_words_is_named_alike():
    assert _named_alike("cdiv_no", "census_div", "div_id")
    assert _named_alike("pid_cd", "party_ids", "party_code")
    assert not _named_alike("tid_cd", "party_ids", "party_code")  # 't' starts no word of the table
    assert not _named_alike("pid_cd", "travel_modes", "mode_code")


def test_a_nine_row_dimension_joined_by_a_code_column_of_another_name(tmp_path):
    assert _divisions(tmp_path, "cdiv_no", "census_div", "div_id") == {
        "geo_state.cdiv_no = census_div.div_id": "both keys, named alike"
    }


def test_small_integers_under_unrelated_names_are_not_joined(tmp_path):
    # a rating 1-5 (no key name) and a 5-row lookup's id 1-5; a key name glued from another table's words
    assert _divisions(tmp_path, "rating", "grade_lvls", "grade_id", n=5) == {}
    assert _divisions(tmp_path, "pid_cd", "census_div", "div_id") == {}


def _states(tmp_path, name: str, keys: list, refs: list, key_type: str = "TEXT") -> dict[str, str]:
    """`geo_state(usps_abbr, st_nm)` and a wider `ucr_st_rates(jur_cd, ...)`, one row per state each."""
    return _joins(
        tmp_path,
        name,
        f"CREATE TABLE geo_state (usps_abbr {key_type}, st_nm TEXT);"
        f"CREATE TABLE ucr_st_rates (jur_cd {key_type}, rpt_yr INTEGER, viol_rt REAL, mrdr_rt REAL);",
        {
            "geo_state": [(k, f"state {i}") for i, k in enumerate(keys)],
            "ucr_st_rates": [(r, 2019, 300.5 + i, 5.5 + i) for i, r in enumerate(refs)],
        },
    )


def test_a_one_to_one_lookup_of_text_codes_is_joined_from_the_larger_table(tmp_path):
    assert _states(tmp_path, "one_to_one", CODES, CODES[::-1]) == {
        "ucr_st_rates.jur_cd = geo_state.usps_abbr": "same values"
    }


def test_a_one_to_one_of_integer_ids_or_of_codes_partly_found_is_not_joined(tmp_path):
    ids = list(range(1, 52))
    assert _states(tmp_path, "integers", ids, ids[::-1], key_type="INTEGER") == {}
    other = [f"Q{i:02d}" for i in range(26)]  # half the rates' codes are no state's
    assert _states(tmp_path, "partly", CODES, [*CODES[:25], *other]) == {}
