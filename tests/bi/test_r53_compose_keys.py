"""Round 53 (bench/bi.md, round 53): compose reads a key-like name as `names.key_like` does: a number column named as a
number of something (`pax_no`) is no measure, one whose name ends in a word that only ends in 'id' (`amount_paid`)
is one; a referring key's words leave out every key word ('number' of a `_no` key's synonym)."""

from __future__ import annotations

import pytest
from sqlglot import exp

from orrery.bi.compose import _key_names, _measure_kind

SCRIPT = "CREATE TABLE trips (trip_id INTEGER, pax_no INTEGER, amount_paid REAL, fare_yr INTEGER, km REAL);"


@pytest.fixture
def trips(sqlite_bi):
    return sqlite_bi(SCRIPT, {"trips": [(i, 100 + i % 7, 2.5 * i, 2000 + i % 5, 10.0 + i) for i in range(30)]}).semantic


@pytest.mark.parametrize("column", ["trip_id", "pax_no", "fare_yr"])
def test_a_key_a_number_of_something_or_a_year_is_no_measure(trips, column):
    assert not _measure_kind(trips, exp.column(column, table="trips"))


@pytest.mark.parametrize("column", ["amount_paid", "km"])
def test_an_amount_is_a_measure_though_its_name_ends_in_id(trips, column):
    assert _measure_kind(trips, exp.column(column, table="trips"))


def test_a_referring_keys_words_leave_out_number(trips):
    trips.tables["trips"]["columns"]["pax_no"]["synonyms"] = ["passenger number"]
    assert _key_names(trips, "trips", "pax_no") == {"pax", "passenger"}
