"""Execution accuracy of the BI agent on questions written for Chinook and TPC-H (scale 0.01), DuckDB.

Each question has gold SQL (or none: the data cannot answer it). The agent answers with a fresh session,
`--no-clarify` (it takes the most likely reading), and no prose summary (`prose=False`: the final answer is
the result; the summary is not what is scored). A question counts as correct when the agent's result rows
equal the gold rows: as multisets (order-insensitive) unless the gold query orders its output and the
question asks for an order; values are compared after rounding numbers to 2 decimals and, within a row,
regardless of column order (Spider-style execution accuracy). An unanswerable question is correct when
the agent declines (status `declined`) and runs no SQL.

Question sets (bench/bi_questions.py): `dev`, the 70 questions whose failures were read while the agent
was developed; `heldout`, held-out set #1 (65 questions, run once at the end of the first round, development
data since: the second round read its failures); `heldout2`, held-out set #2 (36 questions, 18 unanswerable),
written and committed before the second round changed the agent, run once at its end (development data since
the fifth round read its failures); `heldout3`, held-out set #3 (36 questions, 18 unanswerable, users' wording),
written before the fifth round, run once at its end (`bench/bi_nokeys.py --set heldout3`, both codes).

    nice -n 10 python bench/bi.py                      # the embedded model, the dev set
    nice -n 10 python bench/bi.py --limit 20           # its first 20 (the order interleaves both databases)
    nice -n 10 python bench/bi.py --set heldout2       # held-out set #2 (once, at the end)
    python bench/bi.py --llm http://127.0.0.1:8080/v1 --limit 15 --out bench/results/bi_endpoint.json
    python bench/bi.py --check --set heldout2          # only check that every gold query returns rows
    python bench/bi.py --report                        # results/bi.json from the runs in RUNS

Writes results/bi_SET.json after every question (a cut run keeps what it did).
Anchor: the published execution accuracy of Qwen2.5-Coder-0.5B on Spider dev, 34.5%.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's orrery, not the one the venv installed
from bi_questions import SETS  # noqa: E402

from orrery.files import write_atomic  # noqa: E402

# A run's status: the one orrery.events.Status; result files written before it, and the code at $ORRERY_MAIN
# that bi_nokeys.py runs, say "answered" / "cannot_answer".
COMPLETED, DECLINED = ("completed", "answered"), ("declined", "cannot_answer")

SPIDER_ANCHOR = 0.345  # Qwen2.5-Coder-0.5B, Spider dev execution accuracy (Qwen2.5-Coder technical report)


def questions(which: str = "dev") -> list[dict[str, Any]]:
    """A set's questions, interleaved (chinook, tpch, chinook, tpch, unanswerable, ...) so any prefix is a mix."""
    chinook, tpch, unanswerable_ = SETS[which]
    answerable = [
        [{"db": "chinook", "question": q, "gold": g} for q, g in chinook],
        [{"db": "tpch", "question": q, "gold": g} for q, g in tpch],
    ]
    unanswerable = [{"db": db, "question": q, "gold": None} for db, q in unanswerable_]
    out, i = [], 0
    while any(answerable) or unanswerable:
        for group in answerable:
            if group:
                out.append(group.pop(0))
        i += 1
        if i % 3 == 0 and unanswerable:
            out.append(unanswerable.pop(0))
        if not any(answerable):
            out += unanswerable
            unanswerable = []
    return out


def _norm(v: Any) -> str:
    if isinstance(v, Decimal | float):
        return f"{float(v):.2f}"
    if isinstance(v, datetime | date):
        return v.isoformat()[:10]
    return str(v)


def same_result(got: list[list[Any]], gold: list[tuple[Any, ...]], ordered: bool) -> bool:
    """Equal rows (column order ignored), or the same number of rows each holding the gold row's values plus
    extra columns ('Rock' asked, 'Rock, 1297' answered)."""
    a = [tuple(sorted(_norm(v) for v in row)) for row in got]
    b = [tuple(sorted(_norm(v) for v in row)) for row in gold]
    if (a == b) if ordered else (Counter(a) == Counter(b)):
        return True
    if len(a) != len(b) or not a or len(a[0]) <= len(b[0]):
        return False
    if not ordered:
        a, b = sorted(a), sorted(b)  # extra columns can reorder rows; compare each gold row with its best match
        return all(any(not (Counter(g) - Counter(r)) for r in a) for g in b)
    return all(not (Counter(g) - Counter(r)) for r, g in zip(a, b, strict=True))


def scored(item: dict[str, Any], engine: Any, status: str, sql: str | None, rows: list[list[Any]]) -> bool:
    """Whether an answer is right: an unanswerable question (no gold) declined with no SQL, else a completed answer
    whose rows match the gold query's (in order when the gold orders them and returns more than one row)."""
    if item["gold"] is None:
        return status in DECLINED and sql is None
    gold = engine.execute(item["gold"])
    ordered = "ORDER BY" in item["gold"].upper() and "LIMIT 1" not in item["gold"].upper()
    return status in COMPLETED and sql is not None and same_result(rows, gold.rows, ordered)


def _write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=1, default=str))


