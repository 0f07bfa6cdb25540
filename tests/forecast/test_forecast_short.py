"""Mixed-length panels and short series: every series gets a forecast, and the result says who got what and why."""

import numpy as np
import pandas as pd
import pytest

from orrery.forecast import analysis as A
from orrery.forecast import plan
from orrery.forecast.data import load


def _series(uid, n, seed, freq="MS", start="2010-01-01"):
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    y = 100 + 0.8 * t + 8 * np.sin(2 * np.pi * t / 12) + rng.normal(0, 1, n)
    return pd.DataFrame({"id": uid, "date": pd.date_range(start, periods=n, freq=freq), "value": y})


@pytest.fixture
def mixed():
    """3 long monthly series and 2 of 4 and 8 points."""
    parts = [_series(f"long{k}", 60, k) for k in range(3)] + [_series("four", 4, 7), _series("eight", 8, 8)]
    return load(pd.concat(parts, ignore_index=True), groupby="id", h=6)


def test_mixed_length_panel_forecasts_every_series_and_says_why(mixed):
    fit = A.panel_fit(mixed)
    assert set(fit.forecasts["unique_id"]) == set(mixed.ids)
    assert fit.forecasts.groupby("unique_id").size().eq(6).all()
    assert np.isfinite(fit.forecasts[["mean", "lo_80", "hi_80", "lo_95", "hi_95"]].to_numpy()).all()
    table = fit.series(mixed).set_index("unique_id")
    assert table.loc["long0", "cv_windows"] == 2 and table.loc["four", "cv_windows"] == 0
    assert table.loc["eight", "cv_windows"] == 0 and table.loc["four", "n"] == 4
    notes = A.notes_frame(fit.notes)
    four = notes[notes["unique_id"] == "four"]
    assert "no CV window" in " ".join(four["reason"])
    skipped = four[four["model"] == "AutoETS"]["reason"].iloc[0]
    assert skipped == "needs at least 8 observations; the series has 4"
    assert (four["model"] == "AutoCES").any() and "fewer than two seasons" in " ".join(four["reason"])
    # the 4-point series gets the only member of the panel's combination it is long enough for
    assert fit.selection is not None and fit.selection.series == 3
    assert table.loc["four", "model"] == "AutoTheta" and table.loc["eight", "model"].startswith("Combo(")
    assert table.loc["long0", "model"] == A.combo_label(fit.selection.members)


def test_yearly_series_of_9_to_40_points_with_h6():
    parts = [_series(f"y{n}", n, n, freq="YS", start="1980-01-01") for n in range(9, 41)]
    sd = load(pd.concat(parts, ignore_index=True), groupby="id", h=6)
    fit = A.panel_fit(sd)
    assert fit.forecasts.groupby("unique_id").size().reindex(sd.ids).eq(6).all()
    assert np.isfinite(fit.forecasts["mean"]).all()
    table = fit.series(sd).set_index("unique_id")
    assert table.loc["y9", "cv_windows"] == 0 and table.loc["y14", "cv_windows"] == 1
    assert table.loc["y40", "cv_windows"] == 2
    assert "no CV window" in table.loc["y9", "notes"] and table.loc["y40", "notes"] == ""
    assert fit.summary().attrs["series_scored"] == sum(table["cv_windows"] > 0)


def test_a_failing_fit_is_isolated_to_its_series_and_model(mixed, monkeypatch):
    real = plan.Runner._call

    def flaky(self, df, models, season, stage, w, levels):
        if "long1" in set(df["unique_id"]) and "AutoCES" in models:
            raise np.linalg.LinAlgError("singular matrix")
        return real(self, df, models, season, stage, w, levels)

    monkeypatch.setattr(plan.Runner, "_call", flaky)
    fit = A.panel_fit(mixed)
    notes = A.notes_frame(fit.notes)
    failed = notes[notes["reason"].str.startswith("LinAlgError")]
    assert set(zip(failed["unique_id"], failed["model"], strict=True)) == {("long1", "AutoCES")}
    assert set(failed["stage"]) == {"cv", "forecast"}
    got = fit.series(mixed).set_index("unique_id")["model"]
    assert "AutoCES" not in got["long1"] and "AutoCES" in got["long0"]
    assert set(fit.forecasts["unique_id"]) == set(mixed.ids)


def test_a_series_nothing_fits_falls_back_along_the_chain(monkeypatch):
    real = plan.Runner._call

    def broken(self, df, models, season, stage, w, levels):
        if set(models) & {"AutoETS", "DynamicOptimizedTheta"}:
            raise ValueError("boom")
        return real(self, df, models, season, stage, w, levels)

    monkeypatch.setattr(plan.Runner, "_call", broken)
    sd = load(_series("a", 30, 1), h=6)
    fc = A.fit_forecast(sd, ["AutoETS", "DynamicOptimizedTheta"])
    assert fc.choice == {"series": "Naive"} and (fc.frame["model"] == "Naive").all() and len(fc.frame) == 6
    reasons = A.notes_frame(fc.notes)
    assert "fallback: none of AutoETS+DynamicOptimizedTheta could be fitted" in set(reasons["reason"])


def test_short_single_series_gets_a_forecast_without_cv(make_monthly):
    sd = load(make_monthly(n=6), h=6)
    cv = A.cross_validate(sd, ["AutoETS", "AutoTheta"])
    assert cv.windows == {"series": 0} and cv.scores.empty and cv.best() is None and not cv.beats_baseline()
    fc = A.fit_forecast(sd, "AutoETS")
    assert len(fc.frame) == 6 and fc.choice == {"series": "DynamicOptimizedTheta"}
    assert "needs at least 8 observations; the series has 6" in set(A.notes_frame(fc.notes)["reason"])


