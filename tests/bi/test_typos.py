"""A user's typo of a word the data spells is read as that word (one edit, a swap of two letters included) by the
decline check, field mapping and the SQL step's column hints; a word two edits away, a word that ties two schema
words and a capitalised name are left as written. A verb's form of a column's word ('shipping') is that word."""

from __future__ import annotations

import pytest

from orrery.bi import decline
from orrery.bi.agent import BIAgent
from orrery.bi.decline import missing_fields, read_typos, shape_decline
from orrery.bi.semantic import verb_root
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def birds(sqlite_bi):
    """Penguin observations with a bill length, islands, orders by ship mode, and a planet and a plant table
    (two schema words one edit from 'plannt')."""
    return sqlite_bi(
        "CREATE TABLE obs (species TEXT, island TEXT, bill_length REAL, flipper_len_mm REAL);"
        "CREATE TABLE orders (ship_mode TEXT, quantity INTEGER);"
        "CREATE TABLE planet (name TEXT);"
        "CREATE TABLE plant (name TEXT);",
        {
            "obs": [
                ("Adelie", "Torgersen", 39.1, 181),
                ("Gentoo", "Biscoe", 47.5, 217),
                ("Adelie", "Dream", 38.0, 185),
            ],
            "orders": [("Air", 3), ("Truck", 5)],
            "planet": [("Mars",)],
            "plant": [("Fern",)],
        },
    )


def test_a_typo_of_a_schema_word_is_held_and_read_as_that_word(birds):
    assert read_typos(birds, "which species has the longest bill lenght") == "which species has the longest bill length"
    assert read_typos(birds, "Lenght of each bill") == "length of each bill"  # the first word is no name
    assert shape_decline(birds, "what is the average bill lenght of each species?") is None
    assert missing_fields(birds, ["bill lenght"], "the average bill lenght per species") == []
    # a name's short form ('len' of `flipper_len_mm`) stands for the English words it begins
    assert read_typos(birds, "mean flipper lenght") == "mean flipper length"
    assert read_typos(birds, "how many speceis per islnds") == "how many species per islands"  # plural kept


def test_a_made_up_word_two_edits_away_still_declines(birds):
    assert read_typos(birds, "average bill lenghtt") == "average bill lenghtt"
    assert "lenghtt" in (shape_decline(birds, "what is the average bill lenghtt of each species?") or "")
    assert "plumage" in (shape_decline(birds, "what is the average plumage of each species?") or "")


def test_two_schema_words_one_edit_away_are_not_guessed_between(birds):
    assert read_typos(birds, "how many plannts are there") == "how many plannts are there"
    assert "plannt" in (shape_decline(birds, "how many plannts are there?") or "")


def test_a_capitalised_name_and_an_english_word_are_left_as_written(birds):
    # 'Torgersn' is a value the user names: entity resolution's fuzzy match has it, not the typo rule
    assert read_typos(birds, "penguins seen on Torgersn") == "penguins seen on Torgersn"
    assert read_typos(birds, "the older species") == "the older species"  # a word, not a typo of 'orders'


def test_without_the_dictionary_typos_are_not_read(birds, monkeypatch):
    monkeypatch.setattr(decline, "_dictionary", frozenset)
    assert read_typos(birds, "bill lenght") == "bill lenght"


def test_a_verbs_form_of_a_columns_word_is_that_word(birds):
    assert [verb_root(w) for w in ("shipping", "shipped", "planned", "called", "selling")] == [
        "ship",
        "ship",
        "plan",
        "called",
        "selling",
    ]
    assert shape_decline(birds, "units sold per shipping mode") is None
    assert missing_fields(birds, ["shipping mode"], "quantity per shipping mode") == []


def test_field_mapping_and_the_column_hints_read_the_typo(birds, tmp_path):
    model = ScriptedModel(
        [
            {"request": "Average bill lenght per species", "kind": "query", "values": [], "fields": ["bill lenght"]},
            {"sql": "SELECT species, avg(bill_length) AS b FROM obs GROUP BY species"},
        ]
    )
    r = BIAgent(model, birds.engine, store=tmp_path / "s.db", prose=False, sql_mode="sql").ask(
        "average bill lenght per species"
    )
    assert r.status == "completed" and len(r.rows) == 2
    assert '"column": "bill_length"' in str(r.todos)
    sql_prompt = str(model.requests[-1]["messages"][-1].content)
    assert "obs.bill_length" in sql_prompt
