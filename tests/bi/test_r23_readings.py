"""Round 23 (bench/bi.md, "Round 23"): a sign filter on the number column the question names beside a lone count is that
column's sum; 'v' compares and 'n' / '+' join two values. On a database of its own (clubs' medal tallies),
not the sets the rules were read from."""

from __future__ import annotations

from pathlib import Path

import pytest
from bi_compose_helpers import compose_sql, rows, sqlite_engine, value

CLUBS = ["Lynx", "Otters", "Hawks", "Lynx n Otters"]


@pytest.fixture
def clubs(tmp_path: Path):
    """Clubs (a lookup, no declared key) and their medal tallies, several seasons each: a count of rows is not a
    count of medals."""
    engine = sqlite_engine(
        tmp_path / "clubs.sqlite",
        "CREATE TABLE clubs (club_id INTEGER, name TEXT);"
        "CREATE TABLE tallies (club_id INTEGER, yr INTEGER, gold INTEGER, silver INTEGER, place TEXT);",
        {
            "clubs": list(enumerate(CLUBS)),
            "tallies": [(c, 1990 + y, (c * 3 + y) % 5, (c + y) % 3, f"P{y}") for c in range(4) for y in range(6)],
        },
    )
    yield engine
    engine.close()


LYNX_OTTERS = [value("clubs", "name", "Lynx"), value("clubs", "name", "Otters")]
PER_CLUB = (
    "SELECT c.name, SUM(t.gold) FROM tallies t JOIN clubs c ON t.club_id = c.club_id "
    "WHERE c.name IN ('Lynx', 'Otters') GROUP BY c.name"
)


def test_a_count_column_compared_with_v_is_summed_per_value(clubs):
    sql = compose_sql(
        clubs,
        ["clubs", "tallies"],
        "lynx v otters gold medal count",
        LYNX_OTTERS,
        select=["COUNT(*)"],
        where=["clubs.name = 'Lynx' AND tallies.gold = 1 AND clubs.name = 'Otters' AND tallies.gold = 1"],
    )
    assert rows(clubs, sql) == rows(clubs, PER_CLUB), sql


def test_a_sign_filter_on_the_named_column_beside_a_count_is_its_sum(clubs):
    sql = compose_sql(
        clubs,
        ["tallies", "clubs"],
        "what did the Lynx win in gold in total",
        [LYNX_OTTERS[0]],
        select=["COUNT(*)"],
        where=["tallies.gold > 0"],
    )
    gold = "SELECT SUM(t.gold) FROM tallies t JOIN clubs c ON t.club_id = c.club_id WHERE c.name = 'Lynx'"
    assert rows(clubs, sql) == rows(clubs, gold), sql


def test_a_sign_the_question_writes_or_a_column_it_does_not_name_stays_a_filter(clubs):
    for question, where in (
        ("how many seasons did the Lynx win at least one gold", "tallies.gold >= 1"),  # the sign written
        ("how many seasons did the Lynx finish on the podium", "tallies.silver > 0"),  # `silver` not named
    ):
        sql = compose_sql(clubs, ["tallies", "clubs"], question, [LYNX_OTTERS[0]], select=["COUNT(*)"], where=[where])
        assert "COUNT(*)" in sql and where.split(" ")[0] in sql.split("WHERE")[1], (question, sql)


def test_n_and_plus_join_two_values_of_one_column(clubs):
    for question in ("lynx n otters - golds of each", "lynx + otters: golds, each club"):
        sql = compose_sql(
            clubs,
            ["tallies", "clubs"],
            question,
            LYNX_OTTERS,
            select=["SUM(tallies.gold)"],
            where=["clubs.name = 'Lynx' OR clubs.name = 'Otters'"],
        )
        assert rows(clubs, sql) == rows(clubs, PER_CLUB), (question, sql)


def test_a_value_holding_n_is_one_value(clubs):
    both = [value("clubs", "name", "Lynx n Otters")]
    sql = compose_sql(
        clubs,
        ["tallies", "clubs"],
        "golds of Lynx n Otters",
        both,
        select=["SUM(tallies.gold)"],
        where=["clubs.name = 'Lynx n Otters'"],
    )
    gold = "SELECT SUM(t.gold) FROM tallies t JOIN clubs c ON t.club_id = c.club_id WHERE c.name = 'Lynx n Otters'"
    assert rows(clubs, sql) == rows(clubs, gold), sql


def test_a_number_written_as_a_word_keeps_its_filter_and_a_word_in_ties_is_no_number(clubs):
    """`writes_a_number` (orrery.grounding): 'fourteen' is a number the question writes, so the model's `gold > 14`
    stays; 'cities' is none, so an unasked `gold > 2` goes."""
    kept = compose_sql(
        clubs,
        ["tallies", "clubs"],
        "how many seasons did the Lynx win more than fourteen golds",
        [LYNX_OTTERS[0]],
        select=["COUNT(*)"],
        where=["tallies.gold > 14"],
    )
    assert "14" in kept.split("WHERE")[1], kept
    dropped = compose_sql(
        clubs,
        ["tallies", "clubs"],
        "how many seasons did the Lynx play away in other cities",
        [LYNX_OTTERS[0]],
        select=["COUNT(*)"],
        where=["tallies.gold > 2"],
    )
    assert "gold" not in dropped.split("WHERE")[1], dropped


def test_a_share_of_rows_with_a_sign_filter_stays_a_share_not_a_sum(clubs):
    """'what share ... had gold' over `COUNT(*) WHERE gold > 0` is a ratio of rows (`_share_of_rows`), not
    `SUM(gold)`: the sum reading is for counts, never for a share."""
    sql = compose_sql(
        clubs,
        ["tallies", "clubs"],
        "what share of the Lynx seasons had gold",
        [LYNX_OTTERS[0]],
        select=["COUNT(*)"],
        where=["clubs.name = 'Lynx' AND tallies.gold > 0"],
    )
    assert "SUM(" not in sql.upper() and "/" in sql, sql


def test_two_filters_anded_on_one_column_joined_by_an_ampersand_are_either_value(clubs):
    # `name = 'Lynx' AND name = 'Otters'` is never true: with '&' between them the question lists two values
    sql = compose_sql(
        clubs,
        ["tallies", "clubs"],
        "lynx & otters - golds, each",
        LYNX_OTTERS,
        select=["SUM(tallies.gold)"],
        where=["clubs.name = 'Lynx'", "clubs.name = 'Otters'"],
    )
    assert rows(clubs, sql) == rows(clubs, PER_CLUB), sql
    # an OR the model wrote over a value's own '&' stays one total, as before
    ored = compose_sql(
        clubs,
        ["tallies", "clubs"],
        "lynx & otters - total golds",
        LYNX_OTTERS,
        select=["SUM(tallies.gold)"],
        where=["clubs.name = 'Lynx' OR clubs.name = 'Otters'"],
    )
    assert "GROUP BY" not in ored, ored
