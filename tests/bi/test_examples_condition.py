"""Which approved pairs a question is shown: its shape includes its condition (a threshold, a filter or none),
read from the words and checked against the pair's WHERE / HAVING; the k shown are the nearest that fit; a
measured question never sees a pair of its own text."""

from __future__ import annotations

import sqlite3

import pytest

from orrery.bi.context import BIContext
from orrery.bi.engines import SQLiteEngine
from orrery.bi.examples import ExampleMemory, condition, direction, fits, measured, sql_condition, value_test
from orrery.bi.semantic import draft
from orrery.recall import ApprovedExamples
from orrery.recall.examples import Example


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many suppliers are there?", "none"),
        ("How many parts are of brand Brand#13?", "filter"),
        ("How many albums have more than 20 tracks?", "threshold"),
        ("How many tracks cost more than 0.99?", "threshold"),
        ("How many line items have a discount above 0.05?", "threshold"),
        ("How many tracks cost 1.99?", "filter"),  # a number the rows must equal
        ("How many orders have priority 1-URGENT?", "filter"),
        ("How many movies were released in 1995?", "none"),  # a year is the time feature
        ("What was the population of India in 2000?", "filter"),
        ("Which state has the highest sales?", "none"),
    ],
)
def test_a_questions_condition_is_read_from_its_words(question, kind):
    assert condition(question) == kind


@pytest.mark.parametrize(
    ("sql", "kind"),
    [
        ("SELECT count(*) FROM supplier", "none"),
        ("SELECT count(*) FROM part WHERE p_brand = 'Brand#13'", "filter"),
        ("SELECT count(*) FROM Track WHERE UnitPrice > 0.99", "threshold"),
        (  # the threshold sits in a subquery's HAVING
            "SELECT count(*) FROM (SELECT a.AlbumId FROM Album a JOIN Track t ON t.AlbumId = a.AlbumId "
            "GROUP BY a.AlbumId HAVING count(*) > 20)",
            "threshold",
        ),
        ("SELECT count(*) FROM o, c WHERE o.custkey = c.custkey", "none"),  # a join written in WHERE
        ("SELECT count(*) FROM orders WHERE o_orderdate LIKE '1995%'", "none"),  # time
        ("SELECT state FROM orders WHERE NOT state IS NULL AND state <> '' GROUP BY 1 ORDER BY 2", "none"),
        ("SELECT Title FROM omdb WHERE Oscars = (SELECT max(Oscars) FROM omdb)", "none"),  # an extreme
        ("SELECT count(*) FROM l WHERE l_receiptdate > l_commitdate", "filter"),
    ],
)
def test_a_querys_condition_is_read_from_where_and_having(sql, kind):
    import sqlglot

    assert sql_condition(sqlglot.parse_one(sql)) == kind


def test_a_pair_of_the_same_shape_but_another_condition_does_not_fit():
    brand = "How many parts are of brand Brand#13?"
    plain = Example(1, "How many suppliers are there?", "SELECT count(*) FROM supplier")
    filtered = Example(
        2, "How many parts are of brand Brand#12?", "SELECT count(*) FROM part WHERE p_brand = 'Brand#12'"
    )
    assert not fits(brand, plain)
    assert fits(brand, filtered) and not fits("How many parts are there?", filtered)
    above = Example(3, "How many tracks cost more than 1.50?", "SELECT count(*) FROM Track WHERE UnitPrice > 1.5")
    assert fits("How many tracks cost more than 0.99?", above) and not fits(brand, above)


def test_a_pair_whose_sql_has_a_condition_its_words_do_not_say_is_not_shown():
    # 'large airports' names no value, its SQL filters: copied into 'How many airports are there?' it would filter
    hidden = Example(1, "How many large airports are there?", "SELECT count(*) FROM airports WHERE type = 'large'")
    assert not fits("How many airports are there?", hidden)
    assert not fits("How many small airports are there?", hidden)  # nor where the words miss the value too


