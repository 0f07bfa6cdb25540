"""Questions comparing several values ('PG-13 versus R', 'Georgia and Kentucky'): shown only approved pairs that
compare values too, never a pair of one value nor its predicate; an approved comparison reused with other values."""

from __future__ import annotations

import sqlite3

import pytest
import sqlglot

from orrery.bi.context import BIContext
from orrery.bi.engines import SQLiteEngine
from orrery.bi.examples import (
    TAUGHT_FILTERS,
    ExampleMemory,
    compares,
    condition,
    fits,
    sql_condition,
    taught,
    value_swap,
)
from orrery.bi.semantic import draft
from orrery.recall import ApprovedExamples
from orrery.recall.examples import Example


@pytest.mark.parametrize(
    "question",
    [
        "average runtime, PG-13 versus R",
        "county count for Georgia and for Kentucky",
        "What was the population of Germany in 1990 and in 2010?",  # two years
        "Which customers come from Germany, France or Spain?",
        "life expectancy: nigeria vs kenya, 1990",  # a comparison's word, whatever the values' case
        "How do sales in the West compare with the East?",
        "customer count for Germany plus France",  # 'plus' joins two values as 'and' does
        "revenue in 1995 plus 1996",
    ],
)
def test_a_question_naming_several_values_compares(question):
    assert compares(question) and condition(question) == "compare"


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What was the average fertility in Europe & Central Asia in 1990?", "filter"),  # one value's own '&'
        ("How many line items were shipped by AIR in JAPAN?", "filter"),  # two values, no 'and' / 'or' between
        ("How many line items were shipped to customers in JAPAN in 1996?", "filter"),  # a text and a year
        ("How many customers does Jane Peacock support?", "filter"),
        ("How many movies were released between 1995 and 2000?", "threshold"),  # a range, not two years
        ("How many tracks are there?", "none"),
        ("total sales in Texas plus tax", "filter"),  # 'plus' beside one value only
        ("what is two plus three", "none"),  # numbers written as words are no values
        ("How many Google Plus users are there in France?", "filter"),  # a value's own 'Plus', no value after it
    ],
)
def test_one_value_or_a_range_is_no_comparison(question, kind):
    assert not compares(question) and condition(question) == kind


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("SELECT name, e FROM t WHERE name IN ('Nigeria', 'Kenya') AND year = 1990", "compare"),
        ("SELECT year, p FROM t WHERE year IN (1990, 2010)", "compare"),
        ("SELECT count(*) FROM t WHERE mode = 'AIR' OR mode = 'RAIL'", "compare"),
        ("SELECT count(*) FROM t WHERE mode = 'AIR' OR region = 'ASIA'", "filter"),  # two columns: one value each
        ("SELECT count(*) FROM t WHERE mode IN ('AIR')", "filter"),
        ("SELECT count(*) FROM t WHERE id IN (SELECT id FROM u)", "none"),
        ("SELECT count(*) FROM t WHERE price > 3 AND mode IN ('AIR', 'RAIL')", "threshold"),
    ],
)
def test_a_query_comparing_one_column_with_several_values_is_a_comparison(sql, kind):
    assert sql_condition(sqlglot.parse_one(sql)) == kind


ONE = Example(1, "How many counties does Georgia have?", "SELECT count(*) FROM counties WHERE state = 'Georgia'")
TWO = Example(
    2,
    "How many counties do Ohio and Texas have?",
    "SELECT state, count(*) FROM counties WHERE state IN ('Ohio', 'Texas') GROUP BY state",
)


def test_a_comparison_is_shown_only_a_comparison_pair_and_one_value_only_a_one_value_pair():
    both = "How many counties do Georgia and Kentucky have?"
    assert not fits(both, ONE)  # grown_v4: answered for Georgia alone after the one-value pair
    assert fits(both, TWO)
    assert fits("How many counties does Nevada have?", ONE)
    assert not fits("How many counties does Nevada have?", TWO)  # its IN would be copied into one value
    words_only = Example(3, "How many counties do Ohio and Texas have?", "SELECT count(*) FROM counties")
    assert not fits(both, words_only)  # the words compare, the SQL does not: it teaches nothing about it


