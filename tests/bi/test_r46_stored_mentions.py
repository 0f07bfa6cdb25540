"""Round 46 (bench/bi.md, round 46, rule E): entity resolution finds a mention the value index misses when one text column
outside the index holds it whole (case aside): the index keeps few values of a column, so a film's title is only in
the data. Held by several such columns (a director who also writes), the mention stays unresolved: no guess."""

from __future__ import annotations

import pytest

from orrery.bi import tools
from orrery.tools.core import RunContext

SCRIPT = "CREATE TABLE films (film_id INTEGER, title TEXT, director TEXT, writer TEXT, genre TEXT);"
# more titles and names than the value index keeps of a column
ROWS = {
    "films": [
        (i, "Chinatown" if i == 7 else f"Film {i}", "Woody Allen" if i == 9 else f"Maker {i}", f"Writer {i}", "Drama")
        for i in range(398)
    ]
    + [(398, "Film 398", "Ann Lee", "Woody Allen", "Drama"), (399, "Film 399", "Bo Yan", "Cy Dee", "Comedy")]
}


@pytest.fixture
def data(sqlite_bi):
    bi = sqlite_bi(SCRIPT, ROWS)
    for column in ("title", "director", "writer"):
        bi.semantic.tables["films"]["columns"][column].pop("values", None)
    return bi


def _resolved(bi, question: str, mentions: list[str]) -> dict:
    bi.question = question
    return tools.entity_resolution(RunContext(deps=bi, options={}), mentions)


def test_a_mention_one_column_outside_the_index_holds_whole_is_resolved_to_it(data):
    assert ("films", "title") not in data.semantic.value_columns()
    got = _resolved(data, "chinatown - director?", ["chinatown"])
    assert got["resolved"] == [{"mention": "chinatown", "table": "films", "column": "title", "value": "Chinatown"}]
    assert got["unresolved"] == []


def test_a_mention_several_columns_hold_or_none_stays_unresolved(data):
    got = _resolved(data, "how many films by Woody Allen", ["Woody Allen"])  # a director and a writer
    assert got == {"resolved": [], "unresolved": ["Woody Allen"]}
    got = _resolved(data, "vertigo - director?", ["vertigo"])  # in no column
    assert got == {"resolved": [], "unresolved": ["vertigo"]}
