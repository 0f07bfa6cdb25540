"""Round 54 (bench/bi.md, round 54): one reading of 'the question names a table', `names.names_table`, that compose (a
parent named, the rows counted) and field mapping (the column of the table the question names) both use: the
table's name glued, or every word of it, each in either number."""

from __future__ import annotations

import pytest
from bi_compose_helpers import mapped

from orrery.bi import tools
from orrery.bi.compose import QueryParts, compose
from orrery.bi.context import NeedsClarification
from orrery.bi.names import names_table, said_words
from orrery.tools.core import RunContext


def test_a_table_is_named_by_all_its_words_in_either_number():
    assert names_table("counties", said_words("jobless rate of Cook County"))  # 'ies': stems missed it
    assert names_table("InvoiceLine", said_words("how many invoice lines"))
    assert names_table("lineitem", said_words("count the lineitems"))  # glued
    assert names_table("travel_classes", said_words("travel classes of the fleet"))


def test_one_word_of_several_names_no_table():
    assert not names_table("PlaylistTrack", said_words("how many tracks per genre"))  # compose's old last word
    assert not names_table("milk_samples", said_words("how many samples from the scottish breed"))
    assert not names_table("sochi14_tally", said_words("tally of US wins in the 100 m"))


@pytest.fixture
def trade(sqlite_bi):
    """Companies and agencies, each with an account balance named alike but for its table's prefix."""
    bi = sqlite_bi(
        "CREATE TABLE companies (co_name TEXT, co_acct_bal REAL);CREATE TABLE agencies (ag_name TEXT, ag_acct_bal REAL);",
        {"companies": [("Acme", 5.0), ("Bolt", 7.0)], "agencies": [("Tax", 6.0), ("Rail", 8.0)]},
    )
    bi.clarify = True
    return bi


def test_field_mapping_takes_the_column_of_a_table_named_in_the_singular(trade):
    assert mapped(trade, "the account balance of each company", "account balance") == "companies.co_acct_bal"
    assert mapped(trade, "which agency has the biggest account balance", "account balance") == "agencies.ag_acct_bal"
    trade.question = "the average account balance"  # no table named: still asks
    with pytest.raises(NeedsClarification):
        tools.field_mapping(RunContext(deps=trade, options={}), ["account balance"])


@pytest.fixture
def dairy(sqlite_bi):
    """Three breeds, one Scottish, and twelve milk samples, four of each breed."""
    return sqlite_bi(
        "CREATE TABLE breeds (breed_code TEXT, breed_nm TEXT, orig_cntry TEXT);"
        "CREATE TABLE milk_samples (smp_id INTEGER, brd_cd TEXT, fat_pct REAL);",
        {
            "breeds": [("AY", "Ayrshire", "Scotland"), ("JE", "Jersey", "Jersey"), ("HO", "Holstein", "Netherlands")],
            "milk_samples": [(i, ("AY", "JE", "HO")[i % 3], 3.5 + i / 10) for i in range(12)],
        },
    )


def test_compose_counts_the_samples_a_question_names_by_the_last_word(dairy):
    # compose's edge beyond `names_table`: 'samples' names `milk_samples`, so its rows are counted, not the lookup's
    parts = QueryParts(select=["COUNT(*)"], where=["breeds.orig_cntry = 'Scotland'"])
    sql = compose(parts, dairy.semantic, [], [], dairy.engine.dialect, "how many samples from the scottish breed")
    assert "milk_samples" in sql and dairy.engine.execute(sql).rows == [(4,)]
