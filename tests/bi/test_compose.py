"""SQL from parts: columns qualified, FROM/JOIN derived from the semantic layer's join paths."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose
from orrery.bi.semantic import load
from orrery.errors import ToolError


@pytest.fixture(scope="module")
def tpch_sem():
    return load("tpch", None)


@pytest.fixture(scope="module")
def chinook_sem():
    return load("chinook", None)


def test_the_question_table_is_counted_and_joined_to_the_filter(chinook_sem, chinook):
    sql = compose(QueryParts(select=["count(*)"], where=["Genre.Name = 'Blues'"]), chinook_sem, ["Track", "Genre"],
                  [], "duckdb")
    assert sql == ("SELECT COUNT(*) FROM Track JOIN Genre ON Track.GenreId = Genre.GenreId "
                   "WHERE Genre.Name = 'Blues'")
    assert chinook.execute(sql).rows == [(81,)]


def test_intermediate_tables_are_joined_in_order(tpch_sem, tpch):
    sql = compose(QueryParts(select=["count(*)"], where=["r_name = 'AFRICA'"]), tpch_sem, ["customer"], [], "duckdb")
    assert "JOIN nation ON customer.c_nationkey = nation.n_nationkey JOIN region ON" in sql
    assert tpch.execute(sql).rows == tpch.execute(
        "SELECT count(*) FROM customer, nation, region WHERE c_nationkey = n_nationkey AND n_regionkey = r_regionkey "
        "AND r_name = 'AFRICA'").rows


def test_resolved_values_filter_even_when_left_out(chinook_sem, pg_chinook):
    sql = compose(QueryParts(select=["count(*)"]), chinook_sem, ["Track", "Artist", "Album"],
                  [{"table": "Artist", "column": "Name", "value": "AC/DC"}], "postgres")
    assert pg_chinook.execute(sql).rows == [(18,)]


def test_group_order_limit_and_errors(chinook_sem):
    sql = compose(QueryParts(select=["Genre.Name", "count(*) AS n"], group_by=["Genre.Name"], order_by=["n DESC"],
                             limit=3), chinook_sem, ["Track"], [], "duckdb")
    assert sql.endswith("GROUP BY Genre.Name ORDER BY n DESC LIMIT 3") and "FROM Track JOIN Genre" in sql
    with pytest.raises(ToolError, match="no select items"):
        compose(QueryParts(), chinook_sem, ["Track"], [], "duckdb")
    with pytest.raises(ToolError, match="unknown table 'Nope'"):
        compose(QueryParts(select=["Nope.x"]), chinook_sem, ["Track"], [], "duckdb")
    with pytest.raises(ToolError, match="not valid SQL"):
        compose(QueryParts(select=["count(*"]), chinook_sem, ["Track"], [], "duckdb")


def test_columns_no_table_has_are_named(chinook_sem):
    from orrery.bi.compose import UnknownField

    with pytest.raises(UnknownField, match="'CustomerRating'"):
        compose(QueryParts(select=["avg(CustomerRating)"]), chinook_sem, ["Album"], [], "duckdb")
    with pytest.raises(UnknownField, match="'Album.Rating'"):
        compose(QueryParts(select=["Album.Rating"]), chinook_sem, ["Album"], [], "duckdb")


def test_terms_by_name_year_literals_and_missing_group_by(tpch_sem, chinook_sem, tpch, pg_tpch, chinook):
    delay = compose(QueryParts(select=["l_shipmode", "avg(delay)"]), tpch_sem, ["lineitem"], [], "postgres")
    assert "AVG((lineitem.l_receiptdate - lineitem.l_commitdate))" in delay and delay.endswith(
        "GROUP BY lineitem.l_shipmode")
    assert len(pg_tpch.execute(delay).rows) == len(tpch.execute(delay).rows) == 7
    year = compose(QueryParts(select=["count(*)"], where=["o_orderdate = '1995'"]), tpch_sem, ["orders"], [], "duckdb")
    assert tpch.execute(year).rows == [(2204,)]
    top = compose(QueryParts(select=["Genre.Name"], order_by=["count(*) DESC"], limit=1), chinook_sem, ["Track"], [],
                  "duckdb")
    assert chinook.execute(top).rows == [("Rock",)]


def test_field_names_with_underscores_and_term_descriptions():
    from orrery.bi.tools import rank_fields

    assert rank_fields(load("chinook", None), "total_amount")[0][2] == {"table": "Invoice", "column": "Total"}
    assert "revenue" in rank_fields(load("tpch", None), "price_after_discount")[0][1]
