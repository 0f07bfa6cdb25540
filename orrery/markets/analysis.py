"""Market computations on one symbol's daily frame (index: date; open, high, low, close, adj_close, volume).

Indicators and candlestick patterns are ta-lib's. Support/resistance, Fibonacci levels and chart patterns
have no ta-lib function, so they are written here from pivot points; each result states its method.
Technicals use the unadjusted close (what traded that day); returns, volatility, drawdown and correlation
use adj_close, so splits and dividends do not look like crashes or jumps.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import talib

from orrery.errors import DataError

TRADING_DAYS = 252
FIB_RATIOS = (0.236, 0.382, 0.5, 0.618, 0.786)
PIVOT_ORDER = 5  # a pivot high is the highest high of the 5 bars either side (lows alike)
INDICATORS = ("RSI", "MACD", "BBANDS", "SMA", "EMA", "ATR", "STOCH", "ADX", "OBV")
DEFAULT_PERIODS = {
    "RSI": (14,),
    "SMA": (20, 50, 200),
    "EMA": (12, 26, 50),
    "ATR": (14,),
    "ADX": (14,),
    "BBANDS": (20,),
    "STOCH": (14,),
}
CANDLES = tuple(talib.get_function_groups()["Pattern Recognition"])

SR_METHOD = (
    "pivot highs/lows (highest high / lowest low of 5 bars either side) over the lookback window, "
    "grouped when within 1.5% of each other; a level is the group's mean, its strength the number of "
    "touches; below the last close = support, above = resistance. Classic floor pivots from the last bar."
)
FIB_METHOD = (
    "swing high = highest high and swing low = lowest low over the lookback window; in an up move "
    "(low before high) levels are high - r*(high-low), in a down move low + r*(high-low)"
)
PATTERN_METHOD = (
    "pivots of the close (the highest/lowest close of 5 bars either side) over the lookback window. "
    "Double top/bottom: two pivots within 3% of each other, 10+ bars apart, with a pullback of 5%+ "
    "between them (the neckline); confirmed once a later close breaks the neckline. Head and "
    "shoulders: three pivot highs whose middle is 3%+ above both shoulders, shoulders within 5% "
    "of each other (inverse: lows). Triangles: least-squares lines through the last 3+ pivot highs "
    "and 3+ pivot lows of the last 60 bars; a line is flat when it moves under 0.05% of price per "
    "bar: flat highs + rising lows = ascending, falling highs + flat lows = descending, falling "
    "highs + rising lows = symmetrical."
)


def r(x: float | np.floating, digits: int = 2) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), digits)


def day(ts: Any) -> str:
    return pd.Timestamp(ts).strftime("%Y-%m-%d")


# -- windows ---------------------------------------------------------------------------------------------
def upto(df: pd.DataFrame, date: str | None, symbol: str) -> pd.DataFrame:
    """Rows up to `date` (default: all). A date outside the data is a DataError naming the range."""
    if date is None:
        return df
    ts = parse_date(date)
    first, last = df.index[0], df.index[-1]
    if ts < first or ts > last + pd.Timedelta(days=4):
        raise DataError(
            f"{date} is outside the data for {symbol} ({day(first)} to {day(last)}); ask about a date in that range"
        )
    return df.loc[:ts]


def between(
    df: pd.DataFrame, start: str | None, end: str | None, symbol: str, default_days: int = TRADING_DAYS
) -> pd.DataFrame:
    """Rows from `start` to `end` (default: the last `default_days` bars up to `end`). An end given as a
    year or a month means its last day ("2008" -> 2008-12-31)."""
    if end is not None and re.fullmatch(r"\d{4}(-\d{2})?", end.strip()):
        period = pd.Period(end.strip())
        end = day(min(period.end_time.normalize(), df.index[-1]))
    out = upto(df, end, symbol)
    if start is None:
        return out.iloc[-default_days - 1 :]
    ts = parse_date(start)
    if ts > out.index[-1] or ts < df.index[0] - pd.Timedelta(days=4):
        raise DataError(f"{start} is outside the data for {symbol} ({day(df.index[0])} to {day(df.index[-1])})")
    out = out.loc[ts:]
    if len(out) < 2:
        raise DataError(f"fewer than 2 trading days for {symbol} between {start} and {end or day(df.index[-1])}")
    return out


def last_52_weeks(series: pd.Series) -> pd.Series:
    """The values of the 52 weeks ending on the series' last date (dates after it minus 364 days)."""
    return series[series.index > series.index[-1] - pd.Timedelta(days=364)]


