"""The BI agent on databases that declare no keys, beside the Chinook / TPC-H sets, before and after.

Sets: `nokeys` (bench/bi_nokeys_questions.py: four SQLite databases built by bench/bi_nokeys_data.py, no
declared keys, the semantic layer drafted by the agent itself, no edits), `heldout2` (the Chinook / TPC-H
held-out set #2 of bench/bi_questions.py, hand-written layers; development data since its failures were read),
`heldout`, `dev`, `heldout3` (held-out set #3, run once in round 5, development data since), `heldout4`
(held-out set #4 of bench/bi_questions.py: every database, the no-key ones included; run once), and `heldout5`
(held-out set #5, bench/bi_heldout5.py: two more no-key databases of other domains beside every other one;
run once, after issue 20's code is final), `heldout6` (held-out set #6, bench/bi_heldout6.py: every database;
run once, after this round's code is final). Code: `here` (this checkout) or `main`
(the code at $ORRERY_MAIN, default /work/main), each run in a subprocess whose PYTHONPATH is that checkout,
so both are measured by the same scoring on the same machine in the same run. Scoring as bench/bi.py
(`same_result`: execution accuracy, rows as multisets; an unanswerable question is right when declined
with no SQL), with `--no-clarify` and no prose summary; the embedded model unless `--llm`.

    nice -n 10 python bench/bi_nokeys.py --code main --set nokeys      # before
    nice -n 10 python bench/bi_nokeys.py --code here --set nokeys      # after
    python bench/bi_nokeys.py --check [--set heldout5]                 # every gold query returns rows
    python bench/bi_nokeys.py --report                                 # results/bi_nokeys.json + a table

Writes results/bi_nokeys_<set>_<code>.json after every question (a cut run keeps what it did).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
RESULTS = HERE / "results"
CODES = ("main", "here")
STEP_CHARS = 1500  # was 200: round 46 found 463 stored steps cut before their unresolved mentions

DEV_SETS = ("nokeys", "heldout3", "heldout2", "heldout", "dev")  # development data: the sets whose failures were read
OWN_MODULE = (
    "heldout5",
    "heldout6",
    "heldout7",
    "heldout8",
    "heldout9",
    "heldout10",
    "heldout11",
    "heldout12",
    "heldout13",
    "heldout14",
    "heldout15",
    "heldout16",
    "heldout17",
    "heldout18",
    "heldout19",
    "heldout20",
    "heldout21",
    "heldout22",
    "heldout23",
    "heldout24",
    "heldout25",
    "heldout26",
    "heldout27",
    "heldout28",
)  # the held-out sets with a module of their own
SETS = (*DEV_SETS, "heldout4", *OWN_MODULE)
# held-out sets written but not yet run: the lead's; no script reads their questions or stored answers (`pending`)
PENDING: tuple[str, ...] = ()


def pending(name: str) -> bool:
    """Whether a set's name or a results file's names a held-out set not yet run (`PENDING`)."""
    return any(p in name for p in PENDING)


SCORED = tuple(s for s in SETS if not pending(s))  # every set a script may read: the held-out ones already run


def items(which: str) -> list[dict[str, Any]]:
    """A set's questions, databases interleaved and an unanswerable one after every three, so a prefix mixes."""
    sys.path.insert(0, str(HERE))
    if which == "heldout4":  # held-out #4 spans every database, laid out as the no-key set
        from bi_questions import HELDOUT4_ANSWERABLE as ANSWERABLE
        from bi_questions import HELDOUT4_UNANSWERABLE as UNANSWERABLE
    elif which in OWN_MODULE:  # bench/bi_<set>.py: <SET>_ANSWERABLE, <SET>_UNANSWERABLE
        module = importlib.import_module(f"bi_{which}")
        ANSWERABLE, UNANSWERABLE = (getattr(module, f"{which.upper()}_{k}") for k in ("ANSWERABLE", "UNANSWERABLE"))
    elif which != "nokeys":
        from bi import questions

        return questions(which)
    else:
        from bi_nokeys_questions import ANSWERABLE, UNANSWERABLE

    groups = [[{"db": db, "question": q, "gold": g} for q, g in qs] for db, qs in ANSWERABLE.items()]
    rest = [{"db": db, "question": q, "gold": None} for db, q in UNANSWERABLE]
    out: list[dict[str, Any]] = []
    while any(groups) or rest:
        for g in groups:
            if g:
                out.append(g.pop(0))
            if len(out) % 4 == 3 and rest:
                out.append(rest.pop(0))
        if not any(groups):
            out += rest
            rest = []
    return out


