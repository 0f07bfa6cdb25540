"""Round 48 (bench/bi.md, round 48): a one-row superlative the model writes as something other than a ranking.

A: `x = (SELECT MIN(x) ... WHERE <its own filters>)`, correlated on the outer tables ('the lightest bird weighed on
dream': the lightest of each species) or filtered inside, is the ranking the question asks, one row; the subquery's
conditions on the outer tables alone stay as filters. 'the lightest bird of each species' keeps it (one per
species), and so does a count of the rows at the extreme.
B: the rows of one table grouped by their name and ranked by the SUM of a column of that table, for a superlative of
an attribute each row has ('the longest track'), are ranked by its MAX (MIN for 'the shortest'): two tracks of one
name are not one long track. A sum over another table's rows ('the longest album') stays a sum."""

from __future__ import annotations

import pytest

from orrery.bi.compose import QueryParts, compose

LIGHTEST_PER_SPECIES = (
    "birds.mass_g = (SELECT MIN(birds.mass_g) FROM birds WHERE birds.species_id = species.id "
    "AND birds.isl_cd = islands.isl_cd)"
)


def birds_sql(bi, question: str, select: list[str], where: list[str]) -> str:
    parts = QueryParts(select=select, where=where)
    return compose(parts, bi.semantic, ["birds", "species", "islands"], [], bi.engine.dialect, question, bi.values)


def test_a_correlated_extreme_for_one_row_is_the_ranking(birds):
    question = "the lightest bird weighed on dream - its species?"
    sql = birds_sql(birds, question, ["species.common_name"], ["islands.isl_name = 'Dream'", LIGHTEST_PER_SPECIES])
    assert "SELECT MIN" not in sql and "ORDER BY birds.mass_g ASC" in sql and sql.endswith("LIMIT 1")
    assert birds.engine.execute(sql).rows == [("Chinstrap",)]


def test_the_extreme_of_each_group_keeps_its_subquery(birds):
    question = "the lightest bird of each species weighed on dream"
    sql = birds_sql(birds, question, ["species.common_name"], ["islands.isl_name = 'Dream'", LIGHTEST_PER_SPECIES])
    assert "SELECT MIN" in sql
    assert sorted(birds.engine.execute(sql).rows) == [("Adelie",), ("Chinstrap",)]


def test_the_subquerys_filters_on_the_outer_tables_stay(birds):
    # the only condition, filtered inside on the outer table: the Gentoo of Biscoe is lighter, but not asked
    where = ["birds.mass_g = (SELECT MIN(birds.mass_g) FROM birds WHERE islands.isl_name = 'Dream')"]
    sql = birds_sql(birds, "which species has the lightest bird on dream?", ["species.common_name"], where)
    assert "SELECT MIN" not in sql and "islands.isl_name = 'Dream'" in sql
    assert birds.engine.execute(sql).rows == [("Chinstrap",)]


def test_a_count_of_the_rows_at_the_extreme_keeps_its_subquery(birds):
    question = "how many birds weighed on dream are as light as the lightest of their species?"
    sql = birds_sql(birds, question, ["COUNT(*)"], ["islands.isl_name = 'Dream'", LIGHTEST_PER_SPECIES])
    assert "SELECT MIN" in sql and birds.engine.execute(sql).rows == [(2,)]


TRACKS = (
    "CREATE TABLE albums (album_id INTEGER, title TEXT);"
    "CREATE TABLE tracks (track_id INTEGER, name TEXT, album_id INTEGER, ms INTEGER);"
)
TRACK_ROWS = {
    "albums": [(1, "Long Album"), (2, "Short Album")],
    # two tracks named 'Intro' add up to more than the longest track, 'Epic'
    "tracks": [(1, "Intro", 1, 300), (2, "Intro", 2, 300), (3, "Epic", 1, 500), (4, "Coda", 1, 100)],
}


@pytest.fixture
def tracks(sqlite_bi):
    bi = sqlite_bi(TRACKS, TRACK_ROWS)
    assert "tracks.album_id = albums.album_id" in bi.semantic.joins
    return bi


def ranked(bi, question: str, group: str, order: str) -> str:
    parts = QueryParts(select=[group], group_by=[group], order_by=[order], limit=1)
    return compose(parts, bi.semantic, ["tracks", "albums"], [], bi.engine.dialect, question, bi.values)


@pytest.mark.parametrize(
    ("question", "order", "expected"),
    [
        ("What is the name of the longest track?", "SUM(tracks.ms) DESC", "Epic"),
        ("What is the name of the shortest track?", "SUM(tracks.ms) ASC", "Coda"),
    ],
)
def test_rows_grouped_by_their_own_name_are_ranked_by_each_ones_extreme(tracks, question, order, expected):
    sql = ranked(tracks, question, "tracks.name", order)
    assert "SUM(" not in sql
    assert tracks.engine.execute(sql).rows == [(expected,)]


def test_a_sum_of_another_tables_rows_stays_a_sum(tracks):
    sql = ranked(tracks, "Which album is the longest?", "albums.title", "SUM(tracks.ms) DESC")
    assert "SUM(tracks.ms)" in sql and tracks.engine.execute(sql).rows == [("Long Album",)]


def test_a_total_asked_stays_a_sum(tracks):
    sql = ranked(tracks, "Which track name has the longest total running time?", "tracks.name", "SUM(tracks.ms) DESC")
    assert "SUM(tracks.ms)" in sql and tracks.engine.execute(sql).rows == [("Intro",)]


def test_a_self_correlated_extreme_loses_its_correlation(birds):
    # the subquery's tie to the outer row (one extreme per species) is no filter of the outer query
    where = [
        "islands.isl_name = 'Dream'",
        "birds.mass_g = (SELECT MIN(b.mass_g) FROM birds AS b WHERE b.species_id = birds.species_id)",
    ]
    sql = birds_sql(birds, "the lightest bird weighed on dream - its species?", ["species.common_name"], where)
    assert "SELECT MIN" not in sql and "species_id = birds.species_id" not in sql
    assert birds.engine.execute(sql).rows == [("Chinstrap",)]
