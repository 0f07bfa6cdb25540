"""Round 31 (bench/bi.md "Round 31", rule V): a query that found nothing for a value the user named declines when the
data holds that value in no form: not in the value index, not as a demonym, not in any text column by a scan
(the index caps a column's distinct values, so a director's name is only in the data). On a database of its
own: routes between cities, films with hundreds of directors, customers by nation."""

from __future__ import annotations

import pytest

from orrery.bi.agent import BIAgent
from orrery.bi.decline import absent_value
from orrery.llm.scripted import ScriptedModel

SCRIPT = (
    "CREATE TABLE routes (route_id INTEGER, src TEXT, dst TEXT, origin TEXT);"
    "CREATE TABLE films (film_id INTEGER, title TEXT, director TEXT);"
    "CREATE TABLE customers (cust_id INTEGER, nation TEXT, spent REAL);"
)
CITIES = ["OSLO", "LONDON", "PARIS", "BERLIN", "MADRID"]
ROWS = {
    "routes": [(i, CITIES[i % 5], CITIES[(i + 1) % 5], ["Europe", "Asia"][i % 2]) for i in range(20)],
    # four hundred directors: more distinct values than the value index keeps of a column
    "films": [(i, f"Film {i}", "Woody Allen" if i == 7 else f"Maker{i} Person{i}") for i in range(400)],
    "customers": [(i, ["JAPAN", "CHINA", "FRANCE"][i % 3], 10.0 * i) for i in range(30)],
}


@pytest.fixture
def data(sqlite_bi):
    bi = sqlite_bi(SCRIPT, ROWS)
    # as a layer drafted over a large table leaves it: the names are in the data, not in the value index
    bi.semantic.tables["films"]["columns"]["director"].pop("values")
    return bi


def test_a_value_the_data_lacks_in_every_form_is_named(data):
    assert absent_value(data, "SELECT COUNT(*) FROM routes WHERE src = 'REYKJAVIK'", "any service from reykjavik?") == (
        "REYKJAVIK"
    )
    two = "SELECT COUNT(*) FROM films WHERE director IN ('Woody Allen', 'Chloe Zhao')"
    assert absent_value(data, two, "films by woody allen and by chloe zhao") == "Chloe Zhao"


def test_a_value_in_another_form_or_in_a_large_text_column_is_held(data):
    assert ("films", "director") not in data.semantic.value_columns()
    for sql, question in (
        ("SELECT COUNT(*) FROM routes WHERE origin = 'euro'", "routes of euro origin"),  # 'Europe'
        ("SELECT SUM(spent) FROM customers WHERE nation IN ('Japanese', 'Chinese')", "japanese and chinese spend"),
        ("SELECT COUNT(*) FROM films WHERE director = 'woody allen'", "how many films by woody allen"),
        ("SELECT COUNT(*) FROM films WHERE director LIKE '%allen%'", "films by allen"),
        ("SELECT COUNT(*) FROM films WHERE director = 'allen vs maker'", "allen vs maker: films each"),
    ):
        assert absent_value(data, sql, question) is None, question


def test_a_word_that_is_not_a_value_or_a_literal_the_user_did_not_write_is_not_judged(data):
    for sql, question in (
        ("SELECT src FROM routes WHERE src = 'three airports'", "which cities have three airports"),  # a quantity
        ("SELECT COUNT(*) FROM routes WHERE origin = 'routes'", "how many routes"),  # the schema's word
        ("SELECT COUNT(*) FROM films WHERE title = 'Paramount Pictures'", "films by woody allen"),  # model's own
    ):
        assert absent_value(data, sql, question) is None, question


def test_the_agent_declines_a_run_that_found_nothing_for_an_absent_value(tpch, tmp_path):
    def agent(sql: str) -> BIAgent:
        plan = {"request": "Count the nations named atlantis", "kind": "query", "values": [], "fields": []}
        turns = [plan, {"sql": sql}, "Done."]
        return BIAgent(
            ScriptedModel(turns), tpch, store=tmp_path / "s.db", session_id="s", clarify=False, sql_mode="sql"
        )

    r = agent("SELECT count(*) AS n FROM nation WHERE n_name = 'ATLANTIS'").ask("how many nations named atlantis")
    assert r.status == "declined" and "the data holds no value like 'ATLANTIS'" in r.output
    assert r.sql is None and r.rows == []  # the empty run is not the answer
    # found rows: answered
    r = agent("SELECT count(*) AS n FROM nation WHERE n_name IN ('ATLANTIS', 'FRANCE')").ask("nations named atlantis")
    assert r.status == "completed" and r.rows == [[1]]
