"""`orrery bi` through typer's CliRunner (the lead mounts APP.cli as `orrery bi`)."""

from __future__ import annotations

import json

import yaml
from typer.testing import CliRunner

from orrery.bi import agent as agent_module
from orrery.bi.app import APP
from orrery.bi.cli import app
from orrery.errors import ConfigError
from orrery.llm.scripted import ScriptedModel

runner = CliRunner()


def parts(*select, where=(), group_by=(), order_by=()) -> dict:
    """A query-builder reply in the default mode (clauses; the joins are derived)."""
    return {
        "select": list(select),
        "where": list(where),
        "group_by": list(group_by),
        "having": [],
        "order_by": list(order_by),
        "limit": None,
    }


def scripted(monkeypatch, turns):
    """Route the CLI's model spec to a scripted model."""
    model = ScriptedModel(turns)
    monkeypatch.setattr("orrery.llm.resolve_model", lambda spec=None: model)
    return model


def test_app_registration_points_at_real_objects():
    from orrery.apps import load_ref

    assert APP.name == "bi" and load_ref(APP.cli) is app and load_ref(APP.agent) is agent_module.bi_agent


def test_ask_json_answers(bi_home, monkeypatch):
    scripted(
        monkeypatch,
        [
            {"request": "Count the nations", "kind": "query", "values": [], "fields": []},
            parts("count(*) AS n"),
            "There are 25 nations.",
        ],
    )
    r = runner.invoke(app, ["ask", "How many nations are there?", "--db", "tpch", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["status"] == "completed" and out["rows"] == [[25]] and out["columns"] == ["n"]
    assert out["answer"] == "There are 25 nations." and out["sql"].startswith("SELECT COUNT(*) AS n FROM nation")
    assert out["todos"][-1]["key"] == "execute_query" and out["clarification"] is None


def test_ask_json_reports_a_clarification_and_no_clarify_assumes(bi_home, monkeypatch):
    plan = {"request": "Count customers in United", "kind": "query", "values": ["United"], "fields": []}
    scripted(monkeypatch, [plan])
    out = json.loads(runner.invoke(app, ["ask", "customers in United?", "--json"]).output)
    assert out["status"] == "paused" and "UNITED KINGDOM or UNITED STATES" in out["clarification"]

    scripted(monkeypatch, [plan, parts("count(*) AS n"), "N customers."])
    out = json.loads(runner.invoke(app, ["ask", "customers in United?", "--json", "--no-clarify"]).output)
    assert out["status"] == "completed" and out["notes"] and "UNITED KINGDOM" in out["notes"][0]
    assert "nation.n_name = 'UNITED KINGDOM'" in out["sql"] and out["rows"][0][0] > 0


def test_ask_prints_the_plan_steps_and_table(bi_home, monkeypatch):
    scripted(
        monkeypatch,
        [
            {"request": "List the regions", "kind": "query", "values": [], "fields": ["region"]},
            parts("region.r_name", order_by=["region.r_name"]),
            "Five regions.",
        ],
    )
    r = runner.invoke(app, ["ask", "Which regions are there?"])
    assert r.exit_code == 0, r.output
    for text in ["Request: List the regions", "1. map_fields", "build_query: done", "MIDDLE EAST", "Five regions."]:
        assert text in r.output


def test_chat_keeps_one_session(bi_home, monkeypatch):
    scripted(
        monkeypatch,
        [
            {"request": "Customers in United", "kind": "query", "values": ["United"], "fields": []},
            {"intent": "exact_answer"},
            parts("count(*)"),
            "Counted.",
        ],
    )
    r = runner.invoke(app, ["chat", "-m", "How many customers in United?", "-m", "UNITED STATES"])
    assert r.exit_code == 0, r.output
    assert "Which 'United' do you mean" in r.output and "Counted." in r.output


def test_describe_writes_a_draft_and_never_overwrites(bi_home, tmp_path, monkeypatch):
    monkeypatch.setenv("ORRERY_BI_HOME", str(tmp_path))
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "tpch.duckdb").symlink_to(bi_home / "db" / "tpch.duckdb")
    r = runner.invoke(app, ["describe", "tpch"])
    assert r.exit_code == 0, r.output
    path = tmp_path / "semantic" / "tpch.yaml"
    drafted = yaml.safe_load(path.read_text())
    assert drafted["tables"]["lineitem"]["columns"]["l_shipmode"]["values"] is True
    path.write_text(path.read_text().replace("one shipment line", "EDITED"))
    runner.invoke(app, ["describe", "tpch"])
    assert "EDITED" in path.read_text() and (tmp_path / "semantic" / "tpch.draft.yaml").is_file()


def test_describe_again_and_again_never_replaces_an_edited_draft(bi_home, tmp_path, monkeypatch):
    monkeypatch.setenv("ORRERY_BI_HOME", str(tmp_path))
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "tpch.duckdb").symlink_to(bi_home / "db" / "tpch.duckdb")
    folder = tmp_path / "semantic"
    written = []
    for _ in range(4):
        r = runner.invoke(app, ["describe", "tpch"])
        assert r.exit_code == 0, r.output
        written.append(sorted(p.name for p in folder.iterdir()))
        for p in folder.iterdir():  # the analyst edits every draft after each run
            if "EDITED" not in p.read_text():
                p.write_text(p.read_text() + f"# EDITED {p.name}\n")
    assert written[-1] == ["tpch.draft-2.yaml", "tpch.draft-3.yaml", "tpch.draft.yaml", "tpch.yaml"]
    assert all(f"# EDITED {p.name}" in p.read_text() for p in folder.iterdir())
    assert "wrote " in r.output and "tpch.draft-3.yaml" in r.output.replace("\n", "")


def test_connect_and_unknown_database(bi_home, tmp_path, monkeypatch):
    from orrery.bi.data import CHINOOK_SQLITE

    monkeypatch.setenv("ORRERY_BI_HOME", str(tmp_path))
    r = runner.invoke(app, ["connect", str(CHINOOK_SQLITE), "--name", "music"])
    assert r.exit_code == 0 and "registered music" in r.output
    r = runner.invoke(app, ["ask", "x", "--db", "nosuch", "--json"])
    assert isinstance(r.exception, ConfigError) and "unknown database 'nosuch'" in str(r.exception)


def test_factory_keeps_the_servers_session_and_switches_database(bi_home, tmp_path):
    import inspect

    from orrery.events import Final, StateChanged

    assert "session_id" in inspect.signature(agent_module.bi_agent).parameters  # the server passes its thread
    model = ScriptedModel(
        [{"request": "Count artists", "kind": "query", "values": [], "fields": []}, parts("count(*)"), "275 artists."]
    )
    agent = agent_module.bi_agent(model, db="tpch", session_id="thread-1#bi", store=tmp_path / "s.db")
    events = list(agent.stream("How many artists are there?", db="chinook"))
    state = next(e for e in events if isinstance(e, StateChanged) and e.name == "bi")
    assert state.value["rows"] == [[275]] and isinstance(events[-1], Final) and agent.session.id == "thread-1#bi"