WEEKS_52 = "the highest / lowest close in the 52 weeks ending on the date"


def parse_date(text: str) -> pd.Timestamp:
    try:
        return pd.Timestamp(text).normalize()
    except (ValueError, TypeError) as exc:
        raise DataError(f"{text!r} is not a date; use YYYY-MM-DD") from exc


# -- indicators ------------------------------------------------------------------------------------------
def _arrays(df: pd.DataFrame) -> tuple[np.ndarray, ...]:
    return tuple(df[c].to_numpy(dtype=float) for c in ("open", "high", "low", "close", "volume"))


def _bbands(c: np.ndarray, p: int | None) -> dict[str, np.ndarray]:
    upper, middle, lower = talib.BBANDS(c, timeperiod=p, nbdevup=2, nbdevdn=2)
    return {"bb_upper": upper, "bb_middle": middle, "bb_lower": lower}


def _stoch(h: np.ndarray, lo: np.ndarray, c: np.ndarray, p: int | None) -> dict[str, np.ndarray]:
    k, d = talib.STOCH(h, lo, c, fastk_period=p, slowk_period=3, slowd_period=3)
    return {"stoch_k": k, "stoch_d": d}


def _macd(c: np.ndarray) -> dict[str, np.ndarray]:
    macd, signal, hist = talib.MACD(c, 12, 26, 9)
    return {"macd": macd, "macd_signal": signal, "macd_hist": hist}


def _adx(h: np.ndarray, lo: np.ndarray, c: np.ndarray, p: int | None) -> dict[str, np.ndarray]:
    return {
        f"adx_{p}": talib.ADX(h, lo, c, timeperiod=p),
        f"plus_di_{p}": talib.PLUS_DI(h, lo, c, timeperiod=p),
        f"minus_di_{p}": talib.MINUS_DI(h, lo, c, timeperiod=p),
    }


# indicator -> (bars (open, high, low, close, volume), period) -> {output key: series}
_SERIES: dict[str, Callable[[tuple[np.ndarray, ...], int | None], dict[str, np.ndarray]]] = {
    "RSI": lambda b, p: {f"rsi_{p}": talib.RSI(b[3], timeperiod=p)},
    "SMA": lambda b, p: {f"sma_{p}": talib.SMA(b[3], timeperiod=p)},
    "EMA": lambda b, p: {f"ema_{p}": talib.EMA(b[3], timeperiod=p)},
    "ATR": lambda b, p: {f"atr_{p}": talib.ATR(b[1], b[2], b[3], timeperiod=p)},
    "ADX": lambda b, p: _adx(b[1], b[2], b[3], p),
    "BBANDS": lambda b, p: _bbands(b[3], p),
    "STOCH": lambda b, p: _stoch(b[1], b[2], b[3], p),
    "MACD": lambda b, _p: _macd(b[3]),
    "OBV": lambda b, _p: {"obv": talib.OBV(b[3], b[4])},
}


def indicator_series(df: pd.DataFrame, name: str, period: int | None = None) -> dict[str, np.ndarray]:
    """{output key: full series} for one ta-lib indicator on the close; keys carry the period (rsi_14)."""
    name = name.upper()
    if name not in _SERIES:
        raise DataError(f"unknown indicator {name!r}; use one of {', '.join(INDICATORS)}")
    bars = _arrays(df)
    out: dict[str, np.ndarray] = {}
    for p in (period,) if period else DEFAULT_PERIODS.get(name, (None,)):
        out.update(_SERIES[name](bars, p))
    return out


def indicators(df: pd.DataFrame, names: Sequence[str], period: int | None = None) -> dict[str, float | None]:
    """The indicators' values on the frame's last bar (None while a window is still filling)."""
    values: dict[str, float | None] = {}
    for name in names:
        for key, series in indicator_series(df, name, period).items():
            values[key] = r(series[-1], 0 if key == "obv" else 2)
        if values.get("obv") is not None:
            values["obv"] = int(values["obv"])
    return values