def test_cv_windows_and_eligibility_rules():
    assert plan.cv_windows(48, 12, 6, 7) == 4  # keeps 24 (two seasons) before the first cutoff
    assert plan.cv_windows(30, 12, 6, 3) == 1  # 30 = 24 + 6: one window after two seasons
    assert plan.cv_windows(13, 1, 6, 3) == 0
    ok, skipped = plan.eligible(["AutoETS", "HoltWinters", "Naive"], 20, 12, 6)
    assert ok == ["AutoETS", "Naive"] and "two full seasons" in skipped["HoltWinters"]


def test_calibration_prefers_the_length_bucket_then_the_panel():
    panel = A.Calibration(quantiles={80: np.array([1.0, 1.0]), 95: np.array([2.0, 2.0])}, n_scores=np.array([50, 50]))
    panel.buckets = {
        "short": A.Calibration(
            quantiles={80: np.array([3.0, np.nan]), 95: np.array([4.0, np.nan])},
            n_scores=np.array([30, 0]),
            pooled={80: 2.5, 95: 3.5},
        )
    }
    steps = np.array([0, 1])
    assert panel.halfwidth(80, steps, "short").tolist() == [3.0, 2.5 * np.sqrt(2)]  # per step, else pooled
    assert panel.halfwidth(95, steps, "long").tolist() == [2.0, 2.0]  # no such bucket: the panel's
    assert A.length_bucket(20, 6) == "short" and A.length_bucket(30, 6) == "medium" and A.length_bucket(60, 6) == "long"


def test_mixed_length_panel_intervals_cover_held_out_points():
    rng = np.random.default_rng(5)  # white noise of very different sizes: held-out errors are independent
    parts, tests = [], []
    for k in range(200):
        n = 20 if k % 2 else 90
        y = rng.uniform(50, 500) + rng.normal(0, rng.uniform(0.5, 20), n + 6)
        parts.append(pd.DataFrame({"id": f"s{k}", "date": np.arange(1, n + 1), "value": y[:n]}))
        tests.append(pd.DataFrame({"unique_id": f"s{k}", "ds": np.arange(n + 1, n + 7), "y_test": y[n:]}))
    sd = load(pd.concat(parts), groupby="id", m=1, h=6)
    # split conformal alone (no M3 factor: on exchangeable noise CV errors and held-out errors match)
    fit = A.panel_fit(sd, ["Naive", "HistoricAverage"], policy="panel_combo", combo_k=2, interval_factors={})
    assert set(fit.calibration.buckets) == {"short", "long"} and fit.calibration.factor == {}
    j = fit.forecasts.merge(pd.concat(tests), on=["unique_id", "ds"])
    for lv, tol in ((80, 0.04), (95, 0.025)):
        cover = ((j[f"lo_{lv}"] <= j["y_test"]) & (j["y_test"] <= j[f"hi_{lv}"])).mean()
        assert abs(cover - lv / 100) < tol, (lv, cover)


def test_single_series_forecast_gets_calibrated_intervals_from_its_cv_windows(frame):
    from orrery.forecast.tools import ForecastDeps, cross_validate, generate_forecast
    from orrery.tools import RunContext

    ctx = RunContext(ForecastDeps(load(frame, h=6)))
    cross_validate.fn(ctx, models=["AutoETS"], n_windows=3)
    own = A.forecast(ctx.deps.data, "AutoETS")
    generate_forecast.fn(ctx, model="AutoETS")
    fc = ctx.deps.forecasts
    assert np.allclose(fc["mean"], own["mean"]) and not np.allclose(fc["hi_95"], own["hi_95"])
    assert (fc["lo_95"] <= fc["lo_80"]).all() and (fc["hi_80"] <= fc["hi_95"]).all()


def test_one_cv_window_calibrates_80_and_keeps_95_nested(make_monthly):
    sd = load(make_monthly(n=30), h=6)
    cv = A.cross_validate(sd, ["AutoETS"], n_windows=3)
    cal = A.calibrate(cv, sd, "AutoETS")
    assert cv.windows == {"series": 1} and np.isfinite(cal.pooled[80]) and np.isnan(cal.pooled[95])
    own, fc = A.forecast(sd, "AutoETS"), A.forecast(sd, "AutoETS", calibration=cal)
    assert not np.allclose(fc["hi_80"], own["hi_80"])
    assert (fc["lo_95"] <= fc["lo_80"]).all() and (fc["hi_80"] <= fc["hi_95"]).all()


def test_one_and_two_point_series_get_a_naive_forecast_without_false_certainty():
    parts = [_series("a", 30, 1), _series("one", 1, 2), _series("two", 2, 3)]
    sd = load(pd.concat(parts, ignore_index=True), groupby="id", h=6)
    assert sd.flags == {"one": "too short (1 observations)", "two": "too short (2 observations)"}
    fc = A.fit_forecast(sd, ["AutoETS", "DynamicOptimizedTheta"])
    assert fc.choice["one"] == "Naive" and fc.frame.groupby("unique_id").size().eq(6).all()
    one = fc.frame[fc.frame["unique_id"] == "one"]
    assert one["mean"].notna().all() and one[["lo_80", "hi_95"]].isna().all().all()  # no zero-width band
    reasons = A.notes_frame(fc.notes).query("unique_id == 'one'")["reason"].tolist()
    assert "no interval: too little history to estimate the spread" in reasons
    assert len(reasons) == len(set(reasons))
