"""The semantic layer (draft, retrieval along join paths), the GraphQL layer, the value index and Superstore."""

from __future__ import annotations

import pytest

from orrery.bi.engines import QueryError
from orrery.bi.graphql_layer import GraphQLLayer
from orrery.bi.semantic import Semantic, draft, load
from orrery.bi.tools import BIContext, pick_option, rank_fields
from orrery.errors import ConfigError


def test_draft_infers_tpch_joins_and_value_columns(tpch):
    sem = draft(tpch)
    assert set(sem.joins) >= {
        "lineitem.l_orderkey = orders.o_orderkey",
        "orders.o_custkey = customer.c_custkey",
        "customer.c_nationkey = nation.n_nationkey",
        "partsupp.ps_partkey = part.p_partkey",
    }
    cols = sem.tables["lineitem"]["columns"]
    assert (
        cols["l_shipmode"].get("values")
        and not cols["l_comment"].get("values")
        and not cols["l_quantity"].get("values")
    )


def test_draft_on_postgres_matches_the_duckdb_tables(pg_chinook):
    sem = draft(pg_chinook)
    assert "track.albumid = album.albumid" in sem.joins and sem.tables["artist"]["columns"]["name"]["values"]


def test_retrieval_keeps_the_prompt_to_the_relevant_tables():
    sem = load("tpch", None)
    tables = sem.retrieve(
        "How many shipments went to customers in Germany by air in 1995?", extra=["nation", "lineitem"]
    )  # where GERMANY and AIR resolved
    assert set(tables) == {"customer", "nation", "lineitem", "orders"}  # through orders, not supplier
    text = sem.render(tables, "average delay")
    assert "TABLE part" not in text and "delay = l_receiptdate - l_commitdate (days)" in text


def test_semantic_file_must_have_tables():
    with pytest.raises(ConfigError, match="tables"):
        Semantic.from_dict({"database": "x"})


def test_field_ranking_and_answer_picking():
    sem = load("chinook", None)
    assert rank_fields(sem, "track length")[0][2] == {"table": "Track", "column": "Milliseconds"}
    assert rank_fields(sem, "number of") == []  # only generic words
    assert rank_fields(sem, "favourite colour")[0][0] < 75
    options = ["UNITED KINGDOM", "UNITED STATES"]
    assert pick_option("the second one", options) == "UNITED STATES"
    assert pick_option("kingdom", options) == "UNITED KINGDOM" and pick_option("UK", options) is None


def test_value_index_finds_close_and_exact_values(chinook):
    bi = BIContext(chinook, load("chinook", chinook), None)
    assert bi.search("ac/dc")[0].value == "AC/DC"
    santana = [c.value for c in bi.search("Santana")[:3]]
    assert santana[0] == "Santana" and any("Santana Feat." in v for v in santana[1:])


@pytest.mark.parametrize("which", ["duckdb", "postgres"])
def test_graphql_layer_is_read_only_and_typed(which, tpch, pg_tpch):
    gql = GraphQLLayer(tpch if which == "duckdb" else pg_tpch)
    r = gql.execute('{ nation(n_name: "GERMANY") { n_nationkey n_name } }')
    assert r.rows == [(7, "GERMANY")] and r.columns == ["n_nationkey", "n_name"]
    r = gql.execute("{ orders(o_custkey: 1, limit: 2) { o_orderkey o_totalprice } }")
    assert len(r.rows) == 2 and isinstance(r.rows[0][0], int) and isinstance(r.rows[0][1], float)
    with pytest.raises(QueryError, match="mutation"):
        gql.execute("mutation { nation { n_name } }")
    with pytest.raises(QueryError, match="Cannot query field"):
        gql.execute("{ nation { n_secret } }")


def test_superstore_is_built_from_bokeh_sampledata(bi_home):
    from orrery.bi.data import open_engine

    engine = open_engine("superstore")
    assert engine.execute("SELECT count(*), count(DISTINCT region) FROM orders").rows == [(9994, 4)]
    assert {"ship_mode", "sub_category", "profit"} <= {c.name for c in engine.tables()["orders"]}


def test_graphql_lookup_matches_names_regardless_of_case(pg_chinook):
    gql = GraphQLLayer(pg_chinook)
    assert gql.execute(gql.lookup_query("Artist", "Name", "AC/DC")).rows == [(1, "AC/DC")]
