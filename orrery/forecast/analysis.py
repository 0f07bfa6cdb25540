"""Numeric bodies of the forecasting tools. Plain typed functions; no LLM involved.

All model fitting goes through statsforecast; statistics through statsmodels.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy.stats import norm
from statsforecast import StatsForecast
from statsmodels.nonparametric.smoothers_lowess import lowess
from statsmodels.tsa.seasonal import MSTL, STL
from statsmodels.tsa.stattools import acf, adfuller, kpss

from orrery.errors import DataError
from orrery.forecast import models as reg
from orrery.forecast.data import SeriesData

Choice = str | Sequence[str]  # one model, or the members of a combination


# --------------------------------------------------------------------------- features


def strength(remainder: np.ndarray, component_plus_remainder: np.ndarray) -> float:
    """Hyndman's strength: 1 - Var(R)/Var(C+R), clipped to [0, 1]."""
    total = float(np.var(component_plus_remainder))
    return 0.0 if total == 0 else float(np.clip(1 - np.var(remainder) / total, 0, 1))


def spectral_entropy(y: np.ndarray) -> float:
    """Normalised Shannon entropy of the periodogram: near 0 = very forecastable, 1 = white noise."""
    x = y - y.mean()
    power = np.abs(np.fft.rfft(x))[1:] ** 2
    if power.sum() == 0 or len(power) < 2:
        return 0.0
    p = power / power.sum()
    return float(-(p[p > 0] * np.log(p[p > 0])).sum() / np.log(len(p)))


def _label(value: float) -> str:
    return "strong" if value >= 0.6 else "moderate" if value >= 0.3 else "weak"


def _intermittency(y: np.ndarray) -> tuple[float, float, str]:
    """Average demand interval, squared CV of non-zero values, and the Syntetos-Boylan class."""
    nonzero = y[y != 0]
    if len(nonzero) == 0:
        return float("inf"), 0.0, "empty"
    adi = len(y) / len(nonzero)
    cv2 = float((nonzero.std() / nonzero.mean()) ** 2) if nonzero.mean() != 0 else 0.0
    kind = {(False, False): "smooth", (False, True): "erratic", (True, False): "intermittent", (True, True): "lumpy"}
    return float(adi), cv2, kind[(adi > 1.32, cv2 > 0.49)]


def features(y: np.ndarray, m: int) -> dict[str, Any]:
    """Trend & seasonal strength, autocorrelation, spectral entropy, intermittency and a model shortlist."""
    y = np.asarray(y, dtype=float)
    parts = decompose(y, m)
    trend = strength(parts["resid"].to_numpy(), (parts["trend"] + parts["resid"]).to_numpy())
    season = strength(parts["resid"].to_numpy(), (parts["seasonal"] + parts["resid"]).to_numpy()) if m > 1 else 0.0
    nlags = min(max(10, m), len(y) - 2)
    r = acf(y, nlags=nlags, fft=True)
    rd = acf(np.diff(y), nlags=1, fft=True)
    adi, cv2, kind = _intermittency(y)
    out: dict[str, Any] = {
        "n": len(y),
        "m": m,
        "mean": float(y.mean()),
        "std": float(y.std()),
        "min": float(y.min()),
        "max": float(y.max()),
        "zero_share": float((y == 0).mean()),
        "trend_strength": trend,
        "seasonal_strength": season,
        "trend": _label(trend),
        "seasonality": _label(season) if m > 1 else "none",
        "acf1": float(r[1]),
        "acf10_sum_sq": float((r[1:11] ** 2).sum()),
        "seasonal_acf": float(r[m]) if 1 < m <= nlags else None,
        "diff_acf1": float(rd[1]),
        "entropy": spectral_entropy(y),
        "adi": adi,
        "cv2": cv2,
        "demand_class": kind,
    }
    out["suggested_models"] = suggest_models(out)
    return out


def suggest_models(f: Mapping[str, Any]) -> list[str]:
    """A feature-driven shortlist (the baseline is always added by cross_validate)."""
    if f["demand_class"] in ("intermittent", "lumpy"):
        return ["CrostonOptimized", "ADIDA", "IMAPA", "TSB", "Naive"]
    picks = ["AutoETS", "AutoTheta", "AutoCES", "AutoARIMA"]
    if f["seasonality"] in ("strong", "moderate"):
        picks += ["MSTL", "HoltWinters"]
    if f["trend"] == "strong":
        picks += ["Holt", "RandomWalkWithDrift"]
    return picks


