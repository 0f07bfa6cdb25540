"""Reusing an approved query for the same question in other words (bench/bi_memory_r29.md): word order, plurals,
'count of' / 'how many', a dropped article, the value's table said beside it; never a synonym by meaning, nor when a
word that changes the meaning differs, another thing is named, or a value or number is left over."""

from __future__ import annotations

import json

import pytest

from orrery.bi.agent import bi_agent
from orrery.bi.examples import open_examples, use_examples, value_swap
from orrery.llm.scripted import ScriptedModel

ROCK = (
    "number of Rock tracks?",
    "SELECT count(*) FROM Track t JOIN Genre g ON t.GenreId = g.GenreId WHERE g.Name = 'Rock'",
)
PLAYLIST = (
    "How many tracks are on the Grunge playlist?",
    "SELECT count(*) FROM Track JOIN PlaylistTrack ON PlaylistTrack.TrackId = Track.TrackId "
    "JOIN Playlist ON PlaylistTrack.PlaylistId = Playlist.PlaylistId WHERE Playlist.Name = 'Grunge'",
)
POPULATION = (
    "what was China's population in 1980?",
    "SELECT population FROM indicators WHERE country = 'China' AND year = 1980",
)
ROUTES = ("How many routes leave from ORD?", "SELECT count(*) FROM routes WHERE src = 'ORD'")
ALTITUDE = ("airport at the highest elevation", "SELECT Name FROM airports ORDER BY Altitude DESC LIMIT 1")
SALES = (
    "What are the total sales in the city of Seattle?",
    "SELECT sum(Sales) FROM orders WHERE City = 'Seattle'",
)


def agent(store, turns):
    model = ScriptedModel(turns)
    return bi_agent(model, db="chinook", store=store, session_id="s1", clarify=False), model


def plan(request: str) -> dict:
    return {"request": request, "kind": "query", "values": [], "fields": []}


def parts(*select, where=()) -> dict:
    return {"select": list(select), "where": list(where), "group_by": [], "order_by": [], "limit": None}


def wrote_sql(model: ScriptedModel) -> bool:
    return any("fill in the parts" in call[0].content for call in model.seen)


def swapped(approved, sql, question):
    got = value_swap(approved, sql, question, "duckdb")
    return None if got is None else [(s.kind, s.old, s.new) for s in got[1]]


@pytest.mark.parametrize(
    ("pair", "question", "values"),
    [
        (ROCK, "how many tracks are in the Jazz genre?", [("text", "Rock", "Jazz")]),  # the value's table beside it
        (ROCK, "Count of the Metal tracks", [("text", "Rock", "Metal")]),
        (PLAYLIST, "How many tracks are on the playlist Brazilian Music?", [("text", "Grunge", "Brazilian Music")]),
        (PLAYLIST, "tracks on the Grunge playlist, how many", [("text", "Grunge", "Grunge")]),  # the same values
        (
            POPULATION,
            "What was the population of India in 2000?",
            [("text", "China", "India"), ("number", "1980", "2000")],
        ),
        (ROUTES, "routes from JFK - how many leave?", [("text", "ORD", "JFK")]),
    ],
)
def test_a_question_in_other_words_gets_the_approved_slots_with_its_values(pair, question, values):
    assert swapped(*pair, question) == values


@pytest.mark.parametrize(
    ("pair", "question"),
    [
        (ROCK, "number of tracks not in the Jazz genre?"),  # a negation
        (ROCK, "number of Rock albums?"),  # another table's name
        (ROCK, "number of Rock tracks in 2010?"),  # a number the approved question lacks
        (ROCK, "average number of Rock tracks per album?"),  # an aggregate, a grouping
        (ROCK, "number of Rock tracks longer than 300000?"),  # a comparison
        (PLAYLIST, "How many tracks does Iron Maiden carry on the Grunge playlist?"),  # a value left over
        (ALTITUDE, "Which airport has the lowest elevation?"),  # the other end of the ranking
        (ROUTES, "How many routes go to JFK?"),  # where to, not where from
        (SALES, "What were the total sales in Ontario?"),  # the approved question said which column: 'city'
        (POPULATION, "What was the population of India in 2000 and in 2010?"),  # two years: a comparison
    ],
)
def test_a_word_that_changes_the_meaning_keeps_the_approved_query_away(pair, question):
    assert swapped(*pair, question) is None


def test_another_word_of_near_meaning_is_no_rewording():
    # by meaning alone 'altitude' is 'elevation' (MiniLM 0.82), but 'inbound' is 'outbound' too (0.88)
    assert swapped(*ALTITUDE, "Which airport has the highest altitude?") is None
    assert swapped(*ALTITUDE, "airport at the highest elevation?") == []


@pytest.mark.usefixtures("bi_home")
def test_a_reworded_question_reuses_the_approved_sql_without_a_model_call_for_sql(tmp_path):
    store = str(tmp_path / "sessions.db")
    example = open_examples(store, embedder=None).approve("chinook", *ROCK)
    a, model = agent(store, [plan("Count the jazz tracks"), "130 tracks."])
    use_examples(a, store, embedder=None, leave_one_out=True)
    answer = a.ask("how many tracks are in the Jazz genre?")
    assert answer.status == "completed" and answer.rows == [[130]] and not wrote_sql(model)
    build = next(t for t in answer.todos if t["tool"] == "query_builder")
    assert json.loads(build["result"])["reused"] == {
        "example": example,
        "question": ROCK[0],
        "values": {"Rock": "Jazz"},
    }


@pytest.mark.usefixtures("bi_home")
def test_a_reworded_question_about_another_thing_is_written_by_the_model(tmp_path):
    store = str(tmp_path / "sessions.db")
    open_examples(store, embedder=None).approve("chinook", *ROCK)
    turns = [plan("Count the jazz albums"), parts("count(DISTINCT t.AlbumId) AS n", where=["g.Name = 'Jazz'"]), "2."]
    a, model = agent(store, turns)
    use_examples(a, store, embedder=None, leave_one_out=True)
    answer = a.ask("how many albums are in the Jazz genre?")
    assert wrote_sql(model) and "reused" not in answer.answer
