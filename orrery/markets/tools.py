"""The market tools the LLM calls: thin wrappers that read the store, call `analysis`, and return a dict
with the numbers, the data's last date (`as_of`), the price used, and a one-line `summary` computed here
(the agent's fallback answer is built from these summaries, so it never invents a number).

The store comes from the run's `MarketsDeps` (`ctx.deps`, the agent's `deps_type`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from orrery.errors import ConfigError, DataError, ToolError
from orrery.markets import analysis as A
from orrery.markets import screener as S
from orrery.markets.store import Store
from orrery.tools import RunContext, Tool, tool

TTL = 600.0  # seconds; the data only changes on import, which builds a new agent
CLOSE = "close (unadjusted)"
ADJ = "adj_close (split- and dividend-adjusted)"
Indicator = Literal["RSI", "MACD", "BBANDS", "SMA", "EMA", "ATR", "STOCH", "ADX", "OBV"]


@dataclass(frozen=True)
class MarketsDeps:
    """What the market tools read: the OHLCV store (`run(question, deps=MarketsDeps(store))`). Frozen: runs on
    the same store share the tools' cached results."""

    store: Store


Ctx = RunContext[MarketsDeps]


def store_of(ctx: Ctx) -> Store:
    deps = ctx.deps
    if not isinstance(deps, MarketsDeps):
        raise ConfigError("the market tools read their store from deps: run them with deps=MarketsDeps(store)")
    return deps.store


def _frame(ctx: Ctx, symbol: str, date: str | None = None) -> tuple[str, pd.DataFrame]:
    """(symbol, rows up to `date`); bad symbols and dates become ToolErrors the model can read."""
    store = store_of(ctx)
    try:
        sym = store.resolve(symbol)
        return sym, A.upto(store.prices(sym), date, sym)
    except DataError as exc:
        raise ToolError(str(exc)) from exc


def _guard(fn: Any) -> Any:
    """DataErrors from the analysis (a bad date, an unknown field) reach the model as tool errors."""

    @functools.wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DataError as exc:
            raise ToolError(str(exc)) from exc

    return wrapped


@tool(cache_ttl=TTL)
def list_symbols(ctx: Ctx) -> dict[str, Any]:
    """List every symbol in the local market data with its name, kind, exchange and date range."""
    syms = store_of(ctx).symbols.values()
    rows = [
        {"symbol": s.symbol, "name": s.name, "kind": s.kind, "exchange": s.exchange, "first": s.first, "last": s.last}
        for s in syms
    ]
    return {
        "symbols": rows,
        "summary": f"{len(rows)} symbols: " + ", ".join(f"{s.symbol} ({s.name}, to {s.last})" for s in syms),
    }


@tool(cache_ttl=TTL)
def quote(ctx: Ctx, symbol: str, date: str | None = None) -> dict[str, Any]:
    """Price of a stock or index on a date (default: the last date in the data): open, high, low, close,
    volume, change from the previous close and the 52-week high and low (highest / lowest close in the 52
    weeks ending on the date).

    Args:
        symbol: ticker or name, e.g. AAPL or Apple
        date: YYYY-MM-DD (default: the last date in the data)
    """
    sym, df = _frame(ctx, symbol, date)
    row, prev = df.iloc[-1], df["close"].iloc[-2] if len(df) > 1 else float("nan")
    year = A.last_52_weeks(df["close"])
    change = row["close"] - prev
    out = {
        "symbol": sym,
        "as_of": A.day(df.index[-1]),
        "price": CLOSE,
        **{k: A.r(row[k]) for k in ("open", "high", "low", "close", "adj_close")},
        "volume": int(row["volume"]),
        "change": A.r(change),
        "change_pct": A.r(100 * change / prev),
        "high_52w": A.r(year.max()),
        "high_52w_date": A.day(year.idxmax()),
        "low_52w": A.r(year.min()),
        "low_52w_date": A.day(year.idxmin()),
        "range_52w": f"{A.WEEKS_52} ({A.day(year.index[0])} to {A.day(year.index[-1])})",
    }
    out["summary"] = (
        f"{sym} closed at {out['close']} on {out['as_of']} ({out['change_pct']:+}% on the day); "
        f"52-week high {out['high_52w']} ({out['high_52w_date']}), 52-week low {out['low_52w']} "
        f"({out['low_52w_date']})."
    )
    return out


