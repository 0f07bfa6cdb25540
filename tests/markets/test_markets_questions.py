"""The rules that read a market question: its symbols, dates, windows, metric and screen conditions."""

from __future__ import annotations

import pytest

from orrery.markets import questions as Q


@pytest.mark.parametrize(
    "text,found",
    [
        ("on 2012-06-29", [("day", "2012-06-29")]),
        ("on June 15, 2010", [("day", "2010-06-15")]),
        ("on 30 November 2012", [("day", "2012-11-30")]),
        ("on Jun 15th 2010 and Sept 3, 2011", [("day", "2010-06-15"), ("day", "2011-09-03")]),
        ("in March 2012", [("month", "2012-03-01")]),
        ("over 2011", [("year", "2011-01-01")]),
        ("February 30, 2012", [("day", "2012-02-30")]),  # kept: the tool says it is no date
        ("the S&P 500 in 1999", [("year", "1999-01-01")]),  # 500 is no year
    ],
)
def test_dates_in_iso_and_written_forms(text, found):
    assert [(m.kind, m.start) for m in Q.dates_in(text)] == found


@pytest.mark.parametrize(
    "text,start,end,kind",
    [
        ("Which rose more in 2010?", "2010-01-01", "2010-12-31", "year"),
        ("returns between 2009-03-09 and 2010-03-09", "2009-03-09", "2010-03-09", "range"),
        ("from January 3, 2011 to December 30, 2011", "2011-01-03", "2011-12-30", "range"),
        ("from 2009 to 2011", "2009-01-01", "2011-12-31", "range"),
        ("in March 2012", "2012-03-01", "2012-03-31", "month"),
        ("YTD return as of 2012-09-28", "2012-01-01", "2012-09-28", "ytd"),
        ("year-to-date return", "2013-01-01", "2013-03-01", "ytd"),  # no date: the data's last
        ("52-week high as of 2012-06-29", "2011-07-02", "2012-06-29", "52w"),
        ("change over the last 30 days as of 15 June 2010", "2010-05-17", "2010-06-15", "last_n"),
        ("daily prices for the last two months of 2012", "2012-11-01", "2012-12-31", "last_n"),
        ("the past fifteen days as of 2010-06-15", "2010-06-01", "2010-06-15", "last_n"),
        ("close on 2012-06-01", None, "2012-06-01", "point"),
        ("What is Apple's RSI?", None, None, "point"),
    ],
)
def test_windows(text, start, end, kind):
    w = Q.window(text, "2013-03-01")
    assert (w.start, w.end, w.kind) == (start, end, kind) and w.definition


@pytest.mark.parametrize(
    "text,conds",
    [
        ("which had a 14-day RSI below 30 on 2008-01-30?", ["rsi_14 < 30"]),
        ("Find stocks with RSI < 30 on US exchanges.", ["rsi_14 < 30"]),
        ("an RSI(7) above 70", ["rsi_7 > 70"]),
        ("which closed above their 50-day moving average", ["close > sma_50"]),
        ("stocks that closed below their SMA 200", ["close < sma_200"]),
        ("What is Apple's RSI?", []),
    ],
)
def test_screen_conditions(text, conds):
    assert Q.conditions(text) == conds


@pytest.mark.parametrize(
    "text,point,metric,low",
    [
        ("Which had the higher percentage change over 2011?", False, "return", False),
        ("Which was more volatile in 2008?", False, "volatility", False),
        ("Which was less volatile in 2008?", False, "volatility", True),
        ("Which had the worst return in 2007?", False, "return", True),
        ("Which fell more in 2008?", False, "return", True),
        ("Which closed higher on 2012-06-01?", True, "close", False),
        ("Which had the lower 14-day RSI on 2012-06-01?", True, "rsi_14", True),
        ("Which had the deepest drawdown?", False, "max_drawdown", False),
    ],
)
def test_comparison_metric_and_direction(text, point, metric, low):
    assert Q.metric(text, point) == metric and Q.lowest(text) is low


def test_indicators_and_period():
    assert Q.indicators("the 50-day SMA of IBM") == (["SMA"], 50)
    assert Q.indicators("Is Apple oversold?") == (["RSI", "STOCH"], None)
    assert Q.indicators("technical indicators for MSFT") == (["RSI", "MACD", "SMA"], None)


def test_several_symbols_by_ticker_name_and_index(store):
    from orrery.markets.agent import rule_classification, stray_names

    q = "Which had the higher return in 2015: Apple, MSFT, the S&P 500 or the NASDAQ Composite?"
    c = rule_classification(q, store)
    assert c.symbols == ["AAPL", "MSFT", "SPX", "COMP"] and c.type == "comparison" and c.unknown == []
    assert stray_names(q, store) == []
    assert stray_names("Compare Tesla and Apple in 2012.", store) == ["Tesla"]
    assert stray_names("What are the Bollinger Bands of AAPL on June 1, 2012?", store) == []
