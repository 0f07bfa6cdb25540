"""Round 77 (bench/bi_r77.md): one reading per concept. The ranking words are one list (`decline.RANKING`), read by
the decline checks and the memory alike; a word after a number is a plural noun (a quantity) by `names.singular`,
which reads a word of three letters as a plural only when it is a short form's ('yrs', 'lbs'); an indexed column's
values are read through `BIContext.values`; the terms a text asks that the data lacks are found once per text and
state (`missing_asked`)."""

from __future__ import annotations

from unittest import mock

import pytest

from orrery.bi import compose, decline, examples, tools
from orrery.bi.context import Candidate
from orrery.bi.decline import RANKING, named_years, predicate_phrase
from orrery.bi.examples import ExampleMemory, open_examples
from orrery.bi.names import singular


def test_the_memory_and_the_decline_checks_read_one_list_of_ranking_words():
    assert examples.RANKING is RANKING
    assert {"top", "higher", "cheaper", "older", "better", "greatest", "most", "fewest"} <= RANKING
    assert not {"price", "rated", "best-known", "top-up"} & RANKING


@pytest.mark.parametrize(
    "question",
    ["Which suppliers are rated higher overall?", "Which films are ranked top overall?"],
)
def test_a_comparative_or_extreme_after_the_copula_ranks_and_is_no_condition(question):
    # the memory's list had 'higher' and 'top'; the decline checks' did not, and read a phrase to decline on
    assert predicate_phrase(question) == []


def test_a_phrase_with_no_ranking_word_is_still_the_condition():
    assert predicate_phrase("Which suppliers are certified as environmentally friendly?") == [
        "certified",
        "environmentally",
        "friendly",
    ]


@pytest.mark.parametrize("word", ["better", "worse"])
def test_a_degree_word_beside_a_kept_term_makes_no_longer_noun(word):
    # the decline checks' list had them, the memory's did not: 'better fuel economy' is the kept term ranked
    assert not examples._extends(word, frozenset(), None, after=False)
    assert examples._extends("diesel", frozenset(), None, after=False)  # a content word still extends it


def test_a_ranking_word_is_no_condition_on_a_held_field(sqlite_bi):
    bi = sqlite_bi(
        "CREATE TABLE parts (part_id INTEGER, category TEXT, price REAL);",
        {"parts": [(i, ("Chairs", "Desks")[i % 2], 5.0 * i) for i in range(8)]},
    )
    assert decline._without_conditions(bi, ["top", "price", "of", "chairs"]) == ["price", "of"]


# -- a plural: one reading (`names.singular`) ----------------------------------------------------------------
@pytest.mark.parametrize(("word", "one"), [("yrs", "yr"), ("lbs", "lb"), ("hrs", "hr"), ("gas", "gas"), ("bus", "bus")])
def test_a_word_of_three_letters_is_a_plural_only_as_a_short_forms(word, one):
    assert singular(word) == one


@pytest.mark.parametrize(
    ("question", "years"),
    [
        ("japan's 65-and-over population, 1990 vs 2020", [(1990, "in"), (2020, "in")]),  # 'vs' is no plural noun
        ("average 2010 gas prices by state", [(2010, "in")]),
        ("how many cars weigh 2000 lbs or less", []),  # a short form's plural: a quantity
        ("how many of our 2000 customers live in Leeds", []),
        ("steel firms' average investment in the 1940s", []),  # a decade is no one year
    ],
)
def test_a_number_before_a_plural_noun_is_a_quantity_and_before_any_other_word_a_year(question, years):
    assert named_years(question) == years


# -- an indexed column's values: one reading (`BIContext.values`) ------------------------------------------------
@pytest.fixture
def islands(sqlite_bi):
    """Islands with a code beside their name, penguins by the island's code, and a status code with no name."""
    return sqlite_bi(
        "CREATE TABLE islands (isl_cd TEXT, isl_name TEXT);"
        "CREATE TABLE penguins (bird_id INTEGER, isl_cd TEXT, status TEXT, mass REAL);",
        {
            "islands": [("BIS", "Biscoe"), ("DRM", "Dream"), ("TOR", "Torgersen")],
            "penguins": [(i, ["BIS", "DRM", "TOR"][i % 3], ["OK", "ILL"][i % 2], 3000.0 + i) for i in range(12)],
        },
    )


def test_an_indexed_columns_values_are_grouped_once_per_index(islands):
    held = islands.values("islands", "isl_name")
    assert held == {"biscoe", "dream", "torgersen"}
    assert islands.values("islands", "ISL_NAME") is held  # read from the grouping, not the index scanned again
    assert islands.values("islands", "mass") == set()  # no indexed column
    islands._index = [Candidate("Vega", "islands", "isl_name", 0.0)]  # another index (`BIAgent.use`): grouped anew
    assert islands.values("islands", "isl_name") == {"vega"}


def test_codes_a_name_beside_them_names_are_read_through_the_columns_values(islands):
    # `penguins.status` holds codes no column names: not among them
    assert tools._named_rows(islands) == {("islands", "isl_cd"), ("penguins", "isl_cd")}


# -- what the question asks that the data does not hold: once per text and state -------------------------------------
def test_the_missing_terms_of_one_text_are_found_once(indicators):
    question = "How much tax was paid in each country?"
    with mock.patch.object(decline, "unplaced", wraps=decline.unplaced) as runs:
        first = decline.missing_asked(indicators, question)
        first.append("changed by a caller")  # each caller gets its own list
        assert decline.missing_asked(indicators, question) == ["tax"]
        decline.shape_decline(indicators, question)  # the shape check asks it of the same text
    assert runs.call_count == 1
    assert decline.missing_asked(indicators, "average fertility of each region") == []  # another text: its own


def test_a_persons_answer_kept_between_two_asks_is_read(indicators, tmp_path):
    question = "How much tax was paid in each country?"
    indicators.approved = ExampleMemory(open_examples(tmp_path / "s.db", embedder=None))
    indicators.question = question
    assert decline.missing_asked(indicators, question) == ["tax"]
    indicators.approved.keep_field(indicators.engine.name, indicators.semantic, "tax", "indicators.fertility")
    assert decline.missing_asked(indicators, question) == []  # the kept answer holds it now


# -- a table named by a clipped word: compose's prefix reading stays (round 77, item 5 not shipped) -------------------
def test_a_child_named_by_a_clipped_word_stays_in_the_query(sqlite_bi):
    bi = sqlite_bi(
        "CREATE TABLE nation (n_nationkey INTEGER, n_name TEXT);"
        "CREATE TABLE customer (c_custkey INTEGER, c_name TEXT, c_nationkey INTEGER);",
        {
            "nation": [(i, f"Nation {i}") for i in range(5)],
            "customer": [(i, f"Customer#{i}", i % 5) for i in range(20)],
        },
    )
    used = ["customer", "nation"]
    # 'custs' begins `customer` (`names.names_table` does not read it: each nation would be counted once)
    assert compose._without_unused_child(bi.semantic, used, set(), "nations + how many custs each one has") == used
    assert compose._without_unused_child(bi.semantic, used, set(), "how many nations are there") == ["nation"]
