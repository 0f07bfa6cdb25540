"""Wrong answers and errors decided by the data and the query (bench/bi.md, round 19): a table nothing joins left
out of the query instead of failing it, an aggregate's other name, a bare measure per group or per listed value,
and one total over values the question takes together. On a layer drafted from a database of its own (shops in
regions, and sprint results that join to nothing), not the sets the rules were read from."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from bi_compose_helpers import compose_sql, rows, value

from orrery.bi.agent import BIAgent
from orrery.bi.compose import NoJoinPath
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.llm.scripted import ScriptedModel

REGIONS = ["North", "South", "East", "West", "Coast", "Hills", "Plains", "Lakes", "Delta", "Isles", "Forest", "Bay"]


@pytest.fixture
def shops(tmp_path: Path):
    """Shops of three kinds in twelve regions (a lookup, no declared key), and sprint results whose ids start at
    1000 so no column of the shops holds them: a table the layer joins to nothing."""
    path = tmp_path / "shops.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE regions (region_id INTEGER, name TEXT);"
            "CREATE TABLE shops (shop_id INTEGER, region_id INTEGER, kind TEXT, profit REAL);"
            "CREATE TABLE sprints (sprint_id INTEGER, runner TEXT, secs REAL, medal TEXT, yr INTEGER);"
        )
        con.executemany("INSERT INTO regions VALUES (?, ?)", list(enumerate(REGIONS)))
        kinds = ["Phones", "Copiers", "Machines"]
        con.executemany(
            "INSERT INTO shops VALUES (?, ?, ?, ?)",
            [(i, i % 12, kinds[i % 3], float(i % 7) - 2.5) for i in range(96)],
        )
        con.executemany(
            "INSERT INTO sprints VALUES (?, ?, ?, ?, ?)",
            [
                (1000 + i, f"Runner {i}", 10.0 + i / 10, ["GOLD", "SILVER", "BRONZE"][i % 3], 1900 + 4 * i)
                for i in range(30)
            ],
        )
    engine = SQLiteEngine("shops", path)
    yield engine
    engine.close()


def test_a_table_the_layer_joins_to_nothing_is_left_out_of_the_query(shops):
    layer = draft(shops)
    assert "shops.region_id = regions.region_id" in layer.joins
    assert not any("sprints" in j for j in layer.joins)
    # the slice put the sprints first; the parts and the resolved values are all about shops in a region
    question = "profit of the East shops"
    sql = compose_sql(
        shops, ["sprints", "shops", "regions"], question, [value("regions", "name", "East")], select=["shops.profit"]
    )
    gold = "SELECT s.profit FROM shops s JOIN regions r ON s.region_id = r.region_id WHERE r.name = 'East'"
    assert "sprints" not in sql and rows(shops, sql) == rows(shops, gold), sql
    # a stray filter on a table that joins to nothing goes with it; what the question is about stays
    sql = compose_sql(
        shops,
        ["sprints", "shops"],
        "best gold time, in seconds",
        select=["MIN(sprints.secs)"],
        where=["sprints.medal = 'GOLD'", "shops.profit > 0"],
    )
    assert rows(shops, sql) == [(10.0,)], sql
    # a filter on a value the question writes is never dropped: the join error stands
    with pytest.raises(NoJoinPath):
        compose_sql(
            shops,
            ["sprints", "shops"],
            "best gold time of the Phones shops",
            select=["MIN(sprints.secs)"],
            where=["sprints.medal = 'GOLD'", "shops.kind = 'Phones'"],
        )
    # a query whose select needs both, which no join can give, still fails as before
    with pytest.raises(NoJoinPath):
        compose_sql(shops, ["sprints", "shops"], "runners and profits", select=["sprints.runner", "shops.profit"])


def test_a_table_nothing_joins_no_longer_ends_the_turn_in_an_error(shops, tmp_path):
    question = "Profit of shops in the East region"
    plan = {"request": question, "kind": "query", "values": ["East"], "fields": ["profit"]}
    parts = {
        "select": ["SUM(shops.profit)"],
        "where": ["regions.name = 'East'", "sprints.secs > 0"],
        "group_by": [],
        "having": [],
        "order_by": [],
        "limit": None,
    }
    r = BIAgent(ScriptedModel([plan, parts]), shops, store=tmp_path / "s.db", prose=False).ask(question)
    gold = "SELECT SUM(s.profit) FROM shops s JOIN regions r ON s.region_id = r.region_id WHERE r.name = 'East'"
    assert r.status == "completed", r.answer
    assert "sprints" not in r.sql
    assert sorted(map(tuple, r.rows)) == rows(shops, gold), r.sql


def test_an_aggregate_written_by_another_name_is_that_aggregate(shops):
    sql = compose_sql(
        shops, ["shops"], "mean profit per kind", select=["shops.kind", "MEAN(shops.profit)"], group_by=["shops.kind"]
    )
    assert rows(shops, sql) == rows(shops, "SELECT kind, AVG(profit) FROM shops GROUP BY kind"), sql
    sql = compose_sql(shops, ["shops"], "average profit", select=["average(shops.profit)"])
    assert rows(shops, sql) == rows(shops, "SELECT AVG(profit) FROM shops"), sql


def test_a_bare_measure_under_a_group_is_each_groups_aggregate(shops):
    question = "profit on phones, copiers and machines, each one separately"
    sql = compose_sql(
        shops,
        ["shops"],
        question,
        select=["shops.kind", "shops.profit"],
        where=["shops.kind IN ('Phones', 'Copiers', 'Machines')"],
        group_by=["shops.kind"],
        order_by=["shops.profit DESC"],
    )
    assert rows(shops, sql) == rows(shops, "SELECT kind, SUM(profit) FROM shops GROUP BY kind"), sql
    # ranked by its average: the average is each group's value
    sql = compose_sql(
        shops,
        ["shops", "regions"],
        "which region has the best average profit",
        select=["regions.name", "shops.profit"],
        group_by=["regions.name"],
        order_by=["AVG(shops.profit) DESC"],
        limit=1,
    )
    gold = (
        "SELECT r.name, AVG(s.profit) FROM shops s JOIN regions r ON s.region_id = r.region_id GROUP BY r.name "
        "ORDER BY AVG(s.profit) DESC LIMIT 1"
    )
    assert rows(shops, sql) == rows(shops, gold), sql
    # beside another aggregate a bare column is a group key left out, not a measure: grouped, not summed
    sql = compose_sql(
        shops,
        ["shops"],
        "shops per kind and profit",
        select=["shops.kind", "shops.profit", "COUNT(*)"],
        group_by=["shops.kind"],
    )
    assert "SUM(" not in sql and "GROUP BY shops.kind, shops.profit" in sql, sql
    # a key is never summed
    sql = compose_sql(
        shops, ["shops"], "regions of each kind", select=["shops.kind", "shops.region_id"], group_by=["shops.kind"]
    )
    assert "SUM(" not in sql, sql


def test_a_bare_measure_beside_listed_values_of_a_lookup_is_summed_per_value(shops):
    east_west = [value("regions", "name", "East"), value("regions", "name", "West")]
    question = "profit in the West vs the East region?"
    sql = compose_sql(
        shops,
        ["shops", "regions"],
        question,
        east_west,
        select=["regions.name", "shops.profit"],
        where=["regions.name IN ('West', 'East')"],
    )
    gold = (
        "SELECT r.name, SUM(s.profit) FROM shops s JOIN regions r ON s.region_id = r.region_id "
        "WHERE r.name IN ('West', 'East') GROUP BY r.name"
    )
    assert rows(shops, sql) == rows(shops, gold), sql
    # a filter fixing the measure's own table (one row per value, as a year would) leaves the rows as they are
    sql = compose_sql(
        shops,
        ["shops", "regions"],
        "profit of shop 5 in the West vs the East region",
        east_west,
        select=["regions.name", "shops.profit"],
        where=["regions.name IN ('West', 'East')", "shops.shop_id = 5"],
    )
    assert "SUM(" not in sql, sql
    # a name shown beside the measure asks for the rows themselves
    sql = compose_sql(
        shops,
        ["shops", "regions"],
        "each shop's kind and profit in the West vs the East region",
        east_west,
        select=["regions.name", "shops.kind", "shops.profit"],
        where=["regions.name IN ('West', 'East')"],
    )
    assert "SUM(" not in sql, sql
    # values of the measure's own table: one row each is what was asked
    kinds = [value("shops", "kind", "Phones"), value("shops", "kind", "Copiers")]
    sql = compose_sql(
        shops,
        ["shops"],
        "profit of phones vs copiers",
        kinds,
        select=["shops.kind", "shops.profit"],
        where=["shops.kind IN ('Phones', 'Copiers')"],
    )
    assert "SUM(" not in sql, sql


def test_values_listed_with_then_or_in_the_plural_are_counted_each(shops):
    for question in ("count the shops of the Coasts, then the Lakes", "shops of the Coasts and of the Lakes"):
        sql = compose_sql(
            shops,
            ["shops", "regions"],
            question,
            select=["COUNT(*)"],
            where=["regions.name = 'Coast' OR regions.name = 'Lakes'"],
        )
        gold = (
            "SELECT r.name, COUNT(*) FROM shops s JOIN regions r ON s.region_id = r.region_id "
            "WHERE r.name IN ('Coast', 'Lakes') GROUP BY r.name"
        )
        assert rows(shops, sql) == rows(shops, gold), (question, sql)
    # the model's OR for the question's own 'or' stays one total
    sql = compose_sql(
        shops,
        ["shops", "regions"],
        "shops of the Coasts or the Lakes",
        select=["COUNT(*)"],
        where=["regions.name = 'Coast' OR regions.name = 'Lakes'"],
    )
    assert len(rows(shops, sql)) == 1, sql


def test_listed_values_taken_together_are_one_total(shops):
    east_west = [value("regions", "name", "East"), value("regions", "name", "West")]
    together = (
        "SELECT SUM(s.profit) FROM shops s JOIN regions r ON s.region_id = r.region_id WHERE r.name IN ('East', 'West')"
    )
    for question in ("profit of East and West combined", "East and West profit, both together", "East and West in all"):
        sql = compose_sql(
            shops,
            ["shops", "regions"],
            question,
            east_west,
            select=["SUM(shops.profit)"],
            where=["regions.name = 'East'"],
        )
        assert rows(shops, sql) == rows(shops, together), (question, sql)
    # the model's own grouping by the listed column goes too
    sql = compose_sql(
        shops,
        ["shops", "regions"],
        "how many shops are there in East and West combined",
        east_west,
        select=["regions.name", "COUNT(*)"],
        where=["regions.name IN ('East', 'West')"],
        group_by=["regions.name"],
    )
    assert rows(shops, sql) == [(16,)], sql
    # ... unless it asks per group too ('what did canadian and french customers spend altogether, per country')
    for question in ("profit of East and West altogether, per region", "East and West combined: profit by region"):
        sql = compose_sql(
            shops,
            ["shops", "regions"],
            question,
            east_west,
            select=["regions.name", "SUM(shops.profit)"],
            where=["regions.name IN ('East', 'West')"],
            group_by=["regions.name"],
        )
        assert len(rows(shops, sql)) == 2, (question, sql)
    # without such a word: one row per value, as before ('in all' before a noun names the rows)
    for question in ("profit of East and West", "profit in all shops of East and West"):
        sql = compose_sql(shops, ["shops", "regions"], question, east_west, select=["SUM(shops.profit)"], where=[])
        assert len(rows(shops, sql)) == 2, (question, sql)


def test_a_year_compared_with_a_column_that_never_reaches_it_goes_to_the_tables_year(shops):
    question = "best gold time prior to 1950, in seconds"
    sql = compose_sql(
        shops,
        ["sprints"],
        question,
        select=["MIN(sprints.secs)"],
        where=["sprints.medal = 'GOLD'", "sprints.secs < 1950"],
    )
    gold = "SELECT MIN(secs) FROM sprints WHERE medal = 'GOLD' AND yr < 1950"
    assert "sprints.yr < 1950" in sql and rows(shops, sql) == rows(shops, gold), sql
    # a number the question does not write as a year, or one the column reaches, stays where the model put it
    for q, cond in (
        ("sprints slower than 1950", "sprints.secs > 1950"),
        ("times under 11 in 1950", "sprints.secs < 11"),
    ):
        sql = compose_sql(shops, ["sprints"], q, select=["sprints.runner"], where=[cond])
        assert cond in sql, sql


@pytest.fixture
def routes(tmp_path: Path):
    """Routes flown by airlines (two-letter codes) between airports (three-letter codes, one of them COD)."""
    path = tmp_path / "routes.sqlite"
    codes = ["ATL", "COD", "DEN", "ORD", "LAX", "JFK", "SEA", "BOS", "MIA", "DFW", "PHX", "SFO"]
    with sqlite3.connect(path) as con:
        con.executescript(
            "CREATE TABLE airports (iata TEXT, city TEXT);CREATE TABLE routes (airline TEXT, source TEXT, dest TEXT);"
        )
        con.executemany("INSERT INTO airports VALUES (?, ?)", [(c, f"City {c}") for c in codes])
        con.executemany(
            "INSERT INTO routes VALUES (?, ?, ?)",
            [(["WN", "OO", "AA"][i % 3 if i % 5 else 0], codes[i % 12], codes[(i + 1) % 12]) for i in range(60)],
        )
    engine = SQLiteEngine("routes", path)
    yield engine
    engine.close()


def test_a_mention_that_opens_with_a_columns_name_names_that_field_not_a_near_value(routes, tmp_path):
    question = "top carrier by route count (airline code is fine)"
    plan = {"request": question, "kind": "query", "values": ["airline code"], "fields": []}
    parts = {
        "select": ["routes.airline", "COUNT(*)"],
        "where": [],
        "group_by": ["routes.airline"],
        "having": [],
        "order_by": ["COUNT(*) DESC"],
        "limit": 1,
    }
    r = BIAgent(ScriptedModel([plan, parts]), routes, store=tmp_path / "s.db", prose=False).ask(question)
    assert r.status == "completed", r.answer
    gold = "SELECT airline, COUNT(*) FROM routes GROUP BY airline ORDER BY COUNT(*) DESC LIMIT 1"
    assert "'COD'" not in r.sql and list(map(tuple, r.rows)) == routes.execute(gold).rows, r.sql
    # a value the mention writes whole after a column's name is still that value
    question = "routes from source ORD"
    plan = {"request": question, "kind": "query", "values": ["source ORD"], "fields": []}
    parts = {"select": ["COUNT(*)"], "where": [], "group_by": [], "having": [], "order_by": [], "limit": None}
    r = BIAgent(ScriptedModel([plan, parts]), routes, store=tmp_path / "t.db", prose=False).ask(question)
    assert "'ORD'" in r.sql, r.sql


def test_a_bare_measure_equal_to_its_maximum_under_a_superlative_ranks_the_groups_by_its_sum(shops):
    question = "Which region's shops have the largest total profit?"
    gold = (
        "SELECT r.name FROM shops s JOIN regions r ON s.region_id = r.region_id GROUP BY r.name "
        "ORDER BY SUM(s.profit) DESC LIMIT 1"
    )
    for group_by in ([], ["regions.region_id"]):  # the model's grouping, or none (the shown name groups)
        sql = compose_sql(
            shops,
            ["shops", "regions"],
            question,
            select=["regions.name"],
            group_by=group_by,
            having=["shops.profit = (SELECT MAX(shops.profit) FROM shops)"],
        )
        assert [r[-1] for r in rows(shops, sql)] == [r[-1] for r in rows(shops, gold)], sql
        assert "SUM(shops.profit) DESC" in sql, sql


def test_a_value_asked_in_another_unit_of_its_columns_dimension_is_converted(tmp_path):
    path = tmp_path / "tracks.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE tracks (track_id INTEGER, title TEXT, Milliseconds INTEGER, disc_mass_g REAL)")
        con.executemany(
            "INSERT INTO tracks VALUES (?, ?, ?, ?)", [(i, f"Song {i}", 180000 + 1000 * i, 15.0 + i) for i in range(20)]
        )
    engine = SQLiteEngine("tracks", path)
    try:
        asked = {
            "total running time in minutes": ("SUM(tracks.Milliseconds)", "SELECT SUM(Milliseconds) / 60000.0"),
            "heaviest disc in kilos": ("MAX(tracks.disc_mass_g)", "SELECT MAX(disc_mass_g) / 1000.0"),
            "lightest disc, in milligrams": ("MIN(tracks.disc_mass_g)", "SELECT MIN(disc_mass_g) * 1000.0"),
            "heaviest disc in ounces": ("MAX(tracks.disc_mass_g)", "SELECT MAX(disc_mass_g) / 28.349523"),
        }
        for question, (item, gold) in asked.items():
            sql = compose_sql(engine, ["tracks"], question, select=[item])
            assert rows(engine, sql) == rows(engine, gold + " FROM tracks"), (question, sql)
        # the column's own unit, a count, an item the model scaled itself, or no unit asked: as written
        for question, item in (
            ("total running time in milliseconds", "SUM(tracks.Milliseconds)"),
            ("number of tracks in minutes", "COUNT(tracks.Milliseconds)"),
            ("total running time in minutes", "SUM(tracks.Milliseconds) / 60000"),
            ("total running time in the Rock genre", "SUM(tracks.Milliseconds)"),
        ):
            sql = compose_sql(engine, ["tracks"], question, select=[item])
            assert "60000.0" not in sql and "1000.0" not in sql, (question, sql)
    finally:
        engine.close()
