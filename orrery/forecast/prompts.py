"""Prompts of the forecasting agent (Heval's workflow)."""

from __future__ import annotations

from orrery.forecast import models as reg
from orrery.forecast.data import SeriesData

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
Then write the final analysis in a few short paragraphs: the data's character, which model won and its MASE
against SeasonalNaive's, what the forecast says (level and intervals), and any anomalies.
Quote numbers exactly as the tools returned them; never compute or invent new ones."""

PANEL = """
Panel data (several series): call panel_analyze, then panel_fit with candidate models: it picks the best model
per series by cross-validation and forecasts every series."""


def system_prompt(data: SeriesData) -> str:
    return SYSTEM.format(models=reg.describe(data.m), panel=PANEL if data.is_panel else "")


def task_prompt(data: SeriesData, query: str | None) -> str:
    df = data.df
    lines = [f"Data: {data.df['unique_id'].nunique()} series, {len(df)} observations, frequency {data.freq}, "
             f"seasonal period m={data.m}, forecast horizon h={data.h}.",
             f"From {df['ds'].min()} to {df['ds'].max()}; last values: "
             f"{', '.join(f'{v:g}' for v in df['y'].tail(6))}."]
    if data.imputed:
        lines.append(f"Missing values imputed: {sum(data.imputed.values())}.")
    lines.append(f"Request: {query or 'Forecast this series and explain the result.'}")
    return "\n".join(lines)


def baseline_retry(best: str, best_mase: float, base_mase: float, untried: list[str]) -> str:
    return (f"The best model so far, {best} (MASE {best_mase:.3f}), does not beat the SeasonalNaive baseline "
            f"(MASE {base_mase:.3f}). Cross-validate other models ({', '.join(untried[:6]) or 'any'}) or a "
            "combination (combo_k=3), then forecast with the winner and finish again.")


def grounding_retry(bad: list[str]) -> str:
    return (f"Your analysis quotes numbers that no tool returned: {', '.join(bad[:10])}. Rewrite it using only "
            "numbers exactly as the tools returned them.")


def summary_from_state(state: dict) -> str:
    """A narrative built only from tool results: the fallback when the model's text is not grounded."""
    parts = []
    f = state.get("features") or {}
    if f:
        parts.append(f"Trend: {f.get('trend', '?')}; seasonality: {f.get('seasonality', '?')}.")
    cv = state.get("cv")
    if cv is not None:
        means = cv.mean_mase()
        best = cv.best()
        parts.append(f"Best model by cross-validation: {best} with mean MASE {means[best]:.3f}, against "
                     f"{reg.BASELINE}'s {means[reg.BASELINE]:.3f}.")
    fc = state.get("forecasts")
    if fc is not None and len(fc):
        parts.append(f"Forecast of {len(fc)} values from {fc['ds'].min():%Y-%m-%d} to {fc['ds'].max():%Y-%m-%d}"
                     if hasattr(fc["ds"].min(), "strftime") else f"Forecast of {len(fc)} values.")
    an = state.get("anomalies")
    if an is not None:
        parts.append(f"Anomalies flagged: {len(an)}.")
    return " ".join(parts)
