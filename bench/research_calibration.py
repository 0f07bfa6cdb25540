"""Calibrated research forecasts: Brier raw vs pooled vs calibrated (out of fold) vs always-0.5 vs the market.

Two stages, so a slow machine can run the first in several sittings (it resumes):

    python bench/research_calibration.py run --minutes 30   # the embedded model on the sample, resumable
    python bench/research_calibration.py report [--ship]    # tables; --ship writes the shipped calibrator

Questions: the resolved rows of the four ForecastBench development sets shipped in
orrery/research/data/forecastbench (8 questions per set and source), in a stratified order: round-robin over the
nine sources, each source's rows in id-hash order, so any prefix of the order covers every source. ``run`` works
down that order until its time is up; the sample is whatever finished.

Agent setup (the cheap one the machine allows): ``board="search"`` (the board is the date-bounded search for the
question itself, documents stating an anchor first, two sources), then ``MAX_TRIALS`` submit trials on that one
board, no calibrator (raw and pooled figures only).

``report`` scores every finished question on: raw (trial 1, the loop's own submit), pooled (logit mean of the
first k trials, k = 1..MAX_TRIALS), calibrated (out of fold: grouped 5-fold, each fold's calibrator fitted on the
other folds' trajectories, base rates on the other folds' resolved rows), always 0.5, and the market value where
the question has one. A second table scores the anchors and base rates alone (no agent figure) on
every resolved development row, out of fold the same way: what the calibrator can do when the model adds nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from orrery.files import cache_dir
from orrery.research.baserates import TERM_SETS, masked
from orrery.research.batch import load_trajectory, trajectory_path, write_json_atomic
from orrery.research.calibration import (
    FOLDS,
    Example,
    Features,
    fit,
    group_of,
    out_of_fold,
    pooled_of,
)
from orrery.research.corpus import load_questions

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results" / "research_calibration.json"
REPORT = ROOT / "research_calibration.md"
SHIPPED = ROOT.parent / "orrery" / "research" / "data" / "calibration-local.json"
RUNS = cache_dir() / "bench" / "research_calibration" / "runs-brief"  # `orrery research batch --out` (BATCH)
SAMPLE = ROOT / "results" / "research_calibration_sample.jsonl"
SAMPLE_SIZE = 150
BATCH = ("nice -n 15 orrery research batch bench/results/research_calibration_sample.jsonl --out RUNS --llm local "
         "--workers 1 --board search --trials 2 --calibration none")
MAX_TRIALS = 3
# The loop was tried first; so the board comes from the search for the question (LOOP_NOTE, in the report).
LOOP_NOTE = ("The agent's loop (board='loop': guided search, add_source, submit with one source, 4 steps, 240 s wall "
             "time) was run first on the same order: 2 questions in about 10 minutes (model calls of 27-120 s on this "
             "loaded machine), neither with a forecast (one stopped at the wall time after 3 steps; the other wrote a "
             "note, then a submit citing no source, and hit the step limit). The embedded model's default board is "
             "therefore 'search', and the runs below use it.")
SETUP = {"board": "search", "max_sources": 2, "k": 3}
PICK_WITHIN = 0.005  # the default k: the fewest trials whose calibrated Brier is within this of the best


def sample_order(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    import hashlib

    by_source: dict[str, list[dict[str, Any]]] = {}
    for q in sorted((q for q in rows if q.get("resolution") is not None),
                    key=lambda q: hashlib.sha1(q["id"].encode()).hexdigest()):
        by_source.setdefault(q["source"], []).append(dict(q))
    order: list[dict[str, Any]] = []
    while any(by_source.values()):
        for source in sorted(by_source):
            if by_source[source]:
                order.append(by_source[source].pop(0))
    return order


def write_sample(n: int = SAMPLE_SIZE) -> Path:
    """The first ``n`` questions of the stratified order, as a question file for ``orrery research batch``."""
    order = sample_order(load_questions())[:n]
    SAMPLE.write_text("".join(json.dumps(q) + "\n" for q in order), encoding="utf-8")
    return SAMPLE


def run(minutes: float, runs: Path = RUNS) -> None:
    """The embedded model down the sample order until ``minutes`` are spent (finished questions are skipped)."""
    from orrery.llm.local import LocalModel
    from orrery.research.runner import run_batch

    model = LocalModel()
    model.load()
    deadline = time.monotonic() + 60 * minutes
    order = sample_order(load_questions())
    for done, q in enumerate(order, 1):
        if time.monotonic() > deadline:
            break
        run_batch([q], runs, model, workers=1, trials=MAX_TRIALS, calibration=False, progress=False, **SETUP)
        traj = load_trajectory(trajectory_path(runs, q["id"])) or {}
        print(f"{done} {q['source']:<10} {traj.get('status')} raw={traj.get('raw')} pooled={traj.get('pooled')} "
              f"{traj.get('duration', 0):.0f}s", flush=True)


# --------------------------------------------------------------------------- cost per question

PROFILE = ROOT / "results" / "research_calibration_profile.json"
PROFILE_QUESTIONS = 6  # the dev slice: from the end of the sample order, never in the scored prefix


def profile(n: int = PROFILE_QUESTIONS, trials: int = MAX_TRIALS) -> dict[str, Any]:
    """Where a question's time goes, for the last round's prompt (``brief=False``: the loop's rules, all four tools
    in the tool block, criteria and background cut at 600 characters) and the submit-only one (``brief=True``),
    side by side: each setting has its own model instance (its own prompt cache, as in a batch of one setting) and
    the two alternate question by question, so the machine's load falls on both alike."""
    from orrery.llm.local import LocalModel
    from orrery.research.agent import ResearchAgent

    order = sample_order(load_questions())[-n:]
    setups = {"full prompt": False, "brief prompt": True}
    agents = {name: ResearchAgent(LocalModel(), board="search", trials=trials, calibration=False, brief=brief)
              for name, brief in setups.items()}
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in setups}
    started, res = time.monotonic(), {}
    for q in order:
        for name, agent in agents.items():
            r = agent.run(q)
            replies = [e for e in r.trajectory.events if e["kind"] == "model_reply"]
            rows[name].append({"id": q["id"], "source": q["source"], **{k: round(v, 2) for k, v in r.timings.items()},
                               "calls": [round(t["seconds"], 2) for t in r.trials],
                               "prompt_tokens": [e["response"]["usage"]["prompt_tokens"] for e in replies],
                               "completion_tokens": [e["response"]["usage"]["completion_tokens"] for e in replies],
                               "valid": [t["probability"] is not None for t in r.trials]})
            print(name, q["source"], rows[name][-1], flush=True)
        res = write_profile(rows, trials, started)  # after every question: a stopped profile keeps what finished
    return res


