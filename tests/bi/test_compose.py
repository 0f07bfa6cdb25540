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
    sql = compose(
        QueryParts(select=["count(*)"], where=["Genre.Name = 'Blues'"]), chinook_sem, ["Track", "Genre"], [], "duckdb"
    )
    assert sql == ("SELECT COUNT(*) FROM Track JOIN Genre ON Track.GenreId = Genre.GenreId WHERE Genre.Name = 'Blues'")
    assert chinook.execute(sql).rows == [(81,)]


def test_intermediate_tables_are_joined_in_order(tpch_sem, tpch):
    sql = compose(QueryParts(select=["count(*)"], where=["r_name = 'AFRICA'"]), tpch_sem, ["customer"], [], "duckdb")
    assert "JOIN nation ON customer.c_nationkey = nation.n_nationkey JOIN region ON" in sql
    assert (
        tpch.execute(sql).rows
        == tpch.execute(
            "SELECT count(*) FROM customer, nation, region WHERE c_nationkey = n_nationkey AND n_regionkey = r_regionkey "
            "AND r_name = 'AFRICA'"
        ).rows
    )


def test_resolved_values_filter_even_when_left_out(chinook_sem, pg_chinook):
    sql = compose(
        QueryParts(select=["count(*)"]),
        chinook_sem,
        ["Track", "Artist", "Album"],
        [{"table": "Artist", "column": "Name", "value": "AC/DC"}],
        "postgres",
    )
    assert pg_chinook.execute(sql).rows == [(18,)]


def test_a_value_resolved_twice_filters_once(chinook_sem):
    # the planner and the category-word reading may both resolve one value: one filter, not "x = v AND x = v"
    twice = [{"table": "Artist", "column": "Name", "value": "AC/DC"}] * 2
    sql = compose(QueryParts(select=["count(*)"]), chinook_sem, ["Track", "Artist", "Album"], twice, "duckdb")
    assert sql.count("'AC/DC'") == 1


def test_group_order_limit_and_errors(chinook_sem):
    sql = compose(
        QueryParts(select=["Genre.Name", "count(*) AS n"], group_by=["Genre.Name"], order_by=["n DESC"], limit=3),
        chinook_sem,
        ["Track"],
        [],
        "duckdb",
    )
    assert sql.endswith("GROUP BY Genre.Name ORDER BY n DESC LIMIT 3") and "FROM Track JOIN Genre" in sql
    with pytest.raises(ToolError, match="no select items"):
        compose(QueryParts(), chinook_sem, ["Track"], [], "duckdb")
    with pytest.raises(ToolError, match="'x'"):  # an invented table does not make a column exist
        compose(QueryParts(select=["Nope.x"]), chinook_sem, ["Track"], [], "duckdb")
    # a misspelt table before a column the slice has ('imdb.Year' for omdb.Year): the column decides
    sql = compose(
        QueryParts(select=["count(*)"], where=["Trak.Milliseconds > 100"]), chinook_sem, ["Track"], [], "duckdb"
    )
    assert sql == "SELECT COUNT(*) FROM Track WHERE Track.Milliseconds > 100"
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
        "GROUP BY lineitem.l_shipmode"
    )
    assert len(pg_tpch.execute(delay).rows) == len(tpch.execute(delay).rows) == 7
    year = compose(QueryParts(select=["count(*)"], where=["o_orderdate = '1995'"]), tpch_sem, ["orders"], [], "duckdb")
    assert tpch.execute(year).rows == [(2204,)]
    top = compose(
        QueryParts(select=["Genre.Name"], order_by=["count(*) DESC"], limit=1), chinook_sem, ["Track"], [], "duckdb"
    )
    assert chinook.execute(top).rows == [("Rock",)]


def test_field_names_with_underscores_and_term_descriptions():
    from orrery.bi.tools import rank_fields

    assert rank_fields(load("chinook", None), "total_amount")[0][2] == {"table": "Invoice", "column": "Total"}
    assert "revenue" in rank_fields(load("tpch", None), "price_after_discount")[0][1]


def _values(engine):
    """compose's `values`: the distinct values of a column, lower-cased (as BIContext.values gives them)."""
    return lambda table, column: {
        str(r[0]).lower() for r in engine.execute(f'SELECT DISTINCT "{column}" FROM "{table}"', max_rows=5000).rows
    }


