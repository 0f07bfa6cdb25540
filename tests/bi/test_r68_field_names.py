"""Round 68: terms the field judgment declined although the data's names hold them (bench/bi_r68.md): a word for a
kind where the data names its kinds by another ('type' of a `leaf_cls`), the initials of a two-word term leading a
column's name ('organic carbon' of `oc_pct`), a measure per head of a per-capita column (`kwh_pc`), a held field
followed by a noun for its value ('ph value'). Each is held (`decline.missing_fields` finds nothing); the same shapes
where the data's names do not hold the term still decline."""

from __future__ import annotations

import pytest

from orrery.bi.agent import BIAgent
from orrery.bi.decline import missing_fields, shape_decline
from orrery.bi.tools import BIContext
from orrery.llm.scripted import ScriptedModel


@pytest.fixture
def estate(sqlite_bi) -> BIContext:
    """A tea estate: teas of three leaf classes with their caffeine, soil samples of its plots (organic carbon,
    acidity), and yearly electricity use per person of the villages around it."""
    return sqlite_bi(
        "CREATE TABLE teas (tea_id INTEGER, tea_nm TEXT, leaf_cls TEXT, caf_mg REAL);"
        "CREATE TABLE soil (smp_no INTEGER, plot TEXT, oc_pct REAL, ph REAL);"
        "CREATE TABLE power_use (village TEXT, yr INTEGER, kwh_pc REAL);",
        {
            "teas": [(i, f"Estate blend {i}", ("green", "black", "oolong")[i % 3], 20.0 + i) for i in range(12)],
            "soil": [(i, ("north", "south")[i % 2], 1.0 + i / 10, 5.0 + i / 20) for i in range(20)],
            "power_use": [(v, 2000 + y, 300.0 + 10 * y) for v in ("Munnar", "Devikulam") for y in range(10)],
        },
    )


@pytest.fixture
def plain(sqlite_bi) -> BIContext:
    """The same kinds of facts under plain names, none of them a kind, initials or per-capita column."""
    return sqlite_bi(
        "CREATE TABLE teas (tea_id INTEGER, tea_nm TEXT, caffeine_mg REAL);"
        "CREATE TABLE power_use (village TEXT, yr INTEGER, kwh_total REAL);",
        {
            "teas": [(i, f"Estate blend {i}", 20.0 + i) for i in range(12)],
            "power_use": [(v, 2000 + y, 3000.0 + 10 * y) for v in ("Munnar", "Devikulam") for y in range(10)],
        },
    )


HELD = [
    ("type", "how many teas of each type are there"),
    ("tea type", "which tea type has the most caffeine on average"),
    ("category", "average caffeine per category"),
    ("organic carbon", "mean organic carbon of the north plot"),
    ("head", "electricity use per head in Munnar in 2005"),
    ("kwh per person", "kwh per person in Devikulam, 2003"),
    ("ph value", "ph value of the south plot samples, average"),
    ("ph rate", "ph rate of the north plot"),  # a held field then 'rate' ('fertility rate' of `fertility`)
]


@pytest.mark.parametrize(("term", "question"), HELD)
def test_a_term_the_data_names_otherwise_is_held(estate, term, question):
    assert missing_fields(estate, [term], question) == []


@pytest.mark.parametrize(
    ("term", "question"),
    [
        ("blood type", "which blood type do the pickers have"),  # a kind of something the data lacks
        ("salary per head", "salary per head in Munnar"),  # 'salary' is no word of `kwh_pc`
        ("salinity value", "salinity value of the north plot"),  # the field before 'value' is not held
        ("erosion rate", "erosion rate of the south plot"),  # nor before 'rate'
    ],
)
def test_a_term_the_data_does_not_name_still_declines(estate, term, question):
    assert missing_fields(estate, [term], question) == [term]


@pytest.mark.parametrize(
    ("term", "question"),
    [
        ("type", "how many teas of each type are there"),
        ("head", "electricity use per head in Munnar in 2005"),
        ("organic carbon", "mean organic carbon of all samples"),
    ],
)
def test_without_such_a_name_the_same_terms_decline(plain, term, question):
    assert missing_fields(plain, [term], question) == [term]


def test_the_planners_decline_of_a_kind_term_becomes_a_query(estate, tmp_path):
    question = "how many teas of each type are there"
    plan = {"request": "Count teas per type", "kind": "cannot_answer", "values": [], "fields": ["type"]}
    sql = {"sql": "SELECT leaf_cls, COUNT(*) AS n FROM teas GROUP BY leaf_cls"}
    assert shape_decline(estate, question) is None
    model = ScriptedModel([plan, sql, "Done."])
    answer = BIAgent(model, estate.engine, store=tmp_path / "s.db", clarify=False, sql_mode="sql").ask(question)
    assert answer.status == "completed" and sorted(answer.rows) == [["black", 4], ["green", 4], ["oolong", 4]]
