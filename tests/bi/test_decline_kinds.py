"""Declines judged on the data, both ways (round 18): a demonym of a country the data holds by name or code is a
value; an age needs a date or an age of that very thing; a hyphenated degree adjective names a measure; a
lower-case word before the things counted is a value of them, held or missing."""

from __future__ import annotations

import pytest

from orrery.bi import decline
from orrery.bi.agent import BIAgent
from orrery.bi.decline import missing_values, shape_decline
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def league(sqlite_bi):
    """Players by nation (a name), clubs by country (an ISO alpha-3 code)."""
    return sqlite_bi(
        "CREATE TABLE players (player_id INTEGER, full_name TEXT, nation TEXT, goals INTEGER);"
        "CREATE TABLE clubs (club_id INTEGER, club TEXT, country TEXT, founded INTEGER);",
        {
            "players": [(i, f"Player {i}", ("Netherlands", "Brazil", "Japan")[i % 3], i % 7) for i in range(30)],
            "clubs": [(i, f"Club {i}", ("FRA", "ESP", "ITA")[i % 3], 1890 + i) for i in range(12)],
        },
    )


def test_a_demonym_of_a_country_the_data_holds_by_name_or_code_is_a_value(league):
    assert shape_decline(league, "How many goals did the Dutch score in total?") is None  # nation 'Netherlands'
    assert missing_values(league, "How many clubs do the French have?") == []  # country 'FRA'
    assert missing_values(league, "How many goals did the Brazilians score?") == []  # 'Brazilian', plural


def test_a_demonym_resolves_to_the_value_entity_resolution_adds(league):
    found = decline.category_values(league, "How many goals did the Dutch score?")
    assert found == [{"mention": "Dutch", "table": "players", "column": "nation", "value": "Netherlands"}]
    assert decline.demonym_values(league, "How many clubs do the French have?")[0]["value"] == "FRA"  # its code
    assert decline.demonym_values(league, "How many goals did the Canadians score?") == []


def test_a_demonym_of_a_country_the_data_lacks_stays_missing(league):
    reason = shape_decline(league, "How many goals did the Canadians score in total?")
    assert reason and "'Canadians'" in reason  # no Canada, CAN, in any column
    assert missing_values(league, "How many clubs do the Swedish have?") == ["'Swedish'"]


def test_without_the_country_data_a_demonym_is_not_read(league, monkeypatch):
    monkeypatch.setattr(decline, "_demonyms", dict)
    assert missing_values(league, "How many goals did the Dutch score?") == ["'Dutch'"]


@pytest.fixture
def kennel(sqlite_bi):
    """Owners with a birth date; their pets with none (joined by owner_id); vans with a model year."""
    return sqlite_bi(
        "CREATE TABLE owners (owner_id INTEGER PRIMARY KEY, owner_name TEXT, birth_date TEXT);"
        "CREATE TABLE pets (pet_id INTEGER, pet_name TEXT, owner_id INTEGER REFERENCES owners(owner_id), "
        "weight_kg REAL);"
        "CREATE TABLE vans (van_id INTEGER, plate TEXT, model_yr INTEGER);",
        {
            "owners": [(i, f"Owner {i}", f"19{50 + i}-0{1 + i % 9}-15") for i in range(20)],
            "pets": [(i, f"Pet {i}", i % 20, 3.0 + i) for i in range(60)],
            "vans": [(i, f"V-{i}", 1990 + i) for i in range(10)],
        },
    )


def test_an_age_of_a_thing_whose_table_has_no_date_declines_naming_it(kennel):
    reason = shape_decline(kennel, "how old was the oldest pet they keep")
    assert reason and "'age of pet'" in reason  # the owners' birth dates are theirs, not their pets'
    assert "'age of pets'" in (shape_decline(kennel, "What is the average age of the pets?") or "")


def test_an_age_of_a_thing_with_a_date_of_its_own_is_held(kennel):
    assert shape_decline(kennel, "how old is the oldest owner") is None  # birth_date
    assert shape_decline(kennel, "how old is the oldest van in the fleet") is None  # model_yr says when
    assert decline.missing_age(kennel, "What is the average age of the vans?") == []
    assert decline.missing_age(kennel, "how old is the oldest pet owner") == []  # no table: no judgment here