def candlesticks(df: pd.DataFrame, lookback: int = 10) -> list[dict[str, Any]]:
    """ta-lib's candlestick patterns found on the last `lookback` bars (newest first)."""
    o, h, lo, c, _ = _arrays(df)
    found = []
    for fn in CANDLES:
        hits = getattr(talib, fn)(o, h, lo, c)[-lookback:]
        for i in np.flatnonzero(hits):
            found.append(
                {
                    "date": day(df.index[len(df) - lookback + i]) if len(df) >= lookback else day(df.index[i]),
                    "pattern": fn[3:].lower(),
                    "signal": "bullish" if hits[i] > 0 else "bearish",
                }
            )
    return sorted(found, key=lambda f: f["date"], reverse=True)


# -- levels ----------------------------------------------------------------------------------------------
def pivots(values: np.ndarray, order: int = PIVOT_ORDER) -> tuple[np.ndarray, np.ndarray]:
    """Indices of pivot highs and lows: the extreme of `order` bars on each side (ties keep the first)."""
    n = len(values)
    highs, lows = [], []
    for i in range(order, n - order):
        win = values[i - order : i + order + 1]
        if values[i] == win.max() and np.argmax(win) == order:
            highs.append(i)
        if values[i] == win.min() and np.argmin(win) == order:
            lows.append(i)
    return np.array(highs, dtype=int), np.array(lows, dtype=int)


def _clusters(prices: list[float], tol: float = 0.015) -> list[tuple[float, int]]:
    groups: list[list[float]] = []
    for p in sorted(prices):
        if groups and p <= groups[-1][0] * (1 + tol):
            groups[-1].append(p)
        else:
            groups.append([p])
    return [(float(np.mean(g)), len(g)) for g in groups]


def support_resistance(df: pd.DataFrame, lookback: int = 120, n: int = 3) -> dict[str, Any]:
    w = df.iloc[-lookback:]
    hi_idx, _ = pivots(w["high"].to_numpy(float))
    _, lo_idx = pivots(w["low"].to_numpy(float))
    points = list(w["high"].to_numpy(float)[hi_idx]) + list(w["low"].to_numpy(float)[lo_idx])
    close = float(w["close"].iloc[-1])
    levels = _clusters(points)
    support = sorted([lv for lv in levels if lv[0] < close], key=lambda lv: -lv[0])[:n]
    resistance = sorted([lv for lv in levels if lv[0] >= close], key=lambda lv: lv[0])[:n]
    last = w.iloc[-1]
    p = (last["high"] + last["low"] + last["close"]) / 3
    rng = last["high"] - last["low"]
    return {
        "close": r(close),
        "support": [{"level": r(lv), "touches": k} for lv, k in support],
        "resistance": [{"level": r(lv), "touches": k} for lv, k in resistance],
        "pivot_points": {
            "P": r(p),
            "R1": r(2 * p - last["low"]),
            "S1": r(2 * p - last["high"]),
            "R2": r(p + rng),
            "S2": r(p - rng),
        },
        "lookback_bars": len(w),
        "method": SR_METHOD,
    }


def fibonacci(df: pd.DataFrame, lookback: int = 120) -> dict[str, Any]:
    w = df.iloc[-lookback:]
    hi_at, lo_at = w["high"].idxmax(), w["low"].idxmin()
    high, low = float(w["high"].max()), float(w["low"].min())
    up = lo_at < hi_at
    span = high - low
    levels = {f"{ratio * 100:g}%": r(high - ratio * span if up else low + ratio * span) for ratio in FIB_RATIOS}
    close = float(w["close"].iloc[-1])
    below = [k for k, v in levels.items() if (v <= close)]
    above = [k for k, v in levels.items() if (v > close)]
    return {
        "trend": "up" if up else "down",
        "swing_high": r(high),
        "swing_high_date": day(hi_at),
        "swing_low": r(low),
        "swing_low_date": day(lo_at),
        "close": r(close),
        "levels": levels,
        "nearest_below": (min(below, key=lambda k: close - levels[k]) if below else None),
        "nearest_above": (min(above, key=lambda k: levels[k] - close) if above else None),
        "lookback_bars": len(w),
        "method": FIB_METHOD,
    }


