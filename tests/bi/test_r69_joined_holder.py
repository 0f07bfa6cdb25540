"""Round 69 (bench/bi_r69.md): a value entity resolution found on a table the layer joins to none of the tables the
query reads ('usa' as the country lookup's code, beside a medal table with its own `noc` column) filters the one
indexed column of the query's tables that holds it, instead of failing as 'no join path'. Counter-examples: the
value's table joins the query's (the lookup filters, joined), no column of the query holds the value, two do."""

from __future__ import annotations

from dataclasses import replace

import pytest

from orrery.bi.compose import NoJoinPath, QueryParts, compose

QUESTION = "how often has the usa taken gold in the mens 100m"
USA = {"mention": "usa", "table": "lkp_cntry", "column": "cntry_cd", "value": "USA"}


@pytest.fixture
def games(sqlite_bi):
    """A country lookup joined to a medal tally by `cntry_cd`; a 100m medal table with its own `noc` (and a `rival`
    that holds country codes too, in `rivals`), joined to neither."""
    codes = ["USA", "JAM", "GBR", "CAN"]
    bi = sqlite_bi(
        "CREATE TABLE lkp_cntry (cntry_cd TEXT, cntry_nm TEXT);"
        "CREATE TABLE tally (cntry_cd TEXT, gold INTEGER);"
        "CREATE TABLE m100 (athlete TEXT, noc TEXT, medal TEXT, yr INTEGER);"
        "CREATE TABLE rivals (noc TEXT, rival TEXT, wins INTEGER);",
        {
            "lkp_cntry": [
                (c, n) for c, n in zip(codes, ["United States", "Jamaica", "Britain", "Canada"], strict=True)
            ],
            "tally": [(c, i) for i, c in enumerate(codes)],
            "m100": [(f"A{i}", codes[i % 4], ["GOLD", "SILVER", "BRONZE"][i % 3], 1900 + 4 * i) for i in range(24)],
            "rivals": [(codes[i % 4], codes[(i + 1) % 4], i) for i in range(8)],
        },
    )
    # the layer as the olympics one: the medal tables' codes (IOC) are not the lookup's (ISO), so no join reaches them
    bi.semantic = replace(bi.semantic, joins=[j for j in bi.semantic.joins if "m100" not in j and "rivals" not in j])
    assert bi.semantic.joins
    return bi


def _sql(bi, where: list[str], tables: list[str], select: str = "COUNT(*)", resolved=(USA,)) -> str:
    parts = QueryParts(select=[select], where=where)
    return compose(parts, bi.semantic, tables, list(resolved), "sqlite", QUESTION, bi.values)


def test_a_value_of_an_unjoined_lookup_filters_the_query_tables_own_column(games):
    sql = _sql(games, ["m100.medal = 'GOLD'"], ["m100", "lkp_cntry"])
    assert "m100.noc = 'USA'" in sql and "lkp_cntry" not in sql
    kept = _sql(games, ["m100.medal = 'GOLD'", "m100.noc = 'USA'"], ["m100", "lkp_cntry"])
    assert kept.count("'USA'") == 1 and "m100.noc = 'USA'" in kept  # the model's own filter stays


def test_a_joined_lookup_keeps_the_value_on_its_own_column(games):
    sql = _sql(games, [], ["tally", "lkp_cntry"], select="tally.gold")
    assert "lkp_cntry.cntry_cd = 'USA'" in sql and "JOIN lkp_cntry" in sql


def test_no_holder_or_two_holders_leave_it_as_resolved(games):
    absent = {**USA, "mention": "kenya", "value": "KEN"}
    with pytest.raises(NoJoinPath):
        _sql(games, ["m100.medal = 'GOLD'"], ["m100", "lkp_cntry"], resolved=(absent,))
    with pytest.raises(NoJoinPath):  # `rivals.noc` and `rivals.rival` both hold 'USA': which is not said
        _sql(games, [], ["rivals", "lkp_cntry"], select="SUM(rivals.wins)")


def test_the_question_tables_holder_wins_over_a_filter_the_model_put_on_the_joined_tally(games):
    """The model's parts for heldout23 #41: the code set on the tally (which joins the lookup), the medal on it too."""
    sql = _sql(games, ["tally.cntry_cd = 'USA' AND m100.medal = 'GOLD'"], ["m100", "tally", "lkp_cntry"])
    assert "m100.noc = 'USA'" in sql and "tally" not in sql and "lkp_cntry" not in sql


def test_a_name_the_question_table_does_not_hold_stays_on_the_joined_lookup(games):
    """'golds of the United States at the games': the first table of the slice (the 100m medals) holds no country
    names, so the name filters the lookup, joined to the tally the parts read."""
    us = {"mention": "united states", "table": "lkp_cntry", "column": "cntry_nm", "value": "United States"}
    sql = _sql(games, [], ["m100", "tally", "lkp_cntry"], select="tally.gold", resolved=(us,))
    assert "lkp_cntry.cntry_nm = 'United States'" in sql and "m100" not in sql
