"""Numeric bodies of the forecasting tools. Plain typed functions; no LLM involved.

All model fitting goes through statsforecast; statistics through statsmodels. The one-series helpers the other
apps share too (features, decomposition, anomaly bands) live in orrery.timeseries.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
import pandas as pd
from statsforecast import StatsForecast
from statsmodels.tsa.stattools import adfuller, kpss

from orrery import timeseries as ts
from orrery.events import stage
from orrery.forecast import models as reg
from orrery.forecast.data import SeriesData
from orrery.forecast.plan import FALLBACK, Note, Progress, Runner, notes_frame
from orrery.timeseries import decompose, spectral_entropy, strength  # noqa: F401  (the forecast tools' names)

Choice = str | Sequence[str]  # one model, or the members of a combination


# --------------------------------------------------------------------------- features


def features(y: np.ndarray, m: int) -> dict[str, Any]:
    """Trend & seasonal strength, autocorrelation, spectral entropy, intermittency (orrery.timeseries) and a
    model shortlist."""
    out = ts.features(y, m)
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


def unit_root_test(y: np.ndarray, alpha: float = 0.05) -> dict[str, Any]:
    """ADF (H0: unit root) and KPSS (H0: stationary), with a verdict and the differences needed."""
    y = np.asarray(y, dtype=float)
    adf_stat, adf_p = _adf(y)
    kpss_stat, kpss_p = _kpss(y)
    stationary_adf, stationary_kpss = adf_p < alpha, kpss_p >= alpha
    verdict = {
        (True, True): "stationary (both tests agree)",
        (False, False): "non-stationary (both tests agree); difference the series",
        (
            True,
            False,
        ): "difference-stationary around a trend is possible: ADF rejects a unit root but KPSS rejects stationarity",
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
    """Rolling-origin cross-validation: raw predictions and MASE per (series, window, model).

    Each series gets as many windows as its length allows (`windows`; 0 = not cross-validated) and only the
    models it is long enough for; `notes` says what was skipped or failed and why. Windows are numbered so
    that every series' last window is the last column of `table()`.
    """

    cv: pd.DataFrame  # unique_id, ds, cutoff, y, <model columns>
    scores: pd.DataFrame  # unique_id, cutoff, window, model, mase, smape
    models: list[str]
    combo_members: dict[str, list[str]] = field(default_factory=dict)  # series id -> members of Combo
    windows: dict[str, int] = field(default_factory=dict)  # series id -> CV windows its length allowed
    notes: list[Note] = field(default_factory=list)

    def table(self) -> pd.DataFrame:
        """Model x window MASE (averaged over series), plus the mean over all scores, sorted best first."""
        if self.scores.empty:
            return pd.DataFrame(columns=["mean"], dtype=float)
        wide = self.scores.pivot_table(index="model", columns="window", values="mase", aggfunc="mean")
        wide.columns = [f"window_{int(i)}" for i in wide.columns]
        wide["mean"] = self.scores.groupby("model")["mase"].mean()
        return wide.sort_values("mean")

    def mean_mase(self) -> dict[str, float]:
        return {k: float(v) for k, v in self.table()["mean"].items()}

    def best(self) -> str | None:
        table = self.table()
        return str(table.index[0]) if len(table) else None

    def best_per_series(self, allow_combo: bool = True) -> pd.Series:
        per = self.scores.groupby(["unique_id", "model"])["mase"].mean().unstack()
        if not allow_combo and reg.COMBO in per.columns:
            per = per.drop(columns=reg.COMBO)
        return per.dropna(how="all").idxmin(axis=1)

    def beats_baseline(self) -> bool:
        means, best = self.mean_mase(), self.best()
        return best is not None and reg.BASELINE in means and means[best] < means[reg.BASELINE]

    def notes_frame(self) -> pd.DataFrame:
        return notes_frame(self.notes)


def mase_scale(df: pd.DataFrame, cutoffs: pd.DataFrame, m: int) -> pd.DataFrame:
    """In-sample mean |y_t - y_{t-m}| of each series up to each cutoff (lag 1 when the history is too short)."""
    lag = df.groupby("unique_id", sort=False)["y"]
    diffs = df[["unique_id", "ds"]].assign(s=(df["y"] - lag.shift(m)).abs(), d1=(df["y"] - lag.shift(1)).abs())
    joined = cutoffs.merge(diffs, on="unique_id")
    joined = joined[joined["ds"] <= joined["cutoff"]]
    scale = joined.groupby(["unique_id", "cutoff"]).agg(s=("s", "mean"), d1=("d1", "mean")).reset_index()
    scale["scale"] = scale["s"].fillna(scale["d1"])
    return scale[["unique_id", "cutoff", "scale"]]


SCORE_COLUMNS = ["unique_id", "cutoff", "window", "model", "mase", "smape"]


def score_cv(cv: pd.DataFrame, df: pd.DataFrame, models: Sequence[str], m: int) -> pd.DataFrame:
    """MASE and sMAPE of every model in every window of every series (skipped or failed fits have no row)."""
    if cv.empty:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    cutoffs = cv[["unique_id", "cutoff"]].drop_duplicates()
    scale = mase_scale(df, cutoffs, m)
    y = cv["y"].to_numpy()
    frames = []
    for model in models:
        f = cv[model].to_numpy(dtype=float)
        part = cv[["unique_id", "cutoff"]].assign(ae=np.abs(y - f), sape=200 * np.abs(y - f) / (np.abs(y) + np.abs(f)))
        agg = part.groupby(["unique_id", "cutoff"], sort=False).agg(mae=("ae", "mean"), smape=("sape", "mean"))
        frames.append(agg.reset_index().assign(model=model))
    scores = pd.concat(frames).merge(scale, on=["unique_id", "cutoff"])
    scores["mase"] = scores["mae"] / scores["scale"].replace(0, np.nan)
    scores = scores.dropna(subset=["mase"])
    order = scores.groupby("unique_id")["cutoff"].rank(method="dense")
    count = scores.groupby("unique_id")["cutoff"].transform("nunique")
    scores["window"] = (order + count.max() - count).astype(int)  # every series' last window aligned
    return scores[SCORE_COLUMNS].reset_index(drop=True)


def cross_validate(
    data: SeriesData,
    models: Sequence[str] = reg.DEFAULT_CANDIDATES,
    *,
    n_windows: int = 3,
    h: int | None = None,
    combo_k: int = 0,
    combo_how: Literal["mean", "median"] = "mean",
    refit: bool = False,
    n_jobs: int = 1,
    client: Any = None,
    on_progress: Progress | None = None,
) -> CVResult:
    """Rolling-origin CV with up to `n_windows` windows of `h` per series; SeasonalNaive is always included.

    A series gets as many windows as its length allows (see plan.cv_windows), none when it is too short; a
    model is skipped on series too short for it and a failing fit is recorded, so a panel never stops.
    With combo_k >= 2 a `Combo` model is added: per series, the mean (or median) of the k models with
    the lowest CV MASE. Its CV score is in-sample with respect to that selection, so slightly optimistic.
    With `refit=False` (default) a model is fitted once per series, at its first cutoff, and filtered on through
    the later windows (statsforecast's refit=False): one fit instead of one per window. Models without a usable
    `forward` (ModelSpec.forward) are refitted per window.
    """
    h = h or data.h
    names = _with_baseline([reg.resolve(n) for n in models if reg.resolve(n) != reg.COMBO])
    runner = Runner(data.freq, h, n_jobs=n_jobs, client=client, on_progress=on_progress, refit=refit)
    with stage("cross_validate", models=names, n_windows=n_windows, h=h, series=len(data.ids), refit=refit) as s:
        cv, notes, windows = runner.run(data.df, names, data.m, stage="cv", n_windows=n_windows)
        scores = score_cv(cv, data.df, names, data.m)
        result = CVResult(cv=cv, scores=scores, models=names, windows=windows, notes=notes)
        if combo_k >= 2 and not scores.empty:
            result = with_combo(result, data, top_k(scores, combo_k), combo_how)
        s.set(best=result.best() or "", notes=len(result.notes))
    return result


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


def add_combo(
    frame: pd.DataFrame,
    members: Mapping[str, Sequence[str]],
    how: Literal["mean", "median"] = "mean",
    levels: Sequence[int] = (),
) -> pd.DataFrame:
    """Add Combo columns, each series combining its own members (members without a value are left out)."""
    if frame.empty:
        return frame.assign(**{reg.COMBO: np.nan})
    parts = [reg.combine(g, members[str(uid)], how, levels=levels) for uid, g in frame.groupby("unique_id", sort=False)]
    return pd.concat(parts).loc[frame.index]


def with_combo(
    cv: CVResult, data: SeriesData, members: Mapping[str, Sequence[str]], how: Literal["mean", "median"]
) -> CVResult:
    """`cv` plus a scored Combo of the given members per series."""
    frame = add_combo(cv.cv, members, how)
    scores = pd.concat([cv.scores, score_cv(frame, data.df, [reg.COMBO], data.m)], ignore_index=True)
    return CVResult(
        cv=frame,
        scores=scores,
        models=[*cv.models, reg.COMBO],
        combo_members={str(k): list(v) for k, v in members.items()},
        windows=cv.windows,
        notes=cv.notes,
    )


# --------------------------------------------------------------------------- interval calibration


def length_bucket(n: int, h: int) -> str:
    """Series are calibrated with others of similar length: errors of short histories are larger."""
    return "short" if n < 4 * h else "medium" if n < 10 * h else "long"


@dataclass
class Calibration:
    """Split-conformal interval half-widths, in units of each series' MASE scale.

    `quantiles[level][j]` is the conformal quantile of |y - forecast| / scale at horizon step j + 1 over all
    series and CV windows (scale: the series' in-sample mean absolute seasonal difference at the window's
    cutoff, so scores of series of different size are comparable); NaN where a step has too few scores.
    There `pooled[level]` is used: the quantile of score / sqrt(j + 1) over all steps, times sqrt(j + 1)
    (errors grow about like a random walk's), which a single series with a few CV windows can afford.
    `buckets` holds the same per length bucket (see `length_bucket`), tried first; where nothing has enough
    scores the model's own bounds are kept. Every half-width is multiplied by `factor[level]` (none by default:
    factors learned on one competition set did not transfer to others; bench/forecast_heldout.md).
    """

    quantiles: dict[int, np.ndarray]
    n_scores: np.ndarray  # scores per horizon step
    pooled: dict[int, float] = field(default_factory=dict)
    buckets: dict[str, Calibration] = field(default_factory=dict)
    factor: dict[int, float] = field(default_factory=dict)

    def halfwidth(self, level: int, step: np.ndarray, bucket: str | None = None) -> np.ndarray:
        step = np.asarray(step)
        out = np.full(len(step), np.nan)
        for cal in [*([self.buckets[bucket]] if bucket in self.buckets else []), self]:
            todo = ~np.isfinite(out)
            out[todo] = cal._own(level, step[todo])
        return out * self.factor.get(level, 1.0)

    def _own(self, level: int, step: np.ndarray) -> np.ndarray:
        q = self.quantiles.get(level, np.array([]))
        complete = np.all([np.isfinite(v) for v in self.quantiles.values()], axis=0) if len(q) else np.array([])
        idx = np.where(step < len(q), step, 0)
        use = (step < len(q)) & (complete[idx] if len(q) else False)
        pooled = self.pooled.get(level, np.nan) * np.sqrt(step + 1)
        return np.where(use, q[idx] if len(q) else np.nan, pooled)


def conformal_quantile(scores: np.ndarray, level: float) -> float:
    """Split-conformal quantile: the ceil((n+1) * level)-th smallest score; NaN if n is too small for it."""
    scores = np.sort(scores[np.isfinite(scores)])
    rank = int(np.ceil((len(scores) + 1) * level / 100))
    return float(scores[rank - 1]) if 1 <= rank <= len(scores) else float("nan")


def calibrate(
    cv: CVResult,
    data: SeriesData,
    choice: Choice | Mapping[str, Choice],
    how: Literal["mean", "median"] = "mean",
    levels: Sequence[int] = reg.LEVELS,
    factors: Mapping[int, float] | None = None,
) -> Calibration:
    """Learn interval half-widths from the CV errors of `choice` (a model, members, or a per-series mapping).

    Split conformal on the rolling-origin CV windows, i.e. training data only; `factors` (level -> factor)
    scales the half-widths, for experiments. Written here rather than with statsforecast's ConformalIntervals
    because that one is per series over its own n_windows (1-2 windows on short series leave 1-2 scores per
    step, too few for a 95% quantile) and cannot pool scaled errors across a panel.
    """
    factor = dict(factors or {})
    per_series = {uid: choice for uid in data.ids} if not isinstance(choice, Mapping) else dict(choice)
    frame = cv.cv.sort_values(["unique_id", "cutoff", "ds"])
    if frame.empty:
        return replace(_calibration(pd.DataFrame({"step": [], "score": []}), levels), factor=factor)
    frame = add_combo(frame, {str(u): _members(c) for u, c in per_series.items()}, how)
    frame = frame.assign(step=frame.groupby(["unique_id", "cutoff"], sort=False).cumcount())
    scale = mase_scale(data.df, frame[["unique_id", "cutoff"]].drop_duplicates(), data.m)
    frame = frame.merge(scale, on=["unique_id", "cutoff"])
    frame["score"] = (frame["y"] - frame[reg.COMBO]).abs() / frame["scale"].replace(0, np.nan)
    sizes = data.df.groupby("unique_id").size()
    frame["bucket"] = frame["unique_id"].map(lambda u: length_bucket(int(sizes[u]), data.h))
    cal = _calibration(frame, levels)
    cal.buckets = {str(b): _calibration(g, levels) for b, g in frame.groupby("bucket")}
    cal.factor = factor
    return cal


def _calibration(frame: pd.DataFrame, levels: Sequence[int]) -> Calibration:
    steps = [g["score"].to_numpy(dtype=float) for _, g in frame.groupby("step", sort=True)]
    normalised = frame["score"].to_numpy(dtype=float) / np.sqrt(frame["step"].to_numpy(dtype=float) + 1)
    return Calibration(
        quantiles={lv: np.array([conformal_quantile(s, lv) for s in steps]) for lv in levels},
        n_scores=np.array([int(np.isfinite(s).sum()) for s in steps]),
        pooled={lv: conformal_quantile(normalised, lv) for lv in levels},
    )


def calibrated(
    frame: pd.DataFrame,
    cal: Calibration,
    data: SeriesData,
    point: str = "mean",
    bound: str = "{side}_{level}",
    levels: Sequence[int] = reg.LEVELS,
) -> pd.DataFrame:
    """Replace the interval bounds of `point` by point +/- halfwidth * scale (point forecasts untouched).

    `frame` holds h rows per series in ds order after the training data; `bound` names the bound columns.
    Wider levels are never narrower than smaller ones.
    """
    cutoffs = data.df.groupby("unique_id", as_index=False)["ds"].max().rename(columns={"ds": "cutoff"})
    scale = mase_scale(data.df, cutoffs, data.m).set_index("unique_id")["scale"]
    sizes = data.df.groupby("unique_id").size()
    out = frame.sort_values(["unique_id", "ds"]).copy()
    step = out.groupby("unique_id", sort=False).cumcount().to_numpy()
    uid = out["unique_id"].astype(str)
    s = uid.map(scale).to_numpy(dtype=float)
    bucket = uid.map(lambda u: length_bucket(int(sizes[u]), data.h)).to_numpy()
    f = out[point].to_numpy(dtype=float)
    widest = np.zeros(len(out))
    prev: tuple[np.ndarray, np.ndarray] | None = None
    for lv in sorted(levels):
        width = np.full(len(out), np.nan)
        for b in np.unique(bucket):
            rows = bucket == b
            width[rows] = cal.halfwidth(lv, step[rows], str(b)) * s[rows]
        ok = np.isfinite(width)
        widest = np.where(ok, np.maximum(widest, width), widest)
        lo, hi = bound.format(side="lo", level=lv), bound.format(side="hi", level=lv)
        lows = np.where(ok, f - widest, out[lo].to_numpy(dtype=float))
        highs = np.where(ok, f + widest, out[hi].to_numpy(dtype=float))
        if prev is not None:  # a level kept at the model's bounds still contains the smaller calibrated one
            lows, highs = np.fmin(lows, prev[0]), np.fmax(highs, prev[1])
        out[lo], out[hi] = lows, highs
        prev = (lows, highs)
    return out.loc[frame.index]


# --------------------------------------------------------------------------- forecasting


@dataclass
class Forecast:
    """Tidy forecasts plus the model each series really got (after skips and fallbacks) and why."""

    frame: pd.DataFrame  # unique_id, ds, model, mean, lo_80, hi_80, lo_95, hi_95
    choice: dict[str, Choice]
    notes: list[Note] = field(default_factory=list)


def forecast(data: SeriesData, choice: Choice | Mapping[str, Choice], **kw: Any) -> pd.DataFrame:
    """Point forecasts and intervals in tidy form (see `fit_forecast`, which also says who got what)."""
    return fit_forecast(data, choice, **kw).frame


def fit_forecast(
    data: SeriesData,
    choice: Choice | Mapping[str, Choice],
    *,
    h: int | None = None,
    levels: Sequence[int] = reg.LEVELS,
    combo_how: Literal["mean", "median"] = "mean",
    calibration: Calibration | None = None,
    n_jobs: int = 1,
    client: Any = None,
    on_progress: Progress | None = None,
) -> Forecast:
    """Forecast every series with its choice: a model name, a list of names to combine, or a per-series mapping.

    Members a series is too short for, or whose fit fails, are left out of its combination; a series left with
    none falls back along plan.FALLBACK (Theta, Naive, the mean), and each such step is a Note. Without
    `calibration` the intervals are the models' own (a combination averages its members' bounds, which is too
    narrow); with one (see `calibrate`) they are conformal intervals learned from CV errors.
    """
    h = h or data.h
    per_series = {uid: choice for uid in data.ids} if not isinstance(choice, Mapping) else dict(choice)
    missing = set(data.ids) - set(per_series)
    if missing:
        raise ValueError(f"no model chosen for series {sorted(missing)[:3]}")
    members = {uid: _members(c) for uid, c in per_series.items()}
    names = list(dict.fromkeys(n for ms in members.values() for n in ms))
    runner = Runner(data.freq, h, n_jobs=n_jobs, client=client, on_progress=on_progress)
    raw, notes, _ = runner.run(data.df, names, data.m, stage="forecast", levels=levels)
    notes = [n for n in notes if not n.model or n.model in members[n.unique_id]]  # only what a series was given
    got = _effective(raw, members)
    lost = [u for u in data.ids if not got.get(u)]
    parts = [tidy(add_combo(raw[~raw["unique_id"].astype(str).isin(lost)], got, combo_how, levels), got, levels)]
    if lost:
        fb_frame, fb_choice, fb_notes = _fall_back(data, lost, members, runner, levels)
        parts.append(fb_frame)
        got |= fb_choice
        notes += fb_notes
    out = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else parts[0]
    if calibration is not None and levels and len(out):
        out = calibrated(out, calibration, data, levels=levels)
    out, blank = _no_false_certainty(out, data, levels)
    notes += [Note(u, "", "forecast", "no interval: too little history to estimate the spread") for u in blank]
    order = {u: i for i, u in enumerate(data.ids)}
    out = out.sort_values(["unique_id", "ds"], key=lambda c: c.map(order) if c.name == "unique_id" else c)
    return Forecast(
        frame=out.reset_index(drop=True),
        choice={u: _simplify(c) for u, c in got.items() if c},
        notes=list(dict.fromkeys(notes)),
    )


def _no_false_certainty(out: pd.DataFrame, data: SeriesData, levels: Sequence[int]) -> tuple[pd.DataFrame, list[str]]:
    """A zero-width interval on a series that is not constant (1-2 points of history) claims a certainty no
    model has: its bounds become NaN instead."""
    if not levels or out.empty:
        return out, []
    cols = [f"{side}_{lv}" for lv in levels for side in ("lo", "hi")]
    width = (out[f"hi_{max(levels)}"] - out[f"lo_{max(levels)}"]).fillna(0).abs()
    flat = width.groupby(out["unique_id"].astype(str)).max() == 0
    blank = [u for u in flat[flat].index if data.flags.get(u) != "constant"]
    out.loc[out["unique_id"].astype(str).isin(blank), cols] = np.nan
    return out, blank


def _effective(raw: pd.DataFrame, members: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """Per series, the members that produced a finite forecast."""
    got: dict[str, list[str]] = {}
    for uid, g in raw.groupby("unique_id", sort=False):
        got[str(uid)] = [mm for mm in members[str(uid)] if np.isfinite(g[mm].to_numpy(dtype=float)).all()]
    return got


def _fall_back(
    data: SeriesData, lost: list[str], members: Mapping[str, list[str]], runner: Runner, levels: Sequence[int]
) -> tuple[pd.DataFrame, dict[str, list[str]], list[Note]]:
    df = data.df[data.df["unique_id"].isin(lost)]
    raw, notes, _ = runner.run(df, list(FALLBACK), data.m, stage="forecast", levels=levels)
    ok = _effective(raw, dict.fromkeys(map(str, raw["unique_id"].unique()), list(FALLBACK)))
    choice = {u: ms[:1] for u, ms in ok.items() if ms}
    notes += [
        Note(u, ms[0], "forecast", f"fallback: none of {'+'.join(members[u])} could be fitted")
        for u, ms in choice.items()
    ]
    notes += [Note(u, "", "forecast", "no model could be fitted: no forecast") for u in lost if u not in choice]
    keep = raw[raw["unique_id"].astype(str).isin(choice)]
    return tidy(add_combo(keep, choice, "mean", levels), choice, levels), choice, notes


def _simplify(members: Sequence[str]) -> Choice:
    return members[0] if len(members) == 1 else list(members)


def forecast_all(
    data: SeriesData,
    names: Sequence[str],
    *,
    h: int | None = None,
    levels: Sequence[int] = reg.LEVELS,
    n_jobs: int = 1,
    client: Any = None,
) -> pd.DataFrame:
    """statsforecast's wide forecast frame: one column per model plus <model>-lo-<level>/-hi-<level>
    (NaN where a model is skipped or fails on a series)."""
    runner = Runner(data.freq, h or data.h, n_jobs=n_jobs, client=client)
    return runner.run(data.df, [reg.resolve(n) for n in names], data.m, stage="forecast", levels=levels)[0]


def _members(choice: Choice) -> list[str]:
    return [reg.resolve(choice)] if isinstance(choice, str) else [reg.resolve(c) for c in choice]


def tidy(raw: pd.DataFrame, per_series: Mapping[str, Choice], levels: Sequence[int]) -> pd.DataFrame:
    """Pick each series' chosen columns (single model, or the Combo of its members)."""
    rows = [
        pd.DataFrame(
            columns=["unique_id", "ds", "model", "mean", *[f"{s}_{lv}" for lv in levels for s in ("lo", "hi")]]
        )
    ]
    for uid, g in raw.groupby("unique_id", sort=False):
        c = _simplify(_members(per_series[str(uid)]))
        col = c if isinstance(c, str) else reg.COMBO
        label = col if isinstance(c, str) else f"{combo_label(c)}"
        part = pd.DataFrame({"unique_id": uid, "ds": g["ds"].to_numpy(), "model": label, "mean": g[col].to_numpy()})
        for lv in levels:
            part[f"lo_{lv}"] = g[f"{col}-lo-{lv}"].to_numpy()
            part[f"hi_{lv}"] = g[f"{col}-hi-{lv}"].to_numpy()
        rows.append(part)
    return pd.concat([r for r in rows if len(r)] or rows[:1], ignore_index=True)


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
    """Flag observations whose in-sample residual falls outside the `level`% band, calibrated per series
    (orrery.timeseries.anomaly_band). Series flagged constant, mostly zero or mostly imputed at load time are
    not scanned (see SeriesData.flags). Returns every point with lo, hi, score and an anomaly flag.
    """
    fv = fitted_values(data, choice, n_jobs)
    parts = [
        g.reset_index(drop=True).join(ts.anomaly_band(g["y"], g["fitted"], data.m, level, str(uid) in data.flags))
        for uid, g in fv.groupby("unique_id", sort=False)
    ]
    return pd.concat(parts, ignore_index=True)


