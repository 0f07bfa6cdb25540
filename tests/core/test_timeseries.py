"""orrery.timeseries: the one-series helpers BI and markets use, checked against statsforecast / statsmodels."""

import numpy as np
import pandas as pd
import pytest

from orrery import timeseries as T
from orrery.errors import DataError


@pytest.fixture(scope="module")
def walk() -> np.ndarray:
    return 50 + np.cumsum(np.random.default_rng(7).normal(0.2, 1.0, 120))


@pytest.mark.parametrize("name", ["Naive", "RandomWalkWithDrift"])
def test_simple_forecasts_match_statsforecast(walk, name):
    from statsforecast import StatsForecast
    from statsforecast.models import Naive, RandomWalkWithDrift

    model = {"Naive": Naive(), "RandomWalkWithDrift": RandomWalkWithDrift()}[name]
    df = pd.DataFrame({"unique_id": "s", "ds": np.arange(1, len(walk) + 1), "y": walk})
    want = StatsForecast([model], freq=1).forecast(df=df, h=7, level=[80, 95])
    col = want.columns[2]
    got = T.forecast(walk, name, 7)
    assert got["mean"].to_numpy() == pytest.approx(want[col].to_numpy())
    for lv in (80, 95):
        assert got[f"lo_{lv}"].to_numpy() == pytest.approx(want[f"{col}-lo-{lv}"].to_numpy())
        assert got[f"hi_{lv}"].to_numpy() == pytest.approx(want[f"{col}-hi-{lv}"].to_numpy())


def test_ets_is_the_lowest_aicc_statsmodels_fit_and_forecasts_with_it(walk):
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    s = pd.Series(walk)
    fits = [
        ETSModel(s, error="add", trend=t, damped_trend=d).fit(disp=False)
        for t, d in [(None, False), ("add", False), ("add", True)]
    ]
    best = min(fits, key=lambda f: f.aicc)
    assert T.ets(walk).aicc == pytest.approx(best.aicc)
    got = T.forecast(walk, "ETS", 5)
    assert got["mean"].to_numpy() == pytest.approx(np.asarray(best.forecast(5)), rel=1e-6)
    assert (got["lo_95"] < got["lo_80"]).all() and (got["hi_80"] < got["hi_95"]).all()


def test_cross_validate_scores_mase_over_rolling_origins():
    y = np.array([1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6, 8, 7, 9, 8, 10, 9, 11], dtype=float)
    got = T.cross_validate(y, h=2, models=["Naive"], n_windows=2)
    expect = []
    for cut in (14, 16):  # origins: two windows of two before the end
        train, test = y[:cut], y[cut : cut + 2]
        expect.append(np.mean(np.abs(test - train[-1])) / np.mean(np.abs(np.diff(train))))
    assert got == {"Naive": pytest.approx(np.mean(expect))}
    ranked = T.cross_validate(y, h=2, n_windows=2)
    assert list(ranked) == sorted(ranked, key=ranked.get) and set(ranked) == set(T.MODELS)
    with pytest.raises(DataError, match="too few"):
        T.cross_validate(y[:8], h=2)


def test_detect_anomalies_flags_a_spike_and_keeps_the_index():
    idx = pd.date_range("2015-01-01", periods=32, freq="QS")
    y = pd.Series(
        100 + 5 * np.sin(np.arange(32) * 2 * np.pi / 4) + np.random.default_rng(3).normal(0, 0.5, 32), index=idx
    )
    y.iloc[20] += 30
    got = T.detect_anomalies(y, 4)
    assert list(got.index) == list(idx)
    assert list(got.index[got["anomaly"]]) == [idx[20]]
    assert got.loc[idx[20], "y"] > got.loc[idx[20], "hi"]
    flat = T.detect_anomalies(pd.Series(np.full(20, 3.0)), 1)
    assert not flat["anomaly"].any()


def test_features_describe_trend_and_season():
    t = np.arange(96)
    f = T.features(10 + 0.5 * t + 4 * np.sin(2 * np.pi * t / 12), 12)
    assert f["trend"] == "strong" and f["seasonality"] == "strong" and f["m"] == 12
    assert "suggested_models" not in f  # the forecast app adds its shortlist