@pytest.fixture
def studio(sqlite_bi):
    """Staff with no pay; sales whose description says what buyers paid (two joins from staff); rated films."""
    return sqlite_bi(
        "CREATE TABLE staff (staff_id INTEGER PRIMARY KEY, full_name TEXT, role TEXT);"
        "CREATE TABLE buyers (buyer_id INTEGER PRIMARY KEY, staff_id INTEGER REFERENCES staff(staff_id));"
        "CREATE TABLE sales (sale_id INTEGER, buyer_id INTEGER REFERENCES buyers(buyer_id), amount_paid REAL);"
        "CREATE TABLE films (film_id INTEGER, title TEXT, rating REAL);",
        {
            "staff": [(i, f"Staff {i}", ("editor", "grip")[i % 2]) for i in range(8)],
            "buyers": [(i, i % 8) for i in range(20)],
            "sales": [(i, i % 20, 2.5 * i) for i in range(50)],
            "films": [(i, f"Film {i}", i / 10) for i in range(30)],
        },
    )


def test_a_degree_compound_ranks_by_a_measure_the_thing_must_hold(studio):
    reason = shape_decline(studio, "who's the best-paid staff member here")
    assert reason and "'paid'" in reason  # 'amount paid' is the buyers' payment, two joins away
    assert "opinion" not in reason  # a field the data lacks, not a taste


def test_a_degree_compound_the_data_holds_is_a_ranking(studio):
    assert decline.judgment("which is the best-rated film of all", studio) is None  # `rating`, by its root
    assert decline.judgment("which is the best film of all", studio)  # a taste: `film_id` is a key, no measure


@pytest.fixture
def marina(sqlite_bi):
    """Boats of three rigs (an indexed category), a length, a hull material; no engine."""
    return sqlite_bi(
        "CREATE TABLE boats (boat_id INTEGER, boat_name TEXT, rig TEXT, hull TEXT, length_m REAL);",
        {
            "boats": [
                (i, f"Boat {i}", ("sloop", "ketch", "yawl")[i % 3], ("wood", "fibreglass")[i % 2], 6.0 + i)
                for i in range(30)
            ]
        },
    )


def test_a_lower_case_word_before_the_things_counted_that_the_data_lacks_declines(marina):
    reason = shape_decline(marina, "number of electric boats in the marina")
    assert reason and "'electric boats'" in reason  # a count would ignore it
    assert decline.missing_kinds(marina, "how many haunted boats are there?") == ["haunted boats"]


def test_a_lower_case_word_the_data_holds_is_a_filter_not_a_missing_value(marina):
    assert shape_decline(marina, "how many ketch boats are there?") is None  # a rig
    assert decline.missing_kinds(marina, "number of wooden boats in the marina") == []  # 'wood', by its root
    assert decline.missing_kinds(marina, "how many ketch-rigged boats are there") == []  # a compound, by a part
    assert decline.missing_kinds(marina, "how many long names are there") == []  # 'names' is a column, not the rows


def test_the_agent_filters_on_the_country_a_demonym_names(league, tmp_path):
    model = ScriptedModel(
        [
            {"request": "Total goals of the Dutch players", "kind": "query", "values": ["Dutch"], "fields": ["goals"]},
            {
                "select": ["sum(players.goals)"],
                "where": [],
                "group_by": [],
                "having": [],
                "order_by": [],
                "limit": None,
            },
        ]
    )
    agent = BIAgent(model, league.engine, semantic=league.semantic, store=tmp_path / "s.db", prose=False)
    r = agent.ask("How many goals did the Dutch score in total?")
    gold = league.engine.execute("SELECT sum(goals) FROM players WHERE nation = 'Netherlands'").rows
    assert r.status == "completed" and "'Netherlands'" in r.sql and r.rows == [list(row) for row in gold]


def test_the_agent_declines_an_age_and_a_missing_kind_before_any_model_call(kennel, marina, tmp_path):
    for bi, question, missing in [
        (kennel, "how old was the oldest pet they keep", "'age of pet'"),
        (marina, "number of electric boats in the marina", "'electric boats'"),
    ]:
        r = BIAgent(
            ScriptedModel([]), bi.engine, semantic=bi.semantic, store=tmp_path / "s.db", prose=False, clarify=False
        ).ask(question)
        assert r.status == "declined" and missing in r.answer and r.sql is None


@pytest.fixture
def trade(sqlite_bi):
    """Exports by region, the regions' names of two words."""
    return sqlite_bi(
        "CREATE TABLE exports (region TEXT, yr INTEGER, tonnes REAL);",
        {"exports": [(r, 2000 + i, 10.0 * i) for i, r in enumerate(["West Africa", "North America", "Central Asia"])]},
    )


def test_a_value_of_several_words_named_with_one_in_another_form_is_held(trade):
    # the first word's capital is the sentence's: the name read is 'African', the question writes 'West' too
    assert missing_values(trade, "West African exports, total tonnes") == []  # 'West Africa'
    assert missing_values(trade, "Central Asian exports in 2002, in tonnes") == []


