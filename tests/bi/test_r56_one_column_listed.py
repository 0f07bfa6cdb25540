"""Round 56 (bench/bi_r56.md, class B): one column set equal to two values joined by AND finds no row by construction;
the values are the ones the question lists, so the column is IN them. On a database of its own: shop customers."""

from __future__ import annotations

from pathlib import Path

import pytest
from bi_compose_helpers import compose_sql, rows, sqlite_engine


@pytest.fixture
def shop(tmp_path: Path):
    engine = sqlite_engine(
        tmp_path / "shop.sqlite",
        "CREATE TABLE buyers (buyer_id INTEGER, land TEXT, orders INTEGER);",
        {"buyers": [(i, ("Spain", "Chile", "Peru")[i % 3], i) for i in range(12)]},
    )
    yield engine
    engine.close()


def test_one_column_equal_to_two_values_is_either(shop):
    sql = compose_sql(
        shop,
        ["buyers"],
        "spanish plus chilean buyers - total count",
        select=["COUNT(*)"],
        where=["buyers.land = 'Spain' AND buyers.land = 'Chile'"],
    )
    assert "IN ('Spain', 'Chile')" in sql and rows(shop, sql) == [(8,)], sql


def test_one_value_and_a_range_of_another_column_stay_and_a_repeated_value_is_one(shop):
    sql = compose_sql(
        shop,
        ["buyers"],
        "spanish buyers with over 3 orders",
        select=["COUNT(*)"],
        where=["buyers.land = 'Spain' AND buyers.orders > 3 AND buyers.land = 'Spain'"],
    )
    assert " IN " not in sql and sql.count("'Spain'") == 1 and rows(shop, sql) == [(2,)], sql


def test_values_the_question_sets_side_by_side_are_still_one_row_each(shop):
    """`_either_value` reads the question's '&' and groups per value first ('rock & metal tracks - avg length,
    each'); the rule, run after it, does not turn the two filters into one total."""
    sql = compose_sql(
        shop,
        ["buyers"],
        "spain & chile buyers - orders on average, each",
        select=["AVG(buyers.orders)"],
        where=["buyers.land = 'Spain' AND buyers.land = 'Chile'"],
    )
    assert "GROUP BY buyers.land" in sql and rows(shop, sql) == [("Chile", 5.5), ("Spain", 4.5)], sql