# --------------------------------------------------------------------------- information criteria


INFO_CRITERIA = ("aic", "aicc", "bic")


def compare_models(
    data: SeriesData, models: Sequence[str] = ("AutoARIMA", "AutoETS", "AutoCES"), uid: str | None = None
) -> pd.DataFrame:
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


# Panel policies: a few fixed combinations; the panel forecasts with the rule's default combination unless
# cross-validation pooled over its series shows another one clearly better (`select_combination`).
Combination = tuple[tuple[str, ...], Literal["mean", "median"]]
SWITCH_GAIN = 0.02  # another combination's pooled CV sMAPE must be this much (relatively) lower, and its MASE lower
SWITCH_MIN_SERIES = 5  # ... over at least this many cross-validated series
Policy = Literal["auto", "scum", "best", "combo", "panel_combo"]


@dataclass(frozen=True)
class Rule:
    """A combination policy: the combinations CV chooses among, the default, and whether CV refits every window
    (True) or fits each model once at the first cutoff and filters it on (statsforecast's refit=False)."""

    combinations: Mapping[str, Combination]
    default: str
    refit: bool = False

    def members(self) -> list[str]:
        return list(dict.fromkeys(m for ms, _ in self.combinations.values() for m in ms))


# "scum": the default until the cost-aware rule, chosen on M3 development data only (bench/forecast_m3_dev_select.py,
# bench/forecast_m3.md): SCUM's members (Petropoulos & Svetunkov 2020), AutoARIMA included, CV refitted per window.
SCUM = Rule(
    {
        "SCUM mean": (("AutoETS", "AutoCES", "DynamicOptimizedTheta", "AutoARIMA"), "mean"),
        "SCUM median": (("AutoETS", "AutoCES", "DynamicOptimizedTheta", "AutoARIMA"), "median"),
        "ETS+Theta+CES mean": (("AutoETS", "AutoTheta", "AutoCES"), "mean"),
    },
    default="SCUM mean",
    refit=True,
)
# "auto" (the default): the cost-aware rule, chosen on samples of M3, M1 and Tourism (all seen before: development
# data) by a criterion written down before it ran (bench/forecast_cost.py `dev`, bench/forecast_cost.md): of six
# candidates, the cheapest whose test sMAPE and MASE were within bootstrap noise of the best (today's "scum"): the
# ETS/Theta/CES mean, its CV fitted once per model, which serves the intervals and the baseline check (1.3x the
# CPU of the plain mean's forecast on dev; "scum" 13.9x). LITE, a candidate that switched among AutoARIMA-free
# combinations, was outside the noise and stays for experiments.
LITE = Rule(
    {
        "ETS+CES+DOT mean": (("AutoETS", "AutoCES", "DynamicOptimizedTheta"), "mean"),
        "ETS+CES+DOT median": (("AutoETS", "AutoCES", "DynamicOptimizedTheta"), "median"),
        "ETS+Theta+CES mean": (("AutoETS", "AutoTheta", "AutoCES"), "mean"),
    },
    default="ETS+CES+DOT mean",
)
AUTO = Rule({"ETS+Theta+CES mean": (("AutoETS", "AutoTheta", "AutoCES"), "mean")}, default="ETS+Theta+CES mean")
RULES: dict[str, Rule] = {"auto": AUTO, "scum": SCUM}
COMBINATIONS = SCUM.combinations  # the "scum" rule's, as bench/forecast_m3.py and forecast_heldout.py ran it
DEFAULT_COMBINATION = SCUM.default


