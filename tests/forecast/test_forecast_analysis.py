import numpy as np
import pandas as pd
import pytest

from orrery.errors import DataError
from orrery.forecast import analysis as A
from orrery.forecast.data import SeriesData, load

FAST = ["AutoETS", "Naive"]


@pytest.fixture
def sd(frame):
    return load(frame, h=6)


def test_features_seasonal_trending(sd):
    f = A.features(sd.values(), sd.m)
    assert f["seasonal_strength"] > 0.8 and f["seasonality"] == "strong"
    assert f["trend_strength"] > 0.6 and f["trend"] == "strong"
    assert f["seasonal_acf"] is not None and f["n"] == 48
    assert "HoltWinters" in f["suggested_models"]


def test_features_white_noise_and_intermittent():
    rng = np.random.default_rng(1)
    noise = A.features(rng.normal(size=200), 1)
    assert noise["entropy"] > 0.9 and noise["trend"] == "weak" and noise["seasonality"] == "none"
    sparse = np.zeros(60)
    sparse[::5] = rng.integers(1, 9, 12)
    f = A.features(sparse, 1)
    assert f["demand_class"] in ("intermittent", "lumpy") and f["zero_share"] == pytest.approx(0.8)
    assert "CrostonOptimized" in f["suggested_models"]


def test_spectral_entropy_pure_sine_is_low():
    assert A.spectral_entropy(np.sin(2 * np.pi * np.arange(120) / 12)) < 0.1


def test_decompose_stl_mstl_and_none(sd):
    y = sd.values()
    stl = A.decompose(y, 12)
    assert np.allclose(stl["trend"] + stl["seasonal"] + stl["resid"], y)
    mstl = A.decompose(y, [3, 12])
    assert {"seasonal_3", "seasonal_12"} <= set(mstl.columns)
    assert np.allclose(mstl["trend"] + mstl["seasonal"] + mstl["resid"], y)
    flat = A.decompose(y, 1)
    assert (flat["seasonal"] == 0).all()
    with pytest.raises(DataError, match="too short to decompose"):
        A.decompose(y[:20], 12)


def test_unit_root_random_walk_vs_noise():
    rng = np.random.default_rng(3)
    walk = A.unit_root_test(np.cumsum(rng.normal(size=300)))
    assert not walk["stationary"] and walk["ndiffs"] >= 1 and walk["adf_pvalue"] > 0.05
    noise = A.unit_root_test(rng.normal(size=300))
    assert noise["stationary"] and noise["ndiffs"] == 0 and "stationary" in noise["verdict"]


def test_cross_validate_mase_matches_hand_computation(sd):
    cv = A.cross_validate(sd, ["Naive"], n_windows=2)
    assert cv.models == ["Naive", "SeasonalNaive"]  # baseline always added
    assert cv.table().shape[1] == 3  # window_1, window_2, mean
    df, h = sd.df, sd.h
    cutoff = sorted(cv.cv["cutoff"].unique())[0]
    train = df[df["ds"] <= cutoff]["y"].to_numpy()
    test = df[df["ds"] > cutoff]["y"].to_numpy()[:h]
    expected = np.mean(np.abs(test - train[-1])) / np.mean(np.abs(train[12:] - train[:-12]))
    got = cv.scores.query("model == 'Naive' and cutoff == @cutoff")["mase"].iloc[0]
    assert got == pytest.approx(expected)
    assert cv.table().loc["Naive", "window_1"] == pytest.approx(expected)


def test_seasonal_naive_wins_on_pure_seasonal_pattern(make_monthly):
    frame = make_monthly(n=48, trend=0.0, amp=20.0, noise=0.3)
    cv = A.cross_validate(load(frame, h=6), ["Naive", "HistoricAverage", "SES"], n_windows=2)
    assert cv.best() == "SeasonalNaive"
    assert cv.beats_baseline() is False


def test_trend_model_beats_baseline(sd):
    cv = A.cross_validate(sd, FAST, n_windows=2)
    assert cv.best() == "AutoETS" and cv.beats_baseline()


def test_combo_member_selection_and_column(sd):
    cv = A.cross_validate(sd, ["AutoETS", "Naive", "HistoricAverage"], n_windows=2, combo_k=2)
    members = cv.combo_members["series"]
    assert len(members) == 2 and "HistoricAverage" not in members
    row = cv.cv.iloc[0]
    assert row["Combo"] == pytest.approx(np.mean([row[m] for m in members]))
    assert "Combo" in cv.mean_mase()


def test_cross_validate_uses_as_many_windows_as_the_length_allows(sd):
    cv = A.cross_validate(sd, FAST, n_windows=7)
    assert cv.windows == {"series": 4}  # 48 points: two seasons (24) must stay before the first of 4 windows of 6
    assert [c for c in cv.table().columns if c.startswith("window_")] == [f"window_{i}" for i in range(1, 5)]


