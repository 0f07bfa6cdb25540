"""One-series time-series helpers the apps share: features, decomposition, an exponential-smoothing fit,
anomaly bands, and cross-validated simple forecasts with intervals.

Light on purpose (extra `timeseries`: numpy, pandas, scipy, statsmodels): statsforecast imports fugue, and with
it dask, when it is imported, so the BI and markets apps, which look at one series at a time, use this module
and never the forecast app (extra `forecast`), which builds panels on statsforecast and reuses these helpers.
Imported by apps only, never by the core.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import norm
from statsmodels.nonparametric.smoothers_lowess import lowess
from statsmodels.tsa.seasonal import MSTL, STL
from statsmodels.tsa.stattools import acf

from orrery.errors import DataError

LEVELS: tuple[int, ...] = (80, 95)
MODELS: tuple[str, ...] = ("ETS", "RandomWalkWithDrift", "Naive")  # what `forecast` and `cross_validate` know


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
    """Trend & seasonal strength, autocorrelation, spectral entropy and intermittency of one series."""
    y = np.asarray(y, dtype=float)
    m = m if len(y) >= 2 * m + 1 else 1  # fewer than two seasons: described without seasonality
    parts = decompose(y, m)
    trend = strength(parts["resid"].to_numpy(), (parts["trend"] + parts["resid"]).to_numpy())
    season = strength(parts["resid"].to_numpy(), (parts["seasonal"] + parts["resid"]).to_numpy()) if m > 1 else 0.0
    nlags = max(1, min(max(10, m), len(y) - 2))
    with np.errstate(invalid="ignore", divide="ignore"):  # a constant stretch has no autocorrelation: NaN
        r = acf(y, nlags=nlags, fft=True)
        rd = acf(np.diff(y), nlags=1, fft=True) if len(y) > 2 else np.array([1.0, np.nan])
    adi, cv2, kind = _intermittency(y)
    return {
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


def decompose(y: np.ndarray, m: int | Sequence[int]) -> pd.DataFrame:
    """STL (one period) or MSTL (several) decomposition; LOWESS trend when there is no seasonality."""
    y = np.asarray(y, dtype=float)
    periods = [p for p in ([m] if isinstance(m, int) else list(m)) if p > 1]
    usable = [p for p in periods if len(y) >= 2 * p + 1]
    if len(usable) < len(periods):
        raise DataError(
            f"series of {len(y)} observations is too short to decompose with periods {periods}; "
            "need at least two full cycles of each"
        )
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


# --------------------------------------------------------------------------- exponential smoothing


def ets(y: np.ndarray, m: int = 1) -> Any:
    """The additive-error ETS model (statsmodels) with the lowest AICc among no trend, trend and damped trend,
    each with an additive season when `m` > 1 and the series has two full seasons."""
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel

    series = pd.Series(np.asarray(y, dtype=float))
    seasonal = "add" if m > 1 and len(series) >= 2 * m + 2 else None
    shapes = [(None, False)] + ([("add", False), ("add", True)] if len(series) >= 10 else [])
    best = None
    for trend, damped in shapes:
        with warnings.catch_warnings():  # convergence chatter on short series; AICc still ranks the fits
            warnings.simplefilter("ignore")
            fit = ETSModel(
                series,
                error="add",
                trend=trend,
                damped_trend=damped,
                seasonal=seasonal,
                seasonal_periods=m if seasonal else None,
            ).fit(disp=False)
        if np.isfinite(fit.aicc) and (best is None or fit.aicc < best.aicc):
            best = fit
    if best is None:
        raise DataError(f"no exponential-smoothing model fits this series of {len(series)} observations")
    return best


# --------------------------------------------------------------------------- anomalies


def anomaly_band(y: np.ndarray, fitted: np.ndarray, m: int, level: float = 99, skip: bool = False) -> pd.DataFrame:
    """Score each in-sample residual of one series and flag those outside the `level`% band.

    Each residual is scored against a local robust scale (1.4826 x the rolling median absolute residual over
    about two seasons), so a series whose noise grows with its level is not flagged where it is high. A point is
    flagged when its score exceeds both the normal quantile z for `level` and the `level` quantile of the
    series' own scores: a clean series at level L flags about (100 - L)% of its points, never many more, while
    a real spike still stands out. The first season (the model's start-up) of a series of at least three
    seasons is not flagged, nor is anything when `skip`. Returns residual, score, lo, hi and anomaly.
    """
    fitted = np.asarray(fitted, dtype=float)
    r = pd.Series(np.asarray(y, dtype=float) - fitted)
    sigma = _local_sigma(r, max(13, 2 * m + 1)).to_numpy()
    score = (r / sigma).abs()
    z = float(norm.ppf(0.5 + level / 200))
    cut = max(z, np.nan_to_num(np.nanquantile(score.to_numpy(dtype=float), level / 100), nan=z))
    warm = np.arange(len(r)) < (m if len(r) >= 3 * m else 1)
    flagged = r.notna().to_numpy() & (score.to_numpy() > cut) & ~warm & (not skip)
    return pd.DataFrame(
        {
            "residual": r.to_numpy(),
            "score": score.to_numpy(),
            "lo": fitted - cut * sigma,
            "hi": fitted + cut * sigma,
            "anomaly": flagged,
        }
    )


def _local_sigma(r: pd.Series, window: int) -> pd.Series:
    """Rolling robust scale of residuals, falling back to the global one where the window is flat."""
    local = 1.4826 * r.abs().rolling(window, center=True, min_periods=max(3, window // 2)).median()
    glob = _robust_sigma(r)
    return local.where(local > 0, glob).fillna(glob).replace(0, np.nan)


def _robust_sigma(r: pd.Series) -> float:
    r = r.dropna()
    if r.empty:
        return float("nan")
    mad = 1.4826 * float(np.median(np.abs(r - r.median())))
    return mad if mad > 0 else float(r.std())


def detect_anomalies(y: np.ndarray | pd.Series, m: int = 1, level: float = 99) -> pd.DataFrame:
    """Anomalies of one series against its ETS one-step fitted values (see `anomaly_band`); a constant series
    is not scanned. Returns y, fitted, residual, score, lo, hi and anomaly per point, indexed like `y`."""
    index = y.index if isinstance(y, pd.Series) else None
    values = np.asarray(y, dtype=float)
    fitted = np.asarray(ets(values, m).fittedvalues, dtype=float)
    band = anomaly_band(values, fitted, m, level, skip=bool(np.ptp(values) == 0))
    out = pd.concat([pd.DataFrame({"y": values, "fitted": fitted}), band], axis=1)
    return out.set_axis(index) if index is not None else out


# --------------------------------------------------------------------------- simple forecasts


def forecast(y: np.ndarray, model: str, h: int, levels: Sequence[int] = LEVELS, m: int = 1) -> pd.DataFrame:
    """`h` steps ahead of one series with `model` (one of MODELS): mean and lo_<level>/hi_<level> columns.

    Naive and RandomWalkWithDrift use the textbook normal intervals (as statsforecast computes them); ETS
    those of its state-space model."""
    y = np.asarray(y, dtype=float)
    if model not in MODELS:
        raise DataError(f"unknown model {model!r}; use one of {', '.join(MODELS)}")
    if len(y) < 3:
        raise DataError(f"{len(y)} observations are too few to forecast; give at least 3")
    if model == "ETS":
        return _ets_forecast(y, h, levels, m)
    steps = np.arange(1, h + 1)
    slope = (y[-1] - y[0]) / (len(y) - 1) if model == "RandomWalkWithDrift" else 0.0
    resid = np.diff(y) - slope
    sigma = float(np.sqrt(np.sum(resid**2) / (len(y) - 1)))
    grow = steps * (1 + steps / (len(y) - 1)) if model == "RandomWalkWithDrift" else steps
    out = pd.DataFrame({"mean": y[-1] + slope * steps})
    for lv in levels:
        half = float(norm.ppf(0.5 + lv / 200)) * sigma * np.sqrt(grow)
        out[f"lo_{lv}"], out[f"hi_{lv}"] = out["mean"] - half, out["mean"] + half
    return out


def _ets_forecast(y: np.ndarray, h: int, levels: Sequence[int], m: int) -> pd.DataFrame:
    fit = ets(y, m)
    pred = fit.get_prediction(start=len(y), end=len(y) + h - 1)
    out = pd.DataFrame({"mean": np.asarray(pred.predicted_mean, dtype=float)})
    for lv in levels:
        frame = pred.summary_frame(alpha=1 - lv / 100)
        out[f"lo_{lv}"], out[f"hi_{lv}"] = frame["pi_lower"].to_numpy(), frame["pi_upper"].to_numpy()
    return out


def cross_validate(
    y: np.ndarray, h: int, models: Sequence[str] = MODELS, n_windows: int = 3, m: int = 1
) -> dict[str, float]:
    """Mean MASE of each model over the last `n_windows` rolling origins of `h` steps, best first.

    The scale is the in-sample mean absolute first difference up to each origin (lag m when m > 1)."""
    y = np.asarray(y, dtype=float)
    if len(y) < n_windows * h + max(10, 2 * m):
        raise DataError(f"{len(y)} observations are too few for {n_windows} windows of {h}; shorten the horizon")
    scores: dict[str, list[float]] = {name: [] for name in models}
    for w in range(n_windows, 0, -1):
        train, test = y[: len(y) - w * h], y[len(y) - w * h : len(y) - (w - 1) * h]
        scale = float(np.mean(np.abs(train[m:] - train[:-m]))) or float("nan")
        for name in models:
            pred = forecast(train, name, h, levels=(), m=m)["mean"].to_numpy()
            scores[name].append(float(np.mean(np.abs(test - pred))) / scale)
    means = {name: float(np.nanmean(v)) for name, v in scores.items()}
    return dict(sorted(means.items(), key=lambda kv: kv[1]))
