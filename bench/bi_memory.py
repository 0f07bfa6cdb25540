"""Execution accuracy of the BI agent with an empty example memory vs a memory of approved answers, side by side.

One run, the embedded model, the dev questions with gold SQL (bench/bi_questions.py, interleaved Chinook /
TPC-H as bench/bi.py orders them; the first N: a stated subset on the shared machine):
1. memory off: each question answered by a fresh agent (`clarify=False`, `prose=False`, as bench/bi.py), scored
   by bench/bi.py's execution match. This is the anchor.
2. the memory is filled by approving the answers of step 1 that were right (question -> the SQL the agent ran),
   per database, in a fresh store with MiniLM vectors (fused search, as the agent's default).
3. memory on: the same questions again, each agent shown the k=3 nearest approved pairs of its database,
   leave-one-out (a question never retrieves its own pair); with `--floor`, only pairs whose question is at least
   that similar (MiniLM cosine) to the new one.
The first run (`first24`) used the rule fixed before any run (k=3, no floor); the floor (0.3, the agent's default
since) was decided from that run's one misleading example and measured on the next 24 questions (`next24_floor`),
which no run had used: both subsets are development data (nothing here is held out).
Reported: both accuracies and the difference in points, the questions that changed (right -> wrong is a
retrieved example misleading: the model and the questions are otherwise the same and the model decodes
greedily), seconds per question with the memory on and off.

    nice -n 10 python bench/bi_memory.py --limit 24 --tag first24
    nice -n 10 python bench/bi_memory.py --start 24 --limit 24 --floor 0.3 --tag next24_floor
    python bench/bi_memory.py --report        # bi_memory.md and results/bi_memory.json from the runs in RUNS
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
from bi import COMPLETED, DECLINED, _commit, _write_json, questions, same_result  # noqa: E402

K = 3
RESULTS = HERE / "results"
# The runs bi_memory.md reports, in order: the first (k=3, no similarity floor: the rule fixed before any run), then
# the floor decided from the first run's one misleading example, on dev questions that run did not use.
RUNS = ("first24", "next24_floor")


def answer(model: Any, engine: Any, item: dict[str, Any], sessions: str, key: str, memory: Any = None) -> dict[str, Any]:
    from orrery.bi.agent import BIAgent

    agent = BIAgent(model, engine, store=f"{sessions}/s.db", session_id=key, clarify=False, prose=False)
    agent.bi.approved = memory
    t0 = time.perf_counter()
    got = agent.ask(item["question"])
    seconds = time.perf_counter() - t0
    gold = engine.execute(item["gold"])
    ordered = "ORDER BY" in item["gold"].upper() and "LIMIT 1" not in item["gold"].upper()
    correct = got.status in COMPLETED and got.sql is not None and same_result(got.rows, gold.rows, ordered)
    return {"status": got.status, "sql": got.sql, "correct": correct, "seconds": round(seconds, 1)}


def run(llm: str | None, items: list[dict[str, Any]], out: Path, floor: float | None) -> dict[str, Any]:
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
        _write(out, {"partial": "memory off only", "questions": rows[: i + 1]})  # a cut run keeps what it did
    examples = ApprovedExamples(f"{sessions}/memory.db", embedder=default_embedder())
    t0 = time.perf_counter()
    approved = [examples.approve(r["db"], r["question"], r["off"]["sql"]) for r in rows if r["off"]["correct"]]
    approve_s = (time.perf_counter() - t0) / max(1, len(approved))
    memory = ExampleMemory(examples, K, leave_one_out=True, floor=floor)
    for i, row in enumerate(rows):
        row["retrieved"] = [e.question for e in memory.nearest(row["db"], row["question"])]
        row["on"] = answer(model, engines[row["db"]], row, sessions, f"on{i}", memory)
        print(f"on  [{i + 1}/{len(rows)}] {'OK ' if row['on']['correct'] else 'BAD'} {row['on']['seconds']:5.1f}s "
              f"{row['db']:8} {row['question']}", flush=True)
        _write(out, summarize(rows[: i + 1], model.name, len(rows), len(approved), approve_s) | {"floor": floor})
    return summarize(rows, model.name, len(rows), len(approved), approve_s) | {"floor": floor}


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


def _write(path: Path, result: dict[str, Any]) -> None:
    _write_json(path, result)


def report(runs: dict[str, dict[str, Any]]) -> str:
    lines = ["## BI: approved examples (bench/bi_memory.py)", "",
             "Dev questions with gold SQL (bench/bi_questions.py's dev set as bench/bi.py orders it, Chinook and TPC-H "
             "interleaved), the embedded model; each run answers its questions twice, side by side: first with an "
             "empty memory (the anchor), then with a memory holding that run's answers that were right, approved "
             "per database (MiniLM vectors + full text, fused), each question shown the k nearest approved pairs of "
             "its database, never its own (leave-one-out). Subsets of 24 for the shared 2-core machine.", "",
             "| run | questions | floor | empty memory | approved examples | points | right -> wrong | wrong -> right "
             "| s / question, empty (median / mean) | s / question, examples |", "|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in runs.items():
        n = r["questions_run"]
        lines.append(f"| {name} | {n} (from #{r.get('start', 0) + 1}) | {r.get('floor') or 'none'} | {100 * r['accuracy_off']:.1f}% "
                     f"| {100 * r['accuracy_on']:.1f}% | {r['points']:+.1f} | {r['right_to_wrong']} "
                     f"({100 * r['right_to_wrong_share']:.1f}%) | {r['wrong_to_right']} | {r['seconds_off']['median']} / "
                     f"{r['seconds_off']['mean']} | {r['seconds_on']['median']} / {r['seconds_on']['mean']} |")
    lines.append("")
    for name, r in runs.items():
        lines.append(f"{name} ({r['date']}, commit {r['commit']}, {r['model']}): {r['examples_approved']} examples "
                     f"approved ({1000 * r['approve_seconds_each']:.0f} ms each, embedding included); load average at "
                     f"the end {r['load_average_1min_at_end']} (a shared machine: not quiet-machine times); "
                     f"{sum(bool(q['retrieved']) for q in r['questions'])} of {r['questions_run']} questions were shown "
                     f"at least one example, {sum(len(q['retrieved']) for q in r['questions'])} in all.")
        for title, key in (("right -> wrong", "right_to_wrong_questions"), ("wrong -> right", "wrong_to_right_questions")):
            if r[key]:
                lines.append(f"- {title}: " + "; ".join(r[key]) + ".")
        wrong = [q for q in r["questions"] if not q["off"]["correct"]]
        declined = [q for q in wrong if q["off"]["status"] in DECLINED and q["on"]["status"] in DECLINED]
        lines.append(f"- of the {len(wrong)} answers wrong with an empty memory, {len(declined)} were declines in both "
                     "conditions (the plan or the field mapping declined: the SQL step, where the examples are shown, "
                     "never ran)." + ("" if not declined else " Declined: " + "; ".join(q["question"] for q in declined) + "."))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--llm", default=None, help="model spec (default: the embedded model)")
    p.add_argument("--start", type=int, default=0, help="skip the first N dev questions with gold SQL")
    p.add_argument("--limit", type=int, default=24, help="then take N")
    p.add_argument("--floor", type=float, default=None, help="the similarity floor (default: none)")
    p.add_argument("--tag", default="run", help="results/bi_memory_TAG.json")
    p.add_argument("--report", action="store_true", help="only write bi_memory.md and results/bi_memory.json")
    args = p.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    if not args.report:
        items = [q for q in questions("dev") if q["gold"] is not None][args.start: args.start + args.limit]
        out = RESULTS / f"bi_memory_{args.tag}.json"
        _write(out, run(args.llm, items, out, args.floor) | {"start": args.start})
    runs = {name: json.loads((RESULTS / f"bi_memory_{name}.json").read_text()) for name in RUNS
            if (RESULTS / f"bi_memory_{name}.json").exists()}
    _write(RESULTS / "bi_memory.json", runs)
    (HERE / "bi_memory.md").write_text(report(runs))


if __name__ == "__main__":
    main()