def test_forecast_intervals_are_nested(sd):
    fc = A.forecast(sd, "AutoETS")
    assert len(fc) == 6 and (fc["model"] == "AutoETS").all()
    assert (fc["lo_95"] <= fc["lo_80"]).all() and (fc["lo_80"] <= fc["mean"]).all()
    assert (fc["mean"] <= fc["hi_80"]).all() and (fc["hi_80"] <= fc["hi_95"]).all()
    assert fc["ds"].iloc[0] == sd.df["ds"].max() + pd.offsets.MonthBegin()


def test_forecast_conformal_for_model_without_intervals(sd):
    fc = A.forecast(sd, "SES")
    assert fc[["lo_80", "hi_80", "lo_95", "hi_95"]].notna().all().all()
    assert (fc["hi_95"] > fc["hi_80"]).all()


def test_forecast_combination(sd):
    single = {m: A.forecast(sd, m)["mean"].to_numpy() for m in FAST}
    combo = A.forecast(sd, FAST)
    assert combo["model"].iloc[0] == "Combo(AutoETS+Naive)"
    assert np.allclose(combo["mean"], (single["AutoETS"] + single["Naive"]) / 2)


def test_detect_anomalies_finds_spike(sd):
    sd.df.loc[30, "y"] += 40
    an = A.detect_anomalies(sd, "AutoETS")
    flagged = an[an["anomaly"]]
    assert sd.df.loc[30, "ds"] in set(flagged["ds"])
    assert len(flagged) <= 4
    assert (an["lo"] <= an["hi"]).all()


def test_compare_models_information_criteria(sd):
    table = A.compare_models(sd, ["AutoETS", "AutoARIMA", "Naive"])
    ets = table.set_index("model").loc["AutoETS"]
    assert ets["aic"] is not None and ets["aicc"] >= ets["aic"]
    assert table.set_index("model").loc["Naive"].isna().all()
    assert table["model"].iloc[-1] == "Naive"


def test_panel_analyze(panel):
    out = A.panel_analyze(load(panel, groupby="store", h=6))
    assert list(out["unique_id"]) == ["s0", "s1", "s2"]
    assert (out["seasonality"] == "strong").all()


def test_panel_fit_best_per_series(panel):
    sd = load(panel, groupby="store", h=6)
    fit = A.panel_fit(sd, FAST, n_windows=2, policy="best", n_jobs=1)
    assert set(fit.choice) == {"s0", "s1", "s2"}
    per = fit.cv.scores.groupby(["unique_id", "model"])["mase"].mean().unstack()
    for uid, model in fit.choice.items():
        assert per.loc[uid, model] == per.loc[uid].min()
    assert len(fit.forecasts) == 18
    summary = fit.summary()
    assert summary["series"].sum() == 3
    assert summary.attrs["mase_selected"] <= summary.attrs["mase_baseline"]


def test_panel_fit_combo_policy(panel):
    sd = load(panel, groupby="store", h=6)
    fit = A.panel_fit(sd, ["AutoETS", "Naive", "HistoricAverage"], n_windows=2, combo_k=2, policy="combo")
    assert all(len(c) == 2 for c in fit.choice.values())
    assert fit.forecasts["model"].str.startswith("Combo(").all()


def test_panel_fit_panel_combo_uses_panel_ranking(panel):
    sd = load(panel, groupby="store", h=6)
    fit = A.panel_fit(sd, ["AutoETS", "Naive", "HistoricAverage"], n_windows=2, combo_k=2, policy="panel_combo")
    ranking = [m for m in fit.cv.table().index if m != "Combo"]
    assert all(list(c) == ranking[:2] for c in fit.choice.values())
    assert A.panel_top_k(fit.cv, 2) == ranking[:2]


def test_conformal_quantile_rank_and_too_few_scores():
    scores = np.arange(1.0, 20.0)  # 19 scores
    assert A.conformal_quantile(scores, 95) == 19.0  # ceil(20 * 0.95) = 19th smallest
    assert A.conformal_quantile(scores, 80) == 16.0
    assert np.isnan(A.conformal_quantile(np.array([1.0, 2.0, 3.0]), 80))  # needs ceil(4 * 0.8) = 4 scores
    assert A.conformal_quantile(np.array([np.nan, 2.0, np.inf, 1.0, 3.0, 4.0]), 80) == 4.0  # non-finite dropped


