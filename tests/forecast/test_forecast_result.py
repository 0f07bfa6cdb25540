import json

import pandas as pd
import pytest
from rich.console import Console

from orrery.forecast import analysis as A
from orrery.forecast.data import load
from orrery.forecast.result import ForecastResult


@pytest.fixture(scope="module")
def result(make_monthly):
    sd = load(make_monthly(), h=6)
    cv = A.cross_validate(sd, ["AutoETS", "Naive"], n_windows=2)
    spiked = load(make_monthly().assign(value=lambda f: f["value"].where(f.index != 30, f["value"] + 40)), h=6)
    an = A.detect_anomalies(spiked, cv.best())
    return ForecastResult(
        narrative="ETS wins.",
        features=A.features(sd.values(), sd.m),
        accuracy=ForecastResult.accuracy_from_cv(cv),
        forecasts=A.forecast(sd, cv.best()),
        anomalies=an[an["anomaly"]],
        best_model=cv.best(),
        beats_baseline=cv.beats_baseline(),
        trace=[{"tool": "cross_validate", "ok": True}],
        history=sd.df,
    )


def render(obj) -> str:
    console = Console(record=True, width=140)
    console.print(obj)
    return console.export_text()


def test_accuracy_from_cv(result):
    assert list(result.accuracy)[0] == "AutoETS"
    assert len(result.accuracy["SeasonalNaive"]["windows"]) == 2


def test_rich_pass_and_fail(result):
    text = render(result)
    assert "PASS" in text and "Cross-validated MASE" in text and "Forecasts" in text and "Anomalies" in text
    result.beats_baseline = False
    assert "FAIL" in render(result)
    result.beats_baseline = True


def test_html(result):
    page = result._repr_html_()
    assert "PASS" in page and "<details" in page and "AutoETS" in page and "#dafbe1" in page


def test_png_plot(result, tmp_path):
    path = tmp_path / "plot.png"
    result.plot(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_json_round_trip(result, tmp_path):
    text = result.to_json(tmp_path / "r.json")
    back = json.loads((tmp_path / "r.json").read_text())
    assert back == json.loads(text)
    assert back["best_model"] == "AutoETS" and back["beats_baseline"] is True
    assert len(back["forecasts"]) == 6 and set(back["forecasts"][0]) >= {"ds", "mean", "lo_80", "hi_95"}
    assert pd.Timestamp(back["anomalies"][0]["ds"]) == pd.Timestamp(result.anomalies["ds"].iloc[0])
    assert back["features"]["seasonality"] == "strong"