@tool(cache_ttl=TTL)
def price_history(
    ctx: Ctx, symbol: str, start: str | None = None, end: str | None = None, limit: int = 20
) -> dict[str, Any]:
    """Daily OHLCV rows of a symbol between two dates (the last `limit` rows), with the period's high,
    low and change.

    Args:
        symbol: ticker or name
        start: YYYY-MM-DD (default: one year before end)
        end: YYYY-MM-DD (default: the last date in the data)
        limit: how many of the latest rows to list
    """
    sym, df = _frame(ctx, symbol)
    w = _guard(A.between)(df, start, end, sym)
    rows = [
        {"date": A.day(d), **{k: A.r(v[k]) for k in ("open", "high", "low", "close")}, "volume": int(v["volume"])}
        for d, v in w.iloc[-max(1, limit) :].iterrows()
    ]
    first, last, c = w["close"].iloc[0], w["close"].iloc[-1], w["close"]
    out = {
        "symbol": sym,
        "start": A.day(w.index[0]),
        "as_of": A.day(w.index[-1]),
        "price": CLOSE,
        "period_high": A.r(w["high"].max()),
        "period_low": A.r(w["low"].min()),
        "first_close": A.r(first),
        "last_close": A.r(last),
        "change_pct": A.r(100 * (last / first - 1)),
        "highest_close": A.r(c.max()),
        "highest_close_date": A.day(c.idxmax()),
        "lowest_close": A.r(c.min()),
        "lowest_close_date": A.day(c.idxmin()),
        "rows": rows,
    }
    out["summary"] = (
        f"{sym} from {out['start']} to {out['as_of']}: close {out['first_close']} -> "
        f"{out['last_close']} ({out['change_pct']:+}%); highest close {out['highest_close']} "
        f"({out['highest_close_date']}), lowest close {out['lowest_close']} ({out['lowest_close_date']}); "
        f"intraday high {out['period_high']}, low {out['period_low']}."
    )
    return out


@tool(cache_ttl=TTL)
def technical_indicators(
    ctx: Ctx, symbol: str, indicators: list[Indicator], date: str | None = None, period: int | None = None
) -> dict[str, Any]:
    """Technical indicators (ta-lib) of a symbol on a date: RSI, MACD, BBANDS (Bollinger), SMA, EMA, ATR,
    STOCH (stochastic), ADX, OBV. Default periods: RSI/ATR/ADX 14, SMA 20/50/200, EMA 12/26/50.

    Args:
        symbol: ticker or name
        indicators: e.g. ["RSI", "MACD"]
        date: YYYY-MM-DD (default: the last date in the data)
        period: one period for RSI/SMA/EMA/ATR/ADX instead of the defaults
    """
    sym, df = _frame(ctx, symbol, date)
    values = _guard(A.indicators)(df, indicators, period)
    out = {"symbol": sym, "as_of": A.day(df.index[-1]), "price": CLOSE, "close": A.r(df["close"].iloc[-1]), **values}
    shown = ", ".join(f"{k.upper()} {v}" for k, v in values.items() if v is not None)
    out["summary"] = f"{sym} on {out['as_of']} (close {out['close']}): {shown}."
    return out


@tool(cache_ttl=TTL)
def candlestick_patterns(ctx: Ctx, symbol: str, date: str | None = None, lookback: int = 5) -> dict[str, Any]:
    """Candlestick patterns (ta-lib's 61 CDL functions: doji, hammer, engulfing, ...) on the last bars.

    Args:
        symbol: ticker or name
        date: YYYY-MM-DD of the last bar (default: the last date in the data)
        lookback: how many bars to scan
    """
    sym, df = _frame(ctx, symbol, date)
    found = A.candlesticks(df, max(1, lookback))
    names = ", ".join(f"{f['pattern']} ({f['signal']}, {f['date']})" for f in found[:8]) or "none"
    return {
        "symbol": sym,
        "as_of": A.day(df.index[-1]),
        "price": CLOSE,
        "lookback_bars": lookback,
        "patterns": found,
        "summary": f"{sym} candlestick patterns in the last {lookback} bars: {names}.",
    }


