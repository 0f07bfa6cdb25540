"""Round 16 (B) of bench/bi_memory.md: the prompt cache as a user meets it. One process, one database, several
questions in a row, the embedded model with its ordinary prompt cache; per model call, the prompt's tokens and those
llama.cpp processed anew (`prompt_n`; `cache_n` reused), labelled by the call's system prompt, so the SQL step's
call (round 33's drafted worked examples) is told from the others.

    python bench/bi_r16_cache.py --code here|main --tag X [--db world --n 8]

`--code main` runs the code at $ORRERY_MAIN (as bench/bi_nokeys.py) in a subprocess whose PYTHONPATH is that
checkout. Writes results/bi_r16_cache_<code>_<tag>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def sample(db: str, n: int) -> list[dict[str, Any]]:
    """The first `n` answerable questions of the no-key development set on `db`, in its file's order."""
    from bi_nokeys import items

    return [q for q in items("nokeys") if q["db"] == db and q["gold"] is not None][:n]


def _counted(model: Any) -> list[dict[str, Any]]:
    """Each call of the embedded model: its system prompt's first line and llama.cpp's timings."""
    calls: list[dict[str, Any]] = []
    generate = model._generate

    def counted(request: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        last = yield from generate(request, *args, **kwargs)
        first = request["messages"][0]
        system = first["content"] if first["role"] == "system" else ""
        t = model.last_timings
        calls.append(
            {
                "step": system.strip().split("\n")[0][:80],
                "messages": len(request["messages"]),
                "prompt_n": t.get("prompt_n", 0),
                "cache_n": t.get("cache_n", 0),
                "seconds": round(time.perf_counter() - t0, 2),
            }
        )
        return last

    model._generate = counted
    return calls


def worker(db: str, n: int, code: str, out: Path, shots_off: bool) -> None:
    import orrery
    from orrery.bi.agent import BIAgent
    from orrery.llm import resolve_model

    if shots_off:  # the file's worked examples, as before round 33, all else this code's
        import orrery.bi.tools

        orrery.bi.tools.drafted_shots = lambda _bi: None

    sys.path.insert(0, str(HERE))
    from bi import scored
    from bi_nokeys import engine_for

    model = resolve_model("local")
    calls = _counted(model)
    engine = engine_for(db)
    sessions = tempfile.mkdtemp(prefix="bi-r16-")
    rows = []
    for i, item in enumerate(sample(db, n)):
        t0, calls[:] = time.perf_counter(), []
        agent = BIAgent(model, engine, store=f"{sessions}/s.db", session_id=f"q{i}", clarify=False, prose=False)
        answer = agent.ask(item["question"])
        seconds = time.perf_counter() - t0
        rows.append(
            item
            | {
                "status": answer.status,
                "sql": answer.sql,
                "correct": scored(item, engine, answer.status, answer.sql, answer.rows),
                "seconds": round(seconds, 1),
                "calls": list(calls),
                "load_1min": round(os.getloadavg()[0], 1),
            }
        )
        print(f"[{i + 1}] {seconds:5.1f}s {answer.status} {answer.sql}", flush=True)
        head = {"code": code, "shots_off": shots_off, "orrery": orrery.__file__, "db": db}
        out.write_text(json.dumps(head | summary(rows) | {"questions": rows}, indent=1))


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Median seconds from the second question on; mean prompt tokens anew per call of each step."""
    later = rows[1:]
    steps: dict[str, list[dict[str, Any]]] = {}
    for r in later:
        for c in r["calls"]:
            steps.setdefault(c["step"], []).append(c)
    return {
        "median_s_after_first": statistics.median(r["seconds"] for r in later) if later else None,
        "mean_s_after_first": round(statistics.mean(r["seconds"] for r in later), 1) if later else None,
        "first_s": rows[0]["seconds"] if rows else None,
        "right": sum(r["correct"] for r in rows),
        "prompt_new_per_question_after_first": round(
            statistics.mean(sum(c["prompt_n"] for c in r["calls"]) for r in later), 1
        )
        if later
        else None,
        "steps_after_first": {
            s: {
                "calls": len(cs),
                "mean_prompt_new": round(statistics.mean(c["prompt_n"] for c in cs), 1),
                "mean_prompt": round(statistics.mean(c["prompt_n"] + c["cache_n"] for c in cs), 1),
                "mean_s": round(statistics.mean(c["seconds"] for c in cs), 2),
            }
            for s, cs in steps.items()
        },
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--code", choices=("here", "main"), default="here")
    p.add_argument("--db", default="world")
    p.add_argument("--n", type=int, default=8)
    p.add_argument("--tag", default="run")
    p.add_argument("--shots-off", action="store_true", help="--code here: the file's worked examples")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    sys.path.insert(0, str(HERE))
    out = RESULTS / f"bi_r16_cache_{args.code}_{args.tag}.json"
    if args.worker:
        return worker(args.db, args.n, args.code, out, args.shots_off)
    root = os.environ.get("ORRERY_MAIN", "/work/main") if args.code == "main" else str(HERE.parent)
    cmd = [sys.executable, __file__, "--worker", *sys.argv[1:]]
    env = os.environ | {"PYTHONPATH": root, "OMP_WAIT_POLICY": "passive"}
    sys.exit(subprocess.run(cmd, env=env, cwd=root).returncode)


if __name__ == "__main__":
    main()
