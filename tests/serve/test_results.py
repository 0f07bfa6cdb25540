"""The result protocol (`orrery.results`): every app's result has status, output, JSON data, typed views and files,
and the server shows any result from these alone."""

import json
from dataclasses import replace

import pandas as pd
import pytest
from fastapi.testclient import TestClient
from scripted import Returns, apps, model_for, post_run, run_input

from orrery.agent.loop import RunResult
from orrery.apps import App
from orrery.bi.agent import BIAnswer
from orrery.forecast.result import ForecastResult
from orrery.markets.agent import MarketsResult
from orrery.research.agent import ResearchResult
from orrery.research.board import Source
from orrery.results import Board, Chart, Forecast, Result, Table, text_of
from orrery.serve import Settings, create_app

NAN = float("nan")


def forecast() -> ForecastResult:
    days = pd.date_range("2024-01-01", periods=4, freq="D")
    history = pd.DataFrame({"unique_id": "s", "ds": days[:3], "y": [1.0, 2.0, NAN]})
    forecasts = pd.DataFrame(
        {
            "unique_id": ["s"],
            "ds": days[3:],
            "model": ["AutoETS"],
            "mean": [3.0],
            "lo_80": [2.5],
            "hi_80": [3.5],
            "lo_95": [2.0],
            "hi_95": [4.0],
        }
    )
    return ForecastResult(
        narrative="Up next: 3.",
        history=history,
        forecasts=forecasts,
        best_model="AutoETS",
        accuracy={"AutoETS": {"windows": [0.5, 0.7], "mean": 0.6}},
        beats_baseline=True,
    )


def research() -> ResearchResult:
    return ResearchResult(
        "q1",
        0.6,
        "The market leans this way [1].",
        [Source("d1", "Poll", "2024-05-01", "a poll")],
        "",
        "completed",
        3,
        None,
        1.0,
    )


def bi() -> BIAnswer:
    spec = {
        "mark": "bar",
        "encoding": {"x": {"field": "region"}, "y": {"field": "sales"}},
        "data": {"values": [{"region": "east", "sales": 1.5}, {"region": "west", "sales": 2}]},
    }
    return BIAnswer(
        "completed",
        "Two regions.",
        "select region, sum(sales)",
        ["region", "sales"],
        [["east", 1.5], ["west", 2]],
        chart={"png": "c.png", "spec": spec},
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda: RunResult("completed", "42"),
        forecast,
        research,
        bi,
        lambda: MarketsResult("completed", "AAPL closed at 1."),
    ],
)
def test_every_app_result_is_a_result_with_json_data_and_typed_views(make):
    result = make()
    assert isinstance(result, Result) and text_of(result)
    json.dumps(result.data, allow_nan=False)
    for view in result.views():
        json.dumps(view.payload(), allow_nan=False)  # NaN is null: JSON has none


def test_each_result_shows_what_it_holds():
    fc = forecast()
    shown = fc.views()
    assert isinstance(shown[0], Forecast) and shown[0].payload()["history"][2] == {
        "unique_id": "s",
        "ds": "2024-01-03",
        "y": None,
    }
    assert isinstance(shown[1], Table) and shown[1].rows == [
        {"model": "AutoETS", "mean MASE": 0.6, "window 1": 0.5, "window 2": 0.7}
    ]
    assert fc.output == "Up next: 3." and set(fc.files()) == {"result.json", "plot.png"}
    assert set(replace(fc, history=pd.DataFrame()).files()) == {"result.json"}  # nothing to draw
    r = research()
    [board] = r.views()
    assert isinstance(board, Board) and board.slot == "board" and board.payload()["sources"][0]["id"] == "d1"
    assert r.output == "Probability: 0.60. The market leans this way [1]."
    assert replace(r, probability=None, rationale="", errors=["no submit"]).output == "no submit"
    table, chart = bi().views()
    assert table.sql == "select region, sum(sales)" and table.rows == [["east", 1.5], ["west", 2]]
    assert isinstance(chart, Chart) and chart.style == "bar" and chart.series == {"sales": [1.5, 2]}
    assert (
        RunResult("completed", {"n": 1}).data["output"] == {"n": 1}
        and text_of(RunResult("completed", {"n": 1})) == '{"n": 1}'
    )


class Named(RunResult):
    def files(self) -> dict:
        return {"../escape.json": lambda p: p.write_text("{}"), "notes.txt": lambda p: p.write_text("kept")}


def said(_llm=None, **_):
    return Returns("just text")


def named(_llm=None, **_):
    return Returns(Named("completed", "done"))


def test_the_server_refuses_a_result_outside_the_protocol_and_a_file_name_it_may_not_save(tmp_path):
    settings = Settings(
        model=model_for,
        data=tmp_path,
        allowed_hosts=("testserver",),
        apps={
            **apps(),
            "said": App("said", "Returns a string.", "test_results:said"),
            "named": App("named", "Saves two files.", "test_results:named"),
        },
    )
    with TestClient(create_app(settings)) as client:
        events = post_run(client, "said", run_input(thread="a", run="a1"))
        assert events[-1]["type"] == "RUN_ERROR" and "ended without an orrery result" in events[-1]["message"]
        assert "it gave str" in events[-1]["message"]
        events = post_run(client, "named", run_input(thread="b", run="b1"))
        assert events[-1]["result"]["artifact_errors"] == ["'../escape.json': not a file name a run may save"]
        assert client.get("/runs/b1/notes.txt").text == "kept"
        assert not (tmp_path / "runs" / "escape.json").exists() and not (tmp_path / "escape.json").exists()


def test_orrery_run_renders_any_app_from_its_result(monkeypatch):
    import shop_app
    from typer.testing import CliRunner

    import orrery.apps
    from orrery.cli import _view, app

    monkeypatch.setattr(orrery.apps, "discover", lambda: {"shop": shop_app.APP})
    shown = CliRunner().invoke(app, ["run", "shop", "restock Emma"])
    assert shown.exit_code == 0 and "Restocked. Emma: 3 copies." in shown.output and "│ Emma  │ 3" in shown.output
    as_json = json.loads(CliRunner().invoke(app, ["run", "shop", "restock Emma", "--json"]).output)
    assert as_json["data"]["tool_calls"] == [{"tool": "stock", "ok": True}, {"tool": "restock", "ok": True}]
    listed = CliRunner().invoke(app, ["apps"]).output
    assert listed.splitlines() == ["shop: Keeps a bookshop's shelf stocked.", "  message: what to stock"]
    from rich.console import Console

    out = Console(record=True, width=120)
    for view in [*forecast().views(), *research().views(), *bi().views()]:
        out.print(_view(view))
    text = out.export_text()
    assert "Forecast (AutoETS)" in text and "Sources (P = 0.6):" in text and "- 2024-05-01 Poll: a poll" in text
    assert "[chart view: see it in" in text and "west" in text