def engine_for(db: str) -> Any:
    """The engine of a question's database, opened by the orrery on sys.path (this checkout's or main's)."""
    from orrery.bi.data import open_engine
    from orrery.bi.engines import SQLiteEngine

    if db in ("chinook", "tpch"):
        return open_engine(db)
    from bi_nokeys_data import path_of

    return SQLiteEngine(db, path_of(db))


@functools.cache
def context_for(db: str) -> Any:
    """A BI context (engine and drafted layer, no model) of a question's database, one per database: the replay
    scripts judge stored questions with it."""
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    engine = engine_for(db)
    return BIContext(engine, load(engine.name, engine), None)


def worker(which: str, code: str, out: Path, llm: str | None, only: list[int] | None) -> None:
    """Answer every question with the orrery on PYTHONPATH; write the scored rows after each."""
    import orrery
    from orrery.bi.agent import BIAgent
    from orrery.llm import resolve_model

    sys.path.insert(0, str(HERE))
    from bi import scored  # after orrery is imported: bench/bi.py puts this checkout first on sys.path

    qs = items(which)
    qs = [qs[i - 1] for i in only] if only else qs
    commit = _commit(code)  # the code loaded now, whatever is committed while it runs
    model = resolve_model(llm or "local")
    calls = _count_calls(model)
    engines: dict[str, Any] = {}
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bi-nokeys-") as sessions:  # the run's session store, gone after it
        for i, item in enumerate(qs):
            engine = engines.get(item["db"]) or engines.setdefault(item["db"], engine_for(item["db"]))
            t0, calls[:] = time.perf_counter(), []
            agent = BIAgent(model, engine, store=f"{sessions}/s.db", session_id=f"q{i}", clarify=False, prose=False)
            try:
                answer = agent.ask(item["question"])
                status, sql, got, usage = answer.status, answer.sql, answer.rows, answer.usage.total
                # a step's result whole enough for the no-model replays (entity resolution's unresolved list ends it)
                steps = [
                    f"{t['key']}: {t['status']} {(t['error'] or t['result'] or '')[:STEP_CHARS]}" for t in answer.todos
                ]
                text = answer.answer[:300]
            except Exception as exc:  # noqa: BLE001 - a crash is scored as a miss and named, the run goes on
                status, sql, got, usage, steps, text = "crash", None, [], 0, [], f"{type(exc).__name__}: {exc}"[:300]
            seconds = time.perf_counter() - t0
            correct = scored(item, engine, status, sql, got)  # one scorer with bench/bi.py
            rows.append(
                {
                    **item,
                    "status": status,
                    "sql": sql,
                    "correct": correct,
                    "seconds": round(seconds, 1),
                    "tokens": usage,
                    "model_calls": len(calls),
                    "prompt_tokens_new": sum(c.get("prompt_n") or 0 for c in calls),
                    "load_1min": round(os.getloadavg()[0], 1),
                    "answer": text,
                    "steps": steps,
                }
            )
            print(
                f"[{i + 1}/{len(qs)}] {'OK ' if correct else 'BAD'} {seconds:5.1f}s {item['db']:8} {item['question']}"
                f" -> {status} {sql or ''}",
                flush=True,
            )
            _write(out, summarize(rows, which, code, model.name, len(qs), orrery.__file__) | {"commit": commit})


