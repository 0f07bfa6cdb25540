"""The forecasting tools the LLM calls. Thin wrappers: read the run's `ForecastDeps` (`ctx.deps`), call
`analysis`, store what they found on it, summarise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from orrery.errors import DataError, ToolError
from orrery.forecast import analysis as A
from orrery.forecast import models as reg
from orrery.forecast.data import SeriesData
from orrery.forecast.result import ForecastResult
from orrery.tools import RunContext, Tool, after, tool


@dataclass
class ForecastDeps:
    """What the tools of one analysis share (the agent's `deps_type`): the data, where the models are fitted
    (`n_jobs` processes, or a Dask `client`), what each tool found, and the workflow's phase."""

    data: SeriesData
    n_jobs: int = 1
    client: Any = None
    phase: Literal["analyze", "commentary", "followup"] = "analyze"
    features: dict[str, Any] = field(default_factory=dict)
    cv: A.CVResult | None = None
    best_model: str | None = None
    forecasts: pd.DataFrame | None = None
    forecast_notes: list[A.Note] = field(default_factory=list)
    anomalies: pd.DataFrame | None = None
    panel: A.PanelFit | None = None
    panel_retry: bool = False  # the panel is refitted once with policy 'best' (see the agent's validator)


Ctx = RunContext[ForecastDeps]


def _data(ctx: Ctx) -> SeriesData:
    return ctx.deps.data


def _names(models: Sequence[str]) -> list[str]:
    try:
        return [reg.resolve(m) for m in models]
    except KeyError as exc:  # an unknown name is the model's mistake: tell it the valid choices
        raise ToolError(exc.args[0]) from exc


def _round(frame: pd.DataFrame, digits: int = 3) -> list[dict[str, Any]]:
    out = frame.copy()
    for col in out.columns:
        if pd.api.types.is_datetime64_any_dtype(out[col]):
            out[col] = out[col].dt.strftime("%Y-%m-%d")
    return out.round(digits).to_dict(orient="records")


def _columns(frame: pd.DataFrame, digits: int = 3) -> dict[str, list[Any]]:
    """A table as {column: values}: far fewer tokens than one object per row, for the model's context."""
    rows = _round(frame, digits)
    return {col: [row[col] for row in rows] for col in frame.columns}


def _is_panel(ctx: Ctx) -> bool:
    return ctx.deps is not None and _data(ctx).is_panel


@tool
def analyze_features(ctx: Ctx, series: str | None = None) -> dict[str, Any]:
    """Describe the series: trend and seasonal strength, autocorrelation, spectral entropy, intermittency,
    and a feature-based shortlist of models. Call this first.

    Args:
        series: series id in a panel (default: the first series)
    """
    data = _data(ctx)
    feats = A.features(data.values(series), data.m)
    ctx.deps.features = feats
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in feats.items()} | {"h": data.h}


@tool
def cross_validate(ctx: Ctx, models: list[str], n_windows: int = 3, combo_k: int = 0) -> dict[str, Any]:
    """Rolling-origin cross-validation: MASE per window and mean for each model. SeasonalNaive is always
    included as the baseline. combo_k >= 2 adds 'Combo', the mean of the k best models.

    Args:
        models: model names, e.g. ["AutoETS", "AutoTheta", "AutoARIMA"]
        n_windows: number of CV windows of length h
        combo_k: size of the best-k combination (0 for none)
    """
    data = _data(ctx)
    cv = A.cross_validate(
        data, _names(models), n_windows=n_windows, combo_k=combo_k, n_jobs=ctx.deps.n_jobs, client=ctx.deps.client
    )
    ctx.deps.cv, ctx.deps.best_model = cv, cv.best()
    if cv.scores.empty:
        return {
            "cv_windows": 0,
            "best": None,
            "beats_baseline": False,
            "note": f"the series is too short for a CV window of h={data.h}: generate_forecast with any model; "
            "models it is too short for are replaced by a fallback",
        }
    table = ForecastResult.accuracy_from_cv(cv)
    return {
        "mase": {
            m: {"windows": [round(w, 3) for w in v["windows"]], "mean": round(v["mean"], 3)} for m, v in table.items()
        },
        "best": cv.best(),
        "baseline": reg.BASELINE,
        "beats_baseline": cv.beats_baseline(),
        "combo_members": cv.combo_members.get(data.ids[0]) if not data.is_panel else None,
        "skipped": {n.model: n.reason for n in cv.notes if n.model},
    }


