"""Round 21 (bench/bi.md, Round 21): a count asked but rows answered, one total over values a count joins with 'or' or
takes 'between them', a measure the model grouped on, and the repair of model-written SQL that names a column under
the wrong table. On a database of its own (shops in regions), not the sets the rules were read from."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from bi_compose_helpers import compose_sql, rows, sqlite_engine, value

from orrery.bi.agent import BIAgent
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.llm.scripted import ScriptedModel

REGIONS = ["North", "South", "East", "West", "Coast", "Hills", "Plains", "Lakes", "Delta", "Isles", "Forest", "Bay"]


@pytest.fixture
def shops(tmp_path: Path):
    """Shops of three kinds in twelve regions (a lookup, no declared key)."""
    kinds = ["Phones", "Copiers", "Machines"]
    engine = sqlite_engine(
        tmp_path / "shops.sqlite",
        "CREATE TABLE regions (region_id INTEGER, name TEXT);"
        "CREATE TABLE shops (shop_id INTEGER, region_id INTEGER, kind TEXT, staff INTEGER, profit REAL);",
        {
            "regions": list(enumerate(REGIONS)),
            "shops": [(i, i % 12, kinds[i % 3], 3 + i % 5, float(i % 7) - 2.5) for i in range(96)],
        },
    )
    yield engine
    engine.close()


EAST_WEST = [value("regions", "name", "East"), value("regions", "name", "West")]
BOTH = "SELECT COUNT(*) FROM shops s JOIN regions r ON s.region_id = r.region_id WHERE r.name IN ('East', 'West')"


def test_a_question_asking_how_many_counts_the_rows_it_would_list(shops):
    for question in ("how many shops do East and West have between them", "count the shops of East and West together"):
        sql = compose_sql(
            shops,
            ["shops", "regions"],
            question,
            EAST_WEST,
            select=["regions.name", "shops.kind"],
            where=["regions.name IN ('East', 'West')"],
        )
        assert rows(shops, sql) == rows(shops, BOTH), (question, sql)


def test_rows_asked_or_a_number_column_that_holds_the_count_stay_rows(shops):
    for question, select in (
        ("which kinds of shops does the East have", ["shops.kind"]),  # no count asked
        ("how many shops of each kind in the East", ["shops.kind"]),  # a group asked
        ("how many staff does shop 4 have", ["shops.staff"]),  # the count is the column's value
    ):
        sql = compose_sql(shops, ["shops", "regions"], question, select=select, where=["regions.name = 'East'"])
        assert "COUNT" not in sql, (question, sql)


STAFF_EAST_WEST = (
    "SELECT r.name, SUM(s.staff) FROM shops s JOIN regions r ON s.region_id = r.region_id "
    "WHERE r.name IN ('East', 'West') GROUP BY r.name"
)


def test_a_count_of_values_joined_by_or_is_one_total(shops):
    sql = compose_sql(
        shops,
        ["shops", "regions"],
        "shops in the East or the West - how many?",
        EAST_WEST,
        select=["COUNT(*)"],
        where=[],
    )
    assert rows(shops, sql) == rows(shops, BOTH), sql
    # asked per region: one count per value, as before
    question = "how many shops in the East or the West, per region"
    sql = compose_sql(shops, ["shops", "regions"], question, EAST_WEST, select=["COUNT(*)"], where=[])
    assert len(rows(shops, sql)) == 2, (question, sql)
    # compared: the one with more (round 25's rule 4), not one total of both
    question = "which has more staff, East or West"
    sql = compose_sql(shops, ["shops", "regions"], question, EAST_WEST, select=["SUM(shops.staff)"], where=[])
    (east, west) = rows(shops, STAFF_EAST_WEST)
    assert east[1] != west[1] and rows(shops, sql) == [max(east, west, key=lambda r: r[1])], (question, sql)


def test_a_measure_grouped_on_beside_the_asked_key_is_each_groups_sum(shops):
    sql = compose_sql(
        shops,
        ["shops", "regions"],
        "how much profit did we make, broken down by region",
        select=["regions.name", "shops.profit"],
        group_by=["regions.name", "shops.profit"],
    )
    gold = "SELECT r.name, SUM(s.profit) FROM shops s JOIN regions r ON s.region_id = r.region_id GROUP BY r.name"
    assert rows(shops, sql) == rows(shops, gold), sql


def test_a_measure_the_question_groups_by_stays_a_group(shops):
    sql = compose_sql(
        shops,
        ["shops"],
        "number of shops of each kind per staff size",
        select=["shops.kind", "shops.staff", "COUNT(*)"],
        group_by=["shops.kind", "shops.staff"],
    )
    gold = "SELECT kind, staff, COUNT(*) FROM shops GROUP BY kind, staff"
    assert rows(shops, sql) == rows(shops, gold), sql


@pytest.fixture
def visits(tmp_path: Path):
    """Places and visits that share no key a join rule proposes (and two of five towns are too few for the values
    alone): the parts cannot be composed, so the model writes the SQL over the schema (the path under test)."""
    path = tmp_path / "v.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE places (town TEXT, country TEXT); CREATE TABLE visits (visitor TEXT, place TEXT);"
            "INSERT INTO places VALUES ('Lyon', 'France'), ('Porto', 'Portugal'), ('Graz', 'Austria'), "
            "('Turku', 'Finland'), ('Cork', 'Ireland');"
            "INSERT INTO visits VALUES ('ann', 'Lyon'), ('bob', 'Lyon'), ('cy', 'Porto');"
        )
    engine = SQLiteEngine("v", path)
    yield engine
    engine.close()


PLAN = {"request": "Count the visitors to places in France", "kind": "query", "values": ["France"], "fields": []}
PARTS = {"select": ["count(visits.visitor)"], "where": [], "group_by": [], "having": [], "order_by": [], "limit": None}
JOINED = "FROM visits T1 JOIN places T2 ON T1.place = T2.town WHERE T2.country = 'France'"


def _ask(engine, tmp_path, model):
    return BIAgent(model, engine, store=tmp_path / "s.db", sql_mode="parts", prose=False).ask(
        "How many visitors went to France?"
    )


def test_a_column_the_model_wrote_under_the_wrong_table_is_moved_to_the_one_that_holds_it(visits, tmp_path):
    model = ScriptedModel([PLAN, PARTS, {"sql": f"SELECT count(T2.visitor) {JOINED}"}])
    r = _ask(visits, tmp_path, model)
    assert r.status == "completed" and r.rows == [[2]], r.answer
    assert "T1.visitor" in r.sql and len(model.requests) == 3  # no repair call


def test_a_column_no_table_of_the_query_holds_is_repaired_by_the_model_shown_the_real_columns(visits, tmp_path):
    model = ScriptedModel(
        [PLAN, PARTS, {"sql": f"SELECT count(T2.guest) {JOINED}"}, {"sql": f"SELECT count(T1.visitor) {JOINED}"}]
    )
    r = _ask(visits, tmp_path, model)
    assert r.status == "completed" and r.rows == [[2]], r.answer
    repair = model.requests[3]["messages"][-1].content
    assert "no such column: T2.guest" in repair
    assert (
        "- T1 is visits; its columns: visitor, place" in repair
        and "- T2 is places; its columns: town, country" in repair
    )


def test_a_query_that_still_fails_after_its_repair_is_shown_in_the_error(visits, tmp_path):
    bad = {"sql": f"SELECT count(T2.guest) {JOINED}"}
    model = ScriptedModel([PLAN, PARTS, bad, bad])  # the parts fail (no join path), then the SQL and its repair
    r = _ask(visits, tmp_path, model)
    assert r.status == "error" and "no such column: T2.guest" in r.answer
    assert "the query: SELECT count(T2.guest) FROM visits" in r.answer


def test_a_made_up_number_beside_an_unused_written_one_is_dropped_from_a_query_that_found_nothing():
    from orrery.bi.relax import relaxed

    sql = "SELECT SUM(t.bronze) FROM tally t WHERE t.bronze = 10 AND t.country = 'Russia'"
    assert relaxed(sql, "how many bronzes did the Russians take home in 2014", [], "sqlite") == [
        "SELECT SUM(t.bronze) FROM tally AS t WHERE t.country = 'Russia'"
    ]


def test_a_number_that_may_be_the_written_one_mistyped_or_written_as_a_word_stays():
    from orrery.bi.relax import relaxed

    for sql, question in (
        ("SELECT COUNT(*) FROM shops WHERE staff > 250", "shops with more than 25 staff"),  # mistyped
        ("SELECT COUNT(*) FROM cars WHERE yr > 80", "how many of the cars were built after 1980?"),  # shortened
        ("SELECT COUNT(*) FROM cars WHERE cyl = 4 AND yr = 1980", "the four-cylinder cars of 1980"),  # a word
    ):
        assert relaxed(sql, question, [], "sqlite") == [], (question, sql)


def test_each_named_by_its_second_word_groups_by_that_column_and_drops_its_one_value_filter(shops):
    gold = "SELECT r.name, AVG(s.profit) FROM shops s JOIN regions r ON s.region_id = r.region_id GROUP BY r.name"
    sql = compose_sql(
        shops,
        ["shops", "regions"],
        "average profit for each sales name",  # 'sales' names no field, 'name' does
        select=["shops.kind", "AVG(shops.profit)"],
        where=["regions.name = 'Sales'"],
        group_by=["shops.kind"],
    )
    assert rows(shops, sql) == rows(shops, gold), sql
    # a filter on another column than the one asked per value stays
    sql = compose_sql(
        shops,
        ["shops", "regions"],
        "average profit for each sales name",
        select=["shops.kind", "AVG(shops.profit)"],
        where=["shops.kind = 'Phones'"],
        group_by=["shops.kind"],
    )
    assert "shops.kind = 'Phones'" in sql, sql


def test_the_repair_of_a_column_outside_the_query_names_the_table_that_holds_it_and_its_join(shops):
    from orrery.bi.tools import BIContext, _real_columns

    bi = BIContext(shops, draft(shops), None)
    sql = "SELECT COUNT(*) FROM shops WHERE name = 'East'"
    error = shops_error(shops, sql)
    note = _real_columns(bi, sql, error)
    assert "- shops; its columns: shop_id, region_id, kind, staff, profit" in note
    assert "- name is a column of regions, joined by shops.region_id = regions.region_id" in note
    assert _real_columns(bi, sql, "it found nothing") == ""  # another error: nothing added


def shops_error(engine, sql: str) -> str:
    from orrery.bi.engines import QueryError

    with pytest.raises(QueryError) as exc:
        engine.execute(sql)
    return str(exc.value)
