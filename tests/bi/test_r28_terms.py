"""Round 28: terms the data holds under another spelling. A term whose words glued are a table's name ('line item
count' of `lineitem`), two listed values read as one field ('chair vs table'), a term of grammar words only
('theirs'); and the counter-examples: an aggregate word that is the field's own name, a field the data lacks."""

from __future__ import annotations

import pytest

from orrery.bi.agent import BIAgent
from orrery.bi.decline import missing_fields, unit_column
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def shop(sqlite_bi):
    """Order lines (a glued table name) by ship mode, products by category, orders with a `total` and an
    `avg_price` column."""
    return sqlite_bi(
        "CREATE TABLE lineitem (l_id INTEGER, l_shipmode TEXT, l_qty INTEGER);"
        "CREATE TABLE products (prod_id INTEGER, category TEXT, units INTEGER);"
        "CREATE TABLE orders (order_id INTEGER, total REAL, avg_price REAL);",
        {
            "lineitem": [(i, ("AIR", "RAIL", "SHIP")[i % 3], i % 9) for i in range(30)],
            "products": [(i, ("Chairs", "Tables", "Bookcases")[i % 3], 10 * i) for i in range(30)],
            "orders": [(i, 12.5 * i, 2.5 * i) for i in range(20)],
        },
    )


def test_a_term_whose_words_glued_name_a_table_is_held(shop):
    question = "line items going by AIR versus RAIL, give me both counts"
    assert missing_fields(shop, ["line item count"], question) == []


def test_words_that_glue_into_no_schema_name_stay_missing(shop):
    question = "order items going by AIR, give me the count"
    assert missing_fields(shop, ["order item count"], question) == ["order item count"]


def test_two_listed_values_are_not_one_missing_field(shop):
    assert missing_fields(shop, ["chair vs table"], "units moved: chairs vs tables") == []


def test_a_listed_value_the_data_lacks_keeps_the_term_missing(shop):
    assert missing_fields(shop, ["chair vs sofa"], "units moved: chairs vs sofas") == ["chair vs sofa"]


def test_listed_fields_each_held_are_held_and_a_phrase_of_neither_is_not(shop):
    assert missing_fields(shop, ["price and total"], "price and total of order 3") == []
    assert missing_fields(shop, ["rise and fall"], "total rise and fall per ship mode") == ["rise and fall"]


def test_a_term_of_grammar_words_only_names_no_missing_field(shop):
    question = "what % of all the units was theirs"
    assert missing_fields(shop, ["theirs"], question) == []


def test_an_aggregate_word_that_is_the_fields_own_name_is_held(shop):
    assert missing_fields(shop, ["total"], "what is the total of order 3") == []
    assert missing_fields(shop, ["avg price"], "the avg price of order 3") == []


def test_an_aggregate_word_does_not_hold_a_field_the_data_lacks(shop):
    question = "the average shipping cost per ship mode"
    assert missing_fields(shop, ["average shipping cost"], question) == ["average shipping cost"]


@pytest.fixture
def colony(sqlite_bi):
    """Penguins measured in millimetres and grams, the unit in the column's name; a text column of a unit-like
    name."""
    return sqlite_bi(
        "CREATE TABLE obs (obs_id INTEGER, flipper_mm REAL, body_g REAL, nest_m TEXT);",
        {"obs": [(i, 180.0 + i, 3500.0 + 10 * i, f"site {i}") for i in range(20)]},
    )


def test_a_quantity_of_a_column_named_with_its_unit_is_that_column(colony):
    assert missing_fields(colony, ["flipper length"], "flipper length on average") == []
    assert unit_column(colony, "flipper lengths") == ("obs", "flipper_mm")
    assert missing_fields(colony, ["body weight"], "mean body weight") == []


def test_a_quantity_the_unit_does_not_measure_stays_missing(colony):
    assert missing_fields(colony, ["flipper weight"], "average flipper weight") == ["flipper weight"]
    assert missing_fields(colony, ["nest height"], "average nest height") == ["nest height"]  # a text column
    assert missing_fields(colony, ["wing length"], "average wing length") == ["wing length"]


@pytest.fixture
def staff(sqlite_bi):
    """Employees by title; the layer's description of `title` lists its first values, not 'Sales Support Agent'."""
    titles = ("General Manager", "IT Manager", "IT Staff", "Sales Manager", "Sales Support Agent")
    return sqlite_bi(
        "CREATE TABLE employees (emp_id INTEGER, full_name TEXT, title TEXT);",
        {"employees": [(i, f"Person {i}", titles[i % 4 if i else 4]) for i in range(12)]},  # one agent
    )


def test_a_category_value_named_by_its_last_words_is_held(staff):
    question = "Which support agent has been here longest?"
    assert missing_fields(staff, ["support agent"], question) == []


def test_words_that_end_no_value_stay_missing(staff):
    question = "Which field agent has been here longest?"
    assert missing_fields(staff, ["field agent"], question) == ["field agent"]


def test_field_mapping_hands_the_sql_step_the_column_a_unit_names(colony, tmp_path):
    model = ScriptedModel(
        [
            {"request": "Average flipper length", "kind": "query", "values": [], "fields": ["flipper length"]},
            {"sql": "SELECT avg(flipper_mm) AS n FROM obs"},
        ]
    )
    r = BIAgent(model, colony.engine, store=tmp_path / "s.db", prose=False, sql_mode="sql").ask(
        "What is the average flipper length?"
    )
    assert r.status == "completed" and r.rows == [[189.5]]
    assert '"column": "flipper_mm"' in str(r.todos)
