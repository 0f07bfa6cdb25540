"""Every tool against the same numbers computed directly with ta-lib / pandas on the packaged data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import talib

from orrery.errors import ToolError
from orrery.markets import analysis as A
from orrery.markets import tools as T
from orrery.markets.store import Store


def arr(df: pd.DataFrame, col: str, end: str | None = None) -> np.ndarray:
    return (df.loc[:end] if end else df)[col].to_numpy(float)


def test_quote_on_a_date_and_the_last_date(ctx, raw):
    ibm = raw["IBM"]
    q = T.quote.fn(ctx, "IBM", "2010-06-15")
    prev = ibm["close"].loc[:"2010-06-14"].iloc[-1]
    assert q["close"] == round(ibm.loc["2010-06-15", "close"], 2) and q["as_of"] == "2010-06-15"
    assert q["change_pct"] == round(100 * (ibm.loc["2010-06-15", "close"] / prev - 1), 2)
    year = ibm["close"].loc["2009-06-17":"2010-06-15"]  # the 52 weeks ending on the date: after 2009-06-16
    assert (q["high_52w"], q["low_52w"]) == (round(year.max(), 2), round(year.min(), 2))
    assert q["high_52w_date"] == year.idxmax().strftime("%Y-%m-%d")
    last = T.quote.fn(ctx, "Apple")
    assert last["symbol"] == "AAPL" and last["as_of"] == "2013-03-01" and last["close"] == 430.47
    assert "430.47" in last["summary"] and last["price"].startswith("close")


def test_a_weekend_date_uses_the_last_trading_day_before_it(ctx):
    assert T.quote.fn(ctx, "MSFT", "2012-06-16")["as_of"] == "2012-06-15"


@pytest.mark.parametrize("date", ["1990-01-01", "2014-05-01", "yesterday-ish"])
def test_dates_outside_the_data_are_tool_errors(ctx, date):
    with pytest.raises(ToolError, match="outside the data for AAPL|is not a date"):
        T.quote.fn(ctx, "AAPL", date)


def test_unknown_symbol_is_a_tool_error(ctx):
    with pytest.raises(ToolError, match="'TSLA' is not in the data"):
        T.technical_indicators.fn(ctx, "TSLA", ["RSI"])


def test_price_history(ctx, raw):
    h = T.price_history.fn(ctx, "MSFT", "2012-01-03", "2012-03-30", limit=3)
    w = raw["MSFT"].loc["2012-01-03":"2012-03-30"]
    assert [r["date"] for r in h["rows"]] == [d.strftime("%Y-%m-%d") for d in w.index[-3:]]
    assert h["period_high"] == round(w["high"].max(), 2) and h["period_low"] == round(w["low"].min(), 2)
    assert h["change_pct"] == round(100 * (w["close"].iloc[-1] / w["close"].iloc[0] - 1), 2)


def test_indicators_match_talib(ctx, raw):
    end = "2012-09-20"
    d = raw["AAPL"]
    o, h, lo, c, v = (arr(d, k, end) for k in ("open", "high", "low", "close", "volume"))
    got = T.technical_indicators.fn(ctx, "AAPL", list(A.INDICATORS), date=end)
    macd, sig, hist = talib.MACD(c, 12, 26, 9)
    upper, mid, lower = talib.BBANDS(c, 20, 2, 2)
    k, dd = talib.STOCH(h, lo, c, 14, 3, 0, 3, 0)
    want = {
        "rsi_14": talib.RSI(c, 14)[-1],
        "macd": macd[-1],
        "macd_signal": sig[-1],
        "macd_hist": hist[-1],
        "bb_upper": upper[-1],
        "bb_lower": lower[-1],
        "sma_200": talib.SMA(c, 200)[-1],
        "sma_50": c[-50:].mean(),
        "ema_26": talib.EMA(c, 26)[-1],
        "atr_14": talib.ATR(h, lo, c, 14)[-1],
        "stoch_k": k[-1],
        "stoch_d": dd[-1],
        "adx_14": talib.ADX(h, lo, c, 14)[-1],
    }
    for key, value in want.items():
        assert got[key] == pytest.approx(value, abs=0.006), key
    assert got["obv"] == int(round(talib.OBV(c, v)[-1]))
    assert got["as_of"] == end


def test_indicator_period_and_rsi_by_pandas(ctx, raw):
    c = raw["IBM"]["close"]
    got = T.technical_indicators.fn(ctx, "IBM", ["SMA", "RSI"], period=10)
    assert got["sma_10"] == round(c.iloc[-10:].mean(), 2)
    # Wilder's RSI by hand with pandas: ta-lib seeds with a simple mean, then smooths with alpha 1/n
    delta = c.diff().dropna().to_numpy()
    gain, loss = np.clip(delta, 0, None), np.clip(-delta, 0, None)
    ag, al = gain[:10].mean(), loss[:10].mean()
    for g, lo_ in zip(gain[10:], loss[10:], strict=True):
        ag, al = (ag * 9 + g) / 10, (al * 9 + lo_) / 10
    assert got["rsi_10"] == pytest.approx(100 - 100 / (1 + ag / al), abs=0.006)


def test_candlestick_patterns_match_talib(ctx, raw):
    d = raw["MSFT"].loc[:"2011-05-20"]
    got = T.candlestick_patterns.fn(ctx, "MSFT", "2011-05-20", lookback=5)
    o, h, lo, c = (d[k].to_numpy(float) for k in ("open", "high", "low", "close"))
    want = set()
    for fn in talib.get_function_groups()["Pattern Recognition"]:
        hits = getattr(talib, fn)(o, h, lo, c)[-5:]
        want |= {(fn[3:].lower(), d.index[-5 + i].strftime("%Y-%m-%d")) for i in np.flatnonzero(hits)}
    assert {(p["pattern"], p["date"]) for p in got["patterns"]} == want and want


def _pandas_pivots(high: pd.Series, low: pd.Series) -> list[float]:
    """Pivot highs of the high and pivot lows of the low: extremes of a centred 11-bar window."""
    return list(high[high == high.rolling(11, center=True).max()]) + list(
        low[low == low.rolling(11, center=True).min()]
    )


def test_support_resistance(ctx, raw):
    got = T.support_resistance.fn(ctx, "IBM", "2011-12-30", lookback=120)
    w = raw["IBM"].loc[:"2011-12-30"].iloc[-120:]
    close = w["close"].iloc[-1]
    assert all(x["level"] < close for x in got["support"]) and all(x["level"] >= close for x in got["resistance"])
    pivots = _pandas_pivots(w["high"], w["low"])
    for lv in got["support"] + got["resistance"]:  # each level is within 1.5% of a pivot price
        assert min(abs(p - lv["level"]) / lv["level"] for p in pivots) <= 0.015
    last = w.iloc[-1]
    p = (last["high"] + last["low"] + last["close"]) / 3
    assert got["pivot_points"]["P"] == round(p, 2) and got["pivot_points"]["R1"] == round(2 * p - last["low"], 2)


def test_fibonacci(ctx, raw):
    got = T.fibonacci_levels.fn(ctx, "AAPL", lookback=120)
    w = raw["AAPL"].iloc[-120:]
    hi, lo = w["high"].max(), w["low"].min()
    assert got["trend"] == "down"  # the 2012 peak came before the 2013 low
    assert got["levels"]["61.8%"] == round(lo + 0.618 * (hi - lo), 2)
    assert got["levels"]["23.6%"] == round(lo + 0.236 * (hi - lo), 2)
    assert (got["swing_high"], got["swing_low"]) == (round(hi, 2), round(lo, 2))


def _frame(close: np.ndarray) -> pd.DataFrame:
    idx = pd.bdate_range("2020-01-01", periods=len(close))
    return pd.DataFrame(
        {"open": close, "high": close * 1.01, "low": close * 0.99, "close": close, "adj_close": close, "volume": 1e6},
        index=idx,
    )


def _path(*points: tuple[int, float]) -> np.ndarray:
    xs, ys = zip(*points, strict=True)
    return np.interp(np.arange(xs[-1] + 1), xs, ys)


def test_chart_patterns_on_constructed_shapes():
    double_top = _path((0, 80), (30, 100), (45, 88), (60, 100.5), (80, 82))
    found = {p["pattern"]: p for p in A.chart_patterns(_frame(double_top))["patterns"]}
    assert "double top" in found and found["double top"]["neckline"] == 88 and found["double top"]["confirmed"]
    hs = _path((0, 70), (20, 90), (30, 80), (45, 100), (60, 80), (75, 90), (95, 72))
    found = {p["pattern"] for p in A.chart_patterns(_frame(hs))["patterns"]}
    assert "head and shoulders" in found
    zigzag = [(0, 80)] + [(8 * i, 100 if i % 2 else 80 + 2.5 * i) for i in range(1, 9)]
    found = {p["pattern"] for p in A.chart_patterns(_frame(_path(*zigzag)))["patterns"]}
    assert "ascending triangle" in found
    flat = A.chart_patterns(_frame(np.linspace(50, 60, 200)))
    assert flat["patterns"] == [] and "Double top/bottom" in flat["method"]


def test_screener_matches_talib_on_every_symbol(ctx, raw):
    date = "2008-10-10"  # the 2008 crash: several stocks oversold
    got = T.stock_screener.fn(ctx, ["RSI < 30"], date=date)
    rsi = {
        s: talib.RSI(arr(d, "close", date), 14)[-1]
        for s, d in raw.items()
        if s not in ("SPX", "COMP") and d.index[0] <= pd.Timestamp(date)
    }
    assert {m["symbol"] for m in got["matches"]} == {s for s, v in rsi.items() if v < 30} != set()
    assert [m["rsi_14"] for m in got["matches"]] == sorted(m["rsi_14"] for m in got["matches"])


def test_screener_words_sma_and_volume(ctx, raw):
    above = T.stock_screener.fn(ctx, ["close above SMA200"], kind="all")
    want = {s for s, d in raw.items() if d["close"].iloc[-1] > d["close"].rolling(200).mean().iloc[-1]}
    assert {m["symbol"] for m in above["matches"]} == want
    vol = T.stock_screener.fn(ctx, ["volume 2x its 20-day mean"], date="2012-05-21", kind="all")
    want = set()
    for s, d in raw.items():
        w = d.loc[:"2012-05-21"]
        if len(w) >= 20 and w["volume"].iloc[-1] >= 2 * w["volume"].rolling(20).mean().iloc[-1]:
            want.add(s)
    assert {m["symbol"] for m in vol["matches"]} == want


def test_screener_exchange_sort_limit_and_empty(ctx):
    nyse = T.stock_screener.fn(ctx, [], exchange="NYSE")
    assert nyse["universe"] == ["IBM"]
    top = T.stock_screener.fn(ctx, ["close > 0"], sort_by="close", descending=True, limit=2)
    assert [m["symbol"] for m in top["matches"]] == ["GOOG", "AAPL"]
    none = T.stock_screener.fn(ctx, ["RSI < 30"])  # the last date: no stock is oversold
    assert none["matches"] == [] and none["count"] == 0
    assert none["closest"][0]["symbol"] == "AAPL" and "No symbol" in none["summary"]
    with pytest.raises(ToolError, match="cannot read the condition"):
        T.stock_screener.fn(ctx, ["cheap stocks"])
    with pytest.raises(ToolError, match="no stock symbols on exchange 'LSE'"):
        T.stock_screener.fn(ctx, [], exchange="LSE")


def test_performance(ctx, raw):
    got = T.performance.fn(ctx, "SPX", "2008-01-02", "2008-12-31")
    px = raw["SPX"]["adj_close"].loc["2008-01-02":"2008-12-31"]
    assert got["total_return_pct"] == round(100 * (px.iloc[-1] / px.iloc[0] - 1), 2)
    assert got["volatility_pct"] == round(100 * px.pct_change().std() * np.sqrt(252), 2)
    assert got["max_drawdown_pct"] == round(100 * (px / px.cummax() - 1).min(), 2)
    assert got["price"].startswith("adj_close")


def test_compare_symbols(ctx, raw):
    got = T.compare_symbols.fn(ctx, ["Apple", "Microsoft"], "2010-01-04", "2010-12-31")
    a = raw["AAPL"]["adj_close"].loc["2010-01-04":"2010-12-31"]
    m = raw["MSFT"]["adj_close"].loc["2010-01-04":"2010-12-31"]
    assert got["correlation"]["AAPL"]["MSFT"] == round(a.pct_change().corr(m.pct_change()), 3)
    assert got["symbols"]["AAPL"]["total_return_pct"] == round(100 * (a.iloc[-1] / a.iloc[0] - 1), 2)
    assert got["best"] == "AAPL"
    with pytest.raises(ToolError, match="two or more"):
        T.compare_symbols.fn(ctx, ["AAPL"])


def test_price_forecast_is_the_cross_validated_best_model(ctx, raw):
    from orrery import timeseries as TS

    got = T.price_forecast.fn(ctx, "MSFT", horizon_days=10)
    y = raw["MSFT"]["close"].iloc[-756:].to_numpy(float)
    assert set(got["cv_mase"]) == set(TS.MODELS) and got["model"] == min(got["cv_mase"], key=got["cv_mase"].get)
    naive = TS.cross_validate(y, 10, models=["Naive"], n_windows=3)["Naive"]  # the cheap one, recomputed
    assert got["cv_mase"]["Naive"] == round(naive, 3)
    fc = TS.forecast(y, got["model"], 10).iloc[-1]  # checked against statsforecast in tests/core/test_timeseries
    assert got["forecast"] == pytest.approx(fc["mean"], abs=0.01)
    assert got["lo_95"] < got["lo_80"] < got["forecast"] < got["hi_80"] < got["hi_95"]


def test_tool_results_are_cached(store):
    from orrery.tools import RunContext

    ctx = RunContext(T.MarketsDeps(store))
    q = T.quote.gated(None)
    first, cached = q.invoke({"symbol": "IBM"}, ctx)
    again, cached2 = q.invoke({"symbol": "IBM"}, ctx)
    assert (cached, cached2) == (False, True) and again is first


def test_list_symbols(ctx, store: Store):
    got = T.list_symbols.fn(ctx)
    assert [r["symbol"] for r in got["symbols"]] == list(store.symbols)


def test_a_year_as_the_end_means_its_last_day(ctx):
    whole = T.performance.fn(ctx, "SPX", "2008", "2008")
    assert (whole["start"], whole["end"]) == ("2008-01-02", "2008-12-31")
    assert T.performance.fn(ctx, "IBM", "2012-01", "2012-02")["end"] == "2012-02-29"


def test_compare_ranks_by_a_field_on_a_date_and_ties_name_every_leader(ctx, raw):
    import talib

    from orrery.markets.tools import _ranked

    got = T.compare_symbols.fn(ctx, ["AAPL", "IBM"], end="2012-06-01", metric="RSI 14")
    rsi = {s: round(talib.RSI(raw[s]["close"].loc[:"2012-06-01"].to_numpy(float), 14)[-1], 2) for s in ("AAPL", "IBM")}
    assert got["metric"] == "rsi_14" and got["values"] == rsi and got["winner"] == ["AAPL"]
    assert "AAPL has the highest" in got["summary"]
    rows = {"A": {"total_return_pct": 5.0}, "B": {"total_return_pct": 5.0}, "C": {"total_return_pct": 4.0}}
    assert _ranked("return", False, rows, {}, "2012-01-03")["winner"] == ["A", "B"]
    assert _ranked("return", True, rows, {}, "2012-01-03")["winner"] == ["C"]
    with pytest.raises(ToolError, match="unknown field"):
        T.compare_symbols.fn(ctx, ["AAPL", "IBM"], metric="luck")


def test_screener_over_named_symbols_lists_every_value(ctx):
    got = T.stock_screener.fn(ctx, ["close > sma_50"], symbols=["Apple", "MSFT", "IBM"], date="2012-01-05")
    assert got["universe"] == ["AAPL", "MSFT", "IBM"] and got["count"] == 2
    assert {r["symbol"] for r in got["values"]} == {"AAPL", "MSFT", "IBM"}
    assert "Not matching: IBM (close 184.66, sma_50 185.8, 2012-01-05)" in got["summary"]
    with pytest.raises(ToolError, match="not in the data"):
        T.stock_screener.fn(ctx, ["RSI < 30"], symbols=["TSLA"])


def test_a_tool_run_without_the_store_in_its_deps_says_how_to_give_it():
    from orrery.messages import ToolCall
    from orrery.tools import RunContext, Toolset

    [r] = Toolset([T.quote]).run([ToolCall("1", "quote", {"symbol": "IBM"})], RunContext())
    assert not r.ok and "deps=MarketsDeps(store)" in r.content
    assert not hasattr(T, "default_store")  # no process-wide store behind the agent's back