def _count_calls(model: Any) -> list[dict[str, Any]]:
    """The embedded model's calls, each with llama.cpp's timings (prompt tokens processed anew, `prompt_n`, and
    taken from its cache, `cache_n`), appended as they end; other models: nothing is counted."""
    calls: list[dict[str, Any]] = []
    generate = getattr(model, "_generate", None)
    if generate is None:
        return calls

    def counted(*args: Any, **kwargs: Any) -> Any:
        last = yield from generate(*args, **kwargs)
        calls.append(dict(model.last_timings))
        return last

    model._generate = counted
    return calls


def summarize(
    rows: list[dict[str, Any]], which: str, code: str, model: str, planned: int, source: str
) -> dict[str, Any]:
    from bi import DECLINED  # the statuses bench/bi.py scores by (imported late: it puts this checkout on sys.path)

    def per(rs: list[dict[str, Any]]) -> dict[str, Any]:
        ans = [r for r in rs if r["gold"] is not None]
        una = [r for r in rs if r["gold"] is None]
        return {
            "answerable": len(ans),
            "correct": sum(r["correct"] for r in ans),
            "execution_accuracy": round(sum(r["correct"] for r in ans) / len(ans), 3) if ans else None,
            "answerable_declined": sum(r["status"] in DECLINED for r in ans),
            "unanswerable": len(una),
            "unanswerable_declined": sum(r["correct"] for r in una),
            "errors": sum(r["status"] in ("error", "crash") for r in rs),
        }

    dbs = sorted({r["db"] for r in rows})
    secs = [r["seconds"] for r in rows]
    loads = [r["load_1min"] for r in rows if "load_1min" in r]
    return {
        "set": which,
        "code": code,
        "orrery_from": str(Path(source).parent.parent),
        "model": model,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{os.cpu_count()} vCPU",
        "load_average_1min_at_end": round(os.getloadavg()[0], 1),
        "commit": _commit(code),
        "questions_planned": planned,
        "questions_run": len(rows),
        "all": per(rows),
        "by_db": {db: per([r for r in rows if r["db"] == db]) for db in dbs},
        "seconds_per_question_median": statistics.median(secs) if secs else None,
        "seconds_per_question_mean": round(statistics.mean(secs), 1) if secs else None,
        "load_1min_median": statistics.median(loads) if loads else None,
        "questions": rows,
    }


def _commit(code: str) -> str:
    where = os.environ.get("ORRERY_MAIN", "/work/main") if code == "main" else str(HERE.parent)
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=where, capture_output=True, text=True)
    return out.stdout.strip()


def _write(path: Path, data: Any) -> None:
    from orrery.files import write_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(data, indent=1, default=str))


def check(sets: tuple[str, ...] = ("nokeys", "heldout4", *OWN_MODULE)) -> None:
    """Every gold query of the no-key set and of held-outs #4 to #28 returns rows with no NULL in the first; no
    question twice; each value held-outs #5 to #28 name as absent is absent."""
    for which in sets:
        qs = items(which)
        for item in qs:
            if item["gold"]:
                rows = engine_for(item["db"]).execute(item["gold"]).rows
                assert rows and all(v is not None for v in rows[0]), item
        assert len({q["question"] for q in qs}) == len(qs), "a question is asked twice"
        n_un = sum(q["gold"] is None for q in qs)
        print(f"{which}: {len(qs)} questions ({len(qs) - n_un} with gold SQL, all run; {n_un} unanswerable)")
    for which in [s for s in OWN_MODULE if s in sets]:
        absent = importlib.import_module(f"bi_{which}").ABSENT_CHECKS
        for db, sql in absent:
            assert engine_for(db).execute(sql).rows == [(0,)], (db, sql)
        print(f"{which}: {len(absent)} absent-value checks return 0")