def test_the_k_shown_are_the_nearest_that_fit_not_the_fitting_among_the_k_nearest(tmp_path, monkeypatch):
    plain = [
        Example(i, f"How many parts are there in stock room {w}?", "SELECT count(*) FROM part")
        for i, w in enumerate(("one", "two", "three", "four"))
    ]
    brand = Example(9, "How many parts have brand Brand#12?", "SELECT count(*) FROM part WHERE p_brand = 'Brand#12'")
    ranked = [*plain[:2], brand, *plain[2:]]  # nearest first: the one that fits is third
    memory = ExampleMemory(ApprovedExamples(tmp_path / "m.db", embedder=None), k=1, floor=None)
    monkeypatch.setattr(memory, "nearest", lambda _c, _q, k=None, at_least=0.0: ranked[: k or memory.k])
    question = "How many parts are of brand Brand#13?"
    assert memory.shown("tpch", question) == [brand]  # from the 3 * k nearest
    ranked = [*plain, brand]  # beyond the pool: not shown
    assert memory.shown("tpch", question) == []


def test_leave_one_out_drops_every_pair_of_the_same_question_text(tmp_path):
    examples = ApprovedExamples(tmp_path / "m.db", embedder=None)
    examples.approve("tpch", "How many nations are there?", "SELECT count(*) FROM nation")
    examples.approve("tpch", "how many nations  are there", "SELECT count(n_nationkey) FROM nation")
    examples.approve("tpch", "How many regions are there?", "SELECT count(*) FROM region")
    memory = ExampleMemory(examples, k=3, leave_one_out=True, floor=None)
    assert [e.question for e in memory.nearest("tpch", "How many nations are there?")] == [
        "How many regions are there?"
    ]
    assert [e.question for e in memory.candidates("tpch", "How many nations are there?")] == [
        "How many regions are there?"
    ]
    asked_again = ExampleMemory(examples, k=3, leave_one_out=False, floor=None)  # a user asking again gets it
    assert len(asked_again.nearest("tpch", "How many nations are there?")) == 3


@pytest.mark.usefixtures("bi_home")
def test_the_sql_step_is_shown_the_pair_with_the_questions_threshold_not_the_plain_count(tmp_path):
    from orrery.bi.agent import bi_agent
    from orrery.bi.examples import open_examples, use_examples
    from orrery.llm.scripted import ScriptedModel

    store = str(tmp_path / "sessions.db")
    examples = open_examples(store, embedder=None)
    examples.approve("chinook", "How many tracks are there?", "SELECT count(*) FROM Track")
    examples.approve(
        "chinook", "How many tracks cost more than 1.50?", "SELECT count(*) FROM Track WHERE UnitPrice > 1.5"
    )
    reply = {"select": ["count(*) AS n"], "where": ["UnitPrice > 0.99"], "group_by": [], "having": []}
    model = ScriptedModel(
        [
            {"request": "Count tracks priced above 0.99", "kind": "query", "values": [], "fields": []},
            reply | {"order_by": [], "limit": None},
            "213.",
        ]
    )
    agent = use_examples(bi_agent(model, db="chinook", store=store, clarify=False), store, embedder=None)
    assert agent.ask("How many tracks cost more than 0.99?").status == "completed"
    shown = " ".join(m.content for call in model.seen for m in call[1:-1])
    assert "How many tracks cost more than 1.50?" in shown
    assert "How many tracks are there?" not in shown


class Angles:
    """An embedder whose vectors are set by hand: each text's unit vector at the angle given (cosine = similarity)."""

    def __init__(self, angles: dict[str, float]):
        self.angles = angles

    def embed(self, texts):
        import numpy as np

        return np.array([[np.cos(self.angles.get(t, 0.0)), np.sin(self.angles.get(t, 0.0))] for t in texts])


def test_a_pair_below_the_show_floor_is_not_shown_but_still_covers_a_term(tmp_path):
    import math

    question = "How many tracks does Pearl Jam have?"
    near, far = "How many tracks does Queen have?", "How many tracks do the playlists of Queen hold?"
    angles = {question: 0.0, near: math.acos(0.7), far: math.acos(0.45)}  # cosines 0.7 and 0.45
    examples = ApprovedExamples(tmp_path / "m.db", embedder=Angles(angles))
    examples.approve("chinook", near, "SELECT count(*) FROM Track t JOIN Album a ON 1=1 WHERE a.Title = 'Queen'")
    examples.approve("chinook", far, "SELECT count(*) FROM PlaylistTrack WHERE Name = 'Queen'")
    memory = ExampleMemory(examples, k=3)
    assert [e.question for e in memory.nearest("chinook", question)] == [near, far]  # above FLOOR (0.3)
    assert [e.question for e in memory.shown("chinook", question)] == [near]  # above SHOW_FLOOR (0.6)
    assert memory.covers("chinook", "playlists", question)  # the decline judgment's evidence keeps FLOOR


