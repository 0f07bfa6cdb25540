"""Round 54 (bench/bi.md, round 54): join discovery reads a referring name's words one way: `_abbreviates_table` ('edu_lvl'
-> `edu_levels`) takes them as `_named_alike` does (`names.words`, a glued key word off), so a camel-case name is
read too ('EduLvl' -> `EduLevels`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location("r43", Path(__file__).with_name("test_r43_joins.py"))
r43 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(r43)


def test_a_camel_case_name_in_short_forms_is_a_join(tmp_path):
    assert r43._survey(tmp_path, "EduLvl", "EduLevels") == {
        "svy_resp.EduLvl = EduLevels.edu_code": "named after the table, abbreviated"
    }


def test_the_snake_case_edges_stay(tmp_path):
    assert r43._survey(tmp_path, "edu_lvl", "edu_levels") == {
        "svy_resp.edu_lvl = edu_levels.edu_code": "named after the table, abbreviated"
    }
    assert r43._survey(tmp_path, "EmpLvl", "EduLevels") == {}  # another table's words: no join on the data alone