def test_a_word_in_another_form_without_the_values_other_words_is_not(trade):
    missing = missing_values(trade, "East African exports, total tonnes")
    assert len(missing) == 1 and missing[0].startswith("'African'")  # no East Africa
    without_west = missing_values(trade, "Exports of the African regions, total tonnes")
    assert without_west and without_west[0].startswith("'African'")  # 'West' is not written


@pytest.fixture
def tickets(sqlite_bi):
    """Support tickets with a customer tier and a channel; no customer table."""
    return sqlite_bi(
        "CREATE TABLE tickets (ticket_id INTEGER, tier TEXT, channel TEXT, minutes REAL);",
        {"tickets": [(i, ("gold", "silver")[i % 2], ("phone", "email")[i % 2], 3.0 * i) for i in range(20)]},
    )


def test_a_group_named_by_two_words_is_held_by_the_phrase(tickets):
    assert shape_decline(tickets, "total minutes per customer tier") is None  # `tier`; no customer table
    assert decline.asked_terms("minutes for each one separately") == ["one"]  # a grammar word takes no second


def test_a_group_of_two_words_the_data_lacks_still_declines(tickets):
    reason = shape_decline(tickets, "total minutes per customer region")
    assert reason and "'customer region'" in reason


def test_a_demonym_is_its_country_never_a_value_of_near_spelling(chinook, tmp_path):
    question = "Did Canadian or French customers spend more with us overall?"
    plan = {"request": question, "kind": "query", "values": ["Canadian", "French"], "fields": ["spend"]}
    parts = {
        "select": ["Customer.Country", "SUM(Invoice.Total)"],
        "where": [],
        "group_by": ["Customer.Country"],
        "having": [],
        "order_by": ["SUM(Invoice.Total) DESC"],
        "limit": 1,
    }
    r = BIAgent(ScriptedModel([plan, parts]), chinook, store=tmp_path / "s.db", prose=False).ask(question)
    assert r.status == "completed" and "Wrench" not in r.sql, r.sql  # no track 'Monkey Wrench' for 'French'
    gold = "SELECT BillingCountry FROM Invoice WHERE BillingCountry IN ('Canada', 'France') GROUP BY 1 ORDER BY sum(Total) DESC LIMIT 1"
    assert r.rows[0][0] == chinook.execute(gold).rows[0][0]


@pytest.fixture
def bank(sqlite_bi):
    """Loans with a 0/1 `defaulted` flag, a 0..4 `grade` and a `reviewed` of nulls before 0, 1 and 2 (no flags)."""
    return sqlite_bi(
        "CREATE TABLE loans (loan_id INTEGER, branch TEXT, defaulted INTEGER, grade INTEGER, reviewed INTEGER);",
        {
            "loans": [
                (i, ("North", "South")[i % 2], int(i % 5 == 0), i % 5, None if i < 30 else i % 3) for i in range(40)
            ]
        },
    )


def test_a_noun_of_a_yes_no_columns_verb_is_the_rows_it_marks(bank):
    assert decline.flag_noun(bank, "defaulters") and missing_values(bank, "How many defaulters are there?") == []
    assert decline.flag_values(bank, "How many defaulters per branch?") == [
        {"mention": "defaulters", "table": "loans", "column": "defaulted", "value": 1}
    ]
    assert not decline.flag_noun(bank, "graders")  # `grade` holds five values: no yes/no column
    assert not decline.flag_noun(bank, "reviewers")  # nulls first do not hide its third value
    assert decline.flag_values(bank, "How many loans defaulted?") == []  # the verb itself is the model's to read


def test_the_agent_counts_only_the_rows_a_flag_marks(bank, tmp_path):
    question = "How many defaulters are there in each branch?"
    plan = {"request": question, "kind": "query", "values": [], "fields": ["defaulters", "branch"]}
    parts = {
        "select": ["loans.branch", "COUNT(*)"],
        "where": [],
        "group_by": ["loans.branch"],
        "having": [],
        "order_by": [],
        "limit": None,
    }
    agent = BIAgent(
        ScriptedModel([plan, parts]), bank.engine, semantic=bank.semantic, store=tmp_path / "s.db", prose=False
    )
    r = agent.ask(question)
    gold = bank.engine.execute("SELECT branch, count(*) FROM loans WHERE defaulted = 1 GROUP BY branch").rows
    assert r.status == "completed" and sorted(map(tuple, r.rows)) == sorted(map(tuple, gold)), r.sql