def _choice(ctx: Ctx, model: str) -> A.Choice:
    name = _names([model])[0]
    if name != reg.COMBO:
        return name
    cv = ctx.deps.cv
    if cv is None or not cv.combo_members:
        raise ToolError("no Combo yet: call cross_validate with combo_k >= 2 first")
    return cv.combo_members[_data(ctx).ids[0]]


@tool(available=after("cross_validate"))
def generate_forecast(ctx: Ctx, model: str, h: int | None = None) -> dict[str, Any]:
    """Forecast h steps ahead with one model (or 'Combo'), with 80% and 95% prediction intervals.

    Args:
        model: model name, normally the best one from cross_validate
        h: forecast horizon (default: the analysis horizon)
    """
    data = _data(ctx)
    choice = _choice(ctx, model)
    cv = ctx.deps.cv
    cal = A.calibrate(cv, data, choice) if cv is not None and not cv.scores.empty and h in (None, data.h) else None
    result = A.fit_forecast(
        data, choice, h=h, calibration=cal, n_jobs=ctx.deps.n_jobs, client=ctx.deps.client, on_progress=ctx.progress
    )
    fc = result.frame
    if fc.empty:
        raise ToolError(f"no model could be fitted: {'; '.join(n.reason for n in result.notes)}")
    ctx.deps.forecasts, ctx.deps.best_model, ctx.deps.forecast_notes = fc, str(fc["model"].iloc[0]), result.notes
    out = {"model": str(fc["model"].iloc[0])} | _forecast_view(fc.drop(columns=["unique_id", "model"]))
    return out | ({"notes": [n.reason for n in result.notes]} if result.notes else {})


def _forecast_view(fc: pd.DataFrame) -> dict[str, Any]:
    """Every point forecast, the intervals at the first and last steps: the whole table (24 steps x 5 columns at
    3 decimals) was the demo's dearest prompt (~1000 tokens, digits tokenize one by one); the report keeps it."""
    bounds = [c for c in fc.columns if c.startswith(("lo_", "hi_"))]
    ends = fc.iloc[[0, -1]] if len(fc) > 1 else fc
    return {"forecasts": _columns(fc[["ds", "mean"]], digits=1)} | (
        {"intervals": _columns(ends[["ds", *bounds]], digits=1)} if bounds else {}
    )


@tool(available=after("cross_validate"))
def detect_anomalies(ctx: Ctx, model: str | None = None, level: float = 99) -> dict[str, Any]:
    """Flag past observations outside the model's in-sample prediction interval.

    Args:
        model: model whose fitted values are used (default: the best from cross_validate)
        level: interval level in percent
    """
    name = model or ctx.deps.best_model or reg.BASELINE
    an = A.detect_anomalies(_data(ctx), _choice(ctx, name.split("(")[0]), level=level, n_jobs=ctx.deps.n_jobs)
    flagged = an[an["anomaly"]]
    ctx.deps.anomalies = flagged
    top = flagged.sort_values("score", ascending=False).head(10)
    cols = ["ds", "y", "fitted", "score"] if not _data(ctx).is_panel else ["unique_id", "ds", "y", "fitted", "score"]
    data = _data(ctx)
    return {"count": len(flagged), "level": level, "largest": _columns(top[cols])} | (
        {"not_scanned": {uid: f"series is {flag}" for uid, flag in data.flags.items()}} if data.flags else {}
    )


@tool
def decompose(ctx: Ctx, series: str | None = None) -> dict[str, Any]:
    """STL decomposition (MSTL for several periods): trend and seasonal strength and the seasonal profile.

    Args:
        series: series id in a panel (default: the first series)
    """
    data = _data(ctx)
    try:
        parts = A.decompose(data.values(series), data.m)
    except DataError as exc:
        raise ToolError(str(exc)) from exc
    resid = parts["resid"].to_numpy()
    return {
        "trend_strength": round(A.strength(resid, (parts["trend"] + parts["resid"]).to_numpy()), 3),
        "seasonal_strength": round(A.strength(resid, (parts["seasonal"] + parts["resid"]).to_numpy()), 3),
        "seasonal_profile": [round(float(v), 3) for v in parts["seasonal"].tail(data.m)] if data.m > 1 else [],
        "trend_start_end": [round(float(parts["trend"].iloc[0]), 3), round(float(parts["trend"].iloc[-1]), 3)],
        "resid_std": round(float(resid.std()), 3),
    }


@tool
def unit_root_test(ctx: Ctx, series: str | None = None) -> dict[str, Any]:
    """ADF and KPSS stationarity tests with a verdict and the number of differences needed.

    Args:
        series: series id in a panel (default: the first series)
    """
    out = A.unit_root_test(_data(ctx).values(series))
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in out.items()}