@dataclass(frozen=True)
class Selection:
    """The combination a panel forecasts with, and the pooled CV evidence it was chosen on."""

    name: str
    members: tuple[str, ...]
    how: Literal["mean", "median"]
    cv: pd.DataFrame  # combination x (smape, mase): means over the series cross-validated by all of them
    series: int  # how many series that is
    reason: str


def combination_scores(
    cv: CVResult, data: SeriesData, combinations: Mapping[str, Combination] = COMBINATIONS
) -> tuple[pd.DataFrame, int]:
    """Each combination's CV sMAPE and MASE: per series the mean over its windows, then the mean over series
    (only series every combination has a score on, so all are compared on the same series)."""
    per = []
    for name, (members, how) in combinations.items():
        frame = add_combo(cv.cv, dict.fromkeys(data.ids, list(members)), how)
        scores = score_cv(frame, data.df, [reg.COMBO], data.m)
        per.append(scores.groupby("unique_id")[["smape", "mase"]].mean().assign(combination=name))
    if not per or all(p.empty for p in per):
        return pd.DataFrame(columns=["smape", "mase"], dtype=float), 0
    table = pd.concat(per).reset_index().pivot(index="unique_id", columns="combination").dropna()
    pooled = pd.DataFrame({k: table[k].mean() for k in ("smape", "mase")}).reindex(list(combinations))
    return pooled, len(table)