@pytest.fixture
def music(tmp_path):
    """150 tracks of 4 genres and 3 ratings (categories: their values' words are filters), and an empty memory."""
    genres, ratings = ("Jazz", "Blues", "Rock", "Pop"), ("PG-13", "R", "G")
    rows = [(f"Song {i}", genres[i % 4], ratings[i % 3], 3.0 + i % 5) for i in range(150)]
    con = sqlite3.connect(tmp_path / "m.sqlite")
    con.execute("CREATE TABLE tracks (title TEXT, genre TEXT, rating TEXT, minutes REAL)")
    con.executemany("INSERT INTO tracks VALUES (?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    memory = ExampleMemory(ApprovedExamples(tmp_path / "x.db", embedder=None), floor=None)
    engine = SQLiteEngine("m", tmp_path / "m.sqlite")
    yield BIContext(engine, draft(engine), None, approved=memory)
    engine.close()


def hints(layer) -> dict[str, list[str]]:
    return {f"{t}.{c}": info[TAUGHT_FILTERS] for t, c, info in layer.columns() if TAUGHT_FILTERS in info}


PG13 = ("How many tracks are rated PG-13?", "SELECT count(*) FROM tracks WHERE rating = 'PG-13'")
JAZZ = ("How many tracks are in the Jazz genre?", "SELECT count(*) FROM tracks WHERE genre = 'Jazz'")


def test_a_comparison_is_taught_no_value_comparison_and_one_value_still_is(music):
    examples = music.approved.examples
    examples.approve("m", *PG13)
    examples.approve("m", *JAZZ)
    compared = taught(music.semantic, music.approved, "m", "average minutes, R versus PG-13")
    assert hints(compared) == {}  # grown_v4: R dropped after `rating = 'PG-13'`
    assert compared.to_dict() == music.semantic.to_dict()
    one = taught(music.semantic, music.approved, "m", "How many tracks are rated R?")
    assert hints(one) == {"tracks.rating": ["rating = 'PG-13'"], "tracks.genre": ["genre = 'Jazz'"]}


def test_an_approved_comparison_is_reused_with_other_values():
    approved = (
        "life expectancy: nigeria vs kenya, 1990",
        "SELECT name, e FROM t WHERE name IN ('Nigeria', 'Kenya') AND year = 1990",
    )
    got = value_swap(*approved, "life expectancy: japan vs brazil, 2000", "sqlite")
    assert got is not None
    assert [(s.kind, s.old, s.new) for s in got[1]] == [
        ("text", "Nigeria", "japan"),
        ("text", "Kenya", "brazil"),
        ("number", "1990", "2000"),
    ]
    assert value_swap(*approved, "life expectancy: japan, brazil and chile, 2000", "sqlite") is None  # 3 for 2


def test_the_sql_step_of_a_comparison_is_shown_neither_a_one_value_pair_nor_its_predicate(music, tmp_path):
    from orrery.bi.agent import BIAgent
    from orrery.llm.scripted import ScriptedModel

    seen: list[str] = []

    class Recording(ScriptedModel):
        def complete(self, messages, tools=(), **kw):
            seen.append(" ".join(m.content for m in messages))
            return super().complete(messages, tools, **kw)

    music.approved.examples.approve("m", *PG13)
    parts = {
        "select": ["rating", "avg(minutes)"],
        "where": ["rating IN ('R', 'PG-13')"],
        "group_by": ["rating"],
        "having": [],
        "order_by": [],
        "limit": None,
    }
    model = Recording([{"request": "average minutes per rating", "kind": "query", "values": [], "fields": []}, parts])
    agent = BIAgent(model, music.engine, semantic=music.semantic, store=tmp_path / "s.db", clarify=False, prose=False)
    agent.bi.approved = music.approved
    answer = agent.ask("average minutes, R versus PG-13")
    assert answer.status == "completed" and len(answer.rows) == 2
    assert not any("filter it:" in text or PG13[0] in text for text in seen)
