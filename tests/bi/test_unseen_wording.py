"""Wording a database does not spell, on a drafted layer (no declared keys): 'the worst <measure>' is a ranking,
a named value with its kind word ('Cook County') resolves, 'each X of Y' is held by Y; two values of one column
set side by side are answered per value (IN + GROUP BY), a value named as a lookup table spells it joins the lookup,
and a share of rows is the filtered count's ratio to all rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from orrery.bi.compose import QueryParts, compose
from orrery.bi.decline import judgment, shape_decline
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext

COUNTIES = [(1, "Cook", "IL"), (2, "Lake", "IL"), (3, "Wayne", "MI"), (4, "Kent", "MI"), (5, "Lake", "OH")]
STATES = [("IL", "Illinois"), ("MI", "Michigan"), ("OH", "Ohio"), ("TX", "Texas")]


@pytest.fixture
def db(tmp_path: Path) -> SQLiteEngine:
    """Counties with a state's code, the states' names in a lookup table, a yearly jobless rate per county; cars
    of two makers with an origin code and its lookup table."""
    path = tmp_path / "u.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE counties (fips INTEGER, name TEXT, state TEXT);
            CREATE TABLE states (code TEXT, name TEXT);
            CREATE TABLE unemployment (fips INTEGER, year INTEGER, rate REAL);
            CREATE TABLE cars (model TEXT, mfr TEXT, cyl INTEGER, weight REAL, origin INTEGER);
            CREATE TABLE origins (origin INTEGER, name TEXT);
        """)
        con.executemany("INSERT INTO counties VALUES (?, ?, ?)", COUNTIES)
        con.executemany("INSERT INTO states VALUES (?, ?)", STATES)
        con.executemany(
            "INSERT INTO unemployment VALUES (?, ?, ?)",
            [(f, y, f * 1.5 + (y - 2008)) for f, _, _ in COUNTIES for y in (2008, 2009)],
        )
        con.executemany(
            "INSERT INTO cars VALUES (?, ?, ?, ?, ?)",
            [
                (f"m{i}", ("toyota", "ford", "fiat")[i % 3], (4, 6, 8, 4)[i % 4], 1000.0 + i, i % 3 + 1)
                for i in range(24)
            ],
        )
        con.executemany("INSERT INTO origins VALUES (?, ?)", [(1, "Asia"), (2, "North America"), (3, "Europe")])
    engine = SQLiteEngine("u", path)
    yield engine
    engine.close()


@pytest.fixture
def bi(db) -> BIContext:
    return BIContext(db, draft(db), None)


def test_the_worst_of_a_measure_is_a_ranking_not_a_judgment(bi):
    question = "which county in Ohio had the worst jobless rate?"
    assert judgment(question) and judgment(question, bi) is None  # `rate` is a numeric column
    assert shape_decline(bi, question) is None
    assert judgment("Which county is the best one?", bi)
    assert judgment("Which is the best county?", bi)  # a county is no measure: a taste


def test_the_worst_of_a_measure_a_clipped_name_holds_is_a_ranking(sqlite_bi):
    macro = sqlite_bi(
        "CREATE TABLE qtr (yr INTEGER, infl_pct REAL, unemp_rt REAL, infection_cases INTEGER);",
        {"qtr": [(2000 + i, 1.5 * i, 4.0 + i, i) for i in range(4)]},
    )
    assert judgment("quarter with the worst inflation + the figure", macro) is None  # `infl_pct`
    assert judgment("the year of the worst unemployment", macro) is None  # `unemp_rt`
    assert judgment("the worst quarter to invest in", macro)  # a quarter is no measure: advice
    assert judgment("the worst infection numbers", macro)  # 'infection' does not begin with `infl`
    assert judgment("the worst info on file", macro)  # a word of three letters clips nothing


def test_a_named_value_with_its_kind_word_resolves_to_the_stored_value(bi):
    assert shape_decline(bi, "what was the unemployment rate in Cook County, Illinois in 2009?") is None
    reason = shape_decline(bi, "what was the unemployment rate in Cork County, Illinois in 2009?")
    assert reason and "Cork County Illinois" in reason  # the kind word does not hold an absent name


def test_each_x_of_y_is_held_by_y(bi):
    assert shape_decline(bi, "average weight of the cars from each region of origin") is None
    reason = shape_decline(bi, "average weight of the cars from each colour of paint")
    assert reason and "colour" in reason


def run(db, question: str, tables: list[str], resolved=(), **parts) -> tuple[str, list]:
    bi = BIContext(db, draft(db), None)
    sql = compose(QueryParts(**parts), bi.semantic, tables, list(resolved), "sqlite", question, bi.values)
    return sql, sorted(db.execute(sql).rows)