@tool(cache_ttl=TTL)
def support_resistance(ctx: Ctx, symbol: str, date: str | None = None, lookback: int = 120) -> dict[str, Any]:
    """Support and resistance levels from pivot highs/lows, and classic floor pivot points.

    Args:
        symbol: ticker or name
        date: YYYY-MM-DD (default: the last date in the data)
        lookback: bars to search for pivots
    """
    sym, df = _frame(ctx, symbol, date)
    sr = A.support_resistance(df, lookback)
    levels = lambda side: ", ".join(str(x["level"]) for x in sr[side]) or "none"  # noqa: E731
    return {
        "symbol": sym,
        "as_of": A.day(df.index[-1]),
        "price": CLOSE,
        **sr,
        "summary": f"{sym} (close {sr['close']} on {A.day(df.index[-1])}): support {levels('support')}; "
        f"resistance {levels('resistance')}.",
    }


@tool(cache_ttl=TTL)
def fibonacci_levels(ctx: Ctx, symbol: str, date: str | None = None, lookback: int = 120) -> dict[str, Any]:
    """Fibonacci retracement levels (23.6, 38.2, 50, 61.8, 78.6%) between the swing high and low.

    Args:
        symbol: ticker or name
        date: YYYY-MM-DD (default: the last date in the data)
        lookback: bars in which to find the swing high and low
    """
    sym, df = _frame(ctx, symbol, date)
    fib = A.fibonacci(df, lookback)
    lv = ", ".join(f"{k} {v}" for k, v in fib["levels"].items())
    return {
        "symbol": sym,
        "as_of": A.day(df.index[-1]),
        "price": CLOSE,
        **fib,
        "summary": f"{sym} {fib['trend']} move from {fib['swing_low']} to {fib['swing_high']}; retracements "
        f"{lv}; close {fib['close']} on {A.day(df.index[-1])}.",
    }


@tool(cache_ttl=TTL)
def chart_patterns(ctx: Ctx, symbol: str, date: str | None = None, lookback: int = 250) -> dict[str, Any]:
    """Chart patterns: double top/bottom, head and shoulders (and inverse), ascending/descending/symmetrical
    triangles, from pivot points (the method is in the result).

    Args:
        symbol: ticker or name
        date: YYYY-MM-DD (default: the last date in the data)
        lookback: bars to search
    """
    sym, df = _frame(ctx, symbol, date)
    pats = A.chart_patterns(df, lookback)
    names = (
        ", ".join(
            f"{p['pattern']} {p['start']} to {p['end']}{' (confirmed)' if p['confirmed'] else ''}"
            for p in pats["patterns"][:5]
        )
        or "none"
    )
    return {
        "symbol": sym,
        "as_of": A.day(df.index[-1]),
        "price": CLOSE,
        **pats,
        "summary": f"{sym} chart patterns in the last {pats['lookback_bars']} bars: {names}.",
    }


