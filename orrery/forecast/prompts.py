"""Prompts of the forecasting agent (Heval's workflow)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from orrery.forecast import models as reg
from orrery.forecast.analysis import PanelFit, choice_label
from orrery.forecast.data import SeriesData

if TYPE_CHECKING:
    from orrery.forecast.tools import ForecastDeps

SYSTEM = """You are a time-series forecasting analyst. You work only through tools and report only numbers the tools returned.

Models you can use (names exactly as written):
{models}
- Combo: the mean of the best k models by cross-validation (cross_validate with combo_k >= 2)

Workflow:
1. analyze_features: trend, seasonality, entropy, intermittency, a shortlist of models.
2. cross_validate: several models suited to the features; SeasonalNaive is always added as the baseline.
   The accuracy measure is MASE (lower is better; below SeasonalNaive's MASE means the model is useful).
3. generate_forecast with the best model by mean MASE: point forecasts with 80% and 95% intervals.
4. detect_anomalies with that model.
Optional: decompose, unit_root_test, compare_models (information criteria).{panel}
The workflow then reports the facts, and you add a short commentary.
Quote numbers exactly as the tools returned them; never compute or invent new ones."""

PANEL = """
Panel data (several series): call panel_analyze, then panel_fit: it forecasts every series with the mean of
AutoETS, AutoTheta and AutoCES, cross-validated for its intervals and the baseline check; series too short for
some models or for cross-validation still get a forecast."""


_UNITS = {
    "MS": ("monthly", "months"),
    "ME": ("monthly", "months"),
    "M": ("monthly", "months"),
    "QS": ("quarterly", "quarters"),
    "QE": ("quarterly", "quarters"),
    "Q": ("quarterly", "quarters"),
    "YS": ("yearly", "years"),
    "YE": ("yearly", "years"),
    "Y": ("yearly", "years"),
    "A": ("yearly", "years"),
    "W": ("weekly", "weeks"),
    "D": ("daily", "days"),
    "B": ("business-day", "days"),
    "h": ("hourly", "hours"),
    "H": ("hourly", "hours"),
}


def system_prompt(data: SeriesData) -> str:
    return SYSTEM.format(models=reg.describe(data.m), panel=PANEL if data.is_panel else "")


def task_prompt(data: SeriesData, query: str | None) -> str:
    df = data.df
    unit = _UNITS.get(str(data.freq).split("-")[0], ("", "steps"))
    lines = [
        f"Data: {data.df['unique_id'].nunique()} series, {len(df)} {unit[0]} observations "
        f"(frequency {data.freq}), seasonal period m={data.m}, forecast horizon h={data.h} {unit[1]}.",
        f"From {df['ds'].min()} to {df['ds'].max()}; last values: {', '.join(f'{v:g}' for v in df['y'].tail(6))}.",
    ]
    if data.imputed:
        lines.append(f"Missing values imputed: {sum(data.imputed.values())}.")
    lines.append(f"Request: {query or 'Forecast this series and explain the result.'}")
    return "\n".join(lines)


COMMENTARY = (
    "Add a short commentary for a manager, at most four sentences: why the winning model suits this "
    "data, what the forecast means, and whether the anomalies matter. Quote only numbers the tools "
    "returned."
)
PANEL_COMMENTARY = (
    "Add a short commentary for a manager, at most four sentences: which models the series got, "
    "whether they beat the SeasonalNaive baseline, and what that means for planning. Quote only "
    "numbers the tools returned."
)  # panels get no anomaly step, so none is asked about


def baseline_retry(best: str, best_mase: float, base_mase: float, untried: list[str]) -> str:
    return (
        f"The best model so far, {best} (MASE {best_mase:.3f}), does not beat the SeasonalNaive baseline "
        f"(MASE {base_mase:.3f}). Cross-validate other models ({', '.join(untried[:6]) or 'any'}) or a "
        "combination (combo_k=3), then forecast with the winner and finish again."
    )


def panel_baseline_retry(policy: str, mase: float, base_mase: float) -> str:
    return (
        f"The panel's forecasts (policy '{policy}', mean CV MASE {mase:.3f}) do not beat the SeasonalNaive "
        f"baseline (MASE {base_mase:.3f}). Call panel_fit with policy='best': each series then keeps the model "
        "that was best in its own cross-validation, SeasonalNaive included."
    )


def grounding_retry(bad: list[str]) -> str:
    return (
        f"Your analysis quotes numbers that no tool returned: {', '.join(bad[:10])}. Rewrite it using only "
        "numbers exactly as the tools returned them."
    )


def summary_from_deps(deps: ForecastDeps) -> str:
    """The facts of the analysis (a `ForecastDeps`), written from tool results only (so every number is
    grounded)."""
    parts = []
    f = deps.features
    if f:
        parts.append(
            f"Trend {f.get('trend', '?')} (strength {f.get('trend_strength', 0):.2f}), seasonality "
            f"{f.get('seasonality', '?')} (strength {f.get('seasonal_strength', 0):.2f})."
        )
    cv, fit = deps.cv, deps.panel
    if fit is not None:
        parts.append(_panel_accuracy(fit))
    elif cv is not None and cv.best() is None:
        parts.append("Not cross-validated: the series is too short for a CV window.")
    elif cv is not None:
        parts.append(_accuracy(cv.mean_mase(), cv.best()))
    fc = deps.forecasts
    if fc is not None and len(fc) and "mean" in fc:
        parts.append(_forecast_sentence(fc))
    an = deps.anomalies
    if an is not None:
        top = an.sort_values("score", ascending=False).head(3) if len(an) and "score" in an else an.head(0)
        dates = ", ".join(_date(d) for d in top["ds"]) if len(top) else ""
        parts.append(f"Anomalies: {len(an)}" + (f", the largest at {dates}." if dates else "."))
    return " ".join(parts)


def _accuracy(means: dict[str, float], best: str) -> str:
    base = means[reg.BASELINE]
    if best == reg.BASELINE:
        others = {m: v for m, v in means.items() if m != reg.BASELINE and v == v}  # v == v: not NaN
        closest = min(others, key=others.__getitem__, default=None)
        other = f"; the closest, {closest}, {others[closest]:.3f}" if closest else ""
        return f"No model beat the {reg.BASELINE} baseline by cross-validation (mean MASE {base:.3f}{other})."
    verdict = "beats" if means[best] < base else "does not beat"
    return f"Best model by cross-validation: {best}, mean MASE {means[best]:.3f}, which {verdict} {reg.BASELINE} ({base:.3f})."


def _panel_accuracy(fit: PanelFit) -> str:
    """A panel is judged by the forecasts it got (the policy's), not by the single model best on average."""
    a = fit.summary().attrs
    used = pd.Series([choice_label(c) for c in fit.choice.values()]).value_counts()
    models = ", ".join(f"{name} ({n} series)" for name, n in used.items())
    if not a["series_scored"]:
        return f"Forecast with {models}; no series was long enough for a CV window."
    verdict = "beats" if fit.beats_baseline() else "does not beat"
    better = round(a["share_beating_baseline"] * a["series_scored"])
    return (
        f"Forecast with {models}: mean CV MASE {a['mase_selected']:.3f}, which {verdict} {reg.BASELINE} "
        f"({a['mase_baseline']:.3f}); better than it on {better} of {a['series_scored']} series."
    )


def _forecast_sentence(fc: pd.DataFrame) -> str:
    first, last = fc.iloc[0], fc.iloc[-1]
    span = f"{_date(fc['ds'].min())} to {_date(fc['ds'].max())}"
    if fc["unique_id"].nunique() > 1:  # a first and a last value of different series would mean nothing
        return f"Forecasts for {fc['unique_id'].nunique()} series, {span} (per-series table below)."
    band = (
        f" (80% interval {last['lo_80']:.1f} to {last['hi_80']:.1f})" if {"lo_80", "hi_80"} <= set(fc.columns) else ""
    )
    return f"Forecast for {span}: {first['mean']:.1f} at the start, {last['mean']:.1f} at the end{band}."


def _date(value: object) -> str:
    return value.strftime("%Y-%m-%d") if hasattr(value, "strftime") else str(value)
