"""What compose sets right from the question's words on a database nobody prepared (a drafted layer): a maximum
compared over every row ranked instead, one column equal to two values read as either, the group key the question
names, a superlative ranked by what it names; and the build step's repair round asked when a query finds nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi.agent import BIAgent
from orrery.bi.compose import QueryParts, compose
from orrery.bi.decline import indexed_values
from orrery.bi.engines import SQLiteEngine
from orrery.bi.relax import relaxed
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext, compound_values, names_a_value, shares_word
from orrery.llm.scripted import ScriptedModel

COUNTRIES = [f"C{i}" for i in range(12)]


@pytest.fixture
def world(tmp_path: Path) -> SQLiteEngine:
    """countries in regions (no declared key: `indicators.country` -> `countries.name` is found from the data),
    yearly indicators, orders per state and sub-category, airports of a type."""
    path = tmp_path / "w.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE countries (name TEXT, region TEXT);
            CREATE TABLE indicators (country TEXT, year INTEGER, fertility REAL, population INTEGER);
            CREATE TABLE orders (state TEXT, sales REAL, quantity INTEGER, sub_category TEXT);
            CREATE TABLE airports (name TEXT, type TEXT);
        """)
        con.executemany(
            "INSERT INTO countries VALUES (?, ?)",
            [(n, ("Asia", "Europe", "Africa")[i % 3]) for i, n in enumerate(COUNTRIES)],
        )
        con.executemany(
            "INSERT INTO indicators VALUES (?, ?, ?, ?)",
            [(n, y, (i * 7 + y) % 11, 1000 * i + y) for i, n in enumerate(COUNTRIES) for y in (1970, 1990, 2010)],
        )
        con.executemany(
            "INSERT INTO orders VALUES (?, ?, ?, ?)",
            [(("Texas", "Ohio", "Utah")[i % 3], 10.0 * i, 30 - i, ("Chairs", "Tables")[i % 2]) for i in range(30)],
        )
        con.executemany(
            "INSERT INTO airports VALUES (?, ?)",
            [(f"A{i}", ("large_airport", "small_airport", "small_airport", "heliport")[i % 4]) for i in range(40)],
        )
    engine = SQLiteEngine("w", path)
    yield engine
    engine.close()


def rows(world, question: str, tables: list[str], **parts) -> tuple[str, list]:
    sql = compose(QueryParts(**parts), draft(world), tables, [], "sqlite", question)
    return sql, world.execute(sql).rows


def test_a_maximum_over_every_row_beside_other_filters_is_ranked_instead(world):
    question = "Which country had the highest fertility in 1970?"
    where = ["indicators.year = 1970", "indicators.fertility = (SELECT MAX(indicators.fertility) FROM indicators)"]
    sql, got = rows(world, question, ["indicators"], select=["indicators.country"], where=where)
    assert "ORDER BY indicators.fertility DESC LIMIT 1" in sql and "SELECT MAX" not in sql
    gold = "SELECT country FROM indicators WHERE year = 1970 ORDER BY fertility DESC LIMIT 1"
    assert got == world.execute(gold).rows
    # alone, the comparison with the maximum is the question's own: kept
    sql, _ = rows(
        world,
        "Which country has the highest fertility?",
        ["indicators"],
        select=["indicators.country"],
        where=where[1:],
    )
    assert "SELECT MAX" in sql


def test_one_column_equal_to_two_values_means_either_and_shows_which(world):
    where = ["indicators.year = 1990", "indicators.year = 2010", "indicators.country = 'C3'"]
    sql, got = rows(
        world,
        "What was the population of C3 in 1990 and in 2010?",
        ["indicators"],
        select=["indicators.population"],
        where=where,
    )
    assert "IN (1990, 2010)" in sql and sorted(got) == [(1990, 4990), (2010, 5010)]
    sql, got = rows(
        world,
        "What was the population of C3 from 1990 to 2010?",
        ["indicators"],
        select=["indicators.population"],
        where=where,
    )
    assert "IN (" not in sql and sql.count("BETWEEN 1990 AND 2010") == 1  # a span, not either value
    assert sorted(got) == [(4990,), (5010,)]