def write_profile(rows: Mapping[str, Sequence[Mapping[str, Any]]], trials: int, started: float) -> dict[str, Any]:
    done = min(len(v) for v in rows.values())
    res = {"questions": done, "trials": trials, "minutes": round((time.monotonic() - started) / 60, 1),
           "load_average": os.getloadavg(), "cpus": len(os.sched_getaffinity(0)),
           "setups": {name: summarise_profile(v[:done], trials) for name, v in rows.items()}, "rows": rows}
    write_json_atomic(PROFILE, res)
    return res


def summarise_profile(rows: Sequence[Mapping[str, Any]], trials: int) -> dict[str, Any]:
    def mean(xs: Sequence[float]) -> float:
        return round(statistics.fmean(xs), 2) if xs else math.nan

    out: dict[str, Any] = {"seconds_per_question": mean([r["total"] for r in rows]),
                           "search_seconds": mean([r["search"] for r in rows])}
    for k in range(trials):
        out[f"trial {k + 1} seconds"] = mean([r["calls"][k] for r in rows if len(r["calls"]) > k])
        out[f"trial {k + 1} prompt tokens"] = mean([r["prompt_tokens"][k] for r in rows if len(r["prompt_tokens"]) > k])
        out[f"trial {k + 1} valid"] = sum(r["valid"][k] for r in rows if len(r["valid"]) > k)
    return out


