"""Round 50: the column glossary, one schema-constrained model call per drafted table, cached per database."""

from __future__ import annotations

import json

import pytest
import yaml

from orrery.bi import glossary
from orrery.bi.agent import BIAgent
from orrery.bi.semantic import rank_fields, write_draft
from orrery.llm.scripted import ScriptedModel

SCRIPT = "CREATE TABLE towns (town_nm TEXT, pop INTEGER, area REAL);"
ROWS = {"towns": [("Aston", 1200, 3.5), ("Brill", 5400, 8.0), ("Cray", 900, 1.5)]}


def reply(**columns: list[str]) -> str:
    return json.dumps({c: {"means": f"the {c}", "phrases": p} for c, p in columns.items()})


@pytest.fixture
def towns(sqlite_bi, tmp_path, monkeypatch):
    monkeypatch.setenv("ORRERY_BI_HOME", str(tmp_path / "home"))  # a cache of this test's own
    return sqlite_bi(SCRIPT, ROWS)


def test_the_models_phrases_become_synonyms_that_field_mapping_reads(towns):
    model = ScriptedModel([reply(town_nm=["town"], pop=["headcount", "inhabitants"], area=["size in km2"])])
    assert rank_fields(towns.semantic, "headcount")[0][0] < 80  # the plain draft does not read it
    layer = glossary.with_glossary(towns.semantic, model)
    pop = layer.tables["towns"]["columns"]["pop"]
    assert pop["glossary"] == ["headcount", "inhabitants"]
    assert {"headcount", "inhabitants"} <= set(pop["synonyms"])
    assert rank_fields(layer, "headcount")[0][2] == {"table": "towns", "column": "pop"}
    request = model.requests[0]
    assert request["schema"]["required"] == ["town_nm", "pop", "area"] and request["max_tokens"]
    assert "pop (INTEGER): pop; from 900 to 5400" in request["messages"][-1].content


def test_another_columns_name_its_own_name_and_phrases_past_the_bounds_are_dropped(towns):
    phrases = ["area", "pop", "number", "the number of people who live there", "people", "residents", "locals"]
    layer = glossary.with_glossary(towns.semantic, ScriptedModel([reply(pop=phrases)]))
    assert layer.tables["towns"]["columns"]["pop"]["glossary"] == ["people", "residents", "locals"]


def test_a_second_draft_of_the_same_database_asks_nothing(towns):
    glossary.with_glossary(towns.semantic, ScriptedModel([reply(pop=["headcount"])]))
    again = ScriptedModel([])
    layer = glossary.with_glossary(towns.semantic, again)
    assert again.requests == [] and layer.tables["towns"]["columns"]["pop"]["glossary"] == ["headcount"]
    assert glossary.cached(towns.semantic, "scripted").tables["towns"]["columns"]["pop"]["glossary"] == ["headcount"]


def test_without_a_model_or_with_the_glossary_off_the_draft_is_todays(towns):
    assert glossary.layer(towns.engine.name, towns.engine, None).to_dict() == towns.semantic.to_dict()
    model = ScriptedModel([])
    agent = BIAgent(model, towns.engine)  # glossary off unless asked (the app factory asks)
    assert model.requests == [] and agent.bi.semantic.to_dict() == towns.semantic.to_dict()


def test_the_agents_first_contact_with_a_drafted_database_writes_the_glossary(towns):
    model = ScriptedModel([reply(pop=["headcount"])])
    agent = BIAgent(model, towns.engine, glossary=True)
    assert agent.bi.semantic.tables["towns"]["columns"]["pop"]["glossary"] == ["headcount"]


def test_a_reply_cut_at_max_tokens_leaves_the_table_as_drafted(towns):
    layer = glossary.with_glossary(towns.semantic, ScriptedModel(['{"pop": {"means": "peop']))
    assert "glossary" not in layer.tables["towns"]["columns"]["pop"]


def test_describe_writes_the_glossary_where_a_person_reviews_it(towns):
    layer = glossary.with_glossary(towns.semantic, ScriptedModel([reply(pop=["headcount"])]))
    path = write_draft("towns", towns.engine, layer)
    written = yaml.safe_load(path.read_text())["tables"]["towns"]["columns"]["pop"]
    assert written["glossary"] == ["headcount"] and "headcount" in written["synonyms"]
