"""Round 34 (bench/bi_r34.md, rule N): a name the value index does not hold (it caps a column's distinct values) is
found by a bounded scan of the text columns it leaves out ('spielberg' -> a director 'Steven Spielberg'), and the
model's literal that is only a part of that name on the same column gives way to it."""

from __future__ import annotations

import pytest

from orrery.bi import tools
from orrery.bi.compose import QueryParts, compose
from orrery.tools.core import RunContext

SCRIPT = "CREATE TABLE films (film_id INTEGER, title TEXT, director TEXT, cast_list TEXT, studio TEXT);"
DIRECTORS = ["Steven Spielberg"] * 5 + ["Martin Scorsese"] * 3 + [f"Maker{i} Person{i}" for i in range(392)]
ROWS = {
    "films": [
        (
            i,
            "Bad Company" if i == 9 else f"Film {i}",
            d,
            "Steven Spielberg, Tom Hanks" if i < 2 else f"Actor{i}, Actor{i + 1}",
            "Orion Company" if i % 2 else "Paramount Pictures",
        )
        for i, d in enumerate(DIRECTORS)
    ]
}


@pytest.fixture
def films(sqlite_bi):
    bi = sqlite_bi(SCRIPT, ROWS)
    for column in ("director", "title", "cast_list", "studio"):  # as a layer drafted over a large table leaves them
        bi.semantic.tables["films"]["columns"][column].pop("values", None)
    return bi


def _resolve(bi, question: str, mentions: list[str]) -> list[tuple[str, str, str]]:
    bi.question = question
    got = tools.entity_resolution(RunContext(deps=bi, options={}), mentions)["resolved"]
    return [(r["table"], r["column"], r["value"]) for r in got]


def test_a_surname_the_index_lacks_is_the_name_of_the_column_that_holds_it_most(films):
    # 'Steven Spielberg' is also in a cast list: a list is no name, and the directors hold him more often
    assert _resolve(films, "spielberg films - how many", ["spielberg"]) == [("films", "director", "Steven Spielberg")]
    assert _resolve(films, "spielberg vs scorsese, films each", ["Spielberg", "Scorsese"]) == [
        ("films", "director", "Steven Spielberg"),
        ("films", "director", "Martin Scorsese"),
    ]


def test_a_word_that_is_asked_about_or_inside_a_longer_title_is_no_name(films):
    assert _resolve(films, "which studio company made the most films", ["company"]) == []  # 'Orion Company'
    assert _resolve(films, "films about a bad day", ["bad day"]) == []  # no value holds both words
    assert _resolve(films, "how many films by Chloe Zhao", ["Chloe Zhao"]) == []  # the data lacks her


def test_the_models_part_of_a_resolved_name_gives_way_to_the_name(films):
    parts = QueryParts(select=["COUNT(*)"], where=["films.director = 'Spielberg'"])
    resolved = [{"mention": "spielberg", "table": "films", "column": "director", "value": "Steven Spielberg"}]
    sql = compose(parts, films.semantic, ["films"], resolved, "sqlite", "spielberg films - how many", films.values)
    assert "'Spielberg'" not in sql and "director = 'Steven Spielberg'" in sql
    assert films.engine.execute(sql).rows == [(5,)]