@tool
def compare_models(ctx: Ctx, models: list[str], series: str | None = None) -> dict[str, Any]:
    """AIC, AICc and BIC of models fitted to the whole series (null where a model has no likelihood).
    Comparable within a model family; use cross_validate to compare across families.

    Args:
        models: model names, e.g. ["AutoARIMA", "AutoETS", "AutoCES"]
        series: series id in a panel (default: the first series)
    """
    table = A.compare_models(_data(ctx), _names(models), uid=series)
    return {"criteria": _round(table), "lowest_aicc": table["model"].iloc[0]}


@tool(available=_is_panel)
def panel_analyze(ctx: Ctx) -> dict[str, Any]:
    """Features of every series in the panel, summarised (how many trend, seasonal, intermittent)."""
    feats = A.panel_analyze(_data(ctx))
    return {
        "series": len(feats),
        "trend": feats["trend"].value_counts().to_dict(),
        "seasonality": feats["seasonality"].value_counts().to_dict(),
        "demand_class": feats["demand_class"].value_counts().to_dict(),
        "mean_entropy": round(float(feats["entropy"].mean()), 3),
    }


@tool(available=_is_panel)
def panel_fit(
    ctx: Ctx,
    models: list[str] | None = None,
    n_windows: int = 2,
    combo_k: int = 0,
    policy: Literal["auto", "panel_combo", "best", "combo"] = "auto",
) -> dict[str, Any]:
    """Cross-validate and forecast every series. 'auto' (default): the mean of AutoETS, AutoTheta and AutoCES;
    'panel_combo': the mean of the k models best on the whole panel; 'best': each series' own best;
    'combo': each series' own best-k mean. Series too short for some models or for CV still get a forecast.

    Args:
        models: candidate model names (not used by 'auto')
        n_windows: CV windows per series (fewer where a series is short)
        combo_k: size of the best-k combination (0: 3 for panel_combo, none otherwise)
        policy: 'auto', 'panel_combo', 'best' or 'combo'
    """
    fit = A.panel_fit(
        _data(ctx),
        _names(models or reg.DEFAULT_CANDIDATES),
        n_windows=n_windows,
        combo_k=combo_k,
        policy=policy,
        n_jobs=ctx.deps.n_jobs,
        client=ctx.deps.client,
        on_progress=ctx.progress,
    )
    d = ctx.deps
    d.panel, d.cv, d.forecasts, d.best_model = fit, fit.cv, fit.forecasts, _panel_label(fit)
    summary = fit.summary()
    attrs = {k: round(v, 3) for k, v in summary.attrs.items() if np.isfinite(v)}
    return {
        "wins": summary["series"].to_dict(),
        **attrs,
        "beats_baseline": fit.beats_baseline(),
        "series_without_cv": sum(1 for w in fit.cv.windows.values() if w == 0),
        "series_with_notes": int(A.notes_frame(fit.notes)["unique_id"].nunique()),
    }


def _panel_label(fit: A.PanelFit) -> str:
    """The model every series got, or how many different ones they got."""
    labels = pd.Series([A.choice_label(c) for c in fit.choice.values()]).value_counts()
    return str(labels.index[0]) if len(labels) == 1 else f"per series ({len(labels)} models)"


TOOLS: list[Tool] = [
    analyze_features,
    cross_validate,
    generate_forecast,
    detect_anomalies,
    decompose,
    unit_root_test,
    compare_models,
    panel_analyze,
    panel_fit,
]


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def result_from_deps(
    deps: ForecastDeps, narrative: str = "", trace: list[dict[str, Any]] | None = None
) -> ForecastResult:
    """Assemble the ForecastResult from what the tools stored."""
    data, cv, fit = deps.data, deps.cv, deps.panel
    panel = fit.series(data) if fit is not None else None
    beats = fit.beats_baseline() if fit is not None else cv is not None and cv.beats_baseline()
    notes = fit.notes if fit is not None else [*(cv.notes if cv is not None else []), *deps.forecast_notes]
    return ForecastResult(
        narrative=narrative,
        features=deps.features,
        accuracy=ForecastResult.accuracy_from_cv(cv) if cv is not None else {},
        forecasts=deps.forecasts if deps.forecasts is not None else pd.DataFrame(),
        anomalies=deps.anomalies if deps.anomalies is not None else pd.DataFrame(),
        best_model=deps.best_model,
        beats_baseline=bool(beats),
        selected_mase=_finite(fit.summary().attrs["mase_selected"]) if fit is not None else None,
        trace=trace or [],
        history=data.df,
        panel=panel,
        notes=A.notes_frame(notes),
        warnings=list(data.warnings),
    )
