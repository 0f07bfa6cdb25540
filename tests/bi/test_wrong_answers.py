"""Wrong answers decided by the data: values the question lists in lower case or in another form, what a count or a
total is of, and which of several columns holding a value is meant. Each rule runs here on a layer drafted from a
database of its own (freight and people), not the sets it was measured on."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi.agent import BIAgent
from orrery.bi.compose import QueryParts, compose
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext, _qualifier, listed_values
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def freight(tmp_path: Path):
    """Shipments by a mode of a few values, sent from nations (a lookup); a `boat` column on the carriers, so
    'boat' is a schema word though one mode is BOAT."""
    path = tmp_path / "f.sqlite"
    nations = ["Sweden", "Poland", "Finland", "Spain", "Chile", "Korea"]
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE nations (nation_id INTEGER, name TEXT);"
            "CREATE TABLE shipments (shipment_id INTEGER, mode TEXT, nation_id INTEGER, weight REAL);"
            "CREATE TABLE carriers (carrier_id INTEGER, label TEXT, boat INTEGER);"
        )
        con.executemany("INSERT INTO nations VALUES (?, ?)", list(enumerate(nations)))
        modes = ["RAIL", "AIR", "TRUCK", "BOAT"]
        con.executemany(
            "INSERT INTO shipments VALUES (?, ?, ?, ?)", [(i, modes[i % 4], i % 6, 10.0 + i) for i in range(80)]
        )
        con.executemany("INSERT INTO carriers VALUES (?, ?, ?)", [(i, f"Carrier {i}", i % 2) for i in range(5)])
    engine = SQLiteEngine("f", path)
    yield engine
    engine.close()


def _found(bi: BIContext, question: str) -> list[tuple[str, str]]:
    return [(r["mention"], str(r["value"])) for r in listed_values(bi, question)]


def test_values_listed_side_by_side_are_found_in_any_case_and_form(freight):
    bi = BIContext(freight, draft(freight), None)
    assert _found(bi, "total weight of rail shipments compared to air ones") == [("rail", "RAIL"), ("air", "AIR")]
    assert _found(bi, "swedish, chilean and korean shipments") == [
        ("swedish", "Sweden"),
        ("chilean", "Chile"),
        ("korean", "Korea"),
    ]
    assert _found(bi, "rail shipments from Sweden") == []  # no list
    assert _found(bi, "rail shipments and weight per nation") == []  # 'weight' is no value: nothing set beside 'rail'
    assert _found(bi, "air vs Spain") == []  # a mode and a nation: values of two columns are no list
    assert _found(bi, "rail or boat?") == []  # 'boat' is a column's name here, not the mode BOAT


def test_a_lower_case_value_listed_beside_another_is_filtered_with_it(freight, tmp_path):
    question = "total weight of rail shipments compared to air ones"
    plan = {"request": question, "kind": "query", "values": [], "fields": []}
    only_rail = {
        "select": ["SUM(shipments.weight)"],
        "where": ["shipments.mode = 'RAIL'"],
        "group_by": [],
        "having": [],
        "order_by": [],
        "limit": None,
    }
    r = BIAgent(ScriptedModel([plan, only_rail]), freight, store=tmp_path / "s.db", prose=False).ask(question)
    gold = "SELECT mode, SUM(weight) FROM shipments WHERE mode IN ('RAIL', 'AIR') GROUP BY mode"
    assert r.status == "completed", r.answer
    assert sorted(map(tuple, r.rows)) == sorted(map(tuple, freight.execute(gold).rows)), r.sql


def test_a_list_is_read_where_a_mention_ends_inside_a_longer_word(freight):
    layer = draft(freight)
    resolved = [
        {"mention": "Chile", "table": "nations", "column": "name", "value": "Chile"},
        {"mention": "Korea", "table": "nations", "column": "name", "value": "Korea"},
    ]
    sql = compose(
        QueryParts(select=["SUM(shipments.weight)"], where=["nations.name = 'Chile'", "nations.name = 'Korea'"]),
        layer,
        ["shipments", "nations"],
        resolved,
        "sqlite",
        "chilean vs korean weight",  # the mentions end inside the question's words
    )
    assert "IN ('Chile', 'Korea')" in sql and "GROUP BY nations.name" in sql, sql


def _rows(engine: SQLiteEngine, sql: str) -> list[tuple]:
    return sorted(map(tuple, engine.execute(sql).rows))


def test_a_count_per_row_of_a_lookup_counts_the_rows_of_the_table_the_question_names(freight):
    layer = draft(freight)
    assert "shipments.nation_id = nations.nation_id" in layer.joins  # inferred: no key is declared
    sql = compose(
        QueryParts(select=["nations.name", "COUNT(*)"], group_by=["nations.name"]),
        layer,
        ["nations", "shipments"],
        [],
        "sqlite",
        "break down our shipment base by nation: a count for each",
    )
    gold = "SELECT n.name, COUNT(*) FROM shipments s JOIN nations n ON s.nation_id = n.nation_id GROUP BY n.name"
    assert _rows(freight, sql) == _rows(freight, gold), sql
    # the count names no other table: the nations themselves are counted
    sql = compose(
        QueryParts(select=["COUNT(*)"]), layer, ["nations", "shipments"], [], "sqlite", "how many nations are there"
    )
    assert _rows(freight, sql) == [(6,)], sql


def test_a_total_of_a_number_column_is_its_sum_from_its_own_table(freight):
    layer = draft(freight)
    resolved = [{"mention": "Sweden", "table": "nations", "column": "name", "value": "Sweden"}]
    sql = compose(
        QueryParts(select=["COUNT(*)"], where=["nations.name = 'Sweden'"]),
        layer,
        ["nations", "shipments"],
        resolved,
        "sqlite",
        "What is the total weight sent from Sweden?",
    )
    gold = "SELECT SUM(s.weight) FROM shipments s JOIN nations n ON s.nation_id = n.nation_id WHERE n.name = 'Sweden'"
    assert _rows(freight, sql) == _rows(freight, gold), sql
    # a total of a table's rows stays a count: 'total shipments' names the table, not a column
    sql = compose(
        QueryParts(select=["COUNT(*)"]), layer, ["shipments"], [], "sqlite", "total shipments over all nations"
    )
    assert _rows(freight, sql) == [(80,)], sql


@pytest.fixture
def towns(tmp_path: Path):
    """Towns in zones (a lookup of three); one town is named after a zone. The towns come first in the layer,
    so they are the first holder of 'Ontario' (as counties come before states)."""
    path = tmp_path / "t.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE towns (town_id INTEGER, name TEXT, code TEXT, people INTEGER);"
            "CREATE TABLE zones (code TEXT, name TEXT);"
        )
        con.executemany("INSERT INTO zones VALUES (?, ?)", [("ON", "Ontario"), ("QC", "Quebec"), ("AB", "Alberta")])
        con.executemany(
            "INSERT INTO towns VALUES (?, ?, ?, ?)",
            [(i, "Ontario" if i == 7 else f"Town {i}", ("ON", "QC", "AB")[i % 3], 100 * i) for i in range(40)],
        )
    engine = SQLiteEngine("t", path)
    yield engine
    engine.close()


def test_a_value_that_qualifies_the_rows_asked_about_goes_to_the_smaller_column(towns):
    bi = BIContext(towns, draft(towns), None)
    town = next(c for c in bi.index() if c.table == "towns" and c.value == "Ontario")
    moved, why = _qualifier(bi, town, "how many towns in Ontario have over 1000 people?")
    assert (moved.table, moved.column) == ("zones", "name") and "zones.name (3 values)" in why
    assert _qualifier(bi, town, "the people of the town Ontario") == (town, None)  # the town's own name
    assert _qualifier(bi, town, "how many people live in Ontario?") == (town, None)  # no town asked about
    assert _qualifier(bi, town, "towns named Ontario") == (town, None)
    # the possessive asks about the same rows
    for question in ("highest people count among Ontario's towns, which one?", "Ontario’s biggest town"):
        moved, _ = _qualifier(bi, town, question)
        assert (moved.table, moved.column) == ("zones", "name"), question
    assert _qualifier(bi, town, "Ontario's people") == (town, None)  # the town's own, no town asked about


def test_the_column_chosen_for_a_value_is_shown_in_the_step(towns, tmp_path):
    question = "how many towns in Ontario?"
    plan = {"request": question, "kind": "query", "values": ["Ontario"], "fields": []}
    reply = {"select": ["COUNT(*)"], "where": [], "group_by": [], "having": [], "order_by": [], "limit": None}
    r = BIAgent(ScriptedModel([plan, reply]), towns, store=tmp_path / "s.db", prose=False).ask(question)
    gold = "SELECT COUNT(*) FROM towns t JOIN zones p ON t.code = p.code WHERE p.name = 'Ontario'"
    assert r.status == "completed" and list(map(tuple, r.rows)) == towns.execute(gold).rows, r.sql
    step = next(t for t in r.todos if t["key"] == "resolve_entities")
    assert "qualifies the town rows" in step["result"], step


def test_a_list_is_read_past_the_noun_its_first_value_qualifies_and_a_value_found_twice(freight):
    layer = draft(freight)
    resolved = [
        {"mention": "swedish shipments", "table": "nations", "column": "name", "value": "Sweden"},
        {"mention": "swedish", "table": "nations", "column": "name", "value": "Sweden"},
        {"mention": "korean", "table": "nations", "column": "name", "value": "Korea"},
    ]
    for question in ("weight of swedish shipments compared with the korean ones", "swedish freight vs korean"):
        sql = compose(
            QueryParts(select=["SUM(shipments.weight)"], where=["nations.name = 'Sweden'", "nations.name = 'Korea'"]),
            layer,
            ["shipments", "nations"],
            resolved[1:] if "freight" in question else resolved,
            "sqlite",
            question,
        )
        assert "IN ('Sweden', 'Korea')" in sql and "GROUP BY nations.name" in sql, (question, sql)
    # two words between are no list: 'swedish freight shipments and korean' names two things
    sql = compose(
        QueryParts(select=["SUM(shipments.weight)"], where=["nations.name = 'Sweden'"]),
        layer,
        ["shipments", "nations"],
        resolved[1:],
        "sqlite",
        "swedish freight shipments and korean weight",
    )
    assert " IN " not in sql, sql


def test_a_comparison_with_a_number_the_question_never_writes_goes(freight):
    layer = draft(freight)

    def where(question: str, cond: str) -> str:
        sql = compose(
            QueryParts(select=["AVG(shipments.weight)"], where=[cond]), layer, ["shipments"], [], "sqlite", question
        )
        return sql.split(" WHERE ")[1] if " WHERE " in sql else ""

    assert where("average weight of the rail shipments", "shipments.weight > 30") == ""
    assert where("average weight of shipments over 30", "shipments.weight > 30").startswith("shipments.weight > 30")
    assert where("average weight of shipments over thirty", "shipments.weight > 30").startswith("shipments.weight > 30")
    assert where("average weight of the heavy shipments", "shipments.weight > 0").startswith("shipments.weight > 0")


def test_a_year_written_by_two_digits_goes_to_the_column_that_holds_years_so(tmp_path):
    path = tmp_path / "a.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE autos (auto_id INTEGER, cyl INTEGER, region INTEGER, yr INTEGER)")
        con.executemany(
            "INSERT INTO autos VALUES (?, ?, ?, ?)", [(i, 4 + i % 3, 1 + i % 3, 70 + i % 13) for i in range(60)]
        )
    engine = SQLiteEngine("a", path)
    try:
        layer = draft(engine)

        def sql(question: str, cond: str) -> str:
            return compose(QueryParts(select=["COUNT(*)"], where=[cond]), layer, ["autos"], [], "sqlite", question)

        assert "autos.yr = 80" in sql("4-cyl autos in the '80 lineup: count them", "autos.region = 80")
        assert "autos.yr = 80" in sql("autos of model year 80", "autos.region = 80")
        assert "autos.region = 2" in sql("autos of model year 80 in region 2", "autos.region = 2")  # in its range
        assert "autos.region = 80" in sql("autos with a region code of 80", "autos.region = 80")  # no year written
    finally:
        engine.close()
