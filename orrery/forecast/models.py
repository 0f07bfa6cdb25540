"""The model registry: a name the LLM may use -> a statsforecast model for season length m.

No model code lives here: every model is statsforecast's. Models without native prediction
intervals get statsforecast's conformal intervals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from statsforecast import models as sfm
from statsforecast.utils import ConformalIntervals

BASELINE = "SeasonalNaive"
COMBO = "Combo"
LEVELS: tuple[int, int] = (80, 95)
CONFORMAL_WINDOWS = 2

Factory = Callable[[int, Any], Any]  # (m, prediction_intervals or None) -> statsforecast model


@dataclass(frozen=True)
class ModelSpec:
    name: str
    factory: Factory
    description: str
    native_intervals: bool = True
    needs_season: bool = False  # only meaningful when m > 1
    slow: bool = False  # expensive on long or many series
    min_length: int = 1  # fewest observations statsforecast fits it on (measured: ETS raises "tiny datasets" below 8)
    # CV may fit it once and filter it on through later windows (statsforecast's refit=False) instead of refitting
    forward: bool = True


def _spec(name: str, factory: Factory, description: str, **kw: Any) -> ModelSpec:
    return ModelSpec(name=name, factory=factory, description=description, **kw)


REGISTRY: dict[str, ModelSpec] = {
    s.name: s
    for s in [
        _spec("AutoARIMA", lambda m, _pi: sfm.AutoARIMA(season_length=m, alias="AutoARIMA"),
              "seasonal ARIMA with automatic order selection (Hyndman-Khandakar)", slow=True, min_length=10),
        _spec("AutoETS", lambda m, _pi: sfm.AutoETS(season_length=m, alias="AutoETS"),
              "exponential smoothing state space, error/trend/season chosen by AICc", min_length=8),
        _spec("AutoTheta", lambda m, _pi: sfm.AutoTheta(season_length=m, alias="AutoTheta"),
              "theta method, variant chosen automatically", min_length=4),
        _spec("DynamicOptimizedTheta", lambda m, _pi: sfm.DynamicOptimizedTheta(season_length=m, alias="DynamicOptimizedTheta"),
              "dynamic optimized theta", min_length=4),
        _spec("AutoCES", lambda m, _pi: sfm.AutoCES(season_length=m, alias="AutoCES"),
              "complex exponential smoothing", min_length=5,
              forward=False),  # its forward diverged on M1 series (CV MASE up to 3e7, bench/forecast_cost.md)
        _spec("MSTL", lambda m, _pi: sfm.MSTL(season_length=m, alias="MSTL"),
              "STL decomposition (multiple seasonalities) with ETS on the trend", needs_season=True, min_length=8),
        _spec("AutoTBATS", lambda m, _pi: sfm.AutoTBATS(season_length=m, alias="AutoTBATS"),
              "TBATS: Box-Cox, trigonometric seasonality, ARMA errors", slow=True, min_length=10),
        _spec("SES", lambda _m, pi: sfm.SimpleExponentialSmoothingOptimized(alias="SES", prediction_intervals=pi),
              "simple exponential smoothing, optimized alpha (level only)", native_intervals=False, min_length=2),
        _spec("Holt", lambda m, _pi: sfm.Holt(season_length=m, alias="Holt"),
              "Holt's linear trend (ETS A,A,N)", min_length=8),
        _spec("HoltWinters", lambda m, _pi: sfm.HoltWinters(season_length=m, alias="HoltWinters"),
              "Holt-Winters additive trend and season", needs_season=True, min_length=8),
        _spec("CrostonOptimized", lambda _m, pi: sfm.CrostonOptimized(alias="CrostonOptimized", prediction_intervals=pi),
              "Croston's method for intermittent demand", native_intervals=False),
        _spec("ADIDA", lambda _m, pi: sfm.ADIDA(alias="ADIDA", prediction_intervals=pi),
              "aggregate-disaggregate intermittent demand", native_intervals=False),
        _spec("IMAPA", lambda _m, pi: sfm.IMAPA(alias="IMAPA", prediction_intervals=pi),
              "intermittent multiple aggregation prediction", native_intervals=False),
        _spec("TSB", lambda _m, pi: sfm.TSB(alpha_d=0.2, alpha_p=0.2, alias="TSB", prediction_intervals=pi),
              "Teunter-Syntetos-Babai for intermittent demand with obsolescence", native_intervals=False),
        _spec("Naive", lambda _m, _pi: sfm.Naive(alias="Naive"), "last value carried forward"),
        _spec(BASELINE, lambda m, _pi: sfm.SeasonalNaive(season_length=m, alias=BASELINE),
              "value from the same season last cycle (the baseline)"),
        _spec("RandomWalkWithDrift", lambda _m, _pi: sfm.RandomWalkWithDrift(alias="RandomWalkWithDrift"),
              "random walk with drift", min_length=2),
        _spec("HistoricAverage", lambda _m, _pi: sfm.HistoricAverage(alias="HistoricAverage"), "mean of all history"),
    ]
}  # fmt: skip

ALIASES: dict[str, str] = {
    "ARIMA": "AutoARIMA", "ETS": "AutoETS", "Theta": "AutoTheta", "DOT": "DynamicOptimizedTheta",
    "OptimizedTheta": "DynamicOptimizedTheta", "CES": "AutoCES", "TBATS": "AutoTBATS",
    "SimpleExponentialSmoothing": "SES", "SimpleExponentialSmoothingOptimized": "SES", "Croston": "CrostonOptimized",
    "SNaive": BASELINE, "RWD": "RandomWalkWithDrift", "Drift": "RandomWalkWithDrift", "Mean": "HistoricAverage",
}  # fmt: skip

DEFAULT_CANDIDATES: tuple[str, ...] = ("AutoETS", "AutoTheta", "AutoCES", "AutoARIMA", "Naive", BASELINE)


def resolve(name: str) -> str:
    """Canonical registry name for `name` (case-insensitive; aliases like ETS, SNaive accepted)."""
    lookup = {k.lower(): k for k in REGISTRY} | {k.lower(): v for k, v in ALIASES.items()}
    if name.lower() == COMBO.lower():
        return COMBO
    if name.lower() not in lookup:
        raise KeyError(f"unknown model {name!r}; choose from {', '.join(REGISTRY)} or {COMBO}")
    return lookup[name.lower()]


def available(m: int) -> list[str]:
    """Registry names usable for season length m (seasonal-only models need m > 1)."""
    return [n for n, s in REGISTRY.items() if m > 1 or not s.needs_season]


def build(names: Sequence[str], m: int, h: int) -> list[Any]:
    """statsforecast model objects for `names`; models without native intervals get conformal ones."""
    conformal = ConformalIntervals(h=h, n_windows=CONFORMAL_WINDOWS)
    models = []
    for name in names:
        spec = REGISTRY[resolve(name)]
        if spec.needs_season and m < 2:
            raise ValueError(f"{spec.name} needs a seasonal period m > 1 (got m={m})")
        models.append(spec.factory(m, None if spec.native_intervals else conformal))
    return models


def min_length(name: str, m: int, h: int, intervals: bool = False) -> int:
    """Fewest observations `name` needs on a series (season m, horizon h); conformal intervals need 2 windows of h."""
    spec = REGISTRY[resolve(name)]
    need = max(spec.min_length, 2 * m if spec.needs_season else 1)
    return max(need, h * CONFORMAL_WINDOWS + 2) if intervals and not spec.native_intervals else need


def interval_columns(model: str, levels: Sequence[int] = LEVELS) -> list[str]:
    return [f"{model}-{side}-{lv}" for lv in levels for side in ("lo", "hi")]


def combine(
    frame: pd.DataFrame,
    members: Sequence[str],
    how: Literal["mean", "median"] = "mean",
    name: str = COMBO,
    levels: Sequence[int] = (),
) -> pd.DataFrame:
    """Add the combination column `name` (and its interval bounds) as mean or median of `members`' columns.

    Averaged member bounds ignore the disagreement between members and are too narrow in practice (M3: 0.70
    coverage at 80%); analysis.calibrate / forecast(calibration=...) replace them with conformal intervals.
    """
    agg: Callable[..., np.ndarray] = np.nanmean if how == "mean" else np.nanmedian
    out = frame.copy()
    out[name] = agg(frame[list(members)].to_numpy(dtype=float), axis=1)
    for col in interval_columns("", levels):
        cols = [f"{mm}{col}" for mm in members]
        if all(c in frame.columns for c in cols):
            out[f"{name}{col}"] = agg(frame[cols].to_numpy(dtype=float), axis=1)
    return out


def describe(m: int) -> str:
    """One line per usable model, for prompts and tool docs."""
    return "\n".join(f"- {n}: {REGISTRY[n].description}" for n in available(m))