# --------------------------------------------------------------------------- decomposition & tests


def decompose(y: np.ndarray, m: int | Sequence[int]) -> pd.DataFrame:
    """STL (one period) or MSTL (several) decomposition; LOWESS trend when there is no seasonality."""
    y = np.asarray(y, dtype=float)
    periods = [p for p in ([m] if isinstance(m, int) else list(m)) if p > 1]
    usable = [p for p in periods if len(y) >= 2 * p + 1]
    if len(usable) < len(periods):
        raise DataError(f"series of {len(y)} observations is too short to decompose with periods {periods}; "
                        "need at least two full cycles of each")
    out = pd.DataFrame({"observed": y})
    if not usable:
        out["trend"] = lowess(y, np.arange(len(y)), frac=min(1.0, max(0.2, 7 / len(y))), return_sorted=False)
        out["seasonal"] = 0.0
    elif len(usable) == 1:
        fit = STL(y, period=usable[0], robust=True).fit()
        out["trend"], out["seasonal"] = fit.trend, fit.seasonal
    else:
        fit = MSTL(y, periods=usable).fit()
        seasonal = np.asarray(fit.seasonal).reshape(len(y), -1)
        for i, p in enumerate(usable):
            out[f"seasonal_{p}"] = seasonal[:, i]
        out["trend"], out["seasonal"] = fit.trend, seasonal.sum(axis=1)
    out["resid"] = out["observed"] - out["trend"] - out["seasonal"]
    return out


def unit_root_test(y: np.ndarray, alpha: float = 0.05) -> dict[str, Any]:
    """ADF (H0: unit root) and KPSS (H0: stationary), with a verdict and the differences needed."""
    y = np.asarray(y, dtype=float)
    adf_stat, adf_p = _adf(y)
    kpss_stat, kpss_p = _kpss(y)
    stationary_adf, stationary_kpss = adf_p < alpha, kpss_p >= alpha
    verdict = {
        (True, True): "stationary (both tests agree)",
        (False, False): "non-stationary (both tests agree); difference the series",
        (True, False): "difference-stationary around a trend is possible: ADF rejects a unit root but KPSS rejects stationarity",
        (False, True): "inconclusive: neither test rejects its null; the series may be short or near a unit root",
    }[(stationary_adf, stationary_kpss)]
    return {
        "adf_statistic": adf_stat,
        "adf_pvalue": adf_p,
        "kpss_statistic": kpss_stat,
        "kpss_pvalue": kpss_p,
        "stationary": stationary_adf and stationary_kpss,
        "verdict": verdict,
        "ndiffs": ndiffs(y, alpha),
    }


def _adf(y: np.ndarray) -> tuple[float, float]:
    stat, p, *_ = adfuller(y, autolag="AIC", result_object=False)
    return float(stat), float(p)


def _kpss(y: np.ndarray) -> tuple[float, float]:
    with warnings.catch_warnings():  # p-values outside the table are clipped; that is expected, not a failure
        warnings.simplefilter("ignore")
        stat, p, *_ = kpss(y, regression="c", nlags="auto")
    return float(stat), float(p)


def ndiffs(y: np.ndarray, alpha: float = 0.05, max_d: int = 2) -> int:
    """Number of first differences until KPSS stops rejecting stationarity."""
    for d in range(max_d + 1):
        if len(y) < 8 or _kpss(y)[1] >= alpha:
            return d
        y = np.diff(y)
    return max_d


# --------------------------------------------------------------------------- cross-validation


@dataclass
class CVResult:
    """Rolling-origin cross-validation: raw predictions and MASE per (series, window, model)."""

    cv: pd.DataFrame  # unique_id, ds, cutoff, y, <model columns>
    scores: pd.DataFrame  # unique_id, cutoff, model, mase, smape
    models: list[str]
    combo_members: dict[str, list[str]] = field(default_factory=dict)  # series id -> members of Combo

    def table(self) -> pd.DataFrame:
        """Model x window MASE (averaged over series), plus the mean, sorted best first."""
        wide = self.scores.pivot_table(index="model", columns="cutoff", values="mase", aggfunc="mean")
        wide.columns = [f"window_{i + 1}" for i in range(wide.shape[1])]
        wide["mean"] = wide.mean(axis=1)
        return wide.sort_values("mean")

    def mean_mase(self) -> dict[str, float]:
        return {k: float(v) for k, v in self.table()["mean"].items()}

    def best(self) -> str:
        return str(self.table().index[0])

    def best_per_series(self, allow_combo: bool = True) -> pd.Series:
        per = self.scores.groupby(["unique_id", "model"])["mase"].mean().unstack()
        if not allow_combo and reg.COMBO in per.columns:
            per = per.drop(columns=reg.COMBO)
        return per.idxmin(axis=1)

    def beats_baseline(self) -> bool:
        means = self.mean_mase()
        return means[self.best()] < means[reg.BASELINE]


