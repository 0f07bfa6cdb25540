"""`orrery forecast`: outputs checked before any work, a failed run exits non-zero, a short summary, Ctrl-C."""

import json

import pytest
import typer

from orrery.errors import ConfigError
from orrery.forecast import cli
from orrery.forecast.agent import ForecastAgent
from orrery.llm.scripted import ScriptedModel, call, turn

WORKFLOW = [
    turn(call("analyze_features")),
    turn(call("cross_validate", models=["AutoETS", "Naive"], n_windows=2)),
    turn(call("generate_forecast", model="AutoETS")),
    turn(call("detect_anomalies", level=99)),
]


@pytest.fixture
def csv(tmp_path, frame):
    path = tmp_path / "sales.csv"
    frame.to_csv(path, index=False)
    return path


def _run(path, model, outs, **kw):
    return cli.run_forecast(
        path,
        h=6,
        m=None,
        date=None,
        target=None,
        groupby=kw.pop("groupby", None),
        model=model,
        query=None,
        outs=outs,
        verbose=False,
        n_jobs=1,
        **kw,
    )


@pytest.mark.parametrize(
    "name, message",
    [
        ("report.txt", "unknown format '.txt'"),
        ("report", "unknown format"),
        ("sales.csv/sub/report.json", "cannot write in"),
    ],
)
def test_bad_outputs_fail_before_the_analysis_starts(csv, tmp_path, name, message):
    model = ScriptedModel([])  # any model call would fail the test: none may happen
    with pytest.raises(ConfigError, match=message):
        _run(csv, model, [tmp_path / name])
    assert model.requests == []


def test_an_existing_output_is_never_overwritten_without_asking(csv, tmp_path):
    mine = tmp_path / "report.json"
    mine.write_text("my notes")
    with pytest.raises(ConfigError, match="exists; pass --overwrite"):
        _run(csv, ScriptedModel([]), [mine])
    assert mine.read_text() == "my notes"
    (tmp_path / "old.json").mkdir()
    with pytest.raises(ConfigError, match="is a folder"):
        _run(csv, ScriptedModel([]), [tmp_path / "old.json"])


def test_a_run_prints_a_short_summary_and_writes_the_report(csv, tmp_path, capsys):
    out = tmp_path / "r" / "report.json"
    result = _run(csv, ScriptedModel([*WORKFLOW, "A fine forecast."]), [out])
    printed = capsys.readouterr().out
    assert "best model: AutoETS" in printed and "vs SeasonalNaive" in printed and "Next forecasts" in printed
    assert "Cross-validated MASE" not in printed  # the full tables are in the report, not on screen
    report = json.loads(out.read_text())
    assert len(report["forecasts"]) == 6 and report["best_model"] == result.best_model
    assert not list(out.parent.glob(".*tmp*"))  # written atomically: no temp file left


def test_a_run_that_never_forecasts_exits_non_zero_after_writing_the_report(csv, tmp_path):
    out = tmp_path / "report.json"
    with pytest.raises(cli.AnalysisFailed, match="without a forecast"):
        _run(csv, ScriptedModel(["I cannot do this."] * 10), [out])
    assert json.loads(out.read_text())["forecasts"] == []


def test_a_rejected_commentary_is_reported_as_omitted(csv, capsys):
    result = _run(csv, ScriptedModel([*WORKFLOW] + ["Passengers will grow 10%."] * 3), [])
    assert result.commentary_omitted and "rejected (invalid)" in result.commentary_omitted
    assert result.commentary_omitted.endswith("no tool returned: 10%.")  # the finding, not the retry prompt
    assert "commentary omitted: the model's rewrite was rejected" in capsys.readouterr().out
    assert "10%" not in result.narrative


def test_ctrl_c_stops_without_a_traceback_and_writes_nothing(csv, tmp_path, monkeypatch, capsys):
    def interrupted(_self, *_a, **_k):
        raise KeyboardInterrupt

    monkeypatch.setattr(ForecastAgent, "analyze", interrupted)
    with pytest.raises(typer.Exit) as stop:
        _run(csv, ScriptedModel([]), [tmp_path / "report.json"])
    assert stop.value.exit_code == 130 and "interrupted" in capsys.readouterr().out
    assert not (tmp_path / "report.json").exists()


def test_panel_progress_reaches_the_callback(panel):
    from orrery.forecast import analysis as A
    from orrery.forecast.data import load

    seen = []
    A.panel_fit(
        load(panel, groupby="store", h=6),
        ["Naive"],
        policy="best",
        on_progress=lambda label, done, total: seen.append((done, total, label)),
    )
    assert ("cross-validation" in {s[2] for s in seen}) and ("forecast" in {s[2] for s in seen})
    assert seen[-1] == (3, 3, "forecast") and all(d <= t for d, t, _ in seen)


def test_the_progress_bar_follows_progress_events_per_stage():
    from rich.progress import Progress

    from orrery import events as ev

    with Progress(disable=True) as bar:
        view = cli.ProgressView(bar, n_series=40)
        view(ev.Progress("cross-validation", 20, 40))
        view(ev.Progress("cross-validation", 40, 40))
        view(ev.Progress("forecast", 20, 40))
        stages = {t.description.strip(): (t.completed, t.total) for t in bar.tasks if t.id in view.series.values()}
    assert stages == {"cross-validation": (40, 40), "forecast": (20, 40)}


def test_the_demo_replaces_only_its_own_folder_s_files(tmp_path, monkeypatch):
    mine = tmp_path / "report.json"
    mine.write_text("my notes")
    with pytest.raises(ConfigError, match="exists; pass --overwrite"):  # refused before any model is loaded
        cli.demo(model="scripted-never-called", out_dir=tmp_path, verbose=False)
    assert mine.read_text() == "my notes"
    calls = []
    monkeypatch.setattr(cli, "run_forecast", lambda *a, **k: calls.append(k["overwrite"]))
    cli.demo(model=None, out_dir=cli.DEMO_DIR, verbose=False)
    cli.demo(model=None, out_dir=tmp_path, overwrite=True, verbose=False)
    assert calls == [True, True]