def shapes(sets: tuple[str, ...] = DEV_SETS, tag: str = "") -> None:
    """The decline check on the question's shape (orrery/bi/decline.py: `shape_decline`), without the model,
    on every question of every set: which answerable ones it would decline, which unanswerable ones it
    catches on its own (the planner and field mapping catch others); then each check apart (how many
    answerable questions it declines, how many unanswerable ones it alone catches) and the whole without the
    vocabulary check (`unplaced`: a term nothing in the data places), the trade-off bench/bi.md reads.
    Written to results/bi_nokeys_shapes[_TAG].json."""
    from orrery.bi import decline as d
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    checks = {
        "future": lambda _bi, q: d.future(q),
        "judgment": lambda bi, q: d.judgment(q, bi),
        "years": getattr(d, "years_outside", None),  # the code at $ORRERY_MAIN may not have every check
        "unplaced": getattr(d, "unplaced", None),
        "attribute": d.missing_attribute,
        "qualified": d.missing_qualified,
        "values": d.missing_values,
        "kinds": getattr(d, "missing_kinds", None),
        "age": getattr(d, "missing_age", None),
    }
    checks = {k: check for k, check in checks.items() if check is not None}
    contexts: dict[str, Any] = {}
    summary = {}
    for which in sets:
        qs = items(which)
        wrong, caught, per = [], 0, {k: [0, 0] for k in checks}
        without = [0, 0]
        for q in qs:
            if q["db"] not in contexts:
                engine = engine_for(q["db"])
                contexts[q["db"]] = BIContext(engine, load(engine.name, engine), None)
            bi, answerable = contexts[q["db"]], q["gold"] is not None
            missing = d.shape_decline(bi, q["question"])
            if answerable and missing:
                wrong.append(f"{q['question']} -> {missing}")
            caught += not answerable and bool(missing)
            fired = [k for k, check in checks.items() if check(bi, q["question"])]
            for k in fired:
                per[k][0] += answerable
                per[k][1] += not answerable and fired == [k]
            without[0 if answerable else 1] += any(k != "unplaced" for k in fired)
        n_un = sum(q["gold"] is None for q in qs)
        print(f"{which}: answerable declined {len(wrong)}/{len(qs) - n_un}, unanswerable caught {caught}/{n_un}")
        for w in wrong:
            print("   ", w)
        print("    by check (answerable declined, unanswerable caught by it alone):", per)
        print(f"    without 'unplaced': answerable declined {without[0]}, unanswerable caught {without[1]}/{n_un}")
        summary[which] = {
            "answerable": len(qs) - n_un,
            "unanswerable": n_un,
            "answerable_declined": len(wrong),
            "unanswerable_caught": caught,
            "by_check": per,
            "without_unplaced": without,
        }
    out = RESULTS / f"bi_nokeys_shapes{'_' + tag if tag else ''}.json"
    from orrery.files import write_atomic

    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    write_atomic(out, json.dumps({"date": stamp, "code": os.environ.get("PYTHONPATH", ""), "sets": summary}, indent=1))


def meaning(sets: tuple[str, ...] = (*DEV_SETS, "heldout4", "heldout5")) -> None:
    """How the floor of decline.MEANING_FLOOR was chosen: every term the lexical rules find missing (MiniLM off)
    on the development sets, with its closest schema name by meaning (MiniLM on), answerable and unanswerable
    questions apart. The floor must sit above every unanswerable question's term."""
    from orrery.bi import decline
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    contexts: dict[str, Any] = {}
    lexical, found = decline._embedder, []
    for which in sets:
        for q in items(which):
            if q["db"] not in contexts:
                engine = engine_for(q["db"])
                contexts[q["db"]] = BIContext(engine, load(engine.name, engine), None)
            decline._embedder = lambda: None
            try:
                missing = decline.missing_asked(contexts[q["db"]], q["question"])
            finally:
                decline._embedder = lexical
            kind = "answerable" if q["gold"] is not None else "unanswerable"
            for term in missing:
                score, _, text = decline.closest_meaning(contexts[q["db"]], term)
                found.append((score, kind, which, term, text, q["question"]))
    for score, kind, which, term, text, question in sorted(found, reverse=True):
        print(f"{score:.2f} {kind:12} {which:8} {term!r} ~ {text!r}  | {question}")
    for kind in ("answerable", "unanswerable"):
        scores = [f[0] for f in found if f[1] == kind]
        print(f"{kind}: {len(scores)} terms, highest {max(scores, default=0):.2f}")
    print(f"floor in use: {decline.MEANING_FLOOR}")