def run(llm: str | None, items: list[dict[str, Any]], out: Path, which: str) -> dict[str, Any]:
    from orrery.bi.agent import BIAgent
    from orrery.bi.data import open_engine
    from orrery.llm import resolve_model

    model = resolve_model(llm or "local")
    engines = {db: open_engine(db) for db in ("chinook", "tpch")}
    rows: list[dict[str, Any]] = []
    sessions = tempfile.mkdtemp(prefix="bi-bench-")
    for i, item in enumerate(items):
        engine = engines[item["db"]]
        agent = BIAgent(model, engine, store=f"{sessions}/s.db", session_id=f"q{i}", clarify=False, prose=False)
        t0 = time.perf_counter()
        answer = agent.ask(item["question"])
        seconds = time.perf_counter() - t0
        correct = scored(item, engine, answer.status, answer.sql, answer.rows)
        rows.append(
            {
                **item,
                "status": answer.status,
                "sql": answer.sql,
                "correct": correct,
                "seconds": round(seconds, 1),
                "tokens": answer.usage.total,
                "answer": answer.answer[:300],
                "steps": [f"{t['key']}: {t['status']} {(t['error'] or t['result'] or '')[:200]}" for t in answer.todos],
            }
        )
        print(
            f"[{i + 1}/{len(items)}] {'OK ' if correct else 'BAD'} {seconds:5.1f}s {item['db']:8} {item['question']}"
            f" -> {answer.status} {answer.sql or ''}",
            flush=True,
        )
        result = summarize(rows, model.name, len(items)) | {"set": which}
        _write_json(out, result)
    return result


def summarize(rows: list[dict[str, Any]], model: str, planned: int) -> dict[str, Any]:
    answerable = [r for r in rows if r["gold"] is not None]
    unanswerable = [r for r in rows if r["gold"] is None]

    def rate(rs: list[dict[str, Any]]) -> float | None:
        return round(sum(r["correct"] for r in rs) / len(rs), 3) if rs else None

    by_db = {db: rate([r for r in answerable if r["db"] == db]) for db in ("chinook", "tpch")}
    return {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} vCPU, {platform.processor() or platform.machine()}",
        "model": model,
        "questions_planned": planned,
        "questions_run": len(rows),
        "execution_accuracy": rate(answerable),
        "execution_accuracy_by_db": by_db,
        "answerable_run": len(answerable),
        "unanswerable_run": len(unanswerable),
        "answerable_correct": sum(r["correct"] for r in answerable),
        "unanswerable_correct": sum(r["correct"] for r in unanswerable),
        "commit": _commit(),
        "load_average_1min_at_end": round(os.getloadavg()[0], 1),
        "unanswerable_declined": rate(unanswerable),
        "seconds_per_question_median": statistics.median(r["seconds"] for r in rows) if rows else None,
        "seconds_per_question_mean": round(statistics.mean(r["seconds"] for r in rows), 1) if rows else None,
        "anchor_spider_dev_qwen2_5_coder_0_5b": SPIDER_ANCHOR,
        "questions": rows,
    }


def _commit() -> str:
    import subprocess

    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "orrery/bi"], cwd=HERE.parent, capture_output=True, text=True
    ).stdout.strip()
    return out.stdout.strip() + ("+uncommitted" if dirty else "")


# results/bi_NAME.json files that --report combines: round 2 (declines), then round 1's final runs
RUNS = ("heldout2", "dev_r2", "heldout1_r2", "heldout", "dev", "endpoint")


def report() -> dict[str, Any]:
    """results/bi.json: the runs side by side, each with its questions; a summary table for bench/bi.md."""
    runs = {
        name: json.loads((HERE / "results" / f"bi_{name}.json").read_text())
        for name in RUNS
        if (HERE / "results" / f"bi_{name}.json").exists()
    }
    _write_json(HERE / "results" / "bi.json", runs)

    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{100 * x:.1f}%"

    print(
        "| run | model | questions | execution accuracy (answerable) | Chinook / TPC-H | unanswerable declined "
        "| s / question (median / mean) | commit |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for name, r in runs.items():
        by = r["execution_accuracy_by_db"]
        print(
            f"| {name} | {r['model']} | {r['questions_run']} | {pct(r['execution_accuracy'])} "
            f"({r['answerable_correct']}/{r['answerable_run']}) | {pct(by['chinook'])} / {pct(by['tpch'])} | "
            f"{r['unanswerable_correct']}/{r['unanswerable_run']} | {r['seconds_per_question_median']} / "
            f"{r['seconds_per_question_mean']} | {r['commit']} |"
        )
    return runs


def check(which: str) -> None:
    """Every gold query runs and returns rows (none cut by the row cap); no question is asked twice."""
    from orrery.bi.data import open_engine

    engines = {db: open_engine(db) for db in ("chinook", "tpch")}
    items = questions(which)
    for item in items:
        if item["gold"]:
            r = engines[item["db"]].execute(item["gold"])
            assert r.rows and not r.truncated and all(v is not None for v in r.rows[0]), item
    asked = [q["question"] for s in SETS for q in questions(s)]
    assert len(asked) == len(set(asked)), "a question is in two sets"
    n_un = sum(item["gold"] is None for item in items)
    print(f"{which}: {len(items)} questions ({len(items) - n_un} with gold SQL, all run; {n_un} unanswerable)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--llm", default=None, help="model spec (default: the embedded model)")
    p.add_argument(
        "--set",
        dest="which",
        choices=sorted(SETS),
        default="dev",
        help="dev, heldout (held-out #1, now development data): tuned on; heldout2: run once, at the end",
    )
    p.add_argument("--limit", type=int, default=None, help="the first N questions of the set")
    p.add_argument("--only", default=None, help="comma-separated question numbers (1-based) of the set")
    p.add_argument("--check", action="store_true")
    p.add_argument("--report", action="store_true", help="combine the results/bi_NAME.json of RUNS into bi.json")
    p.add_argument("--out", type=Path, default=None, help="the results file (default results/bi_SET.json)")
    args = p.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    if args.check:
        check(args.which)
        return
    if args.report:
        report()
        return
    items = questions(args.which)
    if args.only:
        items = [items[int(i) - 1] for i in args.only.split(",")]
    items = items[: args.limit] if args.limit else items
    run(args.llm, items, args.out or HERE / "results" / f"bi_{args.which}.json", args.which)


if __name__ == "__main__":
    main()