@tool(cache_ttl=TTL)
def stock_screener(
    ctx: Ctx,
    conditions: list[str] | None = None,
    exchange: str | None = None,
    kind: Literal["stock", "index", "all"] = "stock",
    sort_by: str | None = None,
    descending: bool = False,
    limit: int = 10,
    date: str | None = None,
    symbols: list[str] | None = None,
) -> dict[str, Any]:
    """Screen every symbol in the data (or the ones named) by conditions such as "RSI < 30", "close above
    SMA200", "volume 2x its 20-day mean". Returns the matches sorted and limited, every symbol's values, and
    when none match, the symbols closest to matching.

    Args:
        symbols: screen only these (default: every symbol of `kind` on `exchange`)
        conditions: all must hold, e.g. ["RSI < 30"]; none lists every symbol
        exchange: NASDAQ, NYSE or US (default: all)
        kind: stock, index or all
        sort_by: a field to sort by (default: the first condition's field)
        descending: sort from the largest
        limit: most rows returned
        date: YYYY-MM-DD to screen on (default: each symbol's last date)
    """
    store = store_of(ctx)
    try:
        conds = [S.parse(c) for c in conditions or []]
        key = S.field_name(sort_by) if sort_by else (conds[0].left.field if conds else "close")
    except DataError as exc:
        raise ToolError(str(exc)) from exc
    universe = _universe(store, symbols, kind, exchange)
    rows, near, skipped = [], [], []
    for s in universe:
        df = store.prices(s.symbol)
        if date is not None:
            if A.parse_date(date) < df.index[0] or A.parse_date(date) > df.index[-1] + pd.Timedelta(days=4):
                skipped.append(s.symbol)
                continue
            df = df.loc[: A.parse_date(date)]
        row, ok, dist = _screen_row(s.symbol, df, conds, key)
        (rows if ok else near).append((row, dist))
    sort = lambda items: sorted(items, key=lambda x: (x[0][key] is None, x[0][key] or 0), reverse=descending)  # noqa: E731
    matches = [r for r, _ in sort(rows)][: max(1, limit)]
    screened = [s.symbol for s in universe if s.symbol not in skipped]
    if not screened:
        raise ToolError(f"no symbol has data on {date}; {', '.join(skipped)} cover other dates (see list_symbols)")
    out: dict[str, Any] = {
        "conditions": [str(c) for c in conds],
        "universe": screened,
        "skipped": skipped,
        "price": CLOSE,
        "count": len(rows),
        "matches": matches,
        "descending": descending,
        "values": [r for r, _ in rows + near],
    }
    if conds and not rows:
        out["closest"] = [r for r, _ in sorted(near, key=lambda x: x[1])][:3]
    out["summary"] = _screen_summary(out, key)
    return out


def _universe(store: Store, symbols: list[str] | None, kind: str, exchange: str | None) -> list[Any]:
    """The symbols a screen looks at: the ones named, else every symbol of `kind` on `exchange`."""
    if symbols:
        try:
            return [store.symbols[store.resolve(s)] for s in dict.fromkeys(symbols)]
        except DataError as exc:
            raise ToolError(str(exc)) from exc
    ex = (exchange or "").upper()
    universe = [
        s
        for s in store.symbols.values()
        if (kind == "all" or s.kind == kind) and (ex in ("", "US", "ALL") or s.exchange == ex)
    ]
    if not universe:
        exchanges = sorted({s.exchange for s in store.symbols.values()})
        raise ToolError(f"no {kind} symbols on exchange {exchange!r}; exchanges in the data: {', '.join(exchanges)}")
    return universe


def _screen_row(symbol: str, df: pd.DataFrame, conds: list[Any], key: str) -> tuple[dict[str, Any], bool, float]:
    """One symbol's screen row (the values each condition compared, and `key`), whether every condition holds,
    and how far it is from holding."""
    row: dict[str, Any] = {"symbol": symbol, "as_of": A.day(df.index[-1])}
    ok, dist = True, 0.0
    for c in conds:
        met, a, b = _guard(c.check)(df)
        row[str(c.left) if c.left.field else str(c)] = a
        if c.right.field:
            row[str(c.right)] = b
        ok &= met
        dist += S.distance(c, a, b)
    row[key] = row.get(key, _guard(A.field_value)(df, key) if key else None)
    return row, ok, dist


SHOW_ALL = 10  # a screen of at most this many symbols lists every symbol's values


def _screen_summary(out: dict[str, Any], key: str) -> str:
    what = " and ".join(out["conditions"]) or "no conditions"
    fmt = lambda rows: ", ".join(f"{r['symbol']} ({_values(r, key)}, {r['as_of']})" for r in rows)  # noqa: E731
    n = len(out["universe"])
    if not out["conditions"]:
        order = "highest" if out.get("descending") else "lowest"
        return f"{n} symbols by {key}, {order} first: {fmt(out['matches'])}." + (
            f" No data on that date: {', '.join(out['skipped'])}." if out["skipped"] else ""
        )
    if out["matches"]:
        head = f"{out['count']} of {n} symbols match {what}: {fmt(out['matches'])}."
    else:
        closest = f"; closest: {fmt(out['closest'])}" if out.get("closest") else ""
        head = f"No symbol of {n} matches {what}{closest}."
    others = [r for r in out["values"] if r not in out["matches"]]
    if out["conditions"] and others and n <= SHOW_ALL:
        head += f" Not matching: {fmt(others)}."
    if out["skipped"]:
        head += f" No data on that date: {', '.join(out['skipped'])}."
    return head


