"""Round 73: the seconds of a BI question spent outside the model, base and this checkout side by side.

`--record`: the embedded model answers a fixed sample of development questions (the code on PYTHONPATH) and its
replies are kept, in order, per question (results/bi_r73_replies.json). Then each code (`main`: $ORRERY_MAIN, `here`:
this checkout) answers the same questions in its own subprocess with a scripted model replaying those replies, so the
seconds measured are the pipeline's alone, and both are timed in one run on the same machine, interleaved. A code
whose model calls differ from the recorded ones (a prompt changed) runs out of turns or replies what the schema
refuses: a changed behaviour shows as a changed answer, compared here too. `--profile`: cProfile of one replay pass.

    PYTHONPATH=$PWD nice -n 5 python bench/bi_r73_time.py --record          # once (model calls)
    ORRERY_MAIN=/work/wt/start nice -n 5 python bench/bi_r73_time.py        # no model: main vs here
    PYTHONPATH=$PWD python bench/bi_r73_time.py --profile here

Writes results/bi_r73_time.json (`--clarify`: asking on, results/bi_r73_time_clarify.json).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load  # noqa: E402

REPLIES = HERE / "results" / "bi_r73_replies.json"
# the sample, fixed before any run: questions 1, 2 and 4 (an unanswerable one: `items` puts one after every three)
# of five development sets (no held-out set not yet run)
SAMPLE = {s: (1, 2, 4) for s in ("nokeys", "heldout2", "dev", "heldout20", "heldout25")}
REPEATS = 3  # passes per code (`--passes`)


def questions() -> list[dict[str, Any]]:
    bnk = load("bi_nokeys")
    return [bnk.items(s)[i - 1] | {"set": s} for s, nums in SAMPLE.items() for i in nums]


def _answer(model: Any, engine: Any, q: dict[str, Any], store: str, i: int, clarify: bool = False) -> dict[str, Any]:
    from orrery.bi.agent import BIAgent

    agent = BIAgent(model, engine, store=store, session_id=f"q{i}", clarify=clarify, prose=False)
    a = agent.ask(q["question"])
    return {"status": a.status, "sql": a.sql, "rows": a.rows[:20], "answer": a.answer[:300]}


def record() -> None:
    """The embedded model's replies to each question, in order (the code on PYTHONPATH)."""
    from orrery.llm import resolve_model

    model = resolve_model("local")
    complete, seen = model.complete, []

    def kept(*args: Any, **kwargs: Any) -> Any:
        resp = complete(*args, **kwargs)
        seen.append(resp.content)
        return resp

    model.complete = kept
    bnk, store, out = load("bi_nokeys"), tempfile.mkdtemp(prefix="bi-r73-"), []
    for i, q in enumerate(questions()):
        seen.clear()
        got = _answer(model, bnk.engine_for(q["db"]), q, f"{store}/s.db", i)
        out.append({"set": q["set"], "question": q["question"], "replies": list(seen), "answer": got})
        print(f"[{i + 1}] {len(seen)} calls {q['question']} -> {got['status']} {got['sql']}", flush=True)
    REPLIES.write_text(json.dumps(out, indent=1, default=str))


def replay(profile: str | None = None, clarify: bool = False) -> dict[str, Any]:
    """One pass over the recorded questions with a scripted model (the code on PYTHONPATH): seconds and answers."""
    from orrery.llm.scripted import ScriptedModel

    bnk, store, rows = load("bi_nokeys"), tempfile.mkdtemp(prefix="bi-r73-"), []
    engines: dict[str, Any] = {}
    prof = cProfile.Profile() if profile else None
    for i, rec in enumerate(json.loads(REPLIES.read_text())):
        q = next(q for q in questions() if q["question"] == rec["question"] and q["set"] == rec["set"])
        engine = engines.get(q["db"]) or engines.setdefault(q["db"], bnk.engine_for(q["db"]))
        model = ScriptedModel(rec["replies"])
        t0, c0 = time.perf_counter(), time.process_time()
        if prof:
            prof.enable()
        got = _answer(model, engine, q, f"{store}/s.db", i, clarify)
        if prof:
            prof.disable()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        rows.append({"question": q["question"], "seconds": wall, "cpu_seconds": cpu, "answer": got})
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").dump_stats(profile)
    return {"rows": rows}


def side_by_side(clarify: bool = False, repeats: int = REPEATS, tag: str = "") -> None:
    """Each code's replay passes, interleaved (main, here, main, here, ...), each in its own subprocess; a pass's
    first question per database opens the layer and its caches, as a fresh process does."""
    roots = {"main": os.environ.get("ORRERY_MAIN", "/work/main"), "here": str(HERE.parent)}
    passes: dict[str, list[dict[str, Any]]] = {c: [] for c in roots}
    for _ in range(repeats):
        for code, root in roots.items():
            env = {**os.environ, "PYTHONPATH": root}
            out = subprocess.run(
                [sys.executable, __file__, "--worker", *(["--clarify"] if clarify else [])],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            passes[code].append(json.loads(out.stdout.splitlines()[-1]))
    recorded = [r["answer"] for r in json.loads(REPLIES.read_text())]
    summary = {}
    for code, ps in passes.items():
        per_q = [statistics.median(p["rows"][i]["seconds"] for p in ps) for i in range(len(recorded))]
        answers = [r["answer"] for r in ps[0]["rows"]]
        cpu = [sum(r.get("cpu_seconds", 0.0) for r in p["rows"]) for p in ps]
        summary[code] = {
            "seconds_per_question": [round(s, 3) for s in per_q],
            "total_median_pass": round(sum(per_q), 2),
            "pass_totals": [round(sum(r["seconds"] for r in p["rows"]), 2) for p in ps],
            # the worker's CPU seconds (every thread of it): what the code does, less the waits of a loaded machine
            "cpu_pass_totals": [round(c, 2) for c in cpu],
            "cpu_median_pass": round(statistics.median(cpu), 2),
            "answers_as_recorded": sum(
                json.dumps(a, default=str) == json.dumps(b, default=str) for a, b in zip(answers, recorded, strict=True)
            ),
        }
    same = [r["answer"] for r in passes["main"][0]["rows"]] == [r["answer"] for r in passes["here"][0]["rows"]]
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    result = {
        "date": stamp,
        "load_1min": os.getloadavg()[0],
        "roots": roots,
        "clarify": clarify,
        "passes": repeats,
        "same_answers": same,
    }
    out = HERE / "results" / f"bi_r73_time{'_clarify' if clarify else ''}{'_' + tag if tag else ''}.json"
    out.write_text(json.dumps(result | summary, indent=1))
    print(json.dumps(result | summary, indent=1))


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--record", action="store_true")
    p.add_argument("--worker", action="store_true")
    p.add_argument("--clarify", action="store_true", help="asking on (the bench runs with it off)")
    p.add_argument("--passes", type=int, default=REPEATS, help="replay passes per code, interleaved")
    p.add_argument("--tag", default="", help="added to the results file name")
    p.add_argument("--profile", default=None, help="a file for the cProfile stats of one replay pass")
    a = p.parse_args()
    if a.record:
        record()
    elif a.worker:
        print(json.dumps(replay(clarify=a.clarify), default=str))
    elif a.profile:
        replay(a.profile, a.clarify)
    else:
        side_by_side(a.clarify, a.passes, a.tag)