def test_the_group_key_is_the_column_the_question_names(world):
    question = "What was the average fertility per region in 2010?"
    sql, got = rows(
        world,
        question,
        ["indicators", "countries"],
        select=["indicators.country", "AVG(indicators.fertility)"],
        where=["indicators.year = 2010"],
        group_by=["indicators.country"],
    )
    assert "GROUP BY countries.region" in sql and len(got) == 3
    # a key the question names ('each country') stays
    sql, _ = rows(
        world,
        "What is the population of each country?",
        ["indicators"],
        select=["indicators.country", "SUM(indicators.population)"],
        group_by=["indicators.country"],
    )
    assert "GROUP BY indicators.country" in sql


def test_a_superlative_ranks_by_the_measure_it_names_not_the_group_key(world):
    sql, got = rows(
        world,
        "Which state has the highest sales?",
        ["orders"],
        select=["orders.state"],
        group_by=["orders.state"],
        order_by=["orders.state"],
    )
    assert sql.endswith("ORDER BY SUM(orders.sales) DESC LIMIT 1")
    assert got == world.execute("SELECT state FROM orders GROUP BY state ORDER BY sum(sales) DESC LIMIT 1").rows
    sql, _ = rows(
        world,
        "Which state has the lowest quantity?",
        ["orders"],
        select=["orders.state", "SUM(orders.quantity)"],
        group_by=["orders.state"],
    )
    assert "ORDER BY SUM(orders.quantity) ASC" in sql and sql.endswith("LIMIT 1")  # NULLs last: no value is lowest
    # the model's max() under HAVING: grouped by the select column only after it is read
    sql, got = rows(
        world,
        "Which state has the highest sales?",
        ["orders"],
        select=["state"],
        having=["max(sales)"],
        order_by=["state"],
    )
    assert sql.endswith("GROUP BY orders.state ORDER BY SUM(orders.sales) DESC LIMIT 1") and got == [("Utah",)]
    sql, got = rows(
        world,
        "Which region has the most countries?",
        ["countries"],
        select=["countries.region"],
        group_by=["countries.region"],
    )
    assert "ORDER BY COUNT(*) DESC LIMIT 1" in sql and len(got) == 1


def parts(*select, where=()) -> dict:
    return {"select": list(select), "where": list(where), "group_by": [], "having": [], "order_by": [], "limit": None}


def test_a_query_that_finds_nothing_is_repaired_once_and_kept_if_the_repair_finds_nothing(world, tmp_path):
    plan = {"request": "Total sales of orders of more than 25 items", "kind": "query", "values": [], "fields": []}
    question = "What were the total sales of orders with a quantity above 25?"
    empty = parts("SUM(orders.sales)", where=["orders.quantity > 250"])
    fixed = parts("SUM(orders.sales)", where=["orders.quantity > 25"])
    model = ScriptedModel([plan, empty, fixed])
    r = BIAgent(model, world, store=tmp_path / "a.db", prose=False, sql_mode="parts").ask(question)
    assert r.status == "completed" and r.rows == [[100.0]]
    assert "found nothing" in str(model.requests[-1])
    model = ScriptedModel([plan, empty, empty])
    r = BIAgent(model, world, store=tmp_path / "b.db", prose=False, sql_mode="parts").ask(question)
    assert r.status == "completed" and r.rows == [[None]] and "250" in r.sql


def test_a_word_of_a_value_is_split_at_underscores_and_the_resolved_value_replaces_the_written_one(world):
    assert shares_word("large", "large_airport") and not shares_word("large", "heliport")
    resolved = [{"mention": "large", "table": "airports", "column": "type", "value": "large_airport"}]
    bi = BIContext(world, draft(world), None)
    sql = compose(
        QueryParts(select=["COUNT(*)"], where=["airports.type = 'large'"]),
        bi.semantic,
        ["airports"],
        resolved,
        "sqlite",
        "How many large airports are there?",
        bi.values,
    )
    assert "'large'" not in sql and world.execute(sql).rows == [(10,)]