def _values(row: dict[str, Any], key: str) -> str:
    """A screen row's values (the fields its conditions compared), e.g. "rsi_14 24.07" or "close 418.03,
    sma_50 400.1"."""
    shown = [f"{k} {v}" for k, v in row.items() if k not in ("symbol", "as_of")]
    return ", ".join(shown) or f"{key} {row.get(key)}"


@tool(cache_ttl=TTL)
def performance(ctx: Ctx, symbol: str, start: str | None = None, end: str | None = None) -> dict[str, Any]:
    """Return, annualized volatility, CAGR, maximum drawdown and best/worst day of a symbol over a period.

    Args:
        symbol: ticker or name
        start: YYYY-MM-DD (default: one year before end)
        end: YYYY-MM-DD (default: the last date in the data)
    """
    sym, df = _frame(ctx, symbol)
    perf = A.performance(_guard(A.between)(df, start, end, sym))
    return {
        "symbol": sym,
        "as_of": perf["end"],
        "price": ADJ,
        **perf,
        "summary": f"{sym} {perf['start']} to {perf['end']}: return {perf['total_return_pct']}%, volatility "
        f"{perf['volatility_pct']}%, max drawdown {perf['max_drawdown_pct']}%.",
    }


PERIOD_METRICS = {"return": "total_return_pct", "volatility": "volatility_pct", "max_drawdown": "max_drawdown_pct"}


@tool(cache_ttl=TTL)
def compare_symbols(
    ctx: Ctx,
    symbols: list[str],
    start: str | None = None,
    end: str | None = None,
    metric: str = "return",
    lowest: bool = False,
) -> dict[str, Any]:
    """Compare several symbols over the same period: return, volatility, max drawdown, the correlation of
    their daily returns, and the leader by a metric (ties named together).

    Args:
        symbols: two or more tickers or names
        start: YYYY-MM-DD (default: one year before end)
        end: YYYY-MM-DD (default: the last date all symbols share)
        metric: what ranks them: return, volatility, max_drawdown over the period, or a field on the end
            date (close, rsi_14, sma_50, high_52w, volume, ...)
        lowest: the leader has the lowest value (e.g. the worst return) instead of the highest
    """
    store = store_of(ctx)
    if len(symbols) < 2:
        raise ToolError("compare_symbols needs two or more symbols; use performance for one")
    try:
        syms = list(dict.fromkeys(store.resolve(s) for s in symbols))
    except DataError as exc:
        raise ToolError(str(exc)) from exc
    frames = {s: store.prices(s) for s in syms}
    shared_end = A.day(min(f.index[-1] for f in frames.values()))
    windows = {s: _guard(A.between)(f, start, end or shared_end, s) for s, f in frames.items()}
    perf = {s: A.performance(w) for s, w in windows.items()}
    corr = A.correlation(windows)
    rows = {
        s: {k: p[k] for k in ("start", "end", "total_return_pct", "volatility_pct", "max_drawdown_pct")}
        for s, p in perf.items()
    }
    best = max(rows, key=lambda s: rows[s]["total_return_pct"] or float("-inf"))
    pairs = [f"{a}/{b} {corr[a][b]}" for i, a in enumerate(syms) for b in syms[i + 1 :]]
    out = {
        "as_of": end or shared_end,
        "price": ADJ,
        "symbols": rows,
        "correlation": corr,
        "best": best,
        **_ranked(metric, lowest, rows, frames, end or shared_end),
    }
    if out["metric"] not in PERIOD_METRICS:  # a field on the date: as traded
        out["price"] = CLOSE
    period = f"{rows[syms[0]]['start']} to {rows[syms[0]]['end']}"
    lead = out["winner"]
    out["headline"] = (
        f"By {out['metric']} ({period if out['metric'] in PERIOD_METRICS else 'on ' + out['on']}): "
        + ", ".join(f"{s} {_fmt(v, out['metric'])}" for s, v in out["values"].items())
        + f"; {' and '.join(lead)} {'tie for' if len(lead) > 1 else 'has'} the "
        f"{'lowest' if lowest else 'highest'}."
    )
    out["summary"] = (
        out["headline"]
        if out["metric"] not in PERIOD_METRICS
        else out["headline"]
        + f" Over {period}: "
        + "; ".join(
            f"{s} return {p['total_return_pct']}%, volatility {p['volatility_pct']}%, "
            f"max drawdown {p['max_drawdown_pct']}%"
            for s, p in rows.items()
        )
        + f"; correlation {', '.join(pairs)}."
    )
    return out