def report() -> dict[str, Any]:
    runs = {
        p.stem.removeprefix("bi_nokeys_"): json.loads(p.read_text())
        for p in sorted(RESULTS.glob("bi_nokeys_*_*.json"))
        if p.name != "bi_nokeys.json" and not p.name.startswith("bi_nokeys_shapes")  # --shapes: no model run
    }
    _write(
        RESULTS / "bi_nokeys.json", {k: {kk: vv for kk, vv in v.items() if kk != "questions"} for k, v in runs.items()}
    )
    print(
        "| run | database | execution accuracy | answerable declined | unanswerable declined | errors "
        "| s / question (median / mean) | commit |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for name, r in runs.items():
        for db, s in [("all", r["all"]), *r["by_db"].items()]:
            ea = "n/a" if s["execution_accuracy"] is None else f"{100 * s['execution_accuracy']:.0f}%"
            print(
                f"| {name if db == 'all' else ''} | {db} | {ea} ({s['correct']}/{s['answerable']}) | "
                f"{s['answerable_declined']}/{s['answerable']} | {s['unanswerable_declined']}/{s['unanswerable']} | "
                f"{s['errors']} | "
                + (f"{r['seconds_per_question_median']} / {r['seconds_per_question_mean']} " if db == "all" else "")
                + f"| {r['commit'] if db == 'all' else ''} |"
            )
    return runs


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--set", dest="which", choices=SETS, default=None, help="default: nokeys (--shapes: every set)")
    p.add_argument("--code", choices=CODES, default="here", help="main: the code at $ORRERY_MAIN (/work/main)")
    p.add_argument("--llm", default=None, help="model spec (default: the embedded model)")
    p.add_argument("--only", default=None, help="comma-separated question numbers (1-based) of the set")
    p.add_argument("--check", action="store_true")
    p.add_argument("--report", action="store_true")
    p.add_argument("--shapes", action="store_true", help="the shape check of declines, no model")
    p.add_argument("--meaning", action="store_true", help="the scores the meaning floor was chosen from, no model")
    p.add_argument("--tag", default="", help="added to the results file name (a sample beside a full run)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    sys.path.insert(0, str(HERE))
    if args.check:
        check((args.which,) if args.which else ("nokeys", "heldout4", *OWN_MODULE))
        return
    if args.report:
        report()
        return
    if args.meaning:
        return meaning()
    if args.shapes:
        shapes((args.which,) if args.which else SCORED, args.tag)
        return
    args.which = args.which or "nokeys"
    out = RESULTS / f"bi_nokeys_{args.which}_{args.code}{'_' + args.tag if args.tag else ''}.json"
    only = [int(i) for i in args.only.split(",")] if args.only else None
    if args.worker:
        worker(args.which, args.code, out, args.llm, only)
        return
    root = os.environ.get("ORRERY_MAIN", "/work/main") if args.code == "main" else str(HERE.parent)
    env = {**os.environ, "PYTHONPATH": root, "OMP_WAIT_POLICY": "passive"}
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        "--set",
        args.which,
        "--code",
        args.code,
        *(["--llm", args.llm] if args.llm else []),
        *(["--only", args.only] if args.only else []),
        *(["--tag", args.tag] if args.tag else []),
    ]
    sys.exit(subprocess.run(cmd, env=env, cwd=root).returncode)


if __name__ == "__main__":
    main()
