"""The markets agent on 46 questions over the shipped data, each with the tools it should route to and a
gold answer computed here directly with pandas / ta-lib (not through the agent's tools).

Per question: did the final route contain the expected tools (at most 2 extra)? did the model's own route
(before the rule fallback)? are all gold numbers in the answer (0.5% or 0.01 tolerance) / gold symbols
named? does the final answer hold a number no tool returned? seconds, and how many of them were tools.

    PYTHONPATH=. nice -n 10 python bench/markets.py [--llm local] [--limit N]

Results are appended per question to bench/results/markets.jsonl (a rerun resumes), then summarised in
bench/results/markets.json and bench/markets.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import talib

from orrery.grounding import numbers_in, ungrounded
from orrery.markets.agent import STANDARD_NUMBERS, markets_agent, percents
from orrery.markets.store import Store

ROOT = Path(__file__).resolve().parent
RUNS = ROOT / "results" / "markets.jsonl"
RESULTS = ROOT / "results" / "markets.json"
REPORT = ROOT / "markets.md"
REL_TOL, ABS_TOL = 0.005, 0.011

Gold = Callable[[Store], dict[str, Any]]  # -> {"numbers": [...], "symbols": [...], "text": [...]}


@dataclass
class Q:
    id: str
    kind: str
    question: str
    tools: list[str]
    gold: Gold = field(default=lambda _s: {})


def px(s: Store, sym: str, end: str | None = None) -> pd.DataFrame:
    df = s.prices(sym)
    return df.loc[:end] if end else df


def close_on(sym: str, date: str) -> Gold:
    return lambda s: {"numbers": [px(s, sym, date)["close"].iloc[-1]]}


def ind(sym: str, fn: Callable[[pd.DataFrame], float], date: str | None = None) -> Gold:
    return lambda s: {"numbers": [fn(px(s, sym, date))]}


def c(df: pd.DataFrame) -> np.ndarray:
    return df["close"].to_numpy(float)


def hlc(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return df["high"].to_numpy(float), df["low"].to_numpy(float), c(df)


def period(sym: str, start: str | None, end: str | None, what: str) -> Gold:
    def gold(s: Store) -> dict[str, Any]:
        a = px(s, sym, end)["adj_close"]
        a = a.loc[start:] if start else a.iloc[-253:]
        value = {
            "return": 100 * (a.iloc[-1] / a.iloc[0] - 1),
            "volatility": 100 * a.pct_change().std() * np.sqrt(252),
            "drawdown": 100 * (a / a.cummax() - 1).min(),
        }[what]
        return {"numbers": [value]}

    return gold


def screen(test: Callable[[pd.DataFrame], bool]) -> Gold:
    def gold(s: Store) -> dict[str, Any]:
        stocks = [k for k, v in s.symbols.items() if v.kind == "stock"]
        return {"symbols": [k for k in stocks if test(px(s, k))]}

    return gold


def rsi_last(df: pd.DataFrame) -> float:
    return talib.RSI(c(df), 14)[-1]


def fib618(sym: str) -> Gold:
    def gold(s: Store) -> dict[str, Any]:
        w = px(s, sym).iloc[-120:]
        hi, lo = w["high"].max(), w["low"].min()
        up = w["low"].idxmin() < w["high"].idxmax()
        return {"numbers": [hi - 0.618 * (hi - lo) if up else lo + 0.618 * (hi - lo)]}

    return gold


def pivot(sym: str) -> Gold:
    def gold(s: Store) -> dict[str, Any]:
        last = px(s, sym).iloc[-1]
        return {"numbers": [(last["high"] + last["low"] + last["close"]) / 3]}

    return gold


def corr(a: str, b: str, start: str, end: str) -> Gold:
    def gold(s: Store) -> dict[str, Any]:
        ra = px(s, a, end)["adj_close"].loc[start:].pct_change()
        rb = px(s, b, end)["adj_close"].loc[start:].pct_change()
        return {"numbers": [pd.concat([ra, rb], axis=1).dropna().corr().iloc[0, 1]]}

    return gold


def both(*golds: Gold) -> Gold:
    return lambda s: {"numbers": [n for g in golds for n in g(s).get("numbers", [])]}


QUESTIONS: list[Q] = [
    Q("p1", "price", "What did Apple close at on 2010-06-15?", ["quote"], close_on("AAPL", "2010-06-15")),
    Q("i1", "indicator", "What is Apple's RSI?", ["technical_indicators"], ind("AAPL", rsi_last)),
    Q(
        "s1",
        "screen",
        "Which stocks have an RSI below 30?",
        ["stock_screener"],
        lambda s: {"numbers": [min(rsi_last(px(s, k)) for k, v in s.symbols.items() if v.kind == "stock")]},
    ),
    Q(
        "r1",
        "performance",
        "What was the S&P 500's return in 2008?",
        ["performance"],
        period("SPX", "2008-01-01", "2008-12-31", "return"),
    ),
    Q(
        "c1",
        "comparison",
        "Compare Apple and Microsoft over the last year.",
        ["compare_symbols"],
        lambda s: {"numbers": [period(k, None, "2013-03-01", "return")(s)["numbers"][0] for k in ("AAPL", "MSFT")]},
    ),
    Q("l1", "levels", "Show support and resistance levels for GOOG.", ["support_resistance"], pivot("GOOG")),
    Q("x1", "bad", "What is TSLA trading at?", [], lambda _s: {"text": ["not in the data"]}),
    Q("p2", "price", "What was IBM's closing price on 2012-11-30?", ["quote"], close_on("IBM", "2012-11-30")),
    Q(
        "i2",
        "indicator",
        "What is the 14-day RSI of IBM on 2012-06-01?",
        ["technical_indicators"],
        ind("IBM", rsi_last, "2012-06-01"),
    ),
    Q(
        "s2",
        "screen",
        "Which stocks closed above their 200-day moving average?",
        ["stock_screener"],
        screen(lambda d: len(d) >= 200 and d["close"].iloc[-1] > d["close"].iloc[-200:].mean()),
    ),
    Q(
        "r2",
        "performance",
        "How volatile was Apple over the last year?",
        ["performance"],
        period("AAPL", None, None, "volatility"),
    ),
    Q(
        "c2",
        "comparison",
        "What is the correlation between IBM and the S&P 500 in 2012?",
        ["compare_symbols"],
        corr("IBM", "SPX", "2012-01-01", "2012-12-31"),
    ),
    Q("l2", "levels", "What are the Fibonacci retracement levels for AAPL?", ["fibonacci_levels"], fib618("AAPL")),
    Q("x2", "bad", "What is the capital of France?", []),
    Q("p3", "price", "What did Microsoft close at on 2008-10-10?", ["quote"], close_on("MSFT", "2008-10-10")),
    Q(
        "i3",
        "indicator",
        "What is Microsoft's MACD?",
        ["technical_indicators"],
        ind("MSFT", lambda d: talib.MACD(c(d), 12, 26, 9)[0][-1]),
    ),
    Q("s3", "screen", "Find stocks with RSI above 50.", ["stock_screener"], screen(lambda d: rsi_last(d) > 50)),
    Q(
        "r3",
        "performance",
        "What was Microsoft's maximum drawdown in 2008?",
        ["performance"],
        period("MSFT", "2008-01-01", "2008-12-31", "drawdown"),
    ),
    Q(
        "c3",
        "comparison",
        "Compare Google and IBM returns in 2011.",
        ["compare_symbols"],
        both(period("GOOG", "2011-01-01", "2011-12-31", "return"), period("IBM", "2011-01-01", "2011-12-31", "return")),
    ),
    Q("l3", "levels", "Fibonacci levels for IBM.", ["fibonacci_levels"], fib618("IBM")),
    Q("x3", "bad", "How is Nvidia doing?", [], lambda _s: {"text": ["not in the data"]}),
    Q("p4", "price", "What was Google's closing price on 2011-01-03?", ["quote"], close_on("GOOG", "2011-01-03")),
    Q(
        "i4",
        "indicator",
        "What is the 200-day SMA of Google?",
        ["technical_indicators"],
        ind("GOOG", lambda d: c(d)[-200:].mean()),
    ),
    Q(
        "s4",
        "screen",
        "Which NASDAQ stocks closed below their 50-day moving average?",
        ["stock_screener"],
        lambda s: {
            "symbols": [
                k
                for k, v in s.symbols.items()
                if v.exchange == "NASDAQ" and px(s, k)["close"].iloc[-1] < px(s, k)["close"].iloc[-50:].mean()
            ]
        },
    ),
    Q(
        "r4",
        "performance",
        "What was IBM's return in 2012?",
        ["performance"],
        period("IBM", "2012-01-01", "2012-12-31", "return"),
    ),
    Q("f1", "forecast", "Where will IBM be in a month?", ["price_forecast"]),
    Q("l4", "patterns", "Does MSFT show any chart patterns?", ["chart_patterns"]),
    Q("x4", "bad", "What did AAPL close at on 2020-01-02?", ["quote"], lambda _s: {"text": ["2013-03-01"]}),
    Q("p5", "price", "What was the S&P 500 close on 2018-12-31?", ["quote"], close_on("SPX", "2018-12-31")),
    Q(
        "i5",
        "indicator",
        "What are the Bollinger Bands of AAPL?",
        ["technical_indicators"],
        lambda s: {"numbers": [x[-1] for x in talib.BBANDS(c(px(s, "AAPL")), 20, 2, 2)[::2]]},
    ),
    Q(
        "s5",
        "screen",
        "Which stock has the highest RSI?",
        ["stock_screener"],
        lambda s: {"numbers": [max(rsi_last(px(s, k)) for k, v in s.symbols.items() if v.kind == "stock")]},
    ),
    Q(
        "r5",
        "performance",
        "What was the NASDAQ's max drawdown in 2018?",
        ["performance"],
        period("COMP", "2018-01-01", "2018-12-31", "drawdown"),
    ),
    Q("f2", "forecast", "Forecast the S&P 500 for the next month.", ["price_forecast"]),
    Q("l5", "patterns", "Any candlestick patterns on FB?", ["candlestick_patterns"]),
    Q("x5", "bad", "List the symbols you have.", ["list_symbols"], lambda s: {"symbols": list(s.symbols)}),
    Q("p6", "price", "What is Facebook's last close?", ["quote"], close_on("FB", "2013-03-01")),
    Q(
        "i6",
        "indicator",
        "What is the ATR of MSFT?",
        ["technical_indicators"],
        ind("MSFT", lambda d: talib.ATR(*hlc(d), 14)[-1]),
    ),
    Q(
        "i7",
        "indicator",
        "What is the ADX of GOOG?",
        ["technical_indicators"],
        ind("GOOG", lambda d: talib.ADX(*hlc(d), 14)[-1]),
    ),
    Q("p7", "price", "What is the latest price of IBM?", ["quote"], close_on("IBM", "2013-03-01")),
    Q(
        "i8",
        "indicator",
        "What is the stochastic oscillator of IBM?",
        ["technical_indicators"],
        ind("IBM", lambda d: talib.STOCH(*hlc(d), 14, 3, 0, 3, 0)[0][-1]),
    ),
    Q("p8", "price", "What was the NASDAQ Composite close on 2015-06-01?", ["quote"], close_on("COMP", "2015-06-01")),
    Q(
        "i9",
        "indicator",
        "What is the RSI of the S&P 500 on 2018-12-31?",
        ["technical_indicators"],
        ind("SPX", rsi_last, "2018-12-31"),
    ),
    Q(
        "i10",
        "indicator",
        "What is the 50-day SMA of IBM on 2011-12-30?",
        ["technical_indicators"],
        ind("IBM", lambda d: c(d)[-50:].mean(), "2011-12-30"),
    ),
    Q(
        "r6",
        "performance",
        "How volatile was the S&P 500 in 2008?",
        ["performance"],
        period("SPX", "2008-01-01", "2008-12-31", "volatility"),
    ),
    Q(
        "c4",
        "comparison",
        "Compare Microsoft and the S&P 500 over the last year.",
        ["compare_symbols"],
        lambda s: {"numbers": [period("MSFT", None, "2013-03-01", "return")(s)["numbers"][0]]},
    ),
    Q(
        "d1",
        "discovery",
        "Find stocks with RSI < 30 on US exchanges. For found stocks, analyze patterns and fibonacci.",
        ["stock_screener", "technical_indicators", "chart_patterns", "fibonacci_levels"],
        lambda s: {"numbers": [min(rsi_last(px(s, k)) for k, v in s.symbols.items() if v.kind == "stock")]},
    ),
]


def right_tools(chosen: list[str] | None, expected: list[str]) -> bool:
    if chosen is None:
        return False
    have = set(chosen) | ({"quote", "price_history"} if set(chosen) & {"quote", "price_history"} else set())
    return set(expected) <= have and len(set(chosen) - set(expected)) <= 2 and (bool(expected) or not chosen)


def number_found(x: float, text: str) -> bool:
    return any(abs(v - x) <= max(ABS_TOL, REL_TOL * abs(x)) for _, v in numbers_in(text))


def score(gold: dict[str, Any], output: str) -> bool | None:
    """All gold numbers, symbols and phrases in the answer; None when the question has no gold answer."""
    if not gold:
        return None
    checks = [number_found(float(x), output) for x in gold.get("numbers", [])]
    checks += [re.search(rf"\b{re.escape(sym)}\b", output) is not None for sym in gold.get("symbols", [])]
    checks += [t.lower() in output.lower() for t in gold.get("text", [])]
    return all(checks) if checks else None


def listing(store: Store) -> str:
    """The symbols and their dates, which a "not in the data" answer quotes."""
    return " ".join(f"{s.symbol} {s.first} {s.last}" for s in store.symbols.values())


def run_one(agent: Any, store: Store, q: Q) -> dict[str, Any]:
    t0 = time.monotonic()
    r = agent.run(q.question)
    seconds = time.monotonic() - t0
    gold = q.gold(store)
    done = [t for t in r.tool_calls if t.ok]
    allowed = [*STANDARD_NUMBERS, *(v for t in done if isinstance(t.value, dict) for v in percents(t.value))]
    sources = [t.content for t in done] + [q.question, listing(store)]
    stray = ungrounded(r.answer, sources, allowed)
    return {
        "id": q.id,
        "kind": q.kind,
        "question": q.question,
        "status": r.status,
        "expected_tools": q.tools,
        "route": r.route.selected_tools if r.route else [],
        "route_source": r.route_source,
        "model_tools": r.model_tools,
        "right_tools": right_tools(r.route.selected_tools if r.route else [], q.tools),
        "model_right_tools": right_tools(r.model_tools, q.tools) if q.tools else None,
        "called": [t.call.name for t in r.tool_calls],
        "gold": {k: [round(x, 4) if isinstance(x, float) else x for x in v] for k, v in gold.items()},
        "correct": score(gold, r.output),
        "prose_grounded": r.grounded,
        "ungrounded_in_answer": stray,
        "seconds": round(seconds, 2),
        "tool_seconds": round(sum(t.duration for t in r.tool_calls), 3),
        "tokens": r.usage.total,
        "output": r.output,
    }


def summarise(rows: list[dict[str, Any]], llm: str) -> dict[str, Any]:
    scored = [r for r in rows if r["correct"] is not None]
    model_scored = [r for r in rows if r["model_right_tools"] is not None]
    secs = [r["seconds"] for r in rows]
    return {
        "date": time.strftime("%Y-%m-%d"),
        "llm": llm,
        "machine": f"{platform.machine()} {platform.processor()}, Python {platform.python_version()}",
        "questions": len(QUESTIONS),
        "answered": len(rows),
        "right_tools": sum(r["right_tools"] for r in rows) / len(rows),
        "model_router_right_tools": (sum(r["model_right_tools"] for r in model_scored) / len(model_scored))
        if model_scored
        else None,
        "route_from_rules": sum(r["route_source"] == "rules" for r in rows) / len(rows),
        "answer_accuracy": sum(r["correct"] for r in scored) / len(scored) if scored else None,
        "scored_answers": len(scored),
        "answers_with_ungrounded_numbers": sum(bool(r["ungrounded_in_answer"]) for r in rows),
        "prose_replaced_by_facts": sum(not r["prose_grounded"] for r in rows),
        "seconds_per_question_mean": round(float(np.mean(secs)), 1),
        "seconds_per_question_median": round(float(np.median(secs)), 1),
        "tool_seconds_share": round(sum(r["tool_seconds"] for r in rows) / max(sum(secs), 1e-9), 4),
        "by_kind": {
            k: {
                "n": len(g),
                "right_tools": sum(r["right_tools"] for r in g),
                "correct": sum(bool(r["correct"]) for r in g),
                "scored": sum(r["correct"] is not None for r in g),
            }
            for k in dict.fromkeys(r["kind"] for r in rows)
            for g in [[r for r in rows if r["kind"] == k]]
        },
    }


def report(summary: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    s = summary
    pct = lambda x: "-" if x is None else f"{100 * x:.0f}%"  # noqa: E731
    lines = [
        "# Markets agent (orrery.markets)",
        "",
        f"{s['date']} · model: {s['llm']} · {s['machine']} · `PYTHONPATH=. python bench/markets.py`"
        " · raw figures: [results/markets.json](results/markets.json)",
        "",
        f"{s['answered']} of {s['questions']} questions answered in this run"
        + ("" if s["answered"] == s["questions"] else " (the rest did not fit in the time available)")
        + ".",
        "",
        "| metric | value | goal |",
        "|---|---:|---:|",
        f"| right tools, final route (model, or rules when the model's route is invalid) | {pct(s['right_tools'])} | 90% |",
        f"| right tools, the model's own route | {pct(s['model_router_right_tools'])} | |",
        f"| routes taken from the rules | {pct(s['route_from_rules'])} | |",
        f"| right numbers / symbols in the answer ({s['scored_answers']} questions with a gold answer) | "
        f"{pct(s['answer_accuracy'])} | 80% |",
        f"| answers with a number no tool returned | {s['answers_with_ungrounded_numbers']} | 0 |",
        f"| model prose replaced by the tools' summaries (ungrounded after one rewrite) | "
        f"{s['prose_replaced_by_facts']} | |",
        f"| seconds per question, mean / median | {s['seconds_per_question_mean']} / "
        f"{s['seconds_per_question_median']} | |",
        f"| share of that time in the tools (the anchor: the same run's tool time) | "
        f"{100 * s['tool_seconds_share']:.1f}% | |",
        "",
        "| kind | n | right tools | right answers / scored |",
        "|---|---:|---:|---:|",
        *(f"| {k} | {v['n']} | {v['right_tools']} | {v['correct']} / {v['scored']} |" for k, v in s["by_kind"].items()),
        "",
        "## How it is measured",
        "",
        "- 46 questions written over the shipped data (bokeh-sampledata 2026.1 stocks to 2013-03-01, arch's S&P 500 "
        "and NASDAQ Composite to 2018-12-31): prices on a date, indicators, screens, returns/volatility/drawdown, "
        "comparisons, levels, patterns, forecasts, and bad input (unknown symbols, a date outside the data, a "
        "non-market question).",
        "- Gold answers are computed in `bench/markets.py` with pandas / ta-lib on the store's data, not through "
        "the agent's tools. A number is right within 0.5% (or 0.01); every gold number (or symbol, or phrase) "
        "must be in the answer. Pattern and forecast questions have no gold answer (tools only).",
        "- Right tools: the expected tools are all routed (quote and price_history count as each other), with at "
        "most 2 extra; for questions that need no tool, none.",
        "- The answer is the model's checked prose plus the tools' computed summaries; 'a number no tool "
        "returned' re-checks the final prose against the tool results.",
        "- One process, questions in order, a fresh run each (tool caches are shared within the agent), run "
        "`nice`d on 2 vCPUs shared with other jobs (load average 5-9), so seconds are pessimistic. "
        "In this run the model's own router replied with an empty tool list to 42 of the 43 questions it was "
        "asked and with a route lacking the screener to the other, so the final routes are the rule-based "
        "fallback's (the two 'model' routes are unknown-symbol answers that never reach the router). "
        "No OpenAI-compatible endpoint is reachable from this machine, so only the embedded model is measured.",
        "",
        "## Questions that went wrong",
        "",
        *(
            f"- {r['id']} {r['question']!r}: route {r['route']} ({r['route_source']}), called {r['called']}, "
            f"correct={r['correct']}, status {r['status']}"
            for r in rows
            if not r["right_tools"] or r["correct"] is False
        ),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--llm", default="local")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--fresh", action="store_true", help="forget earlier runs in markets.jsonl")
    ap.add_argument("--rescore", action="store_true", help="recompute gold answers for the saved runs, run nothing")
    args = ap.parse_args()
    store = Store()
    if args.rescore:
        rescore(store, args.llm)
        return
    agent = markets_agent(args.llm, store=store)
    RUNS.parent.mkdir(parents=True, exist_ok=True)
    if args.fresh:
        RUNS.unlink(missing_ok=True)
    done = {json.loads(x)["id"]: json.loads(x) for x in RUNS.read_text().splitlines()} if RUNS.exists() else {}
    for q in QUESTIONS[: args.limit]:
        if q.id in done:
            continue
        row = run_one(agent, store, q)
        with RUNS.open("a") as f:
            f.write(json.dumps(row, default=str) + "\n")
        done[q.id] = row
        print(f"{q.id} tools={row['right_tools']} correct={row['correct']} {row['seconds']}s", flush=True)
        write(args.llm, [done[x.id] for x in QUESTIONS if x.id in done])


def rescore(store: Store, llm: str) -> None:
    """Gold answers and scores again for the saved answers (after a fix to a gold function)."""
    by_id = {q.id: q for q in QUESTIONS}
    rows = [json.loads(x) for x in RUNS.read_text().splitlines()]
    for r in rows:
        q = by_id[r["id"]]
        gold = q.gold(store)
        r["gold"] = {k: [round(x, 4) if isinstance(x, float) else x for x in v] for k, v in gold.items()}
        r["correct"] = score(gold, r["output"])
    RUNS.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows))
    write(llm, rows)


def write(llm: str, rows: list[dict[str, Any]]) -> None:
    summary = summarise(rows, llm)
    tmp = RESULTS.with_suffix(".tmp")
    tmp.write_text(json.dumps({"summary": summary, "rows": rows}, indent=2, default=str))
    tmp.replace(RESULTS)
    REPORT.write_text(report(summary, rows))


if __name__ == "__main__":
    main()