def _ranked(
    metric: str, lowest: bool, rows: dict[str, dict[str, Any]], frames: dict[str, pd.DataFrame], end: str
) -> dict[str, Any]:
    """Each symbol's value of `metric` and the leader(s): equal values at the precision shown tie."""
    name = metric.strip().lower().replace(" ", "_")
    if name in PERIOD_METRICS:
        values = {s: p[PERIOD_METRICS[name]] for s, p in rows.items()}
        on = end
    else:
        try:
            name = S.field_name(metric)
            cut = {s: A.upto(f, end, s) for s, f in frames.items()}
        except DataError as exc:
            raise ToolError(str(exc)) from exc
        values = {s: _guard(A.field_value)(f, name) for s, f in cut.items()}
        on = min(A.day(f.index[-1]) for f in cut.values())
    known = {s: v for s, v in values.items() if v is not None}
    if not known:
        raise ToolError(f"no symbol has a value of {name} on {end}")
    target = min(known.values()) if lowest else max(known.values())
    return {"metric": name, "on": on, "values": values, "winner": [s for s, v in known.items() if v == target]}


def _fmt(value: float | None, metric: str) -> str:
    return "n/a" if value is None else f"{value}%" if metric in PERIOD_METRICS else f"{value}"


@tool(cache_ttl=TTL, timeout=120)
def price_forecast(ctx: Ctx, symbol: str, horizon_days: int = 21) -> dict[str, Any]:
    """Forecast a symbol's close for the next trading days with 80% and 95% intervals (orrery.timeseries:
    cross-validated ETS / RandomWalkWithDrift / Naive on the last 3 years).

    Args:
        symbol: ticker or name
        horizon_days: trading days ahead (21 is about a month)
    """
    from orrery import timeseries as F

    sym, df = _frame(ctx, symbol)
    h = max(1, min(horizon_days, 126))
    closes = df["close"].iloc[-3 * A.TRADING_DAYS :]
    cv = F.cross_validate(closes.to_numpy(float), h, n_windows=3)  # mean MASE per model, best first
    best = next(iter(cv))
    fc = F.forecast(closes.to_numpy(float), best, h).iloc[-1]
    out = {
        "symbol": sym,
        "as_of": A.day(df.index[-1]),
        "price": CLOSE,
        "horizon_days": h,
        "model": best,
        "last_close": A.r(closes.iloc[-1]),
        "forecast": A.r(fc["mean"]),
        "lo_80": A.r(fc["lo_80"]),
        "hi_80": A.r(fc["hi_80"]),
        "lo_95": A.r(fc["lo_95"]),
        "hi_95": A.r(fc["hi_95"]),
        "cv_mase": {m: A.r(v, 3) for m, v in cv.items()},
    }
    out["summary"] = (
        f"{sym} close {out['last_close']} on {out['as_of']}; {best} forecast for {h} trading days "
        f"later: {out['forecast']} (80% interval {out['lo_80']} to {out['hi_80']}, 95% interval "
        f"{out['lo_95']} to {out['hi_95']})."
    )
    return out


TOOLS: list[Tool] = [
    quote,
    price_history,
    technical_indicators,
    candlestick_patterns,
    support_resistance,
    fibonacci_levels,
    chart_patterns,
    stock_screener,
    performance,
    compare_symbols,
    price_forecast,
    list_symbols,
]