def test_two_values_of_one_column_set_side_by_side_are_answered_per_value(db):
    per_mfr = [("ford", 1011.5), ("toyota", 1010.5)]
    # the model filtered one maker; entity resolution found both
    resolved = [{"value": v, "table": "cars", "column": "mfr"} for v in ("toyota", "ford")]
    sql, got = run(
        db,
        "compare the average weight of toyota and ford",
        ["cars"],
        resolved,
        select=["AVG(cars.weight)"],
        where=["cars.mfr = 'toyota'"],
    )
    assert "GROUP BY" in sql and got == [(m, pytest.approx(w)) for m, w in per_mfr]
    sql, got = run(
        db,
        "average weight, toyota vs ford?",
        ["cars"],
        select=["AVG(cars.weight)"],
        where=["cars.mfr IN ('toyota', 'ford')"],
    )
    assert got == [(m, pytest.approx(w)) for m, w in per_mfr]
    sql, got = run(
        db,
        "what is the average weight of the cars made by toyota or ford?",
        ["cars"],
        select=["AVG(cars.weight)"],
        where=["cars.mfr = 'toyota' OR cars.mfr = 'ford'"],
    )
    assert "GROUP BY" not in sql and got == [(pytest.approx(1011.0),)]  # 'or': one total


def test_values_named_as_the_lookup_table_spells_them_join_the_lookup(db):
    resolved = [{"value": v, "table": "states", "column": "name"} for v in ("Michigan", "Ohio")]
    sql, got = run(
        db,
        "how's the average county jobless rate in Michigan compared with Ohio?",
        ["unemployment", "counties", "states"],
        resolved,
        select=["AVG(unemployment.rate)"],
    )
    # Michigan: fips 3, 4 over two years; Ohio: fips 5
    assert "JOIN" in sql and got == [("Michigan", pytest.approx(5.75)), ("Ohio", pytest.approx(8.0))]


def test_a_share_of_rows_is_the_filtered_count_over_all_rows(db):
    sql, got = run(
        db,
        "What percentage of the cars have a 4-cylinder engine?",
        ["cars"],
        select=["COUNT(*)"],
        where=["cars.cyl = 4"],
    )
    assert got == [(pytest.approx(50.0),)]
    _, got = run(db, "what share of the cars are made by fiat?", ["cars"], select=["COUNT(*)"], where=["mfr = 'fiat'"])
    assert got == [(pytest.approx(1 / 3),)]
    _, got = run(db, "how many cars have 4 cylinders?", ["cars"], select=["COUNT(*)"], where=["cars.cyl = 4"])
    assert got == [(12,)]  # a count is asked: left a count


def test_a_year_on_a_two_digit_year_column_is_compared_by_its_two_digits(tmp_path):
    path = tmp_path / "y.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE cars (model TEXT, yr INTEGER)")
        con.executemany("INSERT INTO cars VALUES (?, ?)", [(f"m{i}", 70 + i % 13) for i in range(26)])
    db = SQLiteEngine("y", path)
    try:
        sql, got = run(db, "how many cars were built after 1980?", ["cars"], select=["COUNT(*)"], where=["yr > 1980"])
        assert "> 80" in sql and got == [(4,)]
        sql, _ = run(db, "how many cars were built after 1980?", ["cars"], select=["COUNT(*)"], where=["yr > 1975"])
        assert "1975" in sql  # a year the question does not write is left as the model wrote it
    finally:
        db.close()


def test_a_name_on_a_number_column_is_dropped_when_its_value_is_filtered_where_it_lives(db):
    resolved = [{"value": "Cook", "table": "counties", "column": "name"}]
    sql, got = run(
        db,
        "what was the unemployment rate in Cook County in 2009?",
        ["unemployment", "counties"],
        resolved,
        select=["unemployment.rate"],
        where=["unemployment.fips = 'Cook County'", "unemployment.year = 2009"],
    )
    assert "'Cook County'" not in sql and got == [(pytest.approx(2.5),)]


def test_a_name_filtered_on_a_column_of_codes_goes_to_the_lookup_table_that_holds_it(db):
    sql, got = run(
        db,
        "how many cars come from europe, and how many from asia?",
        ["cars"],
        select=["COUNT(*)"],
        where=["cars.origin = 'Europe' OR cars.origin = 'Asia'"],
    )
    assert "JOIN origins" in sql and got == [("Asia", 8), ("Europe", 8)]
    sql, got = run(
        db,
        "what was the average jobless rate in Ohio?",
        ["unemployment", "counties"],
        select=["AVG(unemployment.rate)"],
        where=["counties.state = 'Ohio'"],
    )
    assert "states.name = 'Ohio'" in sql and got == [(pytest.approx(8.0),)]
    _, got = run(db, "how many counties are in IL?", ["counties"], select=["COUNT(*)"], where=["counties.state = 'IL'"])
    assert got == [(2,)]  # a code the column holds stays on it


def test_a_groups_aggregate_compared_with_a_subquery_is_the_ranking_the_superlative_asks(db):
    sql, got = run(
        db,
        "Which maker's cars have the lowest average weight?",
        ["cars"],
        select=["cars.mfr"],
        group_by=["cars.mfr"],
        having=["AVG(cars.weight) = (SELECT AVG(cars.weight) FROM cars ORDER BY AVG(cars.weight) ASC LIMIT 1)"],
        order_by=["cars.mfr"],
        limit=1,
    )
    assert "HAVING" not in sql and got == [("toyota",)]
    sql, got = run(
        db,
        "Which maker has the most cars?",
        ["cars"],
        select=["cars.mfr"],
        group_by=["cars.mfr"],
        having=["COUNT(*) > (SELECT COUNT(*) FROM cars WHERE mfr = 'fiat')"],
    )
    assert "DESC" in sql and len(got) == 1
