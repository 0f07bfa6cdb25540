"""Round 47: a handful of small integers is a lookup's key when the two key-like names say the same thing."""

from __future__ import annotations

import sqlite3

from orrery.bi.engines import SQLiteEngine
from orrery.bi.joins import discover


def _found(tmp_path, ref: str, lookup: str, key: str, codes: list[int], used: list[int]) -> dict[str, str]:
    """A lookup `lookup(key, label)` of integer codes and a table `facts` whose column `ref` holds `used`, repeated."""
    path = tmp_path / f"{ref}_{lookup}_{len(codes)}_{len(used)}.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            f"CREATE TABLE {lookup} ({key} INTEGER, label TEXT);"
            f"CREATE TABLE facts (fact_id INTEGER, {ref} INTEGER, cost REAL);"
        )
        con.executemany(f"INSERT INTO {lookup} VALUES (?, ?)", [(c, f"label {c}") for c in codes])
        con.executemany("INSERT INTO facts VALUES (?, ?, ?)", [(i, c, 9.5) for i, c in enumerate(used * 30)])
    engine = SQLiteEngine("named", path)
    found = {j.on: j.rule for j in discover(engine, engine.tables())}
    engine.close()
    return found


def test_a_handful_of_integers_under_names_that_say_the_same_thing_is_a_key(tmp_path):
    modes = [1, 2, 3, 4]
    # 'md' abbreviates 'mode' (the key's word and the table's); `md_cd` is no TPC-H prefix with a key word
    found = _found(tmp_path, "md_cd", "travel_modes", "mode_code", modes, modes)
    assert found == {"facts.md_cd = travel_modes.mode_code": "both keys, named alike"}
    breeds = [1, 2, 3, 4, 5]  # 'brd' abbreviates 'breed', of the table's name only
    assert _found(tmp_path, "brd_no", "breeds", "code", breeds, breeds) == {
        "facts.brd_no = breeds.code": "both keys, named alike"
    }


def test_named_alike_but_covering_little_of_the_lookup_or_named_apart_is_no_key(tmp_path):
    codes = list(range(1, 13))
    assert _found(tmp_path, "md_cd", "travel_modes", "mode_code", codes, codes[:2]) == {}  # 2 of 12 rows
    assert _found(tmp_path, "pid_cd", "travel_modes", "mode_code", codes[:4], codes[:4]) == {}  # 'pid' is no 'mode'
