"""An approved pair shown to the SQL step in its parts format names each column by its table, not by an alias:
the parts carry no FROM, so a person's `n.n_name` would name nothing the step's schema shows
(bench/bi_memory.md, round 18)."""

from __future__ import annotations

from orrery.bi.examples import sql_parts


def test_an_alias_of_one_table_is_written_as_the_tables_name():
    sql = (
        "SELECT n.n_name FROM supplier s JOIN nation n ON s.s_nationkey = n.n_nationkey "
        "WHERE s.s_acctbal > 0 GROUP BY n.n_name ORDER BY count(*) DESC LIMIT 1"
    )
    assert sql_parts(sql, "sqlite") == {
        "select": ["nation.n_name"],
        "where": ["supplier.s_acctbal > 0"],
        "group_by": ["nation.n_name"],
        "having": [],
        "order_by": ["COUNT(*) DESC"],
        "limit": 1,
    }


def test_a_correction_filtering_a_joined_table_names_that_table():
    sql = "SELECT count(*) FROM routes r JOIN airports a ON r.SourceID = a.AirportID WHERE a.City = 'Denver'"
    assert sql_parts(sql, "sqlite")["where"] == ["airports.City = 'Denver'"]


def test_a_table_read_under_two_aliases_keeps_them():
    sql = (
        "SELECT s.City, d.City FROM routes r JOIN airports s ON r.SourceID = s.AirportID "
        "JOIN airports d ON r.DestinationID = d.AirportID WHERE r.Stops = 0"
    )
    parts = sql_parts(sql, "sqlite")
    assert parts["select"] == ["s.City", "d.City"]
    assert parts["where"] == ["routes.Stops = 0"]


def test_a_query_with_table_names_is_read_as_written():
    sql = "SELECT Customer.Country, SUM(Invoice.Total) FROM Customer JOIN Invoice ON Invoice.CustomerId = Customer.CustomerId GROUP BY Customer.Country"
    parts = sql_parts(sql, "sqlite")
    assert parts["select"] == ["Customer.Country", "SUM(Invoice.Total)"]
    assert parts["group_by"] == ["Customer.Country"]
