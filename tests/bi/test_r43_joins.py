"""A referring column named after its table in short forms ('edu_lvl' -> `edu_levels.edu_code`): the election
database's drafted layer had no join for it (bench/bi.md, round 40, section 8), so every question over the
education lookup ended in "no join path"."""

from __future__ import annotations

import sqlite3

from orrery.bi.engines import SQLiteEngine
from orrery.bi.joins import discover

LEVELS = ["grade school", "high school", "some college", "college grad", "masters", "phd", "none"]


def _survey(tmp_path, ref: str, lookup: str) -> dict[str, str]:
    path = tmp_path / f"{ref}_{lookup}.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            f"CREATE TABLE {lookup} (edu_code INTEGER, edu_desc TEXT);"
            f"CREATE TABLE svy_resp (resp_id INTEGER, {ref} INTEGER, age INTEGER);"
        )
        con.executemany(f"INSERT INTO {lookup} VALUES (?, ?)", list(enumerate(LEVELS, 1)))
        con.executemany("INSERT INTO svy_resp VALUES (?, ?, ?)", [(i, i % 7 + 1, 20 + i % 50) for i in range(300)])
    engine = SQLiteEngine("survey", path)
    found = {j.on: j.rule for j in discover(engine, engine.tables())}
    engine.close()
    return found


def test_a_key_named_after_its_table_in_short_forms_is_a_join(tmp_path):
    assert _survey(tmp_path, "edu_lvl", "edu_levels") == {
        "svy_resp.edu_lvl = edu_levels.edu_code": "named after the table, abbreviated"
    }


def test_short_forms_of_another_table_or_of_one_word_are_no_join(tmp_path):
    # the same seven small integers, but the name is not the lookup's in short forms: the data alone is too weak
    assert _survey(tmp_path, "emp_lvl", "edu_levels") == {}
    assert _survey(tmp_path, "edu_lvl", "edu_places") == {}
