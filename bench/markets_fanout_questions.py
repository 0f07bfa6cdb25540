"""Questions that name several symbols, screens, 52-week and YTD windows, over the shipped store, each
with a gold answer computed here with pandas / ta-lib (not through the agent's tools). Written before
any tuning of the code they measure; `bench/markets_fanout.py` runs them.

Definitions the gold uses (and the answers must state):
- a window's return / percentage change: adj_close from the window's first close to its last close
  ("in 2011": the first and last trading days of 2011; "between D1 and D2": the closes on or after D1 and
  on or before D2);
- YTD as of D: the window from January 1 of D's year to D (so from the year's first close);
- volatility: the standard deviation of daily adj_close returns in the window x sqrt(252);
- 52-week high / low as of D: the highest / lowest (unadjusted) close over the 52 weeks ending on D
  (dates after D - 364 days, up to D);
- screens on a date: the indicator on the close up to that date (RSI 14 by default, SMA N of the close).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import talib

Gold = Callable[[Any], dict[str, Any]]  # store -> {"numbers", "symbols", "winner", "text", "no_tools"}


@dataclass
class Q:
    id: str
    kind: str
    question: str
    gold: Gold


def px(s: Any, sym: str, end: str | None = None) -> pd.DataFrame:
    df = s.prices(sym)
    return df.loc[:end] if end else df


def window(s: Any, sym: str, start: str, end: str) -> pd.Series:
    return px(s, sym)["adj_close"].loc[start:end]


def ret(s: Any, sym: str, start: str, end: str) -> float:
    a = window(s, sym, start, end)
    return 100 * (a.iloc[-1] / a.iloc[0] - 1)


def vol(s: Any, sym: str, start: str, end: str) -> float:
    return 100 * window(s, sym, start, end).pct_change().std() * np.sqrt(252)


def compare(syms: list[str], metric: Callable[[Any, str], float], highest: bool = True) -> Gold:
    def gold(s: Any) -> dict[str, Any]:
        values = {k: metric(s, k) for k in syms}
        best = max(values.values()) if highest else min(values.values())
        return {"numbers": list(values.values()), "winner": [k for k, v in values.items() if abs(v - best) < 0.005]}

    return gold


def rsi(s: Any, sym: str, date: str, n: int = 14) -> float:
    return float(talib.RSI(px(s, sym, date)["close"].to_numpy(float), n)[-1])


def sma(s: Any, sym: str, date: str, n: int) -> float:
    c = px(s, sym, date)["close"]
    return float(c.iloc[-n:].mean()) if len(c) >= n else float("nan")


def screen(
    syms: list[str] | None,
    date: str,
    value: Callable[[Any, str], float],
    test: Callable[[Any, str, float], bool],
    every_value: bool,
) -> Gold:
    """The matching symbols; the value of every symbol screened (a named list) or of the matches (the store,
    less the symbols with no data on the date)."""

    def gold(s: Any) -> dict[str, Any]:
        universe = syms or [k for k, v in s.symbols.items() if v.kind == "stock" and v.first <= date]
        values = {k: value(s, k) for k in universe}
        hits = [k for k, v in values.items() if np.isfinite(v) and test(s, k, v)]
        shown = values if every_value else {k: values[k] for k in hits}
        return {"symbols": hits, "numbers": [v for v in shown.values() if np.isfinite(v)]}

    return gold


def extreme_52w(sym: str, date: str, high: bool) -> Gold:
    def gold(s: Any) -> dict[str, Any]:
        d = pd.Timestamp(date)
        c = px(s, sym, date)["close"]
        c = c[c.index > d - pd.Timedelta(days=364)]
        return {"numbers": [c.max() if high else c.min()]}

    return gold


def ytd(sym: str, date: str) -> Gold:
    return lambda s: {"numbers": [ret(s, sym, f"{date[:4]}-01-01", date)]}


def close_on(sym: str, date: str) -> Gold:
    return lambda s: {"numbers": [px(s, sym, date)["close"].iloc[-1]]}


def year(y: int) -> tuple[str, str]:
    return f"{y}-01-01", f"{y}-12-31"


QUESTIONS: list[Q] = [
    # comparisons of 2-3 symbols
    Q(
        "c1",
        "compare",
        "Which had the higher percentage change over 2011, Apple or Microsoft? Give both changes.",
        compare(["AAPL", "MSFT"], lambda s, k: ret(s, k, *year(2011))),
    ),
    Q(
        "c2",
        "compare",
        "Which rose more in 2010, IBM or Google?",
        compare(["IBM", "GOOG"], lambda s, k: ret(s, k, *year(2010))),
    ),
    Q(
        "c3",
        "compare",
        "Which index had the higher return in 2015, the S&P 500 or the NASDAQ Composite?",
        compare(["SPX", "COMP"], lambda s, k: ret(s, k, *year(2015))),
    ),
    Q(
        "c4",
        "compare",
        "Compare the returns of Apple, IBM and Microsoft between 2009-03-09 and 2010-03-09. Which was best?",
        compare(["AAPL", "IBM", "MSFT"], lambda s, k: ret(s, k, "2009-03-09", "2010-03-09")),
    ),
    Q(
        "c5",
        "compare",
        "Which was more volatile in 2008: Microsoft, IBM or Google?",
        compare(["MSFT", "IBM", "GOOG"], lambda s, k: vol(s, k, *year(2008))),
    ),
    # comparisons of 4 symbols
    Q(
        "c6",
        "compare4",
        "Which of Apple, IBM, Microsoft and Google had the highest return in 2012?",
        compare(["AAPL", "IBM", "MSFT", "GOOG"], lambda s, k: ret(s, k, *year(2012))),
    ),
    Q(
        "c7",
        "compare4",
        "Which had the worst return in 2007: AAPL, GOOG, IBM or MSFT?",
        compare(["AAPL", "GOOG", "IBM", "MSFT"], lambda s, k: ret(s, k, *year(2007)), highest=False),
    ),
    Q(
        "c8",
        "compare4",
        "Compare the percentage change of Apple, Google, IBM and Microsoft from January 3, 2011 "
        "to December 30, 2011. Which gained the most?",
        compare(["AAPL", "GOOG", "IBM", "MSFT"], lambda s, k: ret(s, k, "2011-01-03", "2011-12-30")),
    ),
    # screens over a named list: the matches, and every symbol's value
    Q(
        "s1",
        "screen_list",
        "Among Apple, IBM, Microsoft and Google, which had a 14-day RSI below 30 on 2008-01-30?",
        screen(
            ["AAPL", "IBM", "MSFT", "GOOG"],
            "2008-01-30",
            lambda s, k: rsi(s, k, "2008-01-30"),
            lambda _s, _k, v: v < 30,
            True,
        ),
    ),
    Q(
        "s2",
        "screen_list",
        "Of AAPL, MSFT and IBM, which closed above their 50-day moving average on 2012-01-05?",
        screen(
            ["AAPL", "MSFT", "IBM"],
            "2012-01-05",
            lambda s, k: px(s, k, "2012-01-05")["close"].iloc[-1],
            lambda s, k, v: v > sma(s, k, "2012-01-05", 50),
            True,
        ),
    ),
    Q(
        "s3",
        "screen_list",
        "Which of Google, IBM and Microsoft had an RSI above 70 on 2010-10-06?",
        screen(
            ["GOOG", "IBM", "MSFT"], "2010-10-06", lambda s, k: rsi(s, k, "2010-10-06"), lambda _s, _k, v: v > 70, True
        ),
    ),
    # screens over the whole store (its stocks): the matches and their values
    Q(
        "s4",
        "screen_store",
        "Which stocks had an RSI below 30 on 2012-11-07?",
        screen(None, "2012-11-07", lambda s, k: rsi(s, k, "2012-11-07"), lambda _s, _k, v: v < 30, False),
    ),
    Q(
        "s5",
        "screen_store",
        "Which stocks closed below their 200-day moving average on 2012-11-16?",
        screen(
            None,
            "2012-11-16",
            lambda s, k: px(s, k, "2012-11-16")["close"].iloc[-1],
            lambda s, k, v: v < sma(s, k, "2012-11-16", 200),
            False,
        ),
    ),
    Q(
        "s6",
        "screen_store",
        "Which stocks had an RSI above 70 on 2012-02-07?",
        screen(None, "2012-02-07", lambda s, k: rsi(s, k, "2012-02-07"), lambda _s, _k, v: v > 70, False),
    ),
    # 52-week extremes as of a date
    Q("w1", "52w", "What was IBM's 52-week high as of 2012-06-29?", extreme_52w("IBM", "2012-06-29", True)),
    Q("w2", "52w", "What was Apple's 52-week low on 2009-03-09?", extreme_52w("AAPL", "2009-03-09", False)),
    Q("w3", "52w", "What was the S&P 500's 52-week high as of March 9, 2009?", extreme_52w("SPX", "2009-03-09", True)),
    # year to date
    Q("y1", "ytd", "What was Microsoft's YTD return as of 2012-09-28?", ytd("MSFT", "2012-09-28")),
    Q("y2", "ytd", "What was Google's year-to-date return on June 29, 2012?", ytd("GOOG", "2012-06-29")),
    Q("y3", "ytd", "What was the NASDAQ Composite's YTD return as of 2018-06-29?", ytd("COMP", "2018-06-29")),
    # one symbol on a written date
    Q("p1", "price", "What did Apple close at on June 15, 2010?", close_on("AAPL", "2010-06-15")),
    Q("p2", "price", "What was IBM's closing price on 30 November 2012?", close_on("IBM", "2012-11-30")),
    # refusals: a symbol not in the data, a question that is not about the data, a date outside it
    Q("x1", "refusal", "Compare Tesla and Apple in 2012.", lambda _s: {"text": ["Tesla", "not in the data"]}),
    Q("x2", "refusal", "What is NVDA's 52-week high?", lambda _s: {"text": ["NVDA", "not in the data"]}),
    Q("x3", "refusal", "What is the capital of France?", lambda _s: {"no_tools": True}),
    Q("x4", "refusal", "What did Microsoft close at on 2020-01-02?", lambda _s: {"text": ["2013-03-01"]}),
]

WINNER_WORDS = re.compile(
    r"\b(higher|highest|lower|lowest|more|most|less|least|best|worst|outperform\w*|beat|"
    r"winner|largest|smallest|greater|greatest|top|first|ahead|led|leads)\b",
    re.IGNORECASE,
)