def mase_scale(df: pd.DataFrame, cutoffs: pd.DataFrame, m: int) -> pd.DataFrame:
    """In-sample mean |y_t - y_{t-m}| of each series up to each cutoff (lag 1 when the history is too short)."""
    lag = df.groupby("unique_id", sort=False)["y"]
    diffs = df[["unique_id", "ds"]].assign(s=(df["y"] - lag.shift(m)).abs(), d1=(df["y"] - lag.shift(1)).abs())
    joined = cutoffs.merge(diffs, on="unique_id")
    joined = joined[joined["ds"] <= joined["cutoff"]]
    scale = joined.groupby(["unique_id", "cutoff"]).agg(s=("s", "mean"), d1=("d1", "mean")).reset_index()
    scale["scale"] = scale["s"].fillna(scale["d1"])
    return scale[["unique_id", "cutoff", "scale"]]


def score_cv(cv: pd.DataFrame, df: pd.DataFrame, models: Sequence[str], m: int) -> pd.DataFrame:
    """MASE and sMAPE of every model in every window of every series."""
    cutoffs = cv[["unique_id", "cutoff"]].drop_duplicates()
    scale = mase_scale(df, cutoffs, m)
    y = cv["y"].to_numpy()
    frames = []
    for model in models:
        f = cv[model].to_numpy()
        part = cv[["unique_id", "cutoff"]].assign(ae=np.abs(y - f), sape=200 * np.abs(y - f) / (np.abs(y) + np.abs(f)))
        agg = part.groupby(["unique_id", "cutoff"], sort=False).agg(mae=("ae", "mean"), smape=("sape", "mean"))
        frames.append(agg.reset_index().assign(model=model))
    scores = pd.concat(frames).merge(scale, on=["unique_id", "cutoff"])
    scores["mase"] = scores["mae"] / scores["scale"].replace(0, np.nan)
    return scores[["unique_id", "cutoff", "model", "mase", "smape"]].reset_index(drop=True)


def _run(data: SeriesData, names: Sequence[str], n_jobs: int, client: Any, method: str, **kw: Any) -> pd.DataFrame:
    """Call a StatsForecast method locally (n_jobs processes) or on a Dask cluster (fugue backend)."""
    sf = StatsForecast(models=reg.build(names, data.m, kw.get("h", data.h)), freq=data.freq, n_jobs=n_jobs)
    if client is None:
        return getattr(sf, method)(df=data.df, **kw)
    import dask.dataframe as dd

    workers = max(1, len(client.scheduler_info()["workers"]))
    ddf = dd.from_pandas(data.df, npartitions=min(data.df["unique_id"].nunique(), 4 * workers))
    out = getattr(sf, method)(df=ddf, **kw).compute()
    floats = [c for c in out.columns if c not in ("unique_id", "ds", "cutoff")]
    out[floats] = out[floats].astype("float64")
    out["unique_id"] = out["unique_id"].astype(str)
    out["ds"] = out["ds"].astype(data.df["ds"].dtype)
    if "cutoff" in out.columns:
        out["cutoff"] = out["cutoff"].astype(data.df["ds"].dtype)
    return out.sort_values(["unique_id", "ds"] + (["cutoff"] if "cutoff" in out else [])).reset_index(drop=True)