def _white_noise_panel(n=100, t=60, h=12, seed=0):
    rng = np.random.default_rng(seed)
    sigma = np.repeat(rng.uniform(0.5, 20, n), t)  # very different noise levels: pooling must use the scale
    full = pd.DataFrame(
        {
            "id": np.repeat([f"s{k}" for k in range(n)], t),
            "date": np.tile(np.arange(1, t + 1), n),
            "value": np.repeat(rng.uniform(50, 500, n), t) + rng.normal(size=n * t) * sigma,
        }
    )
    test = full.groupby("id").tail(h).rename(columns={"id": "unique_id", "date": "ds"})
    return load(full.drop(test.index), groupby="id", m=1, h=h), test


def _coverage(fc, test, level):
    j = fc.merge(test, on=["unique_id", "ds"])
    return float(((j[f"lo_{level}"] <= j["value"]) & (j["value"] <= j[f"hi_{level}"])).mean())


def test_calibrated_combination_intervals_reach_nominal_coverage_on_held_out_points():
    # Naive + HistoricAverage on white noise: the averaged member bounds are far too wide (Naive's grow with
    # sqrt(h)); conformal half-widths learned from the CV windows only must cover held-out points near nominal.
    sd, test = _white_noise_panel()
    members = ["Naive", "HistoricAverage"]
    cv = A.cross_validate(sd, members, n_windows=2)
    cal = A.calibrate(cv, sd, members, factors={})  # split conformal alone: exchangeable noise needs no M3 factor
    assert cal.n_scores.tolist() == [200] * 12
    plain = A.forecast(sd, members)
    conformal = A.forecast(sd, members, calibration=cal)
    assert np.allclose(plain["mean"], conformal["mean"])  # point forecasts untouched
    assert _coverage(plain, test, 80) > 0.9 and _coverage(plain, test, 95) > 0.98
    assert abs(_coverage(conformal, test, 80) - 0.80) < 0.04
    assert abs(_coverage(conformal, test, 95) - 0.95) < 0.025
    assert (conformal["lo_95"] <= conformal["lo_80"]).all() and (conformal["hi_80"] <= conformal["hi_95"]).all()


def test_calibrated_widths_scale_with_each_series():
    sd, _ = _white_noise_panel(n=30, seed=1)
    cal = A.Calibration(quantiles={80: np.full(12, 2.0), 95: np.full(12, 3.0)}, n_scores=np.full(12, 99))
    fc = A.forecast(sd, "Naive", calibration=cal)
    scale = sd.df.groupby("unique_id")["y"].apply(lambda y: np.abs(np.diff(y.to_numpy())).mean())
    width = (fc["hi_80"] - fc["lo_80"]) / 2
    assert np.allclose(width, 2.0 * fc["unique_id"].map(scale))
    assert np.allclose((fc["hi_95"] - fc["mean"]) / (fc["hi_80"] - fc["mean"]), 1.5)


def test_panel_fit_calibrates_by_default_and_pools_steps_without_enough_scores(panel):
    sd = load(panel, groupby="store", h=6)
    fit = A.panel_fit(sd, ["AutoETS", "Naive"], n_windows=2, combo_k=2, policy="panel_combo")
    plain = A.panel_fit(
        sd, ["AutoETS", "Naive"], n_windows=2, combo_k=2, policy="panel_combo", calibrate_intervals=False
    )
    assert fit.calibration is not None and plain.calibration is None
    cal = fit.calibration
    assert cal.n_scores.tolist() == [6] * 6  # 3 series x 2 windows per step
    assert np.isfinite(cal.quantiles[80]).all()  # 6 scores suffice for 80%
    assert np.isnan(cal.quantiles[95]).all()  # 95% needs 19 per step ...
    assert np.isfinite(cal.pooled[95])  # ... so both levels use the 36 step-normalised scores pooled over steps
    steps = np.arange(6)
    assert cal.factor == {}  # plain split conformal (bench/forecast_heldout.md)
    assert np.allclose(cal.halfwidth(95, steps), cal.pooled[95] * np.sqrt(steps + 1))
    assert np.allclose(cal.halfwidth(80, steps), cal.pooled[80] * np.sqrt(steps + 1))
    assert np.allclose(fit.forecasts["mean"], plain.forecasts["mean"])
    assert not np.allclose(fit.forecasts["lo_95"], plain.forecasts["lo_95"])
    assert (fit.forecasts["lo_95"] <= fit.forecasts["lo_80"]).all()


