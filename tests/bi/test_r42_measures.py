"""Round 42, rule Q'': the question's measure phrase (a superlative, the words next to an aggregate) that the lexical
mapping cannot read is handed to the SQL step as the number column MiniLM singles out among the layer's columns
('heaviest' is `body_mass_g`, 'fuel economy' is `mpg`). Counter-examples: two columns near the phrase, a phrase the
layer spells, a superlative that ranks a count, a text column."""

from __future__ import annotations

import pytest

from orrery.bi.tools import measure_phrases, measured_fields


@pytest.fixture
def penguins(sqlite_bi):
    return sqlite_bi(
        "CREATE TABLE species (id INTEGER, sci_name TEXT);"
        "CREATE TABLE penguin_obs (id INTEGER, species_id INTEGER, bill_len_mm REAL, flipper_mm REAL,"
        " body_mass_g REAL, sex TEXT);",
        {
            "species": [(1, "Pygoscelis adeliae"), (2, "Pygoscelis papua")],
            "penguin_obs": [
                (i, 1 + i % 2, 38.0 + i, 180.0 + i, 3500.0 + 10 * i, ("MALE", "FEMALE")[i % 2]) for i in range(20)
            ],
        },
    )


@pytest.fixture
def cars(sqlite_bi):
    return sqlite_bi(
        "CREATE TABLE cars (name TEXT, mpg REAL, cyl INTEGER, displ REAL, hp INTEGER, weight INTEGER, yr INTEGER);",
        {
            "cars": [
                (f"car {i}", 15.0 + i, 4 + 2 * (i % 3), 100.0 + 10 * i, 80 + i, 2000 + 50 * i, 70 + i % 10)
                for i in range(20)
            ]
        },
    )


@pytest.fixture
def shop(sqlite_bi):
    return sqlite_bi(
        "CREATE TABLE orders (order_id INTEGER, region TEXT, customer TEXT, sales REAL, quantity INTEGER);",
        {"orders": [(i, ("West", "East")[i % 2], f"c{i % 5}", 10.0 * i, 1 + i % 7) for i in range(30)]},
    )


def _handed(bi, question: str) -> list[str]:
    return [f["column"] for f in measured_fields(bi, question, [])]


def test_the_phrases_of_a_measure():
    assert measure_phrases("heaviest adelie in kilos") == ["heaviest"]
    assert measure_phrases("what's the average fuel economy of cars with 8 cylinders?") == ["fuel economy"]
    assert measure_phrases("which get better fuel economy on average?") == ["better fuel economy"]
    assert measure_phrases("kenyan medal total, winter 2014") == ["kenyan medal"]  # not past the comma
    assert measure_phrases("who looks after the largest number of customers") == []  # ranks the count


def test_a_superlative_is_handed_its_column(penguins):
    assert _handed(penguins, "heaviest adelie in kilos") == ["body_mass_g"]


def test_an_aggregate_measure_nothing_spells_is_handed_its_column(cars):
    assert _handed(cars, "what's the average fuel economy of cars with 8 cylinders?") == ["mpg"]
    assert _handed(cars, "asian vs european cars: which get better fuel economy on average?") == ["mpg"]


def test_a_field_already_mapped_is_not_handed_twice(cars):
    mapped = [{"term": "mpg", "table": "cars", "column": "mpg"}]
    assert measured_fields(cars, "the average fuel economy of 8-cylinder cars", mapped) == []


def test_a_phrase_the_layer_spells_is_the_lexical_mappings(cars):
    assert _handed(cars, "average horsepower of the cars from 1975") == []
    assert _handed(cars, "average weight per cylinder count") == []


def test_two_columns_near_the_phrase_hand_none(shop):
    assert _handed(shop, "average units sold per region") == []  # `quantity` and `sales`


def test_a_text_column_is_not_handed(penguins):
    assert _handed(penguins, "average gender of the adelie birds") == []  # `sex`, a text column