# -- chart patterns --------------------------------------------------------------------------------------
def chart_patterns(df: pd.DataFrame, lookback: int = 250) -> dict[str, Any]:
    w = df.iloc[-lookback:]
    c = w["close"].to_numpy(float)
    dates = [day(d) for d in w.index]
    hi, lo = pivots(c)
    found = _doubles(c, dates, hi, lo) + _head_shoulders(c, dates, hi, lo) + _triangle(c, dates, hi, lo)
    return {
        "patterns": sorted(found, key=lambda p: p["end"], reverse=True),
        "lookback_bars": len(w),
        "method": PATTERN_METHOD,
    }


def _doubles(c: np.ndarray, dates: list[str], hi: np.ndarray, lo: np.ndarray) -> list[dict[str, Any]]:
    found = []
    for kind, peaks, other, sign in (("double top", hi, lo, 1), ("double bottom", lo, hi, -1)):
        for a, b in zip(peaks, peaks[1:], strict=False):
            if b - a < 10 or abs(c[a] - c[b]) > 0.03 * min(c[a], c[b]):
                continue
            mid = [i for i in other if a < i < b]
            if not mid:
                continue
            neck = min(c[i] for i in mid) if sign > 0 else max(c[i] for i in mid)
            depth = (min(c[a], c[b]) - neck) / neck if sign > 0 else (neck - max(c[a], c[b])) / max(c[a], c[b])
            if depth < 0.05:
                continue
            after = c[b + 1 :]
            confirmed = bool(np.any(after < neck) if sign > 0 else np.any(after > neck))
            found.append(
                {
                    "pattern": kind,
                    "start": dates[a],
                    "end": dates[b],
                    "points": [r(c[a]), r(c[b])],
                    "neckline": r(neck),
                    "confirmed": confirmed,
                }
            )
    return found


def _head_shoulders(c: np.ndarray, dates: list[str], hi: np.ndarray, lo: np.ndarray) -> list[dict[str, Any]]:
    found = []
    for kind, peaks, sign in (("head and shoulders", hi, 1), ("inverse head and shoulders", lo, -1)):
        for a, m, b in zip(peaks, peaks[1:], peaks[2:], strict=False):
            ls, head, rs = sign * c[a], sign * c[m], sign * c[b]
            if head < max(ls, rs) + 0.03 * abs(c[m]) or abs(c[a] - c[b]) > 0.05 * min(c[a], c[b]):
                continue
            troughs = [sign * c[i] for i in (lo if sign > 0 else hi) if a < i < b]
            if not troughs:
                continue
            neck = sign * min(troughs)
            confirmed = bool(np.any(sign * c[b + 1 :] < sign * neck))
            found.append(
                {
                    "pattern": kind,
                    "start": dates[a],
                    "end": dates[b],
                    "points": [r(c[a]), r(c[m]), r(c[b])],
                    "neckline": r(neck),
                    "confirmed": confirmed,
                }
            )
    return found


def _triangle(c: np.ndarray, dates: list[str], hi: np.ndarray, lo: np.ndarray, bars: int = 60) -> list[dict[str, Any]]:
    start = len(c) - bars
    hi, lo = hi[hi >= start], lo[lo >= start]
    if len(hi) < 3 or len(lo) < 3:
        return []
    flat = 0.0005 * float(c[-1])
    s_hi = float(np.polyfit(hi, c[hi], 1)[0])
    s_lo = float(np.polyfit(lo, c[lo], 1)[0])
    shape = (
        "ascending triangle"
        if abs(s_hi) < flat and s_lo > flat
        else "descending triangle"
        if s_hi < -flat and abs(s_lo) < flat
        else "symmetrical triangle"
        if s_hi < -flat and s_lo > flat
        else None
    )
    if shape is None:
        return []
    return [
        {
            "pattern": shape,
            "start": dates[min(hi[0], lo[0])],
            "end": dates[max(hi[-1], lo[-1])],
            "upper_slope_per_bar": r(s_hi, 3),
            "lower_slope_per_bar": r(s_lo, 3),
            "confirmed": False,
        }
    ]