def cross_validate(
    data: SeriesData,
    models: Sequence[str] = reg.DEFAULT_CANDIDATES,
    *,
    n_windows: int = 3,
    h: int | None = None,
    combo_k: int = 0,
    combo_how: Literal["mean", "median"] = "mean",
    n_jobs: int = 1,
    client: Any = None,
) -> CVResult:
    """Rolling-origin CV with `n_windows` windows of `h`; SeasonalNaive is always included.

    With combo_k >= 2 a `Combo` model is added: per series, the mean (or median) of the k models with
    the lowest CV MASE. Its CV score is in-sample with respect to that selection, so slightly optimistic.
    """
    h = h or data.h
    names = _with_baseline([reg.resolve(n) for n in models if reg.resolve(n) != reg.COMBO])
    shortest = int(data.df.groupby("unique_id").size().min())
    if shortest < h * n_windows + max(3, data.m):
        raise DataError(f"the shortest series has {shortest} observations: too short for {n_windows} CV windows "
                        f"of h={h} with m={data.m}; lower n_windows or h")
    cv = _run(data, names, n_jobs, client, "cross_validation", h=h, n_windows=n_windows, step_size=h)
    scores = score_cv(cv, data.df, names, data.m)
    members: dict[str, list[str]] = {}
    if combo_k >= 2:
        members = top_k(scores, combo_k)
        cv = add_combo(cv, members, combo_how)
        scores = pd.concat([scores, score_cv(cv, data.df, [reg.COMBO], data.m)], ignore_index=True)
        names.append(reg.COMBO)
    return CVResult(cv=cv, scores=scores, models=names, combo_members=members)


def _with_baseline(names: list[str]) -> list[str]:
    unique = list(dict.fromkeys(names))
    return unique if reg.BASELINE in unique else [*unique, reg.BASELINE]


def top_k(scores: pd.DataFrame, k: int) -> dict[str, list[str]]:
    """Per series, the k models with the lowest mean CV MASE."""
    per = scores[scores["model"] != reg.COMBO].groupby(["unique_id", "model"])["mase"].mean().reset_index()
    per = per.sort_values(["unique_id", "mase", "model"])
    return {str(uid): list(g["model"].head(k)) for uid, g in per.groupby("unique_id", sort=False)}


def panel_top_k(cv: CVResult, k: int) -> list[str]:
    """The k models with the lowest MASE averaged over all series and windows (Combo excluded)."""
    return [m for m in cv.table().index if m != reg.COMBO][:k]


def add_combo(frame: pd.DataFrame, members: Mapping[str, Sequence[str]], how: Literal["mean", "median"] = "mean",
              levels: Sequence[int] = ()) -> pd.DataFrame:
    """Add Combo columns, each series combining its own members."""
    parts = [reg.combine(g, members[str(uid)], how, levels=levels) for uid, g in frame.groupby("unique_id", sort=False)]
    return pd.concat(parts).loc[frame.index]


# --------------------------------------------------------------------------- interval calibration


@dataclass
class Calibration:
    """Pooled split-conformal interval half-widths, in units of each series' MASE scale.

    `quantiles[level][j]` is the conformal quantile of |y - forecast| / scale at horizon step j + 1 over all
    series and CV windows (scale: the series' in-sample mean absolute seasonal difference at the window's
    cutoff, so scores of series of different size are comparable). NaN where a step has too few scores for
    that level; there the model's own bounds are kept.
    """

    quantiles: dict[int, np.ndarray]
    n_scores: np.ndarray  # scores per horizon step

    def halfwidth(self, level: int, step: np.ndarray) -> np.ndarray:
        q = self.quantiles[level]
        out = np.full(len(step), np.nan)
        ok = step < len(q)
        out[ok] = q[step[ok]]
        return out


def conformal_quantile(scores: np.ndarray, level: float) -> float:
    """Split-conformal quantile: the ceil((n+1) * level)-th smallest score; NaN if n is too small for it."""
    scores = np.sort(scores[np.isfinite(scores)])
    rank = int(np.ceil((len(scores) + 1) * level / 100))
    return float(scores[rank - 1]) if 1 <= rank <= len(scores) else float("nan")