def test_a_value_the_user_names_is_resolved_even_when_the_planner_leaves_it_out(world, tmp_path):
    bi = BIContext(world, draft(world), None)
    assert indexed_values(bi, "What is the total quantity of Chairs sold in Texas?") == ["Chairs", "Texas"]
    plan = {"request": "Total quantity sold", "kind": "query", "values": "", "fields": "quantity"}
    model = ScriptedModel([plan, parts("SUM(orders.quantity)")])
    r = BIAgent(model, world, store=tmp_path / "s.db", prose=False, sql_mode="parts").ask(
        "What is the total quantity of Chairs sold?"
    )
    assert r.status == "completed" and "'Chairs'" in r.sql
    assert r.rows == [[240]]  # the Chairs rows only (all: 465)


def test_how_much_of_a_bare_numeric_column_is_its_sum(world):
    sql, got = rows(
        world, "How much did we sell in Texas?", ["orders"], select=["orders.sales"], where=["orders.state = 'Texas'"]
    )
    assert got == [(1350.0,)]
    sql, _ = rows(world, "How much is each order in Texas?", ["orders"], select=["orders.state", "orders.sales"])
    assert "SUM" not in sql  # a row per order, named: not one amount


def test_the_group_of_rows_with_no_key_is_no_answer_to_which(world):
    with sqlite3.connect(world.path) as con:  # more rows with no region than any region has
        con.executemany("INSERT INTO countries VALUES (?, ?)", [(f"X{i}", "" if i % 2 else None) for i in range(12)])
    sql, got = rows(
        world,
        "Which region has the most countries?",
        ["countries"],
        select=["countries.region"],
        group_by=["countries.region"],
        order_by=["COUNT(*) DESC"],
    )
    assert "NOT countries.region IS NULL" in sql and "countries.region <> ''" in sql and len(got) == 1 and got[0][0]


def test_a_total_asked_of_a_bare_measure_is_its_sum(world):
    sql, got = rows(world, "sales in Texas, total", ["orders"], select=["orders.sales"], where=["state = 'Texas'"])
    assert "SUM(" in sql and got == [(sum(10.0 * i for i in range(0, 30, 3)),)]
    sql, _ = rows(world, "the combined sales in Texas", ["orders"], select=["orders.sales"], where=["state = 'Texas'"])
    assert "SUM(" in sql
    sql, _ = rows(
        world, "the total of each order in Texas", ["orders"], select=["orders.sales"], where=["state = 'Texas'"]
    )
    assert "SUM(" not in sql  # each row's own total


def test_the_one_at_the_extreme_is_one_row_unless_a_number_is_asked(world):
    sql, got = rows(
        world, "the order at the highest sales", ["orders"], select=["orders.state"], order_by=["sales DESC"]
    )
    assert sql.endswith("LIMIT 1") and got == [("Utah",)]  # sales 290: the 30th order, Utah
    sql, _ = rows(world, "the 3 orders with the highest sales", ["orders"], select=["state"], order_by=["sales DESC"])
    assert "LIMIT" not in sql  # the model's limit, if any, stands; none is invented
    sql, _ = rows(world, "orders by sales", ["orders"], select=["state"], order_by=["sales DESC"])
    assert "LIMIT" not in sql


