"""Round 27 (bench/bi.md "Round 27"): a child table the slice put first ('lineitem' for 'how many urgent orders ...') that
no part, value or word of the question names is not joined: each parent row would be counted once per child row.
On a parcel depot of its own, not the sets the rule was read from."""

from __future__ import annotations

from pathlib import Path

import pytest
from bi_compose_helpers import compose_sql, rows, sqlite_engine, value


@pytest.fixture
def depot(tmp_path: Path):
    """12 parcels (every third one urgent), each scanned 1 to 4 times at one of two hubs; no declared keys."""
    engine = sqlite_engine(
        tmp_path / "depot.sqlite",
        "CREATE TABLE parcels (parcel_id INTEGER, priority TEXT, sent_yr INTEGER);"
        "CREATE TABLE hubs (hub_id INTEGER, hub_name TEXT);"
        "CREATE TABLE scans (scan_id INTEGER, parcel_id INTEGER, hub_id INTEGER, scan_km REAL);",
        {
            "parcels": [(i, "1-URGENT" if i % 3 == 0 else "3-MEDIUM", 2000 + i % 2) for i in range(12)],
            "hubs": [(1, "North"), (2, "South")],
            "scans": [(100 * i + k, i, 1 + (i + k) % 2, 5.0 * k) for i in range(12) for k in range(1 + i % 4)],
        },
    )
    yield engine
    engine.close()


URGENT = value("parcels", "priority", "1-URGENT")


def test_the_parents_rows_are_counted_without_an_unused_child(depot):
    sql = compose_sql(
        depot,
        ["scans", "parcels"],
        "how many urgent parcels were sent in 2000?",
        [URGENT],
        select=["COUNT(*)"],
        where=["parcels.priority = '1-URGENT'", "parcels.sent_yr = 2000"],
    )
    assert "scans" not in sql and rows(depot, sql) == [(2,)], sql


def test_a_child_named_used_or_beside_no_named_parent_is_kept(depot):
    kept = (  # (question, what is counted, where): the scans are counted, or filtered on
        ("how many scans of urgent parcels?", "COUNT(parcels.parcel_id)", ["parcels.priority = '1-URGENT'"]),
        ("urgent parcels: how many scanning events?", "COUNT(parcels.parcel_id)", ["parcels.priority = '1-URGENT'"]),
        ("how many of them were urgent?", "COUNT(parcels.sent_yr)", ["parcels.priority = '1-URGENT'"]),  # no parent
        (
            "how many urgent parcels travelled past 10 km?",
            "COUNT(*)",
            ["parcels.priority = '1-URGENT'", "scans.scan_km > 10"],
        ),
    )
    for question, counted, where in kept:
        sql = compose_sql(depot, ["scans", "parcels"], question, [URGENT], select=[counted], where=where)
        assert "JOIN" in sql and "scans" in sql, (question, sql)


def test_a_child_on_the_path_to_a_filtered_table_is_kept(depot):
    sql = compose_sql(
        depot,
        ["scans", "parcels", "hubs"],
        "how many urgent parcels went through North?",
        [URGENT, value("hubs", "hub_name", "North")],
        select=["COUNT(DISTINCT parcels.parcel_id)"],
        where=["parcels.priority = '1-URGENT'", "hubs.hub_name = 'North'"],
    )
    assert "scans" in sql and rows(depot, sql) == [(4,)], sql
