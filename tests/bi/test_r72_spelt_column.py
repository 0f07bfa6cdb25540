"""Round 72: a term the field judgment holds only as a whole, held by its parts (bench/bi_r72.md). A term that
spells a numeric column's name in any order, its conditions aside ('lowest', a stored value's word, a year), each
word paired with a token ('girl percentage' of `pct_g`, one token of one or two letters the word begins), a term
that writes a column's code ('no2 level' of `no2_ugm3`), and a term whose own words are only numbers ('share in
2019') are held; a term whose words pair with no column, or only by initials, and one with a word left over, are
not."""

from __future__ import annotations

import pytest

from orrery.bi.decline import coded_column, held_under_conditions, missing_fields, only_conditions, spelt_column
from orrery.bi.tools import BIContext


@pytest.fixture
def schools(sqlite_bi) -> BIContext:
    """Yearly figures of schools: the share of girls (`pct_g`), attendance, a pollutant measured outside, prices;
    the sales of the school shop by item (a category)."""
    return sqlite_bi(
        "CREATE TABLE sch_yr (sch_cd TEXT, yr INTEGER, pct_g REAL, att_rt REAL, no2_ugm3 REAL, cls_px REAL);"
        "CREATE TABLE schools (sch_code TEXT, sch_nm TEXT, town TEXT);"
        "CREATE TABLE sales (sale_no INTEGER, item TEXT, qty INTEGER, rev REAL);",
        {
            "sch_yr": [(f"S{i % 4}", 2010 + i % 10, 40.0 + i % 20, 90.0 + i % 9, 20.0 + i, 3.0 + i) for i in range(40)],
            "schools": [(f"S{i}", ("Northfield", "Southgate", "Eastbrook", "Westmoor")[i], "Leeds") for i in range(4)],
            "sales": [(i, ("Chairs", "Desks", "Lamps")[i % 3], i % 5 + 1, 10.0 * i) for i in range(30)],
        },
    )


HELD_SPELT = [
    ("girl percentage", "girl percentage at each school in 2015", "pct_g"),
    ("lowest girl percentage", "which school had the lowest girl percentage", "pct_g"),
    ("northfield girl percentage", "northfield girl percentage over the years", "pct_g"),
    ("closing price", "mean closing price of the school uniform", "cls_px"),
]


@pytest.mark.parametrize(("term", "question", "column"), HELD_SPELT)
def test_a_column_name_spelt_in_any_order_holds_the_term(schools, term, question, column):
    assert spelt_column(schools, term) == ("sch_yr", column)
    assert missing_fields(schools, [term], question) == []


@pytest.mark.parametrize(
    ("term", "question"),
    [
        ("boy percentage", "boy percentage at each school"),  # 'b' begins no token of `pct_g`
        ("girl %", "girl % at each school"),  # one letter alone is an initial, not a name
        ("girl teacher percentage", "girl teacher percentage per school"),  # 'teacher' is paired with nothing
        ("uniform price", "uniform price per school"),  # a weak pair ("px") and a word paired with nothing
    ],
)
def test_a_term_the_name_does_not_spell_still_declines(schools, term, question):
    assert spelt_column(schools, term) is None
    assert missing_fields(schools, [term], question) == [term]


def test_a_code_of_letters_and_digits_names_its_column(schools):
    assert coded_column(schools, "no2 exhaust concentration") == ("sch_yr", "no2_ugm3")
    assert missing_fields(schools, ["no2 exhaust concentration"], "no2 exhaust concentration outside each school") == []
    assert coded_column(schools, "ozone exhaust concentration") is None
    question = "ozone exhaust concentration outside each school"
    assert missing_fields(schools, ["ozone exhaust concentration"], question) == ["ozone exhaust concentration"]
    assert coded_column(schools, "100k pupils") is None  # a number with its scale is no code


def test_a_term_of_numbers_only_is_a_condition(schools):
    assert only_conditions("share in 2019")
    assert missing_fields(schools, ["share in 2019"], "girls' share in 2019 at each school") == []
    assert not only_conditions("share of truants")
    assert missing_fields(schools, ["share of truants"], "share of truants in 2019") == ["share of truants"]


@pytest.mark.parametrize(
    ("term", "question"),
    [("revenue of desks", "revenue of desks this year"), ("lowest revenue of lamps", "lowest revenue of lamps")],
)
def test_a_held_field_with_its_rows_named_by_a_value_is_held(schools, term, question):
    assert held_under_conditions(schools, term, question)
    assert missing_fields(schools, [term], question) == []


@pytest.mark.parametrize(
    ("term", "question"),
    [
        ("revenue of sofas", "revenue of sofas this year"),  # 'sofas' is no value: a condition the data lacks
        ("refund of chairs", "refund of chairs this year"),  # 'chairs' is a value, 'refund' no field
    ],
)
def test_a_field_or_a_value_the_data_lacks_still_declines(schools, term, question):
    assert not held_under_conditions(schools, term, question)
    assert missing_fields(schools, [term], question) == [term]
