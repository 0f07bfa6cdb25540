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
    assert (four["model"] == "AutoARIMA").any() and "fewer than two seasons" in " ".join(four["reason"])
    # the 4-point series gets the only member it is long enough for
    assert table.loc["four", "model"] == "DynamicOptimizedTheta"
    assert table.loc["long0", "model"].startswith("Combo(") and "AutoETS" in table.loc["long0", "model"]


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
