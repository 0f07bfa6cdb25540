"""Round 57 (bench/bi.md, round 57): a time after the data. T1: 'next' before a time a few words on ('next holiday
season', 'next yr') and 'from now' are the future; 'next to', 'the next day', 'next-day' are not. T2: the present
('today', "today's", 'right now', 'tonight') is this year for the year check: data whose dates end earlier has
nothing then; data whose dates run to this year answers; 'current' / 'currently' are a table's own state."""

from __future__ import annotations

import datetime

import pytest

from orrery.bi.decline import future, shape_decline, years_outside

CARS = "CREATE TABLE cars (name TEXT, mfr TEXT, yr INTEGER, mpg REAL);"
THIS_YEAR = datetime.datetime.now(datetime.UTC).year


def _sales(sqlite_bi, last_year: int):
    return sqlite_bi(
        "CREATE TABLE sales (sale_id INTEGER, sold_on TEXT, total REAL);",
        {"sales": [(i, f"{last_year - i % 3}-0{1 + i % 9}-15", 5.0 * i) for i in range(30)]},
    )


@pytest.mark.parametrize(
    "question",
    [
        "projected chair sales next holiday season",
        "projected revenue for next yr",
        "revenue over the next 3 months",
        "budget for the next fiscal year",
        "Projected fertility rate for Ethiopia ten years from now?",
        "how many orders by next friday",
    ],
)
def test_a_time_a_few_words_after_next_or_from_now_is_the_future(question):
    assert future(question)


@pytest.mark.parametrize(
    "question",
    [
        "days a week watching the news: high-school grads next to some-college ppl",
        "how many orders shipped the next day",
        "total sales in the next-day shipping mode",
        "who shipped the next order after order 5",
        "average expected delivery date per region",
        "total projected revenue per region",
    ],
)
def test_next_to_the_next_day_and_a_projected_column_are_not_the_future(question):
    assert future(question) is None


@pytest.mark.parametrize(
    "question",
    [
        "what would a ford pinto cost in today's dollars",
        "what would a 1977 datsun 810 sell for on the used market today",
        "how many cars get over 30 mpg right now",
    ],
)
def test_the_present_declines_where_the_data_ends_earlier(sqlite_bi, question):
    bi = sqlite_bi(CARS, {"cars": [("ford pinto", "ford", 71 + i % 10, 20.0 + i) for i in range(20)]})  # '71 to '80
    assert "today" in (shape_decline(bi, question) or "")


def test_the_present_is_answered_where_the_data_reaches_this_year(sqlite_bi):
    assert years_outside(_sales(sqlite_bi, THIS_YEAR), "total sales today") is None
    assert "today" in (years_outside(_sales(sqlite_bi, 2004), "total sales today") or "")


@pytest.mark.parametrize(
    "question", ["total sales currently on the books", "the current total of sales", "now show me total sales"]
)
def test_current_state_words_are_no_present_year(sqlite_bi, question):
    assert years_outside(_sales(sqlite_bi, 2004), question) is None


def test_the_present_of_a_table_with_no_date_is_its_own_state(sqlite_bi):
    """'how many customers do we have today': the customers table says nothing about when, so its rows are today's;
    the sales, which carry dates that end in 2004, have nothing today."""
    bi = sqlite_bi(
        "CREATE TABLE customers (cust_id INTEGER, name TEXT);CREATE TABLE sales (sale_id INTEGER, sold_on TEXT);",
        {"customers": [(1, "Ann"), (2, "Bob")], "sales": [(1, "2003-05-01"), (2, "2004-02-01")]},
    )
    assert years_outside(bi, "how many customers do we have today") is None
    assert "today" in (years_outside(bi, "total sales today") or "")
