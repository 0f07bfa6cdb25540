"""The ceiling of approved examples (bench/bi_memory_ceiling.py): an empty-memory miss is classed by what approved
SQL of its database holds: its gold with other literals (template), every table, join and column the gold uses
(parts), or neither."""

from __future__ import annotations

import importlib.util
from pathlib import Path

# loaded by its path: bench/ on sys.path would shadow packages by its scripts' names (bench/mcp.py is not `mcp`)
_SPEC = importlib.util.spec_from_file_location(
    "bi_memory_ceiling", Path(__file__).parents[2] / "bench" / "bi_memory_ceiling.py"
)
_CEILING = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_CEILING)
sql_facts, ceiling_class, in_one_pair, pair_facts = (
    _CEILING.sql_facts,
    _CEILING.ceiling_class,
    _CEILING.in_one_pair,
    _CEILING.pair_facts,
)

SCHEMA = {
    "artists": {"ArtistId": "INT", "Name": "TEXT"},
    "albums": {"AlbumId": "INT", "Title": "TEXT", "ArtistId": "INT"},
    "tracks": {"TrackId": "INT", "Name": "TEXT", "AlbumId": "INT", "Milliseconds": "INT"},
}
QUEEN = (
    "SELECT COUNT(*) FROM tracks t JOIN albums a ON t.AlbumId = a.AlbumId "
    "JOIN artists ar ON a.ArtistId = ar.ArtistId WHERE ar.Name = 'Queen'"
)
PEARL_JAM = (
    "SELECT count(*) AS n FROM tracks AS x JOIN albums AS y ON y.AlbumId = x.AlbumId "
    "JOIN artists AS z ON y.ArtistId = z.ArtistId WHERE z.Name = 'Pearl Jam'"
)


def facts(sql: str) -> dict:
    return sql_facts(sql, SCHEMA, "sqlite")


def pair(sql: str, gold: str | None = None) -> dict:
    return pair_facts({"sql": sql, "gold": gold or sql}, SCHEMA, "sqlite")


def test_columns_are_resolved_to_their_tables_and_a_join_is_read_either_way_round():
    got = facts(PEARL_JAM)
    assert got["tables"] == {"tracks", "albums", "artists"}
    assert ("artists", "name") in got["columns"] and ("tracks", "name") not in got["columns"]
    assert frozenset({("tracks", "albumid"), ("albums", "albumid")}) in got["joins"]
    assert got["joins"] == facts(QUEEN)["joins"]


def test_a_query_with_other_literals_aliases_and_output_names_is_the_same_template():
    assert facts(QUEEN)["template"] == facts(PEARL_JAM)["template"]
    assert ceiling_class(facts(PEARL_JAM), [pair(QUEEN)]) == "template"


def test_an_approved_query_is_a_template_through_its_gold_too():
    written = "SELECT COUNT(t.TrackId) FROM artists ar, albums a, tracks t WHERE a.ArtistId = ar.ArtistId AND " + (
        "t.AlbumId = a.AlbumId AND ar.Name = 'Queen'"
    )
    assert facts(written)["template"] != facts(PEARL_JAM)["template"]
    assert ceiling_class(facts(PEARL_JAM), [pair(written, QUEEN)]) == "template"


def test_another_logic_over_the_same_parts_is_parts_and_a_part_no_pair_uses_is_neither():
    longest = (
        "SELECT t.Name FROM tracks t JOIN albums a ON t.AlbumId = a.AlbumId JOIN artists ar ON "
        "a.ArtistId = ar.ArtistId WHERE ar.Name = 'Queen' ORDER BY t.Milliseconds DESC LIMIT 1"
    )
    spread = [
        pair("SELECT Name FROM tracks ORDER BY Milliseconds"),
        pair("SELECT COUNT(*) FROM albums a JOIN artists ar ON a.ArtistId = ar.ArtistId WHERE ar.Name = 'AC/DC'"),
        pair("SELECT Title FROM albums a JOIN tracks t ON t.AlbumId = a.AlbumId"),
    ]
    assert ceiling_class(facts(longest), spread) == "parts"
    assert not in_one_pair(facts(longest), spread)
    assert in_one_pair(facts(longest), [pair(QUEEN.replace("COUNT(*)", "t.Name, t.Milliseconds"))])
    assert ceiling_class(facts(longest), spread[:2]) == "neither"  # no approved query joins tracks to albums


def test_sql_sqlglot_cannot_read_has_no_facts():
    assert facts("SELEC nothing FROM") is None