def test_a_term_is_covered_only_by_an_approved_question_that_says_its_words(tmp_path):
    examples = ApprovedExamples(tmp_path / "m.db", embedder=None)
    examples.approve("chinook", "What is the average unit price of tracks?", "SELECT avg(UnitPrice) FROM Track")
    memory = ExampleMemory(examples, k=3, floor=None)
    question = "What is the average age of our customers?"
    assert not memory.covers("chinook", "age", question)  # 'average' does not say 'age'
    assert memory.covers("chinook", "unit prices", question)


def test_a_ranking_is_shown_only_a_pair_that_ranks_the_same_way():
    shortest = Example(
        1, "What is the name of the shortest track?", "SELECT Name FROM Track ORDER BY Milliseconds LIMIT 1"
    )
    longest = "What is the name of the longest track?"
    assert direction(longest) == {"high"} and direction(shortest.question) == {"low"}
    assert not fits(longest, shortest)  # the same shape and condition, the other end of the order
    assert fits("What is the name of the smallest track?", shortest)
    top = Example(2, "Which genre has the most tracks?", "SELECT g FROM t GROUP BY g ORDER BY count(*) DESC LIMIT 1")
    assert fits("Which playlist has the most tracks?", top) and not fits("Which playlist has the fewest tracks?", top)
    # words that say one end over SQL that ranks by the other teach the wrong order: never shown
    wrong = Example(3, "Which genre has the most tracks?", "SELECT g FROM t GROUP BY g ORDER BY count(*) LIMIT 1")
    assert not fits("Which playlist has the most tracks?", wrong)


def test_a_threshold_pair_is_shown_only_for_a_threshold_on_the_same_thing():
    artists = Example(
        1,
        "How many artists have more than 5 albums?",
        "SELECT count(*) FROM (SELECT ArtistId FROM Album GROUP BY ArtistId HAVING count(*) > 5)",
    )
    assert measured(artists.question) == "album" and measured("How many tracks cost more than 0.99?") is None
    assert not fits("How many albums have more than 20 tracks?", artists)  # a threshold on tracks, not albums
    assert fits("How many genres have more than 50 albums?", artists)


@pytest.fixture
def airports(tmp_path):
    path = tmp_path / "f.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE airports (name TEXT, type TEXT)")
        kinds = ("large_airport", "small_airport", "heliport")
        names = [f"Field {i}" for i in range(150)] + ["Live Oak", "Longest Runway"]  # a title's words, not a kind
        con.executemany("INSERT INTO airports VALUES (?, ?)", [(n, kinds[i % 3]) for i, n in enumerate(names)])
    engine = SQLiteEngine("f", path)
    bi = BIContext(engine, draft(engine), None)
    yield bi
    engine.close()


def test_a_lower_case_word_of_a_category_value_is_a_filter(airports):
    test = value_test(airports)
    assert test("large") and test("heliport")
    assert not test("live") and not test("longest")  # words of names: 152 distinct values, no category
    assert not test("airports") and not test("many")  # the layer's names and grammar
    large = "How many large airports are there?"
    assert condition(large) == "none" and condition(large, test) == "filter"
    plain = Example(1, "How many airports are there?", "SELECT count(*) FROM airports")
    assert fits(large, plain) and not fits(large, plain, valued=test)
    filtered = Example(
        2, "How many small airports are there?", "SELECT count(*) FROM airports WHERE type = 'small_airport'"
    )
    assert fits(large, filtered, valued=test) and not fits("How many airports are there?", filtered, valued=test)


def test_a_memory_not_shaped_shows_the_nearest_pairs_whatever_their_shape(tmp_path, monkeypatch):
    plain = Example(1, "How many parts are there?", "SELECT count(*) FROM part")
    brand = Example(2, "How many parts have brand Brand#12?", "SELECT count(*) FROM part WHERE p_brand = 'Brand#12'")
    question = "How many parts are of brand Brand#13?"
    assert not fits(question, plain)
    for shaped, want in ((True, [brand]), (False, [plain, brand])):
        memory = ExampleMemory(ApprovedExamples(tmp_path / f"{shaped}.db", embedder=None), k=2, shaped=shaped)
        monkeypatch.setattr(memory, "nearest", lambda _c, _q, k=None, at_least=0.0: [plain, brand][: k or 2])
        assert memory.shown("tpch", question) == want
