"""Values the question names that the planner hands over badly: a list in one mention, a category's value as the
question's first word; and a ratio the model writes with its condition also in WHERE."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bi_compose_helpers import sqlite_engine

from orrery.bi.agent import BIAgent
from orrery.bi.compose import QueryParts, compose
from orrery.bi.decline import indexed_values
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import Semantic, draft
from orrery.bi.tools import BIContext, category_values, listed_apart, names_a_value
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def music(tmp_path: Path):
    """Tracks in genres (a category of a few values) with a ship-like delivery mode, and one track named 'Time'."""
    genres = ["Jazz", "Blues", "Rock", "Rock And Roll"]
    tracks = [
        (i, "Time" if i == 0 else f"Song {i}", i % 4 if i % 7 else 0, ("Same Day", "Standard")[i % 3 > 0], i)
        for i in range(120)
    ]
    engine = sqlite_engine(
        tmp_path / "m.sqlite",
        "CREATE TABLE genres (genre_id INTEGER, name TEXT);"
        "CREATE TABLE tracks (track_id INTEGER, name TEXT, genre_id INTEGER, mode TEXT, bytes INTEGER);",
        {"genres": list(enumerate(genres)), "tracks": tracks},
    )
    yield engine
    engine.close()


def parts(*select, where=(), group_by=()) -> dict:
    return {
        "select": list(select),
        "where": list(where),
        "group_by": list(group_by),
        "having": [],
        "order_by": [],
        "limit": None,
    }


def _same(engine: SQLiteEngine, got: list, gold: str) -> bool:
    return sorted(map(tuple, got)) == sorted(map(tuple, engine.execute(gold).rows))


def test_a_mention_that_lists_values_is_read_as_its_items(music, tmp_path):
    bi = BIContext(music, draft(music), None)
    assert listed_apart(bi, ["jazz and blues", "Rock And Roll", "rock, blues"]) == [
        "jazz",
        "blues",
        "Rock And Roll",  # a value of the data whole
        "rock",
    ]
    question = "jazz and blues: track count for each"
    plan = {"request": question, "kind": "query", "values": ["jazz and blues"], "fields": []}
    model = ScriptedModel([plan, parts("genres.name", "COUNT(*)", group_by=["genres.name"])])
    r = BIAgent(model, music, store=tmp_path / "s.db", prose=False, sql_mode="parts").ask(question)
    gold = (
        "SELECT g.name, COUNT(*) FROM tracks t JOIN genres g ON t.genre_id = g.genre_id "
        "WHERE g.name IN ('Jazz', 'Blues') GROUP BY g.name"
    )
    assert r.status == "completed" and _same(music, r.rows, gold), r.sql


def test_a_categorys_value_as_the_first_word_is_a_named_value(music):
    bi = BIContext(music, draft(music), None)
    assert indexed_values(bi, "Blues tracks per delivery mode") == ["Blues"]
    assert indexed_values(bi, "Time spent per genre") == []  # a track's name, not a category's value
    assert indexed_values(bi, "How many Blues tracks are there?") == ["Blues"]


def test_a_ratio_with_its_condition_also_in_where_is_over_all_rows(music, tmp_path):
    question = "What percentage of tracks were sent Same Day?"
    plan = {"request": question, "kind": "query", "values": ["Same Day"], "fields": []}
    share = "CAST(SUM(CASE WHEN tracks.mode = 'Same Day' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(*)"
    model = ScriptedModel([plan, parts(share, where=["tracks.mode = 'Same Day'"])])
    r = BIAgent(model, music, store=tmp_path / "s.db", prose=False, sql_mode="parts").ask(question)
    gold = "SELECT 100.0 * SUM(mode = 'Same Day') / COUNT(*) FROM tracks"
    assert r.status == "completed" and r.rows[0][0] == pytest.approx(music.execute(gold).rows[0][0]), r.sql
    assert 0 < r.rows[0][0] < 100


@pytest.mark.parametrize(
    ("question", "listed"),
    [
        ("Which tracks are from 1996 and from 2008?", True),
        ("Which tracks are from 1996 to 2008?", False),
        ("Which tracks came out in 1996 and in 2008?", True),
        ("tracks of 1996, 2008", True),
        ("Which tracks came out between 1996 and 2008?", False),
    ],
)
def test_two_years_the_question_lists_are_those_years_not_a_range(question, listed):
    sql = compose(
        QueryParts(select=["t.name"], where=["t.yr BETWEEN 1996 AND 2008"]),
        Semantic("d", {"t": {"description": "", "columns": {"name": {"type": "TEXT"}, "yr": {"type": "INTEGER"}}}}),
        ["t"],
        [],
        "sqlite",
        question,
    )
    assert ("IN (1996, 2008)" in sql) is listed and ("BETWEEN" in sql) is not listed, sql


def test_a_value_before_a_tables_plural_qualifies_its_rows_it_does_not_name_one(sqlite_bi):
    bi = sqlite_bi(
        "CREATE TABLE counties (name TEXT, state TEXT); CREATE TABLE states (code TEXT, name TEXT);",
        {
            "counties": [("Ohio", "IN"), ("Cook", "IL"), ("Lake", "OH")],
            "states": [("OH", "Ohio"), ("IN", "Indiana"), ("IL", "Illinois")],
        },
    )
    ohio = next(c for c in bi.search("Ohio") if c.table == "counties")
    held = bi.best_holder(ohio, "Average jobless rate across Ohio counties")
    assert (held.table, held.column) == ("states", "name")
    held = bi.best_holder(ohio, "jobless rate of Ohio County")  # one county, named
    assert (held.table, held.column) == ("counties", "name")


def test_a_categorys_values_written_in_lower_case_are_resolved(sqlite_bi):
    bi = sqlite_bi(
        "CREATE TABLE elements (name TEXT, category TEXT, state TEXT, symbol TEXT, region TEXT, gold INTEGER,"
        " silver INTEGER); CREATE TABLE medals (medal TEXT);",
        {
            "elements": [
                ("Fluorine", "halogen", "gas", "F", "", 1, 0),
                ("Neon", "noble gas", "gas", "Ne", "North", 2, 1),
                ("Iron", "metal", "solid", "Fe", "", 3, 0),
                ("Potassium", "metal", "solid", "K", "South", 4, 1),
            ],
            "medals": [("GOLD",), ("SILVER",), ("BRONZE",)],
        },
    )
    found = {(r["mention"], r["value"]) for r in category_values(bi, "how many halogens and how many noble gases")}
    assert found == {("halogens", "halogen"), ("noble gases", "noble gas")}  # no 'gas' state inside 'noble gases'
    assert [r["value"] for r in category_values(bi, "count the noble gas elements")] == ["noble gas"]
    # a lone lower-case word that is a category's whole value is that value (round 26's B2): 'which halogen boils ...'
    assert [r["value"] for r in category_values(bi, "which metal is heaviest")] == ["metal"]
    assert category_values(bi, "how many states are there") == []  # 'state' is a column: no 'solid' / 'gas' value
    assert names_a_value(bi, "K", "melting points (K) of iron") is False  # a unit in brackets
    assert names_a_value(bi, "K", "How many elements have the symbol K?")
    # an empty value matches no word, a capitalised word gives no lower-case piece ('Cook' is no 'ook')
    assert category_values(bi, "average gold of Cook and Ohio, in total") == []
    assert category_values(bi, "how many golds are there") == []  # 'gold' is a column: not the medal 'GOLD'
    assert indexed_values(bi, "Silver totals per element") == []  # the `silver` column, not the medal 'SILVER'
    assert indexed_values(bi, "Bronze medal count") == ["Bronze"]  # no column named so: the medal


def test_a_grammar_word_the_planner_lists_is_no_value(music):
    bi = BIContext(music, draft(music), None)
    assert not names_a_value(bi, "across", "Average bytes across Blues tracks")  # not a track named 'Cross'
    assert names_a_value(bi, "Blues", "Average bytes across Blues tracks")
    assert names_a_value(bi, "US", "Blues tracks sent to the US")  # a grammar word capitalised is a name


def test_a_count_of_a_lookups_own_rows_per_named_value_counts_the_rows_that_refer_to_it(music, tmp_path):
    def ask(question: str, values: list[str], reply: dict) -> Any:
        plan = {"request": question, "kind": "query", "values": values, "fields": []}
        agent = BIAgent(ScriptedModel([plan, reply]), music, store=tmp_path / "s.db", prose=False, sql_mode="parts")
        return agent.ask(question)

    grouped = parts("genres.name", "COUNT(*)", where=["genres.name IN ('Blues', 'Jazz')"], group_by=["genres.name"])
    r = ask("how many blues and how many jazz are there", ["blues", "jazz"], grouped)
    gold = (
        "SELECT g.name, COUNT(*) FROM tracks t JOIN genres g ON t.genre_id = g.genre_id "
        "WHERE g.name IN ('Jazz', 'Blues') GROUP BY g.name"
    )
    assert r.status == "completed" and _same(music, r.rows, gold), r.sql
    # the count names the lookup itself, or names no value: its own rows
    named = ask("How many genres are named Blues?", ["Blues"], parts("COUNT(*)", where=["genres.name = 'Blues'"]))
    assert named.rows == [[1]], named.sql
    assert ask("How many genres are there?", [], parts("COUNT(*)")).rows == [[4]]


def test_a_verb_before_a_value_names_the_holder_whose_name_has_its_root(sqlite_bi):
    bi = sqlite_bi(
        "CREATE TABLE customer (id INTEGER, city TEXT); CREATE TABLE invoice (id INTEGER, billing_city TEXT, total REAL);",
        {"customer": [(1, "Berlin"), (2, "Oslo")], "invoice": [(1, "Berlin", 3.0), (2, "Oslo", 4.0)]},
    )
    berlin = next(c for c in bi.search("Berlin") if c.table == "customer")
    held = bi.best_holder(berlin, "What is the total invoice amount billed to Berlin?")
    assert (held.table, held.column) == ("invoice", "billing_city")
    held = bi.best_holder(berlin, "How many customers live in Berlin?")  # no word of one holder only
    assert (held.table, held.column) == ("customer", "city")
