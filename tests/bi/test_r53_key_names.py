"""Round 53 (bench/bi.md, round 53): one reading of 'a key-like name' (`names.key_like`, `names.KEY_WORDS`) for join
discovery, the drafted worked examples and the decline of a taste; each caller's old edge, kept or changed."""

from __future__ import annotations

import pytest

from orrery.bi.decline import judgment
from orrery.bi.engines import Column
from orrery.bi.joins import rule_for
from orrery.bi.names import key_like
from orrery.bi.shots import drafted_shots


@pytest.mark.parametrize(
    "name", ["CustomerId", "AirportID", "film_id", "md_cd", "pax_no", "ID", "code", "o_orderkey", "zipcode"]
)
def test_a_name_ending_in_a_key_word_is_key_like(name):
    assert key_like(name)


@pytest.mark.parametrize("name", ["amount_paid", "casino", "platinum", "number", "num_items", "Year"])
def test_a_word_ending_in_a_short_key_words_letters_or_a_bare_count_is_not(name):
    assert not key_like(name)


def test_join_discovery_reads_a_key_word_glued_to_a_name_folded_to_lower_case():
    # its names only propose a join, the data confirms it: 'custno' (PostgreSQL folds `CustNo`) stays a key there
    assert rule_for(Column("custno", "INTEGER"), "clients", Column("clientno", "INTEGER")) == "both keys"


def test_join_discovery_reads_nr_as_a_key_word():
    assert rule_for(Column("kunde_nr", "INTEGER"), "kunden", Column("kd_nr", "INTEGER")) == "both keys"


def questions(bi) -> list[str]:
    turns = drafted_shots(bi)
    return [u.content.rsplit("Question: ", 1)[1] for u in turns[::2]]


def test_a_number_id_in_capitals_is_no_measure_of_the_drafted_examples(sqlite_bi):
    rows = [(i, ["web", "store"][i % 2], 100 + i) for i in range(40)]
    bi = sqlite_bi("CREATE TABLE flights (FlightID INTEGER, carrier TEXT, seats INTEGER);", {"flights": rows})
    asked = questions(bi)
    assert "Which carrier has the highest total seats?" in asked
    assert not any("flight id" in q for q in asked)


@pytest.fixture
def survey(sqlite_bi):
    """Respondents with a party's code (a number), a score and an amount paid."""
    return sqlite_bi(
        "CREATE TABLE answers (resp_id INTEGER, party_code INTEGER, score INTEGER, amount_paid REAL, town TEXT);",
        {"answers": [(i, i % 3, i % 10, 2.5 * i, ("Ayr", "Elgin")[i % 2]) for i in range(30)]},
    )


def test_the_best_thing_a_number_code_names_is_a_taste(survey):
    assert judgment("which is the best party", survey)  # `party_code` names parties, it measures nothing


@pytest.mark.parametrize("question", ["which town has the best score", "who has the best amount paid"])
def test_the_best_measure_stays_a_ranking(survey, question):
    assert judgment(question, survey) is None  # 'paid' ends in 'id' but names no key


@pytest.mark.parametrize("question", ["the best amount of coffee to drink each day", "the best number to call"])
def test_the_best_before_a_noun_of_quantity_stays_a_judgment(question):
    assert judgment(question)  # `_AGGREGATE` is not all of `GENERIC`'s aggregate words
