"""Round 67 (bench/bi_r67.md): a noun that names people by their sex ('women', 'ladies', 'men') stands for the value of
the data's one sex column ('female', 'F', 'MALE'), which no value spells: entity resolution adds it, so the query
filters on it instead of counting every row. Counter-examples: both sexes named (a split), a word that only contains
one ('manager', 'human'), a status column of 'F' and 'O', a `women` column of counts, two sex columns."""

from __future__ import annotations

import pytest

from orrery.bi.names import sex_of, sex_pair
from orrery.bi.tools import entity_resolution, sex_values
from orrery.tools.core import RunContext


@pytest.fixture
def voyage(sqlite_bi):
    """Passengers with a sex of 'F'/'M' and a class; orders with a status of 'F'/'O'."""
    return sqlite_bi(
        "CREATE TABLE passengers (pax_id INTEGER, sex TEXT, pclass TEXT, survived INTEGER, age REAL);"
        "CREATE TABLE orders (order_id INTEGER, status TEXT, size TEXT, total REAL);",
        {
            "passengers": [(i, "FM"[i % 2], ["1st", "2nd", "3rd"][i % 3], i % 4 == 0, 20 + i) for i in range(30)],
            "orders": [(i, "FO"[i % 2], "SML"[i % 3], 10.0 * i) for i in range(30)],
        },
    )


def _read(bi, question: str) -> set[tuple[str, str, str]]:
    return {(r["mention"], r["column"], r["value"]) for r in sex_values(bi, question)}


def test_a_noun_of_people_by_sex_is_the_sex_columns_value(voyage):
    assert _read(voyage, "how many 1st-class women survived") == {("women", "sex", "F")}
    assert _read(voyage, "% of first-class ladies that made it") == {("ladies", "sex", "F")}
    assert _read(voyage, "men in third class who didnt survive") == {("men", "sex", "M")}
    assert _read(voyage, "mean age of the men's group") == {("men", "sex", "M")}


def test_entity_resolution_adds_it_beside_the_planners_values(voyage):
    voyage.question = "how many 1st-class women survived"
    got = entity_resolution(RunContext(deps=voyage, options={}), ["1st-class", "women"])
    assert ("passengers", "sex", "F") in {(r["table"], r["column"], r["value"]) for r in got["resolved"]}
    assert "women" not in got["unresolved"]


def test_both_sexes_or_a_word_that_only_contains_one_add_nothing(voyage):
    assert _read(voyage, "survival rate, men vs women") == set()  # a split by sex, not a filter
    assert _read(voyage, "how many managers and humans travelled") == set()


def test_a_status_or_size_column_is_no_sex_column():
    assert sex_pair({"f", "o"}) is None  # finished / open
    assert sex_pair({"s", "m", "l"}) is None  # sizes
    assert sex_pair({"female", "male"}) == {"female": "female", "male": "male"}
    assert sex_of("F") is None and sex_of("F", letter=True) == "female"


def test_no_sex_column_or_two_of_them_add_nothing(sqlite_bi):
    shop = sqlite_bi(
        "CREATE TABLE orders (order_id INTEGER, status TEXT, total REAL);",
        {"orders": [(i, "FO"[i % 2], 10.0 * i) for i in range(30)]},
    )
    assert _read(shop, "orders by women, total") == set()  # 'F' is a status here
    clinic = sqlite_bi(
        "CREATE TABLE visits (visit_id INTEGER, patient_sex TEXT, doctor_sex TEXT, cost REAL);",
        {"visits": [(i, "FM"[i % 2], "MF"[i % 3 == 0], 1.0 * i) for i in range(30)]},
    )
    assert _read(clinic, "visits of women, mean cost") == set()  # the patient's or the doctor's: not said


def test_a_word_the_schema_spells_names_its_column(sqlite_bi):
    degrees = sqlite_bi(
        "CREATE TABLE grads (yr INTEGER, sex TEXT, women INTEGER, men INTEGER);",
        {"grads": [(2000 + i, "FM"[i % 2], i, 2 * i) for i in range(20)]},
    )
    assert _read(degrees, "total women per year") == set()  # the `women` column's counts


def test_the_plan_resolves_a_sex_the_planner_left_out(voyage, tmp_path):
    """The planner's reply names no value: the agent adds the noun, so entity resolution runs and the SQL step is
    told the stored value."""
    from orrery.bi.agent import BIAgent
    from orrery.llm.scripted import ScriptedModel

    model = ScriptedModel(
        [
            {"request": "Count the women who survived", "kind": "query", "values": [], "fields": ["survived"]},
            {"sql": "SELECT count(*) AS n FROM passengers WHERE sex = 'F' AND survived = 1"},
        ]
    )
    r = BIAgent(model, voyage.engine, store=tmp_path / "s.db", prose=False, sql_mode="sql").ask(
        "how many women survived"
    )
    assert r.status == "completed"
    resolved = [t["result"] for t in r.todos if t["tool"] == "entity_resolution"]
    assert resolved and '"column": "sex", "value": "F"' in resolved[0]


def test_a_field_term_with_the_noun_inside_maps_without_it(voyage):
    """'survived women' (the planner's term) is the field `survived` of the women: not a field no column holds."""
    from orrery.bi.tools import field_mapping

    voyage.question = "what fraction of the women on board survived?"
    got = field_mapping(RunContext(deps=voyage, options={}), ["survived women"])["fields"]
    assert [(f["term"], f["column"]) for f in got] == [("survived", "survived")]
    assert field_mapping(RunContext(deps=voyage, options={}), ["women"])["fields"] == []  # a value, no field
