"""Round 59's model sample (bench/bi_r59.md): the fixed sample of `bi_r59_wrong.sample` (every 25th wrong and every
40th right stored answer of sets #1..#22) asked of one code, in one process, as bench/bi_nokeys.py asks and scores
a set; `--candidates N` builds the agent with `BIAgent(candidates=N)` (this round's option; main has none).

    nice -n 10 timeout 900 python bench/bi_r59.py --code main --tag r59main
    nice -n 10 timeout 900 python bench/bi_r59.py --code here --candidates 3 --tag r59c3
    python bench/bi_r59.py --compare results/bi_r59_main_r59main.json results/bi_r59_here_r59c3.json

Writes results/bi_r59_<code>_<tag>.json after every question (not bi_nokeys_*: `bi_recompose.newest` would read
it as a set of its own).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
# `bi_r59_wrong.py --sample` at 46aa6f3, fixed before the run (later stored answers would move the rule's draw)
SAMPLE = (
    ("dev", 31),
    ("heldout13", 29),
    ("heldout15", 19),
    ("heldout17", 37),
    ("heldout18", 43),
    ("heldout19", 35),
    ("heldout20", 22),
    ("heldout22", 45),
    ("heldout5", 25),
    ("heldout7", 15),
    ("nokeys", 55),
    ("dev", 16),
    ("heldout10", 27),
    ("heldout12", 22),
    ("heldout16", 21),
    ("heldout2", 15),
    ("heldout3", 9),
    ("heldout7", 26),
    ("heldout9", 7),
    ("nokeys", 70),
)


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _record_candidates(seen: list[str]) -> None:
    """`--oracle`: each question's candidate queries (bench only: the agent keeps the winner's)."""
    from orrery.bi import tools

    agreed_query = tools.agreed_query

    def recorded(bi: Any, built: dict[str, Any], others: list[Any]) -> dict[str, Any]:
        seen[:] = [c["sql"] if c else None for c in (built, *others)]
        return agreed_query(bi, built, others)

    tools.agreed_query = recorded


def worker(code: str, candidates: int, out: Path, oracle: list[int] | None = None) -> None:
    import orrery
    from orrery.bi.agent import BIAgent
    from orrery.llm import resolve_model

    sys.path.insert(0, str(HERE))
    bnk = _load("bi_nokeys")
    from bi import scored

    wrong, right = SAMPLE[:11], SAMPLE[11:]  # interleaved, so a run cut by its time limit keeps guards too
    order = [q for pair in zip(wrong, right, strict=False) for q in pair] + list(wrong[len(right) :])
    qs = [bnk.items(s)[i - 1] | {"set": s} for s, i in order]
    qs = [qs[i - 1] for i in oracle] if oracle else qs
    seen: list[str] = []
    if oracle:
        _record_candidates(seen)
    model = resolve_model("local")
    calls = bnk._count_calls(model)
    engines: dict[str, Any] = {}
    sessions = tempfile.mkdtemp(prefix="bi-r59-")
    option = {"candidates": candidates} if candidates > 1 else {}
    rows: list[dict[str, Any]] = []
    for i, item in enumerate(qs):
        engine = engines.get(item["db"]) or engines.setdefault(item["db"], bnk.engine_for(item["db"]))
        t0, calls[:], seen[:] = time.perf_counter(), [], []
        agent = BIAgent(
            model, engine, store=f"{sessions}/s.db", session_id=f"q{i}", clarify=False, prose=False, **option
        )
        answer = agent.ask(item["question"])
        seconds = time.perf_counter() - t0
        correct = scored(item, engine, answer.status, answer.sql, answer.rows)
        steps = [
            f"{t['key']}: {t['status']} {(t['error'] or t['result'] or '')[: bnk.STEP_CHARS]}" for t in answer.todos
        ]
        rows.append(
            {
                **item,
                "status": answer.status,
                "sql": answer.sql,
                "correct": correct,
                "seconds": round(seconds, 1),
                "tokens": answer.usage.total,
                "model_calls": len(calls),
                "load_1min": round(os.getloadavg()[0], 1),
                "answer": answer.answer[:300],
                "steps": steps,
                # whether each candidate's own result is right (None: it failed)
                "candidates": [
                    [c, c is not None and scored(item, engine, "completed", c, engine.execute(c).rows)] for c in seen
                ],
            }
        )
        print(
            f"[{i + 1}/{len(qs)}] {'OK ' if correct else 'BAD'} {seconds:5.1f}s {len(calls)} calls "
            f"{item['db']:8} {item['question']} -> {answer.status} {answer.sql or ''}",
            flush=True,
        )
        summary = bnk.summarize(rows, "r59sample", code, model.name, len(qs), orrery.__file__)
        bnk._write(out, summary | {"candidates": candidates})


def compare(before: Path, after: Path) -> None:
    """The criterion's numbers over the questions both runs finished: the flips and the median seconds."""
    import json
    import statistics

    runs = [{(q["set"], q["question"]): q for q in json.loads(f.read_text())["questions"]} for f in (before, after)]
    both = [k for k in runs[0] if k in runs[1]]
    flips = {
        "wrong -> right": sum(not runs[0][k]["correct"] and runs[1][k]["correct"] for k in both),
        "right -> wrong": sum(runs[0][k]["correct"] and not runs[1][k]["correct"] for k in both),
    }
    med = [statistics.median(r[k]["seconds"] for k in both) for r in runs]
    calls = [statistics.median(r[k]["model_calls"] for k in both) for r in runs]
    print(f"questions both ran: {len(both)}; right: {[sum(r[k]['correct'] for k in both) for r in runs]}; {flips}")
    print(f"median s/q: {med[0]} -> {med[1]} ({med[1] / med[0]:.2f}x); median model calls: {calls[0]} -> {calls[1]}")
    for k in both:
        a, b = runs[0][k], runs[1][k]
        print(
            f"{'OK ' if a['correct'] else 'BAD'} -> {'OK ' if b['correct'] else 'BAD'} {a['seconds']:5.1f} -> "
            f"{b['seconds']:5.1f}s {a['status']}/{b['status']} {k[0]}: {k[1]}"
        )


def main() -> None:
    if sys.argv[1:2] == ["--compare"]:
        return compare(Path(sys.argv[2]), Path(sys.argv[3]))
    p = argparse.ArgumentParser()
    p.add_argument("--code", choices=("main", "here"), default="here")
    p.add_argument("--candidates", type=int, default=1)
    p.add_argument("--tag", default="r59")
    p.add_argument("--oracle", default=None, help="positions (1-based, run order) to ask, recording each candidate")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    out = HERE / "results" / f"bi_r59_{args.code}_{args.tag}.json"
    if args.worker:
        worker(args.code, args.candidates, out, [int(i) for i in args.oracle.split(",")] if args.oracle else None)
        return
    root = os.environ.get("ORRERY_MAIN", "/work/main") if args.code == "main" else str(HERE.parent)
    env = {**os.environ, "PYTHONPATH": root, "OMP_WAIT_POLICY": "passive"}
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        "--code",
        args.code,
        "--candidates",
        str(args.candidates),
        "--tag",
        args.tag,
        *(["--oracle", args.oracle] if args.oracle else []),
    ]
    sys.exit(subprocess.run(cmd, env=env, cwd=root).returncode)


if __name__ == "__main__":
    main()