def test_filters_nobody_asked_for_are_dropped(chinook_sem, tpch_sem, chinook, tpch):
    def sql(parts, sem, tables, question, engine, resolved=()):
        return compose(parts, sem, tables, list(resolved), "duckdb", question, _values(engine))

    # a value the column does not hold and the question names only as a table
    assert (
        sql(
            QueryParts(select=["count(*)"], where=["Album.Title = 'Albums'"]),
            chinook_sem,
            ["Album"],
            "How many albums are there?",
            chinook,
        )
        == "SELECT COUNT(*) FROM Album"
    )
    assert (
        sql(
            QueryParts(select=["count(*)"], where=["Playlist.Name = 'playlistCount'"]),
            chinook_sem,
            ["Playlist"],
            "How many playlists are there?",
            chinook,
        )
        == "SELECT COUNT(*) FROM Playlist"
    )
    # a value the column holds but the user did not write as a word ('SHIP' inside 'shipments'); the
    # dropped filter's table is not joined either
    late = sql(
        QueryParts(
            select=["count(*)"],
            where=["lineitem.l_shipmode = 'SHIP'", "lineitem.l_receiptdate > lineitem.l_commitdate"],
        ),
        tpch_sem,
        ["lineitem"],
        "How many shipments arrived after their commit date?",
        tpch,
    )
    assert (
        "SHIP'" not in late
        and tpch.execute(late).rows
        == tpch.execute("SELECT count(*) FROM lineitem WHERE l_receiptdate > l_commitdate").rows
    )
    # a key number the question does not give, written inside one AND
    asia = sql(
        QueryParts(select=["nation.n_name"], where=["nation.n_regionkey = 5 AND region.r_name = 'ASIA'"]),
        tpch_sem,
        ["nation", "region"],
        "List the names of the nations in ASIA.",
        tpch,
    )
    assert len(tpch.execute(asia).rows) == 5 and "n_regionkey = 5" not in asia
    # what the user wrote stays, held or not (an empty answer is the right one for a value nobody has)
    kept = sql(
        QueryParts(select=["count(*)"], where=["lineitem.l_shipmode = 'AIR'"]),
        tpch_sem,
        ["lineitem"],
        "How many line items were shipped by air?",
        tpch,
    )
    assert "= 'AIR'" in kept
    assert "'Atlantis'" in sql(
        QueryParts(select=["count(*)"], where=["Customer.City = 'Atlantis'"]),
        chinook_sem,
        ["Customer"],
        "How many customers live in Atlantis?",
        chinook,
    )


def test_a_clearly_named_unknown_column_is_its_field(chinook_sem, tpch_sem, tpch):
    urgent = compose(
        QueryParts(select=["count(*)"], where=["priority = '1-URGENT'"]),
        tpch_sem,
        ["orders"],
        [],
        "duckdb",
        "How many orders have priority 1-URGENT?",
    )
    assert (
        tpch.execute(urgent).rows == tpch.execute("SELECT count(*) FROM orders WHERE o_orderpriority = '1-URGENT'").rows
    )
    by_country = compose(
        QueryParts(
            select=["BillingCountry", "sum(total_amount) AS total_amount"],
            group_by=["BillingCountry"],
            order_by=["total_amount DESC"],
        ),
        chinook_sem,
        ["Invoice"],
        [],
        "duckdb",
        "Total invoice amount per billing country?",
    )
    assert "SUM(Invoice.Total) AS total_amount" in by_country and by_country.endswith("ORDER BY total_amount DESC")
    from orrery.bi.compose import UnknownField

    with pytest.raises(UnknownField, match="'rating'"):  # nothing is clearly a rating: repaired, then declined
        compose(QueryParts(select=["avg(rating)"]), chinook_sem, ["Album"], [], "duckdb", "Average rating?")


def test_groups_counted_shown_and_only_when_asked(chinook_sem, tpch_sem, chinook, tpch):
    many = compose(
        QueryParts(select=["count(*)"], group_by=["Track.AlbumId"], having=["count(*) > 20"]),
        chinook_sem,
        ["Album", "Track"],
        [],
        "duckdb",
        "How many albums have more than 20 tracks?",
    )
    assert (
        chinook.execute(many).rows
        == chinook.execute(
            "SELECT count(*) FROM (SELECT AlbumId FROM Track GROUP BY AlbumId HAVING count(*) > 20)"
        ).rows
    )
    per_mode = compose(
        QueryParts(select=["avg(delay)"], group_by=["lineitem.l_shipmode"]),
        tpch_sem,
        ["lineitem"],
        [],
        "duckdb",
        "What is the average delay in days per ship mode?",
    )
    assert per_mode.startswith("SELECT lineitem.l_shipmode, AVG(") and len(tpch.execute(per_mode).rows) == 7
    top = compose(
        QueryParts(select=["Genre.Name"], group_by=["Genre.Name"], having=["count(Track.TrackId) DESC"]),
        chinook_sem,
        ["Genre", "Track"],
        [],
        "duckdb",
        "Which genre has the most tracks?",
    )
    assert top.endswith("ORDER BY COUNT(Track.TrackId) DESC LIMIT 1") and chinook.execute(top).rows == [("Rock",)]
    overall = compose(
        QueryParts(select=["customer.c_name", "avg(customer.c_acctbal)"], group_by=["customer.c_name"]),
        tpch_sem,
        ["customer"],
        [],
        "duckdb",
        "What is the average account balance of customers?",
    )
    assert overall == "SELECT AVG(customer.c_acctbal) FROM customer"
    year = compose(
        QueryParts(select=["count(*)"], where=["orders.o_orderdate = '1995-01-01'"]),
        tpch_sem,
        ["orders"],
        [],
        "duckdb",
        "How many orders were placed in 1995?",
    )
    assert tpch.execute(year).rows == [(2204,)]
    span = compose(
        QueryParts(
            select=["count(*)"], where=["orders.o_orderdate >= '1995-01-01' AND orders.o_orderdate < '1995-12-31'"]
        ),
        tpch_sem,
        ["orders"],
        [],
        "duckdb",
        "How many orders were placed in 1995?",
    )  # the model's range drops 31 December
    assert tpch.execute(span).rows == [(2204,)]
    for question in ("# of orders placed in calendar 95", "how many orders in '95"):
        short = compose(
            QueryParts(
                select=["count(*)"],
                where=["orders.o_orderdate >= '1995-01-01' AND orders.o_orderdate < '1995-12-31'"],
            ),
            tpch_sem,
            ["orders"],
            [],
            "duckdb",
            question,
        )  # a two-digit year: the same whole year
        assert tpch.execute(short).rows == [(2204,)], short
    day = compose(
        QueryParts(select=["count(*)"], where=["orders.o_orderdate = '1995-01-01'"]),
        tpch_sem,
        ["orders"],
        [],
        "duckdb",
        "How many orders were placed on 1995-01-01?",
    )
    assert "'1995-01-01'" in day


