"""Round 40 (bench/bi.md, round 40): 'the best' / 'the worst' beside an aggregate ranks it (rule F); 'best ... for a
<someone>' is advice however many words stand between (rule J); a term's trailing unit ('in mins') says how to
give the measure, not what it is (rule U). Counter-examples: a taste stays a taste, a measure stays one, a missing
measure stays missing with its unit dropped."""

from __future__ import annotations

import pytest

from orrery.bi.decline import judgment, missing_fields, without_unit


@pytest.mark.parametrize(
    "question",
    [
        "which district's schools averaged the worst test scores",
        "the region that totalled the best takings last spring",
        "of the three plants, which had the worst avg downtime",
        "the best mean yield per field",
    ],
)
def test_the_best_or_worst_beside_an_aggregate_ranks_it(question):
    assert judgment(question) is None


@pytest.mark.parametrize(
    "question",
    [
        "one of the best films of 1990",  # 'of' is no aggregate: a taste
        "which album is the best one in the catalog",
        "the worst thing about our suppliers",
    ],
)
def test_the_best_or_worst_with_no_aggregate_stays_a_taste(question):
    assert judgment(question)


@pytest.mark.parametrize(
    "question",
    [
        "best cheap laptop on this list for a beginner to buy?",
        "best kind of paint for a bathroom ceiling",
        "best used van for my bakery",
    ],
)
def test_best_then_a_fit_for_someone_is_advice(question):
    assert judgment(question)


@pytest.fixture
def cars(sqlite_bi):
    """Cars with a number for fuel economy (`mpg`), cylinders and a maker."""
    return sqlite_bi(
        "CREATE TABLE cars (name TEXT, maker TEXT, cyl INTEGER, mpg REAL, runtime_min INTEGER);",
        {"cars": [(f"car {i}", ("ford", "honda")[i % 2], 4 + 2 * (i % 3), 15.0 + i, 10 + i) for i in range(30)]},
    )


def test_best_before_a_measure_for_a_kind_ranks_by_it(cars):
    assert judgment("best mpg for a four-cylinder car", cars) is None
    assert judgment("best-selling album for a genre") is None  # a measure, not advice


@pytest.fixture
def films(sqlite_bi):
    """Films with a runtime in minutes and a rating; no weight, no budget."""
    return sqlite_bi(
        "CREATE TABLE films (title TEXT, runtime INTEGER, rating TEXT, year INTEGER);",
        {"films": [(f"film {i}", 80 + i, ("PG", "R")[i % 2], 1990 + i % 10) for i in range(30)]},
    )


def test_a_trailing_unit_is_no_part_of_the_field(films):
    question = "average runtime in minutes of the PG films"
    assert missing_fields(films, ["runtime in minutes"], question) == []
    assert without_unit("runtime in minutes") == "runtime"


def test_a_missing_measure_stays_missing_without_its_unit(films):
    question = "average weight in kg of the PG films"
    assert missing_fields(films, ["weight in kg"], question) == ["weight in kg"]
    assert missing_fields(films, ["budget in dollars"], "budget in dollars of each film") == ["budget in dollars"]
    assert without_unit("films in 1995") == "films in 1995"  # a year, no unit
    assert without_unit("in mins") == "in mins"  # nothing before the unit