def render_profile(p: Mapping[str, Any]) -> list[str]:
    names = list(p["setups"])
    keys = list(p["setups"][names[0]])
    lines = ["## Cost per question (dev slice, side by side)", "",
             f"{p['questions']} questions from the end of the stratified order (never in the scored sample), "
             f"{p['trials']} trials each on the search board, both prompts alternating question by question with "
             f"their own model instance; {p['minutes']} minutes on {p['cpus']} shared cores (load average at the end "
             f"{', '.join(f'{x:.1f}' for x in p['load_average'])}).", "",
             "| | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    lines += [f"| {k} | " + " | ".join(fmt(p["setups"][n][k]) for n in names) + " |" for k in keys]
    return [*lines, ""]


# --------------------------------------------------------------------------- base-rate terms


def term_sets(rows: list[dict[str, Any]], background: list[Example]) -> dict[str, Any]:
    """Out-of-fold Brier of the anchors-and-base-rates calibrator with each source held to each term set, and with
    the choice made per source inside each fold (what ships), overall and per source."""
    resolved = [q for q in rows if q.get("resolution") is not None]
    out = {}
    for keep in [*TERM_SETS, None]:
        if keep is None:
            ex = background
        else:
            ex = [Example(replace(e.features, case=c and masked(c, keep)), e.outcome, e.group)
                  for e in background for c in [e.features.series_case()]]
        oof = out_of_fold(ex, background_rates(ex), "platt")
        name = "chosen per source in each fold" if keep is None else "+".join(keep) or "share per source"
        out[name] = {k: v["calibrated"] for k, v in table_of({"calibrated": oof}, resolved).items()}
    return out


# --------------------------------------------------------------------------- report


def brier(ps: Sequence[float], ys: Sequence[float]) -> float | None:
    pairs = [(p, y) for p, y in zip(ps, ys, strict=True) if p is not None and not math.isnan(p)]
    return sum((p - y) ** 2 for p, y in pairs) / len(pairs) if pairs else None


def finished(rows: Sequence[Mapping[str, Any]], runs: Path) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    out = []
    for q in rows:
        traj = load_trajectory(trajectory_path(runs, q["id"]))
        if traj is not None and traj.get("status") not in (None, "error"):
            out.append((dict(q), traj))
    return out


def anchor_examples(rows: Sequence[Mapping[str, Any]]) -> list[Example]:
    """Each resolved row without an agent figure (it teaches anchors and base rates only): its anchors are what the agent's own anchor
    search (the question, bounded at its freeze date) finds in the shipped corpus."""
    from orrery.research.agent import ANCHOR_K, date_bound, default_index
    from orrery.research.anchors import find_anchors
    from orrery.research.search import open_index
    from orrery.research.tools import search_filters

    index = open_index(default_index())
    out = []
    for q in rows:
        bound = search_filters({"before": date_bound(q["freeze_date"]).isoformat()})
        anchors = find_anchors(q["question"], index.search(q["question"], ANCHOR_K, **bound), source=q["source"])
        out.append(Example(Features.of(None, anchors, q["source"], q), float(q["resolution"]), group_of(q)))
    return out


def background_rates(background: Sequence[Example]) -> list[tuple[str, Any, float]]:
    """The base-rate rows: every resolved row's series case (its series values as the anchor search found them)."""
    return [(e.group, e.features.series_case() or "", e.outcome) for e in background]


def with_agent(example: Example, agent: float) -> Example:
    return Example(replace(example.features, agent=agent), example.outcome, example.group)


def table_of(cols: Mapping[str, Sequence[float | None]], rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Brier per column, overall, on market questions and per source."""
    ys = [float(q["resolution"]) for q in rows]
    groups: dict[str, list[int]] = {"all": list(range(len(rows))),
                                    "market questions": [i for i, q in enumerate(rows) if q.get("market_value") is not None]}
    for i, q in enumerate(rows):
        groups.setdefault(q["source"], []).append(i)
    table = {}
    for name, idx in groups.items():
        if idx:
            table[name] = {"n": len(idx), **{c: brier([v[i] for i in idx if v[i] is not None],
                                                       [ys[i] for i in idx if v[i] is not None]) for c, v in cols.items()}}
    return table


def model_table(rows: list[dict[str, Any]], runs: Path, background: list[Example]) -> dict[str, Any]:
    """On the resolved questions the agent forecast. Calibrated figures are out of fold over the union of these
    questions (with their pooled figure) and every other resolved row (``background``, no agent figure)."""
    resolved = [q for q in rows if q.get("resolution") is not None]
    done = [(i, q, t) for i, q in enumerate(resolved) for t in [finished([q], runs)] if t]
    scored = [(i, q, t[0][1]) for i, q, t in done if t[0][1].get("pooled") is not None]
    rates = background_rates(background)
    ids = [i for i, _, _ in scored]
    cols: dict[str, list[float | None]] = {"raw": [t.get("raw") for _, _, t in scored]}
    for k in range(1, MAX_TRIALS + 1):
        union = list(background)
        for i, _, t in scored:
            union[i] = with_agent(background[i], pooled_of(t, k))  # type: ignore[arg-type]
        cols[f"pooled k={k}"] = [union[i].features.agent for i in ids]
        for m in ("platt", "isotonic"):
            oof = out_of_fold(union, rates, m)
            cols[f"calibrated k={k} ({m})"] = [oof[i] for i in ids]
    oof = out_of_fold(background, rates, "platt")
    cols["calibrated, agent ignored"] = [oof[i] for i in ids]
    cols["always 0.5"] = [0.5] * len(ids)
    cols["market"] = [q.get("market_value") for _, q, _ in scored]
    calls = [e["seconds"] for _, _, t in scored for e in t["trajectory"]["events"] if e["kind"] == "model_reply"]
    return {"attempted": len(done), "scored": len(scored), "statuses": _count(t[0][1]["status"] for _, _, t in done),
            "seconds_per_question": statistics.fmean(question_seconds(t) for _, _, t in scored) if scored else None,
            "seconds_per_model_call": statistics.fmean(calls) if calls else None,
            "submit_values": _count(round(t["raw"], 2) for _, _, t in scored if t.get("raw") is not None),
            "table": table_of(cols, [q for _, q, _ in scored])}


def question_seconds(trajectory: Mapping[str, Any]) -> float:
    """The loop's duration plus its trials' model calls (the last model replies of the trajectory)."""
    replies = [e["seconds"] for e in trajectory["trajectory"]["events"] if e["kind"] == "model_reply"]
    extra = len(trajectory.get("trials", [])) - 1
    return float(trajectory["duration"]) + (sum(replies[-extra:]) if extra > 0 else 0.0)


def anchors_only_table(rows: list[dict[str, Any]], background: list[Example]) -> dict[str, Any]:
    """Every resolved development row without the agent's figure: what the anchors and base rates do alone."""
    resolved = [q for q in rows if q.get("resolution") is not None]
    oof = out_of_fold(background, background_rates(background), "platt")
    cols = {"calibrated (platt)": oof, "always 0.5": [0.5] * len(oof), "market": [q.get("market_value") for q in resolved]}
    return {"questions": len(resolved), "market_anchors_found": sum(e.features.market is not None for e in background),
            "table": table_of(cols, resolved)}


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[str(v)] = out.get(str(v), 0) + 1
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def pick_k(table: Mapping[str, Any]) -> dict[str, Any]:
    """The fewest trials whose best calibrated Brier is within PICK_WITHIN of the best k's."""
    overall = table["all"]
    best_by_k = {k: min(v for m in ("platt", "isotonic") if (v := overall.get(f"calibrated k={k} ({m})")) is not None)
                 for k in range(1, MAX_TRIALS + 1)}
    best = min(best_by_k.values())
    k = min(k for k, v in best_by_k.items() if v <= best + PICK_WITHIN)
    return {"k": k, "calibrated_by_k": best_by_k}


def fmt(v: Any) -> str:
    return "-" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def render(res: Mapping[str, Any]) -> str:
    m = res["model"]
    k = res["k"]["k"]
    cols = ["raw", *[f"pooled k={k}" for k in range(1, MAX_TRIALS + 1)], f"calibrated k={k} (platt)",
            f"calibrated k={k} (isotonic)", "calibrated, agent ignored", "always 0.5", "market"]
    lines = ["# Calibrated research forecasts (embedded model)", "",
             f"Development sets: the four ForecastBench question sets shipped in orrery/research/data/forecastbench "
             f"({', '.join(res['question_sets'])}). Sample: the first {m['attempted']} questions of a stratified "
             f"order (round-robin over the nine sources), {m['scored']} of them with a forecast "
             f"(statuses {m['statuses']}). The issue's target of at least 120 questions was "
             f"{'met' if m['scored'] >= 120 else 'NOT met'}: on this shared 2-core machine a question took "
             f"{fmt(m['seconds_per_question'])} s ({fmt(m['seconds_per_model_call'])} s a model call) in "
             f"{res['run_minutes']} minutes of runs under nice.",
             "", f"Setup: {res['setup']}; {MAX_TRIALS} trials pooled in logit space; calibrated = out of fold "
             f"({FOLDS} folds grouped by question) over these questions and every other resolved development row "
             "(those without an agent figure: they teach the anchor and base-rate weights), base rates from the "
             "other folds' rows; the agent's logit is centred on its mean over the fitting rows; 'agent ignored' = "
             "the same without any agent figure. "
             "The loop's own submits (raw) were: " + ", ".join(f"{k} x{v}" for k, v in list(m['submit_values'].items())[:8]) + ".",
             "", LOOP_NOTE, "", "Brier (lower is better):", "",
             "| questions | n | " + " | ".join(cols) + " |", "|---|---:|" + "---:|" * len(cols)]
    for name, row in m["table"].items():
        lines.append(f"| {name} | {row['n']} | " + " | ".join(fmt(row.get(c)) for c in cols) + " |")
    k = res["k"]  # type: ignore[assignment]
    lines += ["", f"Default trials: k={k['k']}, the fewest whose calibrated Brier is within {PICK_WITHIN} of the best "
                  f"(best calibrated Brier by k: {', '.join(f'{kk}: {fmt(v)}' for kk, v in k['calibrated_by_k'].items())}); "
                  f"each trial after the first costs one model call.", ""]
    a = res["anchors_only"]
    lines += ["## Anchors and base rates alone (no model), every resolved development row", "",
              f"{a['questions']} resolved rows without the agent's figure, so only the market anchor (found by "
              f"the agent's anchor search for {a['market_anchors_found']} rows), the series base rate and the series' "
              "last change are learned; Platt, out of fold as above.", "",
              "| questions | n | calibrated | always 0.5 | market |", "|---|---:|---:|---:|---:|"]
    for name, row in a["table"].items():
        lines.append(f"| {name} | {row['n']} | {fmt(row['calibrated (platt)'])} | {fmt(row['always 0.5'])} | "
                     f"{fmt(row['market'])} |")
    if res.get("shipped"):
        s = res["shipped"]
        lines += ["", f"Shipped calibrator (`orrery/research/data/calibration-local.json`): {s['method']}, fitted on "
                      f"all {s['questions']} resolved development rows ({m['scored']} with the embedded model's pooled "
                      f"figure, the others teaching anchors and base rates only); cross-validated Brier {s['cv_brier']}; weights "
                      + ", ".join(f"{n} {w:.2f}" for n, w in s["weights"].items()) + "."]
    return "\n".join(lines) + "\n"


def report(runs: Path = RUNS, ship: bool = False, run_minutes: str = "?") -> dict[str, Any]:
    rows = load_questions()
    resolved = [q for q in rows if q.get("resolution") is not None]
    background = anchor_examples(resolved)
    res: dict[str, Any] = {
        "question_sets": sorted({q["question_set"] for q in rows}), "setup": SETUP, "run_minutes": run_minutes,
        "cpus": len(os.sched_getaffinity(0)), "model": model_table(rows, runs, background),
        "anchors_only": anchors_only_table(rows, background)}
    res["k"] = pick_k(res["model"]["table"])
    if ship:
        k = res["k"]["k"]
        union = [with_agent(e, p) if (t := load_trajectory(trajectory_path(runs, q["id"]))) is not None
                 and (p := pooled_of(t, k)) is not None else e for q, e in zip(resolved, background, strict=True)]
        calib = fit(union, background_rates(background), "local", trials=k,
                    fitted_on={"question_sets": res["question_sets"], "bench": "bench/research_calibration.py",
                               "with_forecast": res["model"]["scored"]})
        calib.save(SHIPPED)
        res["shipped"] = {"method": calib.method, "questions": len(union), "cv_brier": calib.fitted_on["cv_brier"],
                          "weights": calib.weights}
    write_json_atomic(RESULTS, res)
    REPORT.write_text(render(res), encoding="utf-8")
    return res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("sample", help=f"write the first {SAMPLE_SIZE} questions of the order to {SAMPLE.name}")
    sub.add_parser("profile", help="where a question's time goes, last round's prompt vs the brief one")
    r = sub.add_parser("run")
    r.add_argument("--minutes", type=float, default=25.0)
    p = sub.add_parser("report")
    p.add_argument("--ship", action="store_true", help="fit on every forecast and write the shipped calibrator")
    p.add_argument("--run-minutes", default="?", help="the minutes `run` took in all (for the report)")
    args = parser.parse_args()
    if args.cmd == "sample":
        print(write_sample())
    elif args.cmd == "profile":
        print(json.dumps(profile()["setups"], indent=1))
    elif args.cmd == "run":
        run(args.minutes)
    else:
        report(ship=args.ship, run_minutes=args.run_minutes)
        print(REPORT.read_text(encoding="utf-8"))
        print(json.dumps(json.loads(RESULTS.read_text())["k"]))


if __name__ == "__main__":
    main()