def _cv_panel(n_series, off, h=4, cutoffs=(20, 24)):
    """A CVResult and its data where every model is 0.1 off the truth but those in `off` (model -> error)."""
    rng = np.random.default_rng(3)
    rows, hist = [], []
    for k in range(n_series):
        y = 50 + np.cumsum(rng.normal(0, 1, 28))
        hist.append(pd.DataFrame({"unique_id": f"s{k}", "ds": np.arange(1, 29), "y": y}))
        for c in cutoffs:
            ds = np.arange(c + 1, c + h + 1)
            rows.append(pd.DataFrame({"unique_id": f"s{k}", "ds": ds, "cutoff": c, "y": y[ds - 1]}))
    cv = pd.concat(rows, ignore_index=True)
    for name in ("AutoETS", "AutoCES", "DynamicOptimizedTheta", "AutoARIMA", "AutoTheta", "SeasonalNaive"):
        cv[name] = cv["y"] + off.get(name, 0.1)
    data = SeriesData(df=pd.concat(hist, ignore_index=True), freq=1, m=1, h=h)
    return A.CVResult(cv=cv, scores=pd.DataFrame(), models=[]), data


def test_auto_policy_switches_only_on_a_clear_pooled_cv_gain():
    bad_arima = {"AutoARIMA": 9.0, "AutoTheta": 0.5}  # spoils the SCUM mean; the median shrugs it off
    sel = A.select_combination(*_cv_panel(6, bad_arima))
    assert sel.name == "SCUM median" and sel.series == 6 and "over 6 series" in sel.reason
    assert sel.cv.loc["SCUM median", "smape"] < 0.98 * sel.cv.loc[A.DEFAULT_COMBINATION, "smape"]
    small = A.select_combination(*_cv_panel(A.SWITCH_MIN_SERIES - 1, bad_arima))
    assert small.name == A.DEFAULT_COMBINATION and "fewer than" in small.reason
    close = A.select_combination(*_cv_panel(6, {"AutoARIMA": 0.102}))  # within SWITCH_GAIN: keep the default
    assert close.name == A.DEFAULT_COMBINATION == "SCUM mean" and close.how == "mean"
    assert close.members == ("AutoETS", "AutoCES", "DynamicOptimizedTheta", "AutoARIMA")


def test_interval_factors_scale_the_conformal_half_widths_per_level():
    cv, data = _cv_panel(6, {"AutoETS": 2.0})
    steps = np.arange(4)
    plain = A.calibrate(cv, data, "AutoETS")
    assert plain.factor == {}
    scaled = A.calibrate(cv, data, "AutoETS", factors={80: 0.5, 95: 2.0})
    for lv, f in ((80, 0.5), (95, 2.0)):
        np.testing.assert_allclose(scaled.halfwidth(lv, steps), plain.halfwidth(lv, steps) * f)


def test_a_rule_switches_among_its_own_combinations_on_pooled_cv():
    bad_dot = {"DynamicOptimizedTheta": 9.0, "AutoTheta": 0.5}  # spoils both means; the median shrugs it off
    sel = A.select_combination(*_cv_panel(6, bad_dot), rule=A.LITE)
    assert sel.name == "ETS+CES+DOT median" and sel.how == "median" and "over 6 series" in sel.reason
    assert "AutoARIMA" not in sel.members and list(sel.cv.index) == list(A.LITE.combinations)
    kept = A.select_combination(*_cv_panel(6, {}), rule=A.LITE)
    assert kept.name == A.LITE.default and kept.reason.startswith("the default")
    only = A.Rule({"ETS alone": (("AutoETS",), "mean")}, default="ETS alone")
    assert A.select_combination(*_cv_panel(6, bad_dot), rule=only).reason == "the rule's only combination"


def test_cv_fitted_once_matches_refitting_in_the_first_window_and_refits_ces(panel):
    sd = load(panel, groupby="store", h=6)
    once = A.cross_validate(sd, ["AutoETS", "AutoCES"], n_windows=2)
    refit = A.cross_validate(sd, ["AutoETS", "AutoCES"], n_windows=2, refit=True)
    keys = ["unique_id", "cutoff", "ds"]
    a, b = (r.cv.sort_values(keys).reset_index(drop=True) for r in (once, refit))
    first = a["cutoff"] == a["cutoff"].min()
    np.testing.assert_allclose(a.loc[first, "AutoETS"], b.loc[first, "AutoETS"], rtol=1e-9)  # the same fit
    assert not np.allclose(a.loc[~first, "AutoETS"], b.loc[~first, "AutoETS"])  # filtered on, not refitted
    np.testing.assert_allclose(a["AutoCES"], b["AutoCES"], rtol=1e-9)  # CES is refitted in every window


def test_the_default_panel_policy_fits_only_its_rule_s_members(panel):
    sd = load(panel, groupby="store", h=6)
    fit = A.panel_fit(sd, n_windows=2)
    assert set(fit.cv.models) == {*A.AUTO.members(), "SeasonalNaive", "Combo"}
    assert fit.selection.name in A.AUTO.combinations and fit.forecasts["mean"].notna().all()
    assert fit.calibration is not None and fit.forecasts["lo_95"].notna().all()
    assert "AutoARIMA" in A.panel_fit(sd, n_windows=1, policy="scum").cv.models  # the previous default, on demand
