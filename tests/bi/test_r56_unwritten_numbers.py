"""Round 56 (bench/bi.md, round 56, class N): a comparison with a number the question does not write in any form is a filter
nobody asked for and goes, also where the question writes other numbers ('200m'); a number it writes in another
form stays (a word, a percent, a million, a unit, a two-digit year, a decade and its end, digits inside a word). On
a database of its own: sprint races and their winners."""

from __future__ import annotations

from pathlib import Path

import pytest
from bi_compose_helpers import compose_sql, sqlite_engine, value


@pytest.fixture
def races(tmp_path: Path):
    engine = sqlite_engine(
        tmp_path / "races.sqlite",
        "CREATE TABLE nations (nat_cd TEXT, nat_nm TEXT);"
        "CREATE TABLE wins (runner TEXT, nat_cd TEXT, yr INTEGER, dist_m INTEGER, time_s REAL, share REAL,"
        " prize INTEGER, lanes INTEGER, race_ms INTEGER);",
        {
            "nations": [("KEN", "Kenya"), ("JAM", "Jamaica")],
            "wins": [
                (f"R{i}", ("KEN", "JAM")[i % 2], 1990 + i, 200, 20.0 + i / 10, i / 20, 10**6 * i, 8, 20000 + i)
                for i in range(20)
            ],
        },
    )
    yield engine
    engine.close()


KENYA = [value("nations", "nat_nm", "Kenya")]


def _where(races, question: str, cond: str) -> str:
    sql = compose_sql(races, ["wins", "nations"], question, KENYA, select=["MIN(wins.time_s)"], where=[cond])
    return sql.split("WHERE")[1] if "WHERE" in sql else ""


def test_a_year_the_question_does_not_write_goes_beside_a_number_it_does_write(races):
    """'200m' writes 200, not 2012: the model's `yr = 2012` goes (the rule before round 56 kept it: the question
    writes a number)."""
    assert "2012" not in _where(races, "fastest 200m time by a kenyan runner", "wins.yr = 2012")


def test_unwritten_numbers_go_one_by_one_and_a_written_one_stays(races):
    where = _where(races, "kenyan wins over 200 metres in 8 lanes", "wins.lanes = 8 AND wins.prize > 5000")
    assert "lanes = 8" in where and "prize" not in where, where


@pytest.mark.parametrize(
    ("question", "cond", "kept"),
    [
        ("kenyan wins in nineteen ninety-five, fastest time", "wins.lanes = 9", "lanes = 9"),  # a word
        ("kenyan wins with under 40% of the votes, fastest time", "wins.share < 0.4", "0.4"),  # a percent
        ("kenyan wins with a prize over 2 million", "wins.prize > 2000000", "2000000"),  # a million
        ("kenyan wins in '97, fastest time", "wins.yr = 1997", "1997"),  # a two-digit year in full
        ("kenyan wins in the nineties, fastest time", "wins.yr < 2000", "2000"),  # a decade's end
        ("kenyan wins in the 1990s, fastest time", "wins.yr >= 1990", "1990"),
        ("kenyan v8 wins, fastest time", "wins.lanes = 8", "lanes = 8"),  # digits inside a word
        ("kenyan wins of a dozen lanes", "wins.lanes = 12", "lanes = 12"),
        ("kenyan wins after 1995, fastest time", "wins.yr > 1990", "1990"),  # the model's reading of a written year
    ],
)
def test_a_number_the_question_writes_in_another_form_stays(races, question, cond, kept):
    assert kept in _where(races, question, cond)


def test_a_quantity_in_a_unit_is_left_to_its_unit_rule(races):
    """'longer than 20 seconds' over `race_ms > 500`: the column's unit is known, so the number is set from the
    quantity (20000 ms), not dropped."""
    assert "race_ms > 20000" in _where(races, "kenyan races longer than 20 seconds", "wins.race_ms > 500")