def test_fields_the_question_spells_out_are_named_for_the_sql_step(tpch_sem, chinook_sem):
    from orrery.bi.semantic import named_fields

    assert named_fields(tpch_sem, ["lineitem"], "How many shipments arrived after their commit date?") == [
        ("commit date", "lineitem.l_commitdate"),
        ("arrived", "lineitem.l_receiptdate"),
    ]
    # the longer phrase wins ('total price', not 'price'); a table's own name says nothing
    assert named_fields(tpch_sem, ["lineitem", "orders", "customer"], "Total price of the orders of a customer?") == [
        ("total price", "orders.o_totalprice")
    ]
    assert named_fields(chinook_sem, ["Customer"], "How many customers are there?") == []


def test_a_ranking_question_drops_a_subquery_having(chinook_sem, chinook):
    top = compose(
        QueryParts(
            select=["Genre.Name"],
            group_by=["Genre.Name"],
            order_by=["count(*) DESC"],
            limit=1,
            having=["COUNT(*) = (SELECT COUNT(*) FROM Track GROUP BY Genre.Name LIMIT 1)"],
        ),
        chinook_sem,
        ["Track", "Genre"],
        [],
        "duckdb",
        "Which genre has the most tracks?",
    )
    assert "HAVING" not in top and chinook.execute(top).rows == [("Rock",)]


def test_joins_written_as_filters_go_and_the_path_follows_the_slice(tpch_sem, tpch):
    japan = compose(
        QueryParts(
            select=["count(*)"],
            where=[
                "orders.o_nationkey = (SELECT nation.n_nationkey FROM nation WHERE nation.n_name = 'JAPAN')",
                "lineitem.l_orderkey = orders.o_orderkey",
                "year(lineitem.l_shipdate) = 1996",
            ],
        ),
        tpch_sem,
        ["lineitem", "orders", "customer", "nation"],
        [{"table": "nation", "column": "n_name", "value": "JAPAN"}],
        "duckdb",
        "How many line items were shipped to customers in JAPAN in 1996?",
    )
    assert "JOIN customer" in japan and "supplier" not in japan  # through the customers the question names
    assert (
        tpch.execute(japan).rows
        == tpch.execute(
            "SELECT count(*) FROM lineitem l JOIN orders o ON l.l_orderkey = o.o_orderkey JOIN customer c "
            "ON o.o_custkey = c.c_custkey JOIN nation n ON c.c_nationkey = n.n_nationkey "
            "WHERE n.n_name = 'JAPAN' AND year(l.l_shipdate) = 1996"
        ).rows
    )


def test_counting_rows_per_group_and_one_sided_years(chinook_sem, tpch_sem, chinook, tpch):
    top = compose(
        QueryParts(
            select=["Genre.Name", "Track.Name"],
            group_by=["Genre.Name", "Track.Name"],
            having=["COUNT(*)"],
            order_by=["COUNT(*) DESC"],
            limit=1,
        ),
        chinook_sem,
        ["Track", "Genre"],
        [],
        "duckdb",
        "Which genre has the most tracks?",
    )
    assert chinook.execute(top).rows == [("Rock",)]  # not grouped by the counted tracks' own names
    many = compose(
        QueryParts(select=["count(*)"], having=["COUNT(Track.AlbumId) > 20"]),
        chinook_sem,
        ["Album", "Track"],
        [],
        "duckdb",
        "How many albums have more than 20 tracks?",
    )
    assert chinook.execute(many).rows == [(17,)]
    since = compose(
        QueryParts(select=["count(*)"], where=["orders.o_orderdate >= '1996-01-01'"]),
        tpch_sem,
        ["orders"],
        [],
        "duckdb",
        "How many orders were placed since 1996?",
    )
    assert ">= '1996-01-01'" in since
    during = compose(
        QueryParts(select=["count(*)"], where=["orders.o_orderdate >= '1996-01-01'"]),
        tpch_sem,
        ["orders"],
        [],
        "duckdb",
        "How many orders were placed in 1996?",
    )
    assert tpch.execute(during).rows == tpch.execute("SELECT count(*) FROM orders WHERE year(o_orderdate) = 1996").rows