# -- returns and risk ------------------------------------------------------------------------------------
def performance(df: pd.DataFrame) -> dict[str, Any]:
    """Return, annualized volatility and max drawdown of adj_close over the frame."""
    px = df["adj_close"]
    daily = px.pct_change().dropna()
    peak = px.cummax()
    dd = px / peak - 1
    trough = dd.idxmin()
    years = (px.index[-1] - px.index[0]).days / 365.25
    total = px.iloc[-1] / px.iloc[0] - 1
    return {
        "start": day(px.index[0]),
        "end": day(px.index[-1]),
        "total_return_pct": r(100 * total),
        "cagr_pct": r(100 * ((1 + total) ** (1 / years) - 1)) if years > 0 else None,
        "volatility_pct": r(100 * daily.std() * np.sqrt(TRADING_DAYS)),
        "max_drawdown_pct": r(100 * dd.min()),
        "drawdown_peak": day(px.loc[:trough].idxmax()),
        "drawdown_trough": day(trough),
        "best_day_pct": r(100 * daily.max()),
        "best_day": day(daily.idxmax()),
        "worst_day_pct": r(100 * daily.min()),
        "worst_day": day(daily.idxmin()),
    }


def correlation(frames: dict[str, pd.DataFrame]) -> dict[str, dict[str, float | None]]:
    """Pearson correlation of daily adj_close returns on the dates all symbols share."""
    rets = pd.DataFrame({s: f["adj_close"].pct_change() for s, f in frames.items()}).dropna()
    corr = rets.corr()
    return {a: {b: r(corr.loc[a, b], 3) for b in corr.columns} for a in corr.index}


# -- screener fields -------------------------------------------------------------------------------------
FIELDS = (
    "close",
    "open",
    "high",
    "low",
    "volume",
    "adj_close",
    "change_pct",
    "return_1m_pct",
    "return_3m_pct",
    "return_1y_pct",
    "volatility_pct",
    "drawdown_52w_pct",
    "high_52w",
    "low_52w",
    "rsi_N",
    "sma_N",
    "ema_N",
    "atr_N",
    "adx_N",
    "volume_sma_N",
    "macd",
    "macd_signal",
    "macd_hist",
    "bb_upper",
    "bb_lower",
    "stoch_k",
    "stoch_d",
    "obv",
)
_RET = {"return_1m_pct": 21, "return_3m_pct": 63, "return_1y_pct": TRADING_DAYS}


def _return(n: int) -> Callable[[pd.DataFrame], float | None]:
    return lambda df: r(100 * (df["adj_close"].iloc[-1] / df["adj_close"].iloc[-n - 1] - 1)) if len(df) > n else None


# screener fields read straight off the bars
_FIELDS: dict[str, Callable[[pd.DataFrame], float | None]] = {
    **{k: (lambda df, k=k: r(df[k].iloc[-1])) for k in ("close", "open", "high", "low", "volume", "adj_close")},
    **{k: _return(n) for k, n in _RET.items()},
    "change_pct": lambda df: r(100 * (df["close"].iloc[-1] / df["close"].iloc[-2] - 1)) if len(df) > 1 else None,
    "volatility_pct": lambda df: r(100 * df["adj_close"].pct_change().iloc[-21:].std() * np.sqrt(TRADING_DAYS)),
    "high_52w": lambda df: r(last_52_weeks(df["close"]).max()),
    "low_52w": lambda df: r(last_52_weeks(df["close"]).min()),
    "drawdown_52w_pct": lambda df: r(100 * (df["close"].iloc[-1] / last_52_weeks(df["close"]).max() - 1)),
}


def field_value(df: pd.DataFrame, name: str) -> float | None:
    """One screener field on the frame's last bar."""
    if name in _FIELDS:
        return _FIELDS[name](df)
    if m := re.fullmatch(r"volume_sma_(\d+)", name):
        return r(talib.SMA(df["volume"].to_numpy(float), int(m.group(1)))[-1])
    if m := re.fullmatch(r"(rsi|sma|ema|atr|adx)_(\d+)", name):
        return indicators(df, [m.group(1)], int(m.group(2)))[name]
    for ind in ("MACD", "BBANDS", "STOCH", "OBV"):
        if name.startswith(ind.lower()[:4]) or (ind == "BBANDS" and name.startswith("bb_")):
            return indicators(df, [ind]).get(name)
    raise DataError(f"unknown field {name!r}; use one of {', '.join(FIELDS)} (N = a period, e.g. sma_200)")
