"""Two false declines held-out #24 showed (bench/bi.md, 'Held-out #24'): a possessive read as 'is' before 'going to'
(`decline.FUTURE`), and a column of names read as a column of years because one name quotes a number
(`decline.unreached_span` through `_years_of`)."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose
from orrery.bi.decline import future, unreached_span
from orrery.bi.guard import UnsafeQuery, check
from orrery.errors import ToolError


@pytest.mark.parametrize(
    "question",
    ["comp sci bachelor's going to women, pct in 1984", "what share of the budget's going to schools in 2010"],
)
def test_a_possessive_before_going_to_is_no_future(question):
    assert future(question) is None


@pytest.mark.parametrize(
    "question",
    ["who's going to win the most medals", "it's going to rain in march?", "which team is going to score most"],
)
def test_a_pronoun_or_copula_before_going_to_is_the_future(question):
    assert future(question) is not None


@pytest.fixture
def areas(sqlite_bi):
    names = ["Nigeria", "Brazil", "Kosovo (under UNSC res. 1244)", *(f"Area {chr(65 + i)}" for i in range(20))]
    dates = [f"{1990 + i}-07-01" for i in range(23)]
    return sqlite_bi(
        "CREATE TABLE areas (area_nm TEXT, ref_dt TEXT);",
        {"areas": [(n, d) for n, d in zip(names, dates, strict=True)]},
    )


def test_a_column_of_names_quoting_a_number_holds_no_years(areas):
    assert unreached_span(areas, "areas", "area_nm", 2020, "in") is None


def test_a_text_column_of_dates_still_bounds_the_years(areas):
    assert unreached_span(areas, "areas", "ref_dt", 2020, "in") == (1990, 2012)
    assert unreached_span(areas, "areas", "ref_dt", 2000, "in") is None


def test_a_value_with_an_apostrophe_written_unescaped_is_read_as_the_value(areas):
    # held-out #25: entity resolution gave "Chicago O'Hare International Airport" and the model wrote it as is
    sql = check("SELECT COUNT(*) FROM areas WHERE area_nm = 'Cote d'Ivoire' OR area_nm = 'Brazil'", "sqlite")
    assert "'Cote d''Ivoire'" in sql
    parts = QueryParts(select=["count(*)"], where=["areas.area_nm = 'Cote d'Ivoire' OR areas.area_nm = 'Brazil'"])
    composed = compose(parts, areas.semantic, ["areas"], [], "sqlite")
    assert areas.engine.execute(composed).rows == [(1,)]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1 FROM areas WHERE area_nm = 'O'Hare'; DROP TABLE areas",  # escaping makes it parse: still refused
        "SELECT 1 FROM areas WHERE area_nm = 'O'Hare' AND (",  # escaping does not mend it: the first error stands
    ],
)
def test_escaping_never_lets_through_what_the_guard_refuses(sql):
    with pytest.raises(UnsafeQuery):
        check(sql, "sqlite")


def test_a_part_of_two_statements_is_no_part(areas):
    parts = QueryParts(select=["count(*)"], where=["areas.area_nm = 'Brazil'; DROP TABLE areas"])
    with pytest.raises(ToolError, match="one expression"):
        compose(parts, areas.semantic, ["areas"], [], "sqlite")
