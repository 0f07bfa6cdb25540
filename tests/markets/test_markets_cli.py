"""`orrery markets ...` through typer's runner (the main CLI mounts APP.cli)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from orrery.apps import load_ref
from orrery.errors import DataError
from orrery.llm.scripted import ScriptedModel
from orrery.markets.app import APP
from orrery.markets.cli import app

runner = CliRunner()


def test_app_registration_points_at_real_objects():
    assert APP.name == "markets" and load_ref(APP.cli) is app
    assert callable(load_ref(APP.agent))


def test_symbols_lists_the_store(store):
    out = runner.invoke(app, ["symbols", "--store", str(store.root)])
    assert out.exit_code == 0, out.output
    assert "AAPL" in out.output and "2013-03-01" in out.output and "SPX" in out.output


def test_import_then_symbols(tmp_path):
    path = tmp_path / "acme.csv"
    path.write_text(
        "symbol,date,open,high,low,close,volume\nACME,2021-01-04,1,2,0.5,1.5,100\nACME,2021-01-05,1.5,2.5,1,2,120\n"
    )
    out = runner.invoke(app, ["import", str(path), "--store", str(tmp_path / "s"), "--exchange", "nyse"])
    assert out.exit_code == 0, out.output
    assert "imported ACME (2021-01-04 to 2021-01-05)" in out.output
    assert "ACME" in runner.invoke(app, ["symbols", "--store", str(tmp_path / "s")]).output


def test_malformed_import_is_a_one_line_error(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("symbol,date,open,high,low,close,volume\nACME,2021-13-45,1,2,0.5,1.5,100\n")
    out = runner.invoke(app, ["import", str(path), "--store", str(tmp_path / "s")])
    assert out.exit_code != 0 and isinstance(out.exception, DataError)
    assert "line 2: date is not a date" in str(out.exception)


def test_ask_json(store, monkeypatch):
    model = ScriptedModel(["IBM closed at 202.91."])  # the rules route and call; the model adds prose
    monkeypatch.setattr("orrery.markets.agent.resolve_model", lambda llm: model)
    out = runner.invoke(app, ["ask", "What did IBM close at?", "--json", "--store", str(store.root)])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["answer"].endswith("IBM closed at 202.91.") and data["as_of"] == {"IBM": "2013-03-01"}
    assert data["tool_calls"][0]["result"]["close"] == 202.91 and data["route_source"] == "rules"


@pytest.mark.parametrize("flag", [[], ["--json"]])
def test_ask_unknown_symbol(store, monkeypatch, flag):
    model = ScriptedModel([{"type": "stock_specific", "entities": ["NVDA"], "categories": ["price"]}])
    monkeypatch.setattr("orrery.markets.agent.resolve_model", lambda llm: model)
    out = runner.invoke(app, ["ask", "How is NVDA doing?", *flag, "--store", str(store.root)])
    assert out.exit_code == 0 and "NVDA is not in the data" in out.output