def select_combination(cv: CVResult, data: SeriesData, rule: Rule = SCUM) -> Selection:
    """The rule's default combination, unless another of its combinations has a pooled CV sMAPE more than
    SWITCH_GAIN lower and a lower CV MASE, over at least SWITCH_MIN_SERIES cross-validated series."""
    pooled, n = combination_scores(cv, data, rule.combinations)
    name, reason = rule.default, "the default"
    if len(rule.combinations) == 1:
        reason = "the rule's only combination"
    elif n < SWITCH_MIN_SERIES:
        reason = f"the default: {n} series cross-validated, fewer than {SWITCH_MIN_SERIES} to choose on"
    else:
        ref = pooled.loc[rule.default]
        others = pooled.drop(index=rule.default).sort_values("smape", kind="stable")
        best = others.index[0]
        if others.loc[best, "smape"] < (1 - SWITCH_GAIN) * ref["smape"] and others.loc[best, "mase"] < ref["mase"]:
            name = str(best)
            reason = (
                f"CV sMAPE {others.loc[best, 'smape']:.2f} vs {ref['smape']:.2f} and MASE "
                f"{others.loc[best, 'mase']:.3f} vs {ref['mase']:.3f} for the default, over {n} series"
            )
        else:
            reason = (
                f"the default: no other combination's CV sMAPE is {SWITCH_GAIN:.0%} lower with a lower MASE "
                f"(best other: {best}, {others.loc[best, 'smape']:.2f} vs {ref['smape']:.2f}), over {n} series"
            )
    members, how = rule.combinations[name]
    return Selection(name, members, how, pooled, n, reason)