def test_a_mention_with_its_kind_word_on_another_text_column_is_dropped(tmp_path):
    path = tmp_path / "c.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE counties (fips TEXT, name TEXT);
            CREATE TABLE unemployment (fips TEXT, year INTEGER, rate REAL);
            INSERT INTO counties VALUES ('17031', 'Cook'), ('26163', 'Wayne');
            INSERT INTO unemployment VALUES ('17031', 2009, 10.5), ('26163', 2009, 16.0);
        """)
    engine = SQLiteEngine("c", path)
    resolved = [{"value": "Cook", "table": "counties", "column": "name"}]
    sql = compose(
        QueryParts(
            select=["unemployment.rate"], where=["unemployment.fips = 'Cook County'", "unemployment.year = 2009"]
        ),
        draft(engine),
        ["unemployment", "counties"],
        resolved,
        "sqlite",
        "unemployment rate in Cook County in 2009?",
    )
    assert "'Cook County'" not in sql and engine.execute(sql).rows == [(10.5,)]
    engine.close()


def test_a_count_per_group_counts_the_rows_it_names(world):
    # the model grouped the regions and counted them; the question counts indicators per region: joined
    sql, got = rows(
        world,
        "What is the number of indicators per region?",
        ["countries", "indicators"],
        select=["countries.region", "COUNT(*)"],
        group_by=["countries.region"],
    )
    assert "indicators" in sql.split("GROUP BY")[0] and sorted(got) == [("Africa", 12), ("Asia", 12), ("Europe", 12)]


def test_a_query_that_finds_nothing_drops_what_the_question_never_says_before_asking_the_model(world, tmp_path):
    plan = {"request": "Total sales in Texas", "kind": "query", "values": ["Texas"], "fields": []}
    # the model adds a value nobody named: no row; without it the query answers, with no repair call
    invented = parts("SUM(orders.sales)", where=["orders.state = 'Texas'", "orders.sub_category = 'Desks'"])
    model = ScriptedModel([plan, invented])
    r = BIAgent(model, world, store=tmp_path / "a.db", prose=False, sql_mode="parts").ask("Total sales in Texas?")
    gold = world.execute("SELECT SUM(sales) FROM orders WHERE state = 'Texas'").rows
    assert r.status == "completed" and r.rows == [list(gold[0])] and "Desks" not in r.sql
    assert len(model.requests) == 2  # the plan and the parts: the rewrite cost no model call


@pytest.mark.parametrize(
    ("question", "sql", "gold"),
    [
        (  # the extreme of every year, beside the question's year: ranked within it, a value that is there
            "Which country had the lowest fertility in 1990?",
            "SELECT country FROM indicators WHERE year = 1990 AND fertility < (SELECT MIN(fertility) FROM indicators)",
            "SELECT country FROM indicators WHERE year = 1990 ORDER BY fertility, country LIMIT 1",
        ),
        (  # a threshold the question never writes (its one number, 1990, is used)
            "Which country had the highest fertility in 1990?",
            "SELECT country FROM indicators WHERE year = 1990 AND fertility > 40.5 ORDER BY fertility DESC LIMIT 1",
            "SELECT country FROM indicators WHERE year = 1990 ORDER BY fertility DESC LIMIT 1",
        ),
        (  # the user's mention set again on a column that does not hold it, beside the resolved region
            "how many asian countries are there",
            "SELECT COUNT(*) FROM countries JOIN indicators ON indicators.country = countries.name"
            " WHERE indicators.country = 'asian' AND countries.region = 'Asia'",
            "SELECT COUNT(*) FROM countries WHERE region = 'Asia'",
        ),
    ],
)
def test_the_rewrite_of_an_empty_query_answers_what_was_asked(world, question, sql, gold):
    resolved = [{"value": "Asia"}] if "asian" in question else []
    assert world.execute(sql).rows in ([], [(0,)])
    first = next(s for s in relaxed(sql, question, resolved, "sqlite") if world.execute(s).rows not in ([], [(0,)]))
    assert world.execute(first).rows == world.execute(gold).rows


def test_a_made_up_number_beside_one_the_question_writes_and_no_filter_uses_is_left_to_the_repair():
    sql = "SELECT SUM(orders.sales) FROM orders WHERE orders.quantity > 250"
    assert relaxed(sql, "total sales of orders with a quantity above 25?", [], "sqlite") == []
    assert relaxed(sql, "total sales of orders with a big quantity?", [], "sqlite") == [
        "SELECT SUM(orders.sales) FROM orders"
    ]


def test_how_many_counts_the_rows_of_the_table_it_names_joined_to_the_value(world):
    # the model counted the countries that hold the region; the question counts indicators
    question = "How many indicators are there for Asia?"
    sql, got = rows(world, question, ["countries"], select=["COUNT(*)"], where=["countries.region = 'Asia'"])
    assert "JOIN indicators" in sql and got == [(12,)]
    sql, got = rows(
        world,
        "How many countries are in Asia?",
        ["countries"],
        select=["COUNT(*)"],
        where=["countries.region = 'Asia'"],
    )
    assert "JOIN" not in sql and got == [(4,)]


def test_groups_ordered_by_a_bare_measure_of_their_rows_are_ranked_by_its_sum(world):
    sql, got = rows(
        world,
        "top 2 regions by population in 1990",
        ["countries", "indicators"],
        select=["countries.region"],
        where=["indicators.year = 1990"],
        group_by=["countries.region"],
        order_by=["indicators.population DESC"],
        limit=2,
    )
    gold = (
        "SELECT c.region FROM countries c JOIN indicators i ON i.country = c.name WHERE i.year = 1990"
        " GROUP BY c.region ORDER BY SUM(i.population) DESC LIMIT 2"
    )
    assert "SUM(indicators.population)" in sql and got == world.execute(gold).rows


@pytest.fixture
def shipments(tmp_path: Path) -> SQLiteEngine:
    path = tmp_path / "s.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE orders (state TEXT, ship_mode TEXT, c_mktsegment TEXT, cyl INTEGER, sales REAL)")
        con.executemany(
            "INSERT INTO orders VALUES (?, ?, ?, ?, ?)",
            [
                (("Texas", "Ohio")[i % 2], ("Same Day", "First Class", "Standard")[i % 3], ("FURNITURE", "AUTO")[i % 2])
                + ((4, 6, 8)[i % 3 - 1], float(i))
                for i in range(60)
            ],
        )
    engine = SQLiteEngine("s", path)
    yield engine
    engine.close()


def test_a_value_written_as_a_hyphenated_modifier_is_found_and_filters(shipments, tmp_path):
    bi = BIContext(shipments, draft(shipments), None)
    found = lambda q: {(r["column"], r["value"]) for r in compound_values(bi, q)}  # noqa: E731
    assert found("How many same-day shipments went to Texas?") == {("ship_mode", "Same Day")}
    assert found("orders from furniture-segment customers") == {("c_mktsegment", "FURNITURE")}
    assert found("number of 4-cylinder orders") == {("cyl", 4)}
    assert found("number of 5-cylinder orders") == set()  # no row holds it
    assert found("a same-store comparison, a furniture-shop") == set()  # only a whole value, a word naming its column
    plan = {"request": "How many same-day shipments went to Texas", "kind": "query", "values": ["Texas"], "fields": []}
    model = ScriptedModel([plan, parts("COUNT(*)", where=["orders.state = 'Texas'"])])
    r = BIAgent(model, shipments, store=tmp_path / "a.db", prose=False, sql_mode="parts").ask(
        "How many same-day shipments went to Texas?"
    )
    gold = shipments.execute("SELECT COUNT(*) FROM orders WHERE state = 'Texas' AND ship_mode = 'Same Day'").rows
    assert r.status == "completed" and r.rows == [list(gold[0])] and "'Same Day'" in r.sql


@pytest.fixture
def films(tmp_path: Path) -> SQLiteEngine:
    """Movies with a year and a text release date, reviews keyed by the movie's id in another table."""
    path = tmp_path / "f.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE omdb (ID INTEGER, Title TEXT, Year INTEGER, Released TEXT);
            CREATE TABLE tomatoes (ID INTEGER, BoxOffice REAL, DVD TEXT, Meter INTEGER);
        """)
        for i in range(40):
            con.execute(
                "INSERT INTO omdb VALUES (?, ?, ?, ?)",
                (i, f"Film {i}", 2000 + i % 4, f"{2000 + i % 4}-06-{1 + i % 28:02d}"),
            )
            box = None if i % 7 == 0 else 1000.0 * i
            con.execute("INSERT INTO tomatoes VALUES (?, ?, ?, ?)", (i, box, f"{2003 + i % 4}-01-01", i % 100))
    engine = SQLiteEngine("f", path)
    yield engine
    engine.close()


def test_a_year_set_on_a_column_that_is_no_year_is_the_year_of_the_table_named_as_one(films):
    def got(question, tables, **parts):
        sql = compose(QueryParts(**parts), draft(films), tables, [], "sqlite", question)
        return sql, films.execute(sql).rows

    gold = "SELECT SUM(t.BoxOffice) FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Year = 2001"
    sql, rows_ = got(
        "total box office of movies released in 2001?",
        ["omdb", "tomatoes"],
        select=["SUM(tomatoes.BoxOffice)"],
        where=["omdb.Released = '2001-01-01'"],
    )
    assert "omdb.Year = 2001" in sql and rows_ == films.execute(gold).rows
    gold = "SELECT AVG(t.Meter) FROM tomatoes t JOIN omdb o ON o.ID = t.ID WHERE o.Year = 2002"
    sql, rows_ = got(
        "average meter of movies that came out in 2002",
        ["tomatoes"],
        select=["AVG(tomatoes.Meter)"],
        where=["tomatoes.DVD = '2002'"],
    )
    assert "omdb.Year = 2002" in sql and rows_ == films.execute(gold).rows
    # 'more than 2001' is a quantity, not a year: kept
    sql, _ = got(
        "how many movies made more than 2001 at the box office?",
        ["tomatoes"],
        select=["COUNT(*)"],
        where=["tomatoes.BoxOffice > 2001"],
    )
    assert "BoxOffice > 2001" in sql


def test_the_lowest_one_is_one_that_has_a_value(films):
    sql = compose(
        QueryParts(select=["tomatoes.ID"], order_by=["tomatoes.BoxOffice ASC"], limit=1),
        draft(films),
        ["tomatoes"],
        [],
        "sqlite",
        "which film had the lowest box office?",
    )
    assert films.execute(sql).rows == [(1,)]  # film 0 has no box office; SQLite sorts NULL first


def test_a_share_of_a_measure_is_its_filtered_sum_over_its_sum(world):
    gold = "SELECT 100.0 * SUM(CASE WHEN state = 'Texas' THEN sales ELSE 0 END) / SUM(sales) FROM orders"
    for select in (["COUNT(*)"], ["SUM(orders.sales) * 100 / COUNT(*)"]):
        sql, got = rows(
            world,
            "What percentage of our sales comes from Texas?",
            ["orders"],
            select=select,
            where=["orders.state = 'Texas'"],
        )
        assert "SUM(CASE" in sql and got[0][0] == pytest.approx(world.execute(gold).rows[0][0])
    # a share of things counted stays a share of rows
    sql, got = rows(
        world,
        "What percentage of orders went to Texas?",
        ["orders"],
        select=["COUNT(*)"],
        where=["orders.state = 'Texas'"],
    )
    assert got[0][0] == pytest.approx(100.0 / 3)


def test_an_amount_after_past_or_beyond_is_no_value_to_look_up(world):
    bi = BIContext(world, draft(world), None)
    assert not names_a_value(bi, "five minutes", "how many tracks run past five minutes")
    assert not names_a_value(bi, "ten years", "countries beyond ten years of data")
    assert names_a_value(bi, "Texas", "orders shipped past Texas")


def test_how_many_of_a_number_column_is_its_sum_and_of_a_table_its_rows(tmp_path):
    path = tmp_path / "m.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE medals (country TEXT, games INTEGER, golds INTEGER)")
        con.executemany("INSERT INTO medals VALUES (?, ?, ?)", [("Norway", y, 3 + y % 4) for y in range(6)])
    engine = SQLiteEngine("m", path)

    def got(question):
        parts = QueryParts(select=["COUNT(*)"], where=["medals.country = 'Norway'"])
        sql = compose(parts, draft(engine), ["medals"], [], "sqlite", question)
        return sql, engine.execute(sql).rows

    assert got("how many golds did Norway win?") == (
        "SELECT SUM(medals.golds) FROM medals WHERE medals.country = 'Norway'",
        [(25,)],
    )
    assert got("how many medals rows are there for Norway?")[1] == [(6,)]
    engine.close()


def test_a_question_that_opens_with_a_superlative_asks_for_one(films):
    def got(question):
        parts = QueryParts(select=["omdb.Title"], where=["omdb.Year = 2001"], order_by=["tomatoes.BoxOffice DESC"])
        return compose(parts, draft(films), ["omdb", "tomatoes"], [], "sqlite", question)

    sql = got("biggest box office hit of 2001")
    gold = "SELECT o.Title FROM omdb o JOIN tomatoes t ON o.ID = t.ID WHERE o.Year = 2001 ORDER BY t.BoxOffice DESC LIMIT 1"
    assert sql.endswith("LIMIT 1") and films.execute(sql).rows == films.execute(gold).rows
    assert "LIMIT" not in got("list the 2001 films, biggest box office first")


def _named(table: str, column: str, *values: str) -> list[dict]:
    return [{"mention": v, "table": table, "column": column, "value": v} for v in values]


@pytest.mark.parametrize(
    "question",
    ["total sales in Texas vs Ohio", "sales in Texas and in Ohio, total", "total sales of Texas, Ohio or Utah"],
)
def test_values_the_question_lists_filter_one_column_and_show_each_values_figure(world, question):
    listed = [v for v in ("Texas", "Ohio", "Utah") if v in question]
    # the model set both values AND-ed (no row at all) or left them out: each value's own total is shown
    for where in (["orders.state = 'Texas'", "orders.state = 'Ohio'"], []):
        parts = QueryParts(select=["SUM(orders.sales)"], where=where)
        sql = compose(parts, draft(world), ["orders"], _named("orders", "state", *listed), "sqlite", question)
        names = ", ".join(f"'{v}'" for v in listed)
        gold = f"SELECT state, SUM(sales) FROM orders WHERE state IN ({names}) GROUP BY state"
        assert sorted(world.execute(sql).rows) == sorted(world.execute(gold).rows), sql


def test_two_roles_or_values_of_two_columns_are_no_list(world):
    both = _named("orders", "state", "Texas", "Ohio")
    parts = QueryParts(select=["COUNT(*)"], where=["orders.state = 'Texas'"])
    sql = compose(parts, draft(world), ["orders"], both, "sqlite", "orders from Texas to Ohio")
    assert " IN " not in sql and "GROUP BY" not in sql
    two = _named("orders", "sub_category", "Chairs") + _named("orders", "state", "Texas")
    sql = compose(QueryParts(select=["SUM(orders.sales)"]), draft(world), ["orders"], two, "sqlite", "Chairs in Texas")
    gold = "SELECT SUM(sales) FROM orders WHERE sub_category = 'Chairs' AND state = 'Texas'"
    assert world.execute(sql).rows == world.execute(gold).rows, sql


def test_a_listed_value_resolved_to_a_column_of_another_meaning_goes_to_the_column_holding_all(world):
    # 'Ohio' found as an airport name beside 'Texas' a state: both are states, one row each
    mixed = _named("orders", "state", "Texas") + _named("airports", "name", "Ohio")
    held = {("orders", "state"): {"texas", "ohio", "utah"}, ("airports", "name"): {"ohio"}}
    sql = compose(
        QueryParts(select=["SUM(orders.sales)"], where=["airports.name = 'Ohio'"]),
        draft(world),
        ["orders", "airports"],
        mixed,
        "sqlite",
        "sales of Texas and of Ohio",
        lambda t, c: held.get((t, c), set()),
    )
    gold = "SELECT state, SUM(sales) FROM orders WHERE state IN ('Texas', 'Ohio') GROUP BY state"
    assert sorted(world.execute(sql).rows) == sorted(world.execute(gold).rows), sql


def test_values_named_by_their_demonym_are_resolved_and_listed(tmp_path):
    path = tmp_path / "n.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE sales (nation TEXT, amount REAL)")
        con.executemany(
            "INSERT INTO sales VALUES (?, ?)", [(("JAPAN", "CHINA", "BRAZIL")[i % 3], 1.0 + i) for i in range(30)]
        )
    engine = SQLiteEngine("n", path)
    question = "total amount of sales to Japanese and Chinese buyers?"
    plan = {"request": question, "kind": "query", "values": ["Japanese", "Chinese"], "fields": []}
    model = ScriptedModel([plan, parts("SUM(sales.amount)")])
    r = BIAgent(model, engine, store=tmp_path / "s.db", prose=False, sql_mode="parts").ask(question)
    gold = "SELECT nation, SUM(amount) FROM sales WHERE nation IN ('JAPAN', 'CHINA') GROUP BY nation"
    assert r.status == "completed" and sorted(map(tuple, r.rows)) == sorted(map(tuple, engine.execute(gold).rows)), (
        r.sql
    )
    assert shares_word("Japanese", "JAPAN") and not shares_word("Indians", "Indonesia")
    engine.close()