def calibrate(cv: CVResult, data: SeriesData, choice: Choice | Mapping[str, Choice],
              how: Literal["mean", "median"] = "mean", levels: Sequence[int] = reg.LEVELS) -> Calibration:
    """Learn interval half-widths from the CV errors of `choice` (a model, members, or a per-series mapping).

    Uses only the rolling-origin CV windows, i.e. training data. Written here rather than with statsforecast's
    ConformalIntervals because that one is per series over its own n_windows (1-2 windows on short series leave
    1-2 scores per step, too few for a 95% quantile) and cannot pool scaled errors across a panel.
    """
    per_series = {uid: choice for uid in data.ids} if not isinstance(choice, Mapping) else dict(choice)
    frame = cv.cv.sort_values(["unique_id", "cutoff", "ds"])
    frame = add_combo(frame, {str(u): _members(c) for u, c in per_series.items()}, how)
    frame = frame.assign(step=frame.groupby(["unique_id", "cutoff"], sort=False).cumcount())
    scale = mase_scale(data.df, frame[["unique_id", "cutoff"]].drop_duplicates(), data.m)
    frame = frame.merge(scale, on=["unique_id", "cutoff"])
    frame["score"] = (frame["y"] - frame[reg.COMBO]).abs() / frame["scale"].replace(0, np.nan)
    steps = [g["score"].to_numpy(dtype=float) for _, g in frame.groupby("step", sort=True)]
    return Calibration(quantiles={lv: np.array([conformal_quantile(s, lv) for s in steps]) for lv in levels},
                       n_scores=np.array([int(np.isfinite(s).sum()) for s in steps]))


def calibrated(frame: pd.DataFrame, cal: Calibration, data: SeriesData, point: str = "mean",
               bound: str = "{side}_{level}", levels: Sequence[int] = reg.LEVELS) -> pd.DataFrame:
    """Replace the interval bounds of `point` by point +/- halfwidth * scale (point forecasts untouched).

    `frame` holds h rows per series in ds order after the training data; `bound` names the bound columns.
    """
    cutoffs = data.df.groupby("unique_id", as_index=False)["ds"].max().rename(columns={"ds": "cutoff"})
    scale = mase_scale(data.df, cutoffs, data.m).set_index("unique_id")["scale"]
    out = frame.sort_values(["unique_id", "ds"]).copy()
    step = out.groupby("unique_id", sort=False).cumcount().to_numpy()
    s = out["unique_id"].astype(str).map(scale).to_numpy(dtype=float)
    f = out[point].to_numpy(dtype=float)
    for lv in levels:
        width = cal.halfwidth(lv, step) * s
        ok = np.isfinite(width)
        lo, hi = bound.format(side="lo", level=lv), bound.format(side="hi", level=lv)
        out[lo] = np.where(ok, f - width, out[lo].to_numpy(dtype=float))
        out[hi] = np.where(ok, f + width, out[hi].to_numpy(dtype=float))
    return out.loc[frame.index]


# --------------------------------------------------------------------------- forecasting


def forecast(
    data: SeriesData,
    choice: Choice | Mapping[str, Choice],
    *,
    h: int | None = None,
    levels: Sequence[int] = reg.LEVELS,
    combo_how: Literal["mean", "median"] = "mean",
    calibration: Calibration | None = None,
    n_jobs: int = 1,
    client: Any = None,
) -> pd.DataFrame:
    """Point forecasts and intervals in tidy form: unique_id, ds, model, mean, lo_80, hi_80, lo_95, hi_95.

    `choice` is a model name, a list of names to combine, or a per-series mapping of either. Without
    `calibration` the intervals are the model's own (a combination averages its members' bounds, which is too
    narrow); with one (see `calibrate`) they are conformal intervals learned from CV errors.
    """
    h = h or data.h
    per_series = {uid: choice for uid in data.ids} if not isinstance(choice, Mapping) else dict(choice)
    missing = set(data.ids) - set(per_series)
    if missing:
        raise ValueError(f"no model chosen for series {sorted(missing)[:3]}")
    members = {uid: _members(c) for uid, c in per_series.items()}
    names = list(dict.fromkeys(n for ms in members.values() for n in ms))
    need = reg.min_length_for_intervals(names, h) if levels else 0
    shortest = int(data.df.groupby("unique_id").size().min())
    if shortest < need:
        raise DataError(f"conformal intervals for {names} need {need} observations (shortest series: {shortest}); "
                        "pick a model with native intervals or a smaller h")
    raw = forecast_all(data, names, h=h, levels=levels, n_jobs=n_jobs, client=client)
    raw = add_combo(raw, members, combo_how, levels)
    out = tidy(raw, per_series, levels)
    return calibrated(out, calibration, data, levels=levels) if calibration is not None and levels else out


def forecast_all(data: SeriesData, names: Sequence[str], *, h: int | None = None,
                 levels: Sequence[int] = reg.LEVELS, n_jobs: int = 1, client: Any = None) -> pd.DataFrame:
    """statsforecast's wide forecast frame: one column per model plus <model>-lo-<level>/-hi-<level>."""
    kw: dict[str, Any] = {"h": h or data.h} | ({"level": list(levels)} if levels else {})
    return _run(data, [reg.resolve(n) for n in names], n_jobs, client, "forecast", **kw)