@dataclass
class PanelFit:
    cv: CVResult
    choice: dict[str, Choice]  # series id -> model name, or combo members (what each series really got)
    forecasts: pd.DataFrame  # tidy, one model per series
    calibration: Calibration | None = None  # conformal half-widths used for the intervals, if calibrated
    notes: list[Note] = field(default_factory=list)  # skipped, failed, fallbacks: per series and model
    policy: str = "auto"
    selection: Selection | None = None  # the "auto" policy's choice and its CV evidence

    def series(self, data: SeriesData) -> pd.DataFrame:
        """One row per series: its length, CV windows, the model it got, and every note about it."""
        sizes = data.df.groupby("unique_id").size()
        why = (
            notes_frame(self.notes)
            .groupby("unique_id")
            .apply(
                lambda g: "; ".join(
                    f"{m + ': ' if m else ''}{r}" for m, r in zip(g["model"], g["reason"], strict=True)
                ),
                include_groups=False,
            )
            if self.notes
            else pd.Series(dtype=str)
        )
        return pd.DataFrame(
            {
                "unique_id": data.ids,
                "n": [int(sizes[u]) for u in data.ids],
                "cv_windows": [self.cv.windows.get(u, 0) for u in data.ids],
                "model": [choice_label(self.choice[u]) if u in self.choice else None for u in data.ids],
                "notes": [why.get(u, "") for u in data.ids],
            }
        )

    def summary(self) -> pd.DataFrame:
        """How often each model won, and the mean MASE of the chosen models vs the baseline (series with CV)."""
        per = self.cv.scores.groupby(["unique_id", "model"])["mase"].mean().unstack()
        labels = pd.Series({u: _column(c) for u, c in self.choice.items()}, dtype=str)
        counts = labels.value_counts().rename("series").to_frame()
        counts["share"] = counts["series"] / max(1, len(labels))
        scored = [
            u
            for u, c in labels.items()
            if u in per.index
            and c in per
            and np.isfinite(per.loc[u, c])
            and reg.BASELINE in per
            and np.isfinite(per.loc[u, reg.BASELINE])
        ]
        chosen = pd.Series({u: per.loc[u, labels[u]] for u in scored}, dtype=float)
        base = pd.Series({u: per.loc[u, reg.BASELINE] for u in scored}, dtype=float)
        counts.attrs = {
            "mase_selected": float(chosen.mean()) if scored else float("nan"),
            "mase_baseline": float(base.mean()) if scored else float("nan"),
            "share_beating_baseline": float((chosen < base).mean()) if scored else float("nan"),
            "series_scored": len(scored),
        }
        return counts

    def beats_baseline(self) -> bool:
        """The chosen forecasts' mean CV MASE is below the baseline's (over the series both were scored on)."""
        attrs = self.summary().attrs
        return bool(attrs["mase_selected"] < attrs["mase_baseline"])


