"""Round 71 (bench/bi_r71.md): a value the data holds under another form than the user's word: a category's code of
the word ('gram negative': 'NEG', 'Delta': 'DL'), a name's initials ('GE': 'General Electric', 'nyc': 'New York City'),
a stored name by its last word ('spielberg': 'Steven Spielberg' of a column outside the value index). Counter-examples:
a code whose row a lookup names by its name, every value of a column (a split), a two-letter code of a lower-case word
('mean' is no 'MN'), a grammar word ('us'), a list's initials, a field's words, a name two columns hold whole."""

from __future__ import annotations

import pytest

from orrery.bi.names import initials, writes_code
from orrery.bi.tools import coded_values, entity_resolution
from orrery.tools.core import RunContext


@pytest.fixture
def lab(sqlite_bi):
    """Organisms with a Gram stain code, islands with a code beside their name, routes by a bare airline code,
    companies by name, films whose director is outside the value index."""
    bi = sqlite_bi(
        "CREATE TABLE organisms (org_name TEXT, gram_stn TEXT, mic REAL);"
        "CREATE TABLE islands (isl_cd TEXT, isl_name TEXT);"
        "CREATE TABLE penguins (bird_id INTEGER, isl_cd TEXT, mass REAL);"
        "CREATE TABLE routes (airline TEXT, src TEXT, stops INTEGER);"
        "CREATE TABLE firms (co_name TEXT, invest REAL);"
        "CREATE TABLE films (title TEXT, director TEXT, writer TEXT, genre TEXT, minutes INTEGER);",
        {
            "organisms": [(f"Bacterium {i}", ["POS", "NEG"][i % 2], i / 2) for i in range(12)],
            "islands": [("BIS", "Biscoe"), ("DRM", "Dream"), ("TOR", "Torgersen")],
            "penguins": [(i, ["BIS", "DRM", "TOR"][i % 3], 3000.0 + i) for i in range(12)],
            "routes": [(["DL", "AA", "UA", "MN"][i % 4], "ATL", i % 2) for i in range(12)],
            "firms": [(n, 10.0 * i) for i, n in enumerate(["General Electric", "General Motors", "Westinghouse"])],
            "films": [
                ("Jaws", "Steven Spielberg", "Peter Benchley", "Thriller", 124),
                ("Duel", "Steven Spielberg", "Richard Matheson", "Thriller", 90),
                ("Hook", "Steven Spielberg", "Jim V. Hart", "Animation, Documentary, Drama", 142),
                ("The Matrix", "Lana Wachowski", "Lana Wachowski", "Action", 136),
                ("Annie Hall", "Woody Allen", "Woody Allen", "Comedy", 93),
                ("Manhattan", "Woody Allen", "Marshall Brickman", "Comedy", 96),
                ("Heat", "Michael Mann", "Pat Hingle", "Crime", 170),
            ],
        },
    )
    for column in ("title", "director", "writer"):  # names of thousands in real data: outside the value index
        bi.semantic.tables["films"]["columns"][column].pop("values", None)
    return bi


def _read(bi, question: str, mentions: list[str] = ()) -> set[tuple[str, str, str]]:
    return {(r["mention"], r["column"], r["value"]) for r in coded_values(bi, question, mentions)}


def _resolve(bi, question: str, mentions: list[str]) -> dict:
    bi.question = question
    return entity_resolution(RunContext(deps=bi, options={}), mentions)


def test_initials_and_codes_read_as_words():
    assert initials("New York City") == "nyc"
    assert initials("United States of America") == "usa"
    assert initials("Texas") == ""
    assert writes_code("NEG", "negative") and writes_code("NV", "nevada") and writes_code("MAT", "mature")
    assert not writes_code("NEG", "neglect") and not writes_code("NEGATIVE", "negative")


def test_a_categorys_code_of_the_users_word(lab):
    assert _read(lab, "gram negative bugs - how many in the list") == {("negative", "gram_stn", "NEG")}
    assert _read(lab, "mean mic of the gram-positive species") == {("positive", "gram_stn", "POS")}


def test_both_values_of_a_column_are_a_split_not_a_filter(lab):
    assert _read(lab, "mic averaged: gram-positives vs gram-negatives") == set()


def test_a_code_a_lookup_names_by_its_name_is_not_read(lab):
    assert _read(lab, "tick bites recorded on each island") == set()  # 'bites' is no 'BIS'


def test_a_two_letter_code_only_of_a_capitalised_or_listed_word(lab):
    assert _read(lab, "routes flown by Delta out of atlanta") == {("Delta", "airline", "DL"), ("atlanta", "src", "ATL")}
    assert _read(lab, "delta - number of routes they fly", ["Delta"]) == {("delta", "airline", "DL")}
    assert _read(lab, "delta - number of routes they fly") == set()
    assert _read(lab, "the mean number of stops") == set()  # 'mean' is no 'MN', though 'MN' is a code


def test_a_names_initials(lab):
    assert _read(lab, "ge and westinghouse investment per firm") == {("ge", "co_name", "General Electric")}
    assert _read(lab, "gm investment") == {("gm", "co_name", "General Motors")}
    assert _read(lab, "add up the minutes of every film") == set()  # no list of genres by its initials


def test_entity_resolution_resolves_initials_instead_of_declining(lab):
    got = _resolve(lab, "GE and Westinghouse, total investment for each", ["GE", "Westinghouse"])
    assert ("firms", "co_name", "General Electric") in {(r["table"], r["column"], r["value"]) for r in got["resolved"]}
    assert got["unresolved"] == []


def test_a_stored_name_by_its_last_word(lab):
    got = _resolve(lab, "kubrick and spielberg pictures, minutes each", ["Spielberg Pictures"])
    assert [(r["column"], r["value"]) for r in got["resolved"]] == [("director", "Steven Spielberg")]
    got = _resolve(lab, "running time of the matrix?", ["matrix"])
    assert [(r["column"], r["value"]) for r in got["resolved"]] == [("title", "The Matrix")]


def test_a_last_word_not_of_a_field_or_a_whole_name_or_a_lone_row(lab):
    assert _resolve(lab, "films written by Woody Allen", ["Woody Allen"])["resolved"] == []  # director or writer
    assert _resolve(lab, "which director made the most films", ["film director"])["resolved"] == []
    got = _resolve(lab, "the mann films", ["mann"])["resolved"]  # 'Michael Mann' directs one row, 'mann' not whole
    assert [r for r in got if r["table"] == "films"] == []