def _members(choice: Choice) -> list[str]:
    return [reg.resolve(choice)] if isinstance(choice, str) else [reg.resolve(c) for c in choice]


def tidy(raw: pd.DataFrame, per_series: Mapping[str, Choice], levels: Sequence[int]) -> pd.DataFrame:
    """Pick each series' chosen columns (single model, or the Combo of its members)."""
    rows = []
    for uid, g in raw.groupby("unique_id", sort=False):
        c = per_series[str(uid)]
        col = reg.resolve(c) if isinstance(c, str) else reg.COMBO
        label = col if isinstance(c, str) else f"{combo_label(c)}"
        part = pd.DataFrame({"unique_id": uid, "ds": g["ds"].to_numpy(), "model": label, "mean": g[col].to_numpy()})
        for lv in levels:
            part[f"lo_{lv}"] = g[f"{col}-lo-{lv}"].to_numpy()
            part[f"hi_{lv}"] = g[f"{col}-hi-{lv}"].to_numpy()
        rows.append(part)
    return pd.concat(rows, ignore_index=True)


def combo_label(members: Sequence[str]) -> str:
    return f"{reg.COMBO}({'+'.join(reg.resolve(m) for m in members)})"


# --------------------------------------------------------------------------- anomalies


def fitted_values(data: SeriesData, choice: Choice, n_jobs: int = 1) -> pd.DataFrame:
    """In-sample one-step fitted values: unique_id, ds, y, fitted."""
    names = _members(choice)
    sf = StatsForecast(models=reg.build(names, data.m, 1), freq=data.freq, n_jobs=n_jobs)
    sf.forecast(df=data.df, h=1, fitted=True)
    fv = sf.forecast_fitted_values()
    fitted = fv[names].to_numpy(dtype=float).mean(axis=1)
    return pd.DataFrame({"unique_id": fv["unique_id"], "ds": fv["ds"], "y": fv["y"], "fitted": fitted})


def detect_anomalies(data: SeriesData, choice: Choice, level: float = 99, n_jobs: int = 1) -> pd.DataFrame:
    """Flag observations whose in-sample residual falls outside the `level`% interval.

    The interval is fitted +/- z * sigma with sigma the robust (MAD) scale of the series' residuals,
    so the anomalies themselves do not widen it. Returns every point with lo, hi, score and an anomaly flag.
    """
    fv = fitted_values(data, choice, n_jobs)
    fv["residual"] = fv["y"] - fv["fitted"]
    z = float(norm.ppf(0.5 + level / 200))
    sigma = fv.groupby("unique_id")["residual"].transform(_robust_sigma)
    fv["lo"], fv["hi"] = fv["fitted"] - z * sigma, fv["fitted"] + z * sigma
    fv["score"] = (fv["residual"] / sigma).abs()
    fv["anomaly"] = fv["residual"].notna() & (fv["score"] > z)
    return fv.reset_index(drop=True)


def _robust_sigma(r: pd.Series) -> float:
    r = r.dropna()
    mad = 1.4826 * float(np.median(np.abs(r - r.median())))
    return mad if mad > 0 else float(r.std())


# --------------------------------------------------------------------------- information criteria


INFO_CRITERIA = ("aic", "aicc", "bic")


def compare_models(data: SeriesData, models: Sequence[str] = ("AutoARIMA", "AutoETS", "AutoCES"),
                   uid: str | None = None) -> pd.DataFrame:
    """AIC/AICc/BIC of each model fitted to one series (None where a model has no likelihood).

    Criteria compare models of one family on the same data; across families they are indicative only.
    """
    names = [reg.resolve(n) for n in models]
    one = SeriesData(df=data.series(uid), freq=data.freq, m=data.m, h=data.h)
    sf = StatsForecast(models=reg.build(names, one.m, one.h), freq=one.freq, n_jobs=1).fit(df=one.df)
    rows = []
    for j, name in enumerate(names):
        fitted = sf.fitted_[0, j].model_
        info = fitted if isinstance(fitted, dict) else {}
        rows.append({"model": name} | {k: _ic(info.get(k)) for k in INFO_CRITERIA})
    return pd.DataFrame(rows).sort_values("aicc", na_position="last").reset_index(drop=True)