def choice_label(choice: Choice) -> str:
    return choice if isinstance(choice, str) else combo_label(choice)


def _column(choice: Choice) -> str:
    return choice if isinstance(choice, str) else reg.COMBO


def panel_fit(
    data: SeriesData,
    models: Sequence[str] = reg.DEFAULT_CANDIDATES,
    *,
    n_windows: int = 2,
    combo_k: int = 0,
    policy: Policy = "auto",
    combo_how: Literal["mean", "median"] = "mean",
    levels: Sequence[int] = reg.LEVELS,
    calibrate_intervals: bool = True,
    interval_factors: Mapping[int, float] | None = None,
    refit: bool | None = None,
    n_jobs: int = 1,
    client: Any = None,
    on_progress: Progress | None = None,
) -> PanelFit:
    """Cross-validate every model on every series, pick what to forecast with, forecast. Never stops on a series.

    Policies: "auto" (default) and "scum" follow their `Rule` (RULES): every series gets the rule's default
    combination unless CV pooled over the panel clearly favours another of its combinations (`select_combination`;
    `models`, combo_k and combo_how are not used); "auto" is the ETS/Theta/CES mean, "scum" the previous default
    (SCUM's members, AutoARIMA included). "best" keeps each
    series' lowest-MASE model (Combo included when combo_k >= 2); "combo" uses each series' own best-k mean;
    "panel_combo" uses, for every series, the mean of the k models with the lowest MASE over the panel.
    Series too short for any CV window get the policy's forecast without a CV score (noted); a series whose
    choice cannot be fitted falls back (see `fit_forecast`). With `calibrate_intervals` (default) the intervals
    are split conformal, learned from the CV errors of the chosen forecasts (`interval_factors`, level -> factor,
    scales them; see `calibrate`). One CV serves the choice, the intervals and the baseline check; it fits each
    model once per series and filters it on through later windows (`refit=None`: the rule's setting, else False;
    True refits per window). `n_jobs=-1` uses all
    cores; pass a `distributed.Client` to run the same work on a Dask cluster. `on_progress(label, done,
    total)` (e.g. a tool's `ctx.progress`) is called as series finish each stage.
    """
    run = dict(n_jobs=n_jobs, client=client, on_progress=on_progress)
    selection = None
    if policy in RULES:
        rule = RULES[policy]
        cv = cross_validate(
            data, rule.members(), n_windows=n_windows, refit=rule.refit if refit is None else refit, **run
        )
        selection = select_combination(cv, data, rule)
        combo_how = selection.how
        choice: dict[str, Choice] = {u: list(selection.members) for u in data.ids}
        cv = with_combo(cv, data, choice, combo_how)
    else:
        cv = cross_validate(
            data,
            models,
            n_windows=n_windows,
            combo_k=0 if policy == "panel_combo" else combo_k,
            combo_how=combo_how,
            refit=bool(refit),
            **run,
        )
        choice = _choose(cv, data, policy, combo_k)
        if policy == "panel_combo":
            cv = with_combo(cv, data, {u: list(c) for u, c in choice.items()}, combo_how)
    cal = calibrate(cv, data, choice, combo_how, levels, interval_factors) if calibrate_intervals and levels else None
    fc = fit_forecast(data, choice, levels=levels, combo_how=combo_how, calibration=cal, **run)
    return PanelFit(
        cv=cv,
        choice=fc.choice,
        forecasts=fc.frame,
        calibration=cal,
        policy=policy,
        notes=list(dict.fromkeys([*cv.notes, *fc.notes])),
        selection=selection,
    )


def _choose(cv: CVResult, data: SeriesData, policy: Policy, combo_k: int) -> dict[str, Choice]:
    """The CV-driven policies; series without a CV score get the panel's best (or baseline) model."""
    if policy == "panel_combo":
        members = panel_top_k(cv, combo_k if combo_k >= 2 else 3) or [reg.BASELINE]
        return {uid: members for uid in data.ids}
    default: Choice = cv.best() or reg.BASELINE
    if default == reg.COMBO:
        default = panel_top_k(cv, max(2, combo_k))
    if policy == "combo" and combo_k >= 2:
        return {u: cv.combo_members.get(u, default) for u in data.ids}
    best = cv.best_per_series(allow_combo=combo_k >= 2)
    return {
        u: (cv.combo_members[u] if best.get(u) == reg.COMBO else str(best[u])) if u in best else default
        for u in data.ids
    }
