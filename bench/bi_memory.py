"""Execution accuracy of the BI agent with an empty example memory vs a memory of approved answers, side by side.

One run, the embedded model, the dev questions with gold SQL (bench/bi_questions.py, interleaved Chinook /
TPC-H as bench/bi.py orders them; the first N: a stated subset on the shared machine):
1. memory off: each question answered by a fresh agent (`clarify=False`, `prose=False`, as bench/bi.py), scored
   by bench/bi.py's execution match. This is the anchor.
2. the memory is filled by approving the answers of step 1 that were right (question -> the SQL the agent ran),
   per database, in a fresh store with MiniLM vectors (fused search, as the agent's default).
3. memory on: the same questions again, each agent shown the k=3 nearest approved pairs of its database,
   leave-one-out (a question never retrieves its own pair).
Reported: both accuracies and the difference in points, the questions that changed (right -> wrong is a
retrieved example misleading: the model and the questions are otherwise the same and the model decodes
greedily), seconds per question with the memory on and off.

    nice -n 10 python bench/bi_memory.py --limit 30     # writes results/bi_memory.json and bi_memory.md
    python bench/bi_memory.py --report                  # bi_memory.md from results/bi_memory.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path[:0] = [str(HERE.parent), str(HERE)]  # this checkout's orrery, not the one the venv installed
from bi import _commit, _write_json, questions, same_result  # noqa: E402

K = 3
OUT = HERE / "results" / "bi_memory.json"


def answer(model: Any, engine: Any, item: dict[str, Any], sessions: str, key: str, memory: Any = None) -> dict[str, Any]:
    from orrery.bi.agent import BIAgent

    agent = BIAgent(model, engine, store=f"{sessions}/s.db", session_id=key, clarify=False, prose=False)
    agent.bi.approved = memory
    t0 = time.perf_counter()
    got = agent.ask(item["question"])
    seconds = time.perf_counter() - t0
    gold = engine.execute(item["gold"])
    ordered = "ORDER BY" in item["gold"].upper() and "LIMIT 1" not in item["gold"].upper()
    correct = got.status == "answered" and got.sql is not None and same_result(got.rows, gold.rows, ordered)
    return {"status": got.status, "sql": got.sql, "correct": correct, "seconds": round(seconds, 1)}


def run(llm: str | None, items: list[dict[str, Any]]) -> dict[str, Any]:
    from orrery.bi.data import open_engine
    from orrery.bi.examples import ExampleMemory
    from orrery.llm import resolve_model
    from orrery.recall import ApprovedExamples
    from orrery.recall.embed import default_embedder

    model = resolve_model(llm or "local")
    engines = {db: open_engine(db) for db in ("chinook", "tpch")}
    sessions = tempfile.mkdtemp(prefix="bi-memory-bench-")
    rows: list[dict[str, Any]] = [dict(item) for item in items]
    for i, row in enumerate(rows):
        row["off"] = answer(model, engines[row["db"]], row, sessions, f"off{i}")
        print(f"off [{i + 1}/{len(rows)}] {'OK ' if row['off']['correct'] else 'BAD'} {row['off']['seconds']:5.1f}s "
              f"{row['db']:8} {row['question']}", flush=True)
        _write({"partial": "memory off only", "questions": rows[: i + 1]})  # a cut run keeps what it did
    examples = ApprovedExamples(f"{sessions}/memory.db", embedder=default_embedder())
    t0 = time.perf_counter()
    approved = [examples.approve(r["db"], r["question"], r["off"]["sql"]) for r in rows if r["off"]["correct"]]
    approve_s = (time.perf_counter() - t0) / max(1, len(approved))
    memory = ExampleMemory(examples, K, leave_one_out=True)
    for i, row in enumerate(rows):
        row["retrieved"] = [e.question for e in memory.nearest(row["db"], row["question"])]
        row["on"] = answer(model, engines[row["db"]], row, sessions, f"on{i}", memory)
        print(f"on  [{i + 1}/{len(rows)}] {'OK ' if row['on']['correct'] else 'BAD'} {row['on']['seconds']:5.1f}s "
              f"{row['db']:8} {row['question']}", flush=True)
        _write(summarize(rows[: i + 1], model.name, len(rows), len(approved), approve_s))
    return summarize(rows, model.name, len(rows), len(approved), approve_s)


def summarize(rows: list[dict[str, Any]], model: str, planned: int, approved: int, approve_s: float) -> dict[str, Any]:
    n = len(rows)
    off, on = (sum(r[k]["correct"] for r in rows) for k in ("off", "on"))
    worse = [r["question"] for r in rows if r["off"]["correct"] and not r["on"]["correct"]]
    better = [r["question"] for r in rows if not r["off"]["correct"] and r["on"]["correct"]]

    def secs(k: str) -> dict[str, float]:
        s = [r[k]["seconds"] for r in rows]
        return {"median": statistics.median(s), "mean": round(statistics.mean(s), 1)}

    return {"date": time.strftime("%Y-%m-%d"), "model": model, "commit": _commit(), "k": K,
            "questions_planned": planned, "questions_run": n, "examples_approved": approved,
            "approve_seconds_each": round(approve_s, 3),
            "accuracy_off": round(off / n, 3), "accuracy_on": round(on / n, 3),
            "points": round(100 * (on - off) / n, 1), "right_to_wrong": len(worse),
            "right_to_wrong_share": round(len(worse) / n, 3), "wrong_to_right": len(better),
            "right_to_wrong_questions": worse, "wrong_to_right_questions": better,
            "seconds_off": secs("off"), "seconds_on": secs("on"),
            "load_average_1min_at_end": round(os.getloadavg()[0], 1), "questions": rows}


def _write(result: dict[str, Any]) -> None:
    _write_json(OUT, result)


def report(r: dict[str, Any]) -> str:
    n = r["questions_run"]
    by_db = {db: [q for q in r["questions"] if q["db"] == db] for db in ("chinook", "tpch")}
    cells = " | ".join(f"{db}: {sum(q['off']['correct'] for q in qs)}/{len(qs)} -> {sum(q['on']['correct'] for q in qs)}/{len(qs)}"
                       for db, qs in by_db.items() if qs)
    lines = [
        "## BI: approved examples (bench/bi_memory.py)", "",
        f"{n} dev questions with gold SQL (the first {n} of bench/bi_questions.py's dev set as bench/bi.py orders "
        f"it, Chinook and TPC-H interleaved; a subset, for the shared 2-core machine), {r['model']}, one run "
        f"({r['date']}, commit {r['commit']}). Anchor: the same agent with an empty memory, run first. The memory "
        f"then holds the {r['examples_approved']} answers of that run that were right, approved per database "
        f"(MiniLM vectors + full text, fused); with it each question is shown the k={r['k']} nearest approved pairs "
        "of its database, never its own (leave-one-out).", "",
        "| memory | execution accuracy | vs empty | s / question (median / mean) |", "|---|---|---|---|",
        f"| empty | {100 * r['accuracy_off']:.1f}% | 1.00 | {r['seconds_off']['median']} / {r['seconds_off']['mean']} |",
        f"| approved examples | {100 * r['accuracy_on']:.1f}% | "
        f"{r['accuracy_on'] / r['accuracy_off']:.2f} | {r['seconds_on']['median']} / {r['seconds_on']['mean']} |", "",
        f"Difference: {r['points']:+.1f} points ({cells}). Right -> wrong with a retrieved example: "
        f"{r['right_to_wrong']} of {n} ({100 * r['right_to_wrong_share']:.1f}%; goal <= 2%); wrong -> right: "
        f"{r['wrong_to_right']}. Approving one answer (embedding its question): {1000 * r['approve_seconds_each']:.0f} ms. "
        f"Load average at the end: {r['load_average_1min_at_end']} (the machine was shared; times are not quiet-machine "
        "times).", ""]
    for title, key in (("Right -> wrong", "right_to_wrong_questions"), ("Wrong -> right", "wrong_to_right_questions")):
        if r[key]:
            lines.append(f"{title}: " + "; ".join(r[key]) + ".")
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--llm", default=None, help="model spec (default: the embedded model)")
    p.add_argument("--limit", type=int, default=30, help="the first N dev questions with gold SQL")
    p.add_argument("--report", action="store_true", help="only write bi_memory.md from results/bi_memory.json")
    args = p.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    if not args.report:
        items = [q for q in questions("dev") if q["gold"] is not None][: args.limit]
        _write(run(args.llm, items))
    (HERE / "bi_memory.md").write_text(report(json.loads(OUT.read_text())))


if __name__ == "__main__":
    main()