def _ic(value: Any) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


# --------------------------------------------------------------------------- panels


def panel_analyze(data: SeriesData) -> pd.DataFrame:
    """Features of every series (one row each), for grouping series before fitting."""
    rows = [{"unique_id": uid} | features(g["y"].to_numpy(), data.m) for uid, g in data.df.groupby("unique_id")]
    return pd.DataFrame(rows)


@dataclass
class PanelFit:
    cv: CVResult
    choice: dict[str, Choice]  # series id -> model name, or combo members
    forecasts: pd.DataFrame  # tidy, one model per series
    calibration: Calibration | None = None  # conformal half-widths used for the intervals, if calibrated

    def summary(self) -> pd.DataFrame:
        """How often each model won, and the mean MASE of the chosen models vs the baseline."""
        per = self.cv.scores.groupby(["unique_id", "model"])["mase"].mean().unstack()
        chosen = pd.Series({u: per.loc[u, _column(c)] for u, c in self.choice.items()})
        labels = pd.Series({u: _column(c) for u, c in self.choice.items()})
        counts = labels.value_counts().rename("series").to_frame()
        counts["share"] = counts["series"] / len(labels)
        counts.attrs = {"mase_selected": float(chosen.mean()), "mase_baseline": float(per[reg.BASELINE].mean()),
                        "share_beating_baseline": float((chosen < per[reg.BASELINE]).mean())}
        return counts


def _with_combo(cv: CVResult, data: SeriesData, members: dict[str, list[str]],
                how: Literal["mean", "median"]) -> CVResult:
    """`cv` plus a scored Combo of the given members per series."""
    frame = add_combo(cv.cv, members, how)
    scores = pd.concat([cv.scores, score_cv(frame, data.df, [reg.COMBO], data.m)], ignore_index=True)
    return CVResult(cv=frame, scores=scores, models=[*cv.models, reg.COMBO], combo_members=members)


def _column(choice: Choice) -> str:
    return choice if isinstance(choice, str) else reg.COMBO


def panel_fit(
    data: SeriesData,
    models: Sequence[str] = reg.DEFAULT_CANDIDATES,
    *,
    n_windows: int = 2,
    combo_k: int = 0,
    policy: Literal["best", "combo", "panel_combo"] = "best",
    combo_how: Literal["mean", "median"] = "mean",
    levels: Sequence[int] = reg.LEVELS,
    calibrate_intervals: bool = True,
    n_jobs: int = 1,
    client: Any = None,
) -> PanelFit:
    """Cross-validate every model on every series, pick what to forecast with, forecast.

    Policies: "best" keeps each series' lowest-MASE model (Combo included when combo_k >= 2); "combo" uses
    each series' own best-k mean; "panel_combo" uses, for every series, the mean of the k models with the
    lowest MASE averaged over the whole panel (stabler than per-series picks on short series; k = combo_k or 3).
    With `calibrate_intervals` (default) the intervals are conformal: half-widths per horizon step from the CV
    errors of the chosen forecasts pooled over the panel (see `calibrate`); levels with too few CV errors keep
    the models' own bounds. `n_jobs=-1` uses all cores; pass a `distributed.Client` to run the same work on a
    Dask cluster.
    """
    cv = cross_validate(data, models, n_windows=n_windows, combo_k=0 if policy == "panel_combo" else combo_k,
                        combo_how=combo_how, n_jobs=n_jobs, client=client)
    if policy == "panel_combo":
        members = panel_top_k(cv, combo_k if combo_k >= 2 else 3)
        choice: dict[str, Choice] = {uid: members for uid in data.ids}
        cv = _with_combo(cv, data, dict.fromkeys(data.ids, members), combo_how)
    elif policy == "combo" and combo_k >= 2:
        choice = dict(cv.combo_members.items())
    else:
        best = cv.best_per_series(allow_combo=combo_k >= 2)
        choice = {str(u): (cv.combo_members[str(u)] if b == reg.COMBO else str(b)) for u, b in best.items()}
    cal = calibrate(cv, data, choice, combo_how, levels) if calibrate_intervals and levels else None
    fc = forecast(data, choice, levels=levels, combo_how=combo_how, calibration=cal, n_jobs=n_jobs, client=client)
    return PanelFit(cv=cv, choice=choice, forecasts=fc, calibration=cal)
