"""Round 32, rule M: a term nothing spells is held when MiniLM singles out one column for it (its cosine beats every
other target's by `decline.MEANING_MARGIN`): 'births per woman' is `fertility`, 'iron content' is `fe_wt`. The
counter-examples: a term near several columns at once stays missing ('salary' where only a `price` exists,
'employee count' in a sales database)."""

from __future__ import annotations

import pytest

from orrery.bi import decline
from orrery.bi.agent import BIAgent
from orrery.bi.decline import missing_fields, shape_decline, singled_out
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def glass(sqlite_bi):
    """Glass fragments with each element's weight percent in a column named by its chemical symbol."""
    return sqlite_bi(
        "CREATE TABLE frags (frag_no INTEGER, na_wt REAL, k_wt REAL, fe_wt REAL, si_wt REAL, cls TEXT);",
        {"frags": [(i, 13.0 + i / 10, 0.5, 0.1 * (i % 3), 72.0, ("float", "tableware")[i % 2]) for i in range(30)]},
    )


@pytest.fixture
def shop(sqlite_bi):
    """Orders of a shop: region, product, price, quantity, date; no employees, no pay."""
    return sqlite_bi(
        "CREATE TABLE orders (order_id INTEGER, region TEXT, product TEXT, price REAL, qty INTEGER, order_date TEXT);",
        {
            "orders": [
                (
                    i,
                    ("West", "East")[i % 2],
                    ("Chair", "Table", "Desk")[i % 3],
                    10.0 + i,
                    i % 7,
                    f"2020-01-{1 + i % 28:02d}",
                )
                for i in range(40)
            ]
        },
    )


def test_a_term_meaning_one_column_far_more_than_any_other_is_held(indicators, monkeypatch):
    question = "average births per woman for each region in 2000"
    assert singled_out(indicators, "births per woman") == {"table": "indicators", "column": "fertility"}
    assert missing_fields(indicators, ["births per woman"], question) == []
    assert shape_decline(indicators, question) is None
    monkeypatch.setattr(decline, "MEANING_MARGIN", float("inf"))  # the rule off: the term was missing
    assert missing_fields(indicators, ["births per woman"], question) == ["births per woman"]


def test_an_element_named_for_its_symbols_column_is_held(glass, monkeypatch):
    assert missing_fields(glass, ["iron content"], "average iron content, headlamp pieces") == []
    assert singled_out(glass, "iron content") == {"table": "frags", "column": "fe_wt"}
    monkeypatch.setattr(decline, "MEANING_MARGIN", float("inf"))
    assert missing_fields(glass, ["iron content"], "average iron content, headlamp pieces") == ["iron content"]


def test_a_term_near_several_columns_stays_missing(shop, indicators):
    assert missing_fields(shop, ["salary"], "which region pays the highest salary") == ["salary"]
    assert missing_fields(shop, ["employee count"], "employee count per region") == ["employee count"]
    assert missing_fields(indicators, ["literacy rate"], "literacy rate of each region in 2000") == ["literacy rate"]
    assert singled_out(shop, "salary") is None


def test_a_column_that_does_not_account_for_the_whole_term_does_not_hold_it(indicators):
    # 'region' is another column's word: 'fertility' stands out for 'births' but is no region's
    assert singled_out(indicators, "region births") is None
    assert missing_fields(indicators, ["region births"], "average region births in 2000") == ["region births"]


def test_a_word_no_dictionary_knows_is_left_to_the_typo_rule(indicators):
    # 'brths' is two edits from 'births': no typo by read_typos, and MiniLM's word pieces do not stand in for it
    assert singled_out(indicators, "brths per woman") is None
    assert missing_fields(indicators, ["brths per woman"], "average brths per woman in 2000") == ["brths per woman"]


def test_field_mapping_hands_the_sql_step_the_column_singled_out(glass, tmp_path):
    model = ScriptedModel(
        [
            {"request": "Average iron content", "kind": "query", "values": [], "fields": ["iron content"]},
            {"sql": "SELECT avg(fe_wt) AS n FROM frags"},
        ]
    )
    r = BIAgent(model, glass.engine, store=tmp_path / "s.db", prose=False, sql_mode="sql").ask(
        "What is the average iron content?"
    )
    assert r.status == "completed"
    assert '"column": "fe_wt"' in str(r.todos)
