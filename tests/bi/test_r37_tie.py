"""Round 37, rule T'': a term two number columns of one table tie for is held, not declined: the data keeps the
measure in one of them ('revenue': `sales` or `profit`), which the user can be asked. The counter-examples: a term
near several columns at once ('salary', 'tax') and a tie of a number and a text column ('age' of penguins: `year`,
`sex`) stay missing; a term much nearer one column than the next is no tie (round 32's 'salary' in a shop:
tests/bi/test_r32_margin.py)."""

from __future__ import annotations

import pytest

from orrery.bi import decline
from orrery.bi.decline import missing_fields, shape_decline, tied_columns


@pytest.fixture
def store(sqlite_bi):
    """Orders of a store: region, segment, category, and four numbers: sales, quantity, discount, profit."""
    return sqlite_bi(
        "CREATE TABLE orders (order_id INTEGER, region TEXT, segment TEXT, category TEXT, sales REAL, quantity INTEGER,"
        " discount REAL, profit REAL);",
        {
            "orders": [
                (
                    i,
                    ("West", "East", "South")[i % 3],
                    ("Consumer", "Corporate")[i % 2],
                    ("Furniture", "Technology")[i % 2],
                    10.0 + i,
                    i % 7,
                    0.1 * (i % 3),
                    2.0 + i % 5,
                )
                for i in range(40)
            ]
        },
    )


@pytest.fixture
def penguins(sqlite_bi):
    """Penguins measured by species, island, sex and year; no age."""
    return sqlite_bi(
        "CREATE TABLE penguins (species TEXT, island TEXT, bill_length_mm REAL, bill_depth_mm REAL,"
        " flipper_length_mm REAL, body_mass_g REAL, sex TEXT, year INTEGER);",
        {
            "penguins": [
                (
                    ("Adelie", "Gentoo", "Chinstrap")[i % 3],
                    ("Biscoe", "Dream", "Torgersen")[i % 3],
                    40.0 + i % 9,
                    17.0 + i % 4,
                    190.0 + i,
                    3500.0 + 20 * i,
                    ("male", "female")[i % 2],
                    2007 + i % 3,
                )
                for i in range(45)
            ]
        },
    )


def _columns(tied):
    return {c["column"] for c in tied}


@pytest.mark.parametrize(("term", "pair"), [("revenue", {"sales", "profit"}), ("units sold", {"quantity", "sales"})])
def test_a_measure_two_number_columns_tie_for_is_held(store, monkeypatch, term, pair):
    question = f"compare {term} in the West and the East"
    assert _columns(tied_columns(store, term)) == pair
    assert missing_fields(store, [term], question) == []
    assert shape_decline(store, question) is None
    monkeypatch.setattr(decline, "TIE_MARGIN", float("inf"))  # the rule off: the term was missing
    assert missing_fields(store, [term], question) == [term]


@pytest.mark.parametrize("term", ["salary", "tax", "employee count"])
def test_a_term_near_several_columns_stays_missing(store, term):
    assert tied_columns(store, term) == []
    assert missing_fields(store, [term], f"{term} per region") == [term]


def test_a_tie_of_a_number_and_a_text_column_holds_nothing(penguins):
    # 'age' sits near `year` and `sex` (a text column), both apart from the rest: no measure kept in two columns
    assert tied_columns(penguins, "age") == []
    assert missing_fields(penguins, ["age"], "how old are the gentoos on average") == ["age"]


def test_the_tie_and_the_single_column_read_one_ranking(store, monkeypatch):
    # round 45: `singled_out` and `tied_columns` rank the layer's targets once per term; each caller gets its own dicts
    scored = []
    scores = decline._meaning_scores
    monkeypatch.setattr(decline, "_meaning_scores", lambda bi, term: scored.append(term) or scores(bi, term))
    pair = tied_columns(store, "revenue")
    assert decline.singled_out(store, "revenue") is None
    pair[0]["column"] = "changed"
    assert _columns(tied_columns(store, "revenue")) == {"sales", "profit"}
    assert scored == ["revenue"]
