"""An approved pair shown to the SQL step in its parts format names each column by its table, not by an alias:
the parts carry no FROM, so a person's `n.n_name` would name nothing the step's schema shows (bench/bi_memory.md,
rounds 18 and 20). A self-join, and an alias naming two sources, keep their aliases."""

from __future__ import annotations

import sqlite3

from sqlglot import exp

from orrery.bi.examples import sql_parts


def test_an_alias_of_one_table_is_written_as_the_tables_name_in_every_part():
    sql = (
        "SELECT n.n_name, count(*) AS n FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey "
        "WHERE s.s_acctbal > 0 GROUP BY n.n_name HAVING max(s.s_acctbal) > 1 ORDER BY count(*) DESC LIMIT 1"
    )
    assert sql_parts(sql, "sqlite") == {
        "select": ["nation.n_name", "COUNT(*) AS n"],
        "where": ["supplier.s_acctbal > 0"],
        "group_by": ["nation.n_name"],
        "having": ["MAX(supplier.s_acctbal) > 1"],
        "order_by": ["COUNT(*) DESC"],
        "limit": 1,
    }


def test_a_correction_filtering_a_joined_table_names_that_table():
    sql = "SELECT count(*) FROM routes r JOIN airports a ON r.SourceID = a.AirportID WHERE a.City = 'Denver'"
    assert sql_parts(sql, "sqlite")["where"] == ["airports.City = 'Denver'"]


def test_a_subquery_in_a_part_reads_its_table_by_the_name_its_columns_now_use():
    db = sqlite3.connect(":memory:")
    db.executescript(
        "CREATE TABLE customer (id INTEGER, name TEXT); CREATE TABLE orders (cid INTEGER, total REAL);"
        "INSERT INTO customer VALUES (1, 'Ann'), (2, 'Bo'); INSERT INTO orders VALUES (1, 9.0), (2, 1.0);"
    )
    sql = "SELECT c.name FROM customer c WHERE c.id IN (SELECT o.cid FROM orders o WHERE o.total > 5)"
    [where] = sql_parts(sql, "sqlite")["where"]
    assert " AS o" not in where
    assembled = exp.select(*sql_parts(sql, "sqlite")["select"]).from_("customer").where(where).sql("sqlite")
    assert db.execute(assembled).fetchall() == db.execute(sql).fetchall() == [("Ann",)]


def test_a_table_read_under_two_aliases_keeps_them():
    sql = (
        "SELECT s.City, d.City FROM routes r JOIN airports s ON r.SourceID = s.AirportID "
        "JOIN airports d ON r.DestinationID = d.AirportID WHERE r.Stops = 0"
    )
    assert sql_parts(sql, "sqlite")["select"] == ["s.City", "d.City"]


def test_beside_a_self_join_a_table_read_once_is_still_named():
    sql = (
        "SELECT count(*) FROM routes r JOIN airports s ON r.SourceID = s.AirportID "
        "JOIN airports d ON r.DestinationID = d.AirportID WHERE r.Stops = 0 AND s.City = 'Denver'"
    )
    assert sql_parts(sql, "sqlite")["where"] == ["routes.Stops = 0", "s.City = 'Denver'"]


def test_an_alias_naming_two_sources_is_kept():
    sql = "SELECT T1.x FROM (SELECT T1.x FROM orders T1) AS T1 WHERE T1.x > 0"
    assert sql_parts(sql, "sqlite")["select"] == ["T1.x"]  # the outer T1 is the derived table, not `orders`
    twice = "SELECT a.x FROM orders a WHERE a.y IN (SELECT a.y FROM items a)"
    assert sql_parts(twice, "sqlite")["select"] == ["a.x"]


def test_a_query_with_table_names_is_read_as_written():
    sql = (
        "SELECT Customer.Country, SUM(Invoice.Total) FROM Customer "
        "JOIN Invoice ON Invoice.CustomerId = Customer.CustomerId GROUP BY Customer.Country"
    )
    parts = sql_parts(sql, "sqlite")
    assert parts["select"] == ["Customer.Country", "SUM(Invoice.Total)"]
    assert parts["group_by"] == ["Customer.Country"]
