"""How decline.MEANING_FLOOR is chosen: leave-one-set-out cross-validation of the meaning threshold on the shape check.

Every set of bench/bi_nokeys.py is development data. For each question, the shape check (`decline.shape_decline`,
no model) is run with the threshold above every cosine (every term the lexical tests miss reaches the meaning test;
their cosines are recorded), and with it at 0; the decision is monotone in the threshold, so its critical cosine
(declined iff threshold > critical) is found by bisection over the recorded cosines, each probe a real run of the
shape check. Cost of a threshold on some sets: answerable questions declined + unanswerable questions not declined.
Each fold holds one set out and chooses the threshold on the other twelve: the lowest interval of minimum cost
between adjacent critical cosines, its midpoint. The shipped threshold is that choice on all sets.

    nice -n 10 python bench/bi_meaning_cv.py      # -> bi_meaning_cv.md, results/bi_meaning_cv.json

The "start" columns are the round's start (results/bi_nokeys_shapes_bi15base.json, `--shapes --tag bi15base`).
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from bi_nokeys import RESULTS, SCORED, engine_for, items  # noqa: E402

ABOVE = 1.01  # a threshold above every cosine: only the lexical tests hold a term


def critical(bi: Any, question: str) -> float:
    """The cosine above which a threshold declines `question` (-inf: declined whatever the threshold, +inf: never)."""
    from orrery.bi import decline

    scores: list[float] = []
    closest = decline.closest_meaning

    def recorded(bi_: Any, term: str, values: bool = True) -> tuple[float, Any, str]:
        out = closest(bi_, term, values)
        scores.append(out[0])
        return out

    def declines(threshold: float) -> bool:
        decline.MEANING_FLOOR = threshold
        return decline.shape_decline(bi, question) is not None

    decline.closest_meaning = recorded
    try:
        if not declines(ABOVE):
            return math.inf
        if declines(0.0):
            return -math.inf
        cuts = sorted(set(scores))
        lo, hi = 0, len(cuts) - 1  # the first cut whose threshold just above it declines
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if declines(cuts[mid] + 1e-6) else (mid + 1, hi)
        return cuts[lo]
    finally:
        decline.closest_meaning = closest


def cost(rows: list[tuple[bool, float]], threshold: float) -> tuple[int, int]:
    """(answerable declined, unanswerable not declined) at `threshold`."""
    wrong = sum(answerable and threshold > c for answerable, c in rows)
    missed = sum(not answerable and not threshold > c for answerable, c in rows)
    return wrong, missed


def choose(rows: list[tuple[bool, float]]) -> float:
    """The midpoint of the lowest interval of minimum cost between adjacent critical cosines."""
    cuts = sorted({c for _, c in rows if math.isfinite(c)} | {0.0, 1.0})
    spans = list(zip(cuts, cuts[1:], strict=False))
    costs = [sum(cost(rows, (a + b) / 2)) for a, b in spans]
    a, b = spans[costs.index(min(costs))]
    return round((a + b) / 2, 4)


def main() -> None:
    from orrery.bi import decline
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext
    from orrery.files import write_atomic

    start = time.time()
    contexts: dict[str, Any] = {}
    per_set: dict[str, list[tuple[bool, float]]] = {}
    terms: list[dict[str, Any]] = []
    floor = decline.MEANING_FLOOR
    for which in SCORED:
        per_set[which] = []
        for q in items(which):
            if q["db"] not in contexts:
                engine = engine_for(q["db"])
                contexts[q["db"]] = BIContext(engine, load(engine.name, engine), None)
            c = critical(contexts[q["db"]], q["question"])
            per_set[which].append((q["gold"] is not None, c))
            if math.isfinite(c):
                terms.append({"set": which, "answerable": q["gold"] is not None, "critical": round(c, 4), **q})
    decline.MEANING_FLOOR = floor
    base = json.loads((RESULTS / "bi_nokeys_shapes_bi15base.json").read_text())["sets"]
    folds = []
    for which in SCORED:
        train = [r for s, rows in per_set.items() if s != which for r in rows]
        t = choose(train)
        wrong, missed = cost(per_set[which], t)
        n_un = sum(not a for a, _ in per_set[which])
        b = base[which]
        folds.append(
            {
                "held_out": which,
                "threshold": t,
                "answerable": len(per_set[which]) - n_un,
                "answerable_declined": wrong,
                "unanswerable": n_un,
                "unanswerable_caught": n_un - missed,
                "start_answerable_declined": b["answerable_declined"],
                "start_unanswerable_caught": b["unanswerable_caught"],
                "train_cost": sum(cost(train, t)),
            }
        )
    everything = [r for rows in per_set.values() for r in rows]
    shipped = choose(everything)
    out = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "seconds": round(time.time() - start),
        "folds": folds,
        "threshold_all_sets": shipped,
        "cost_all_sets_at_it": cost(everything, shipped),
        "questions_with_a_critical_cosine": terms,
    }
    write_atomic(RESULTS / "bi_meaning_cv.json", json.dumps(out, indent=1, default=str))
    write_atomic(HERE / "bi_meaning_cv.md", markdown(out))
    print(markdown(out))


def markdown(out: dict[str, Any]) -> str:
    lines = [
        "## The meaning threshold of the decline check, by leave-one-set-out cross-validation",
        "",
        f"{out['date']} · `nice -n 10 python bench/bi_meaning_cv.py` ({out['seconds']} s, no model; the rule and the"
        " protocol: bench/bi.md, round 15) · raw: [results/bi_meaning_cv.json](results/bi_meaning_cv.json)",
        "",
        "| held-out set | threshold (chosen on the other 12) | answerable declined | start | unanswerable caught |"
        " start | training cost |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for f in out["folds"]:
        lines.append(
            f"| {f['held_out']} | {f['threshold']:.4f} | {f['answerable_declined']}/{f['answerable']} | "
            f"{f['start_answerable_declined']} | {f['unanswerable_caught']}/{f['unanswerable']} | "
            f"{f['start_unanswerable_caught']} | {f['train_cost']} |"
        )
    tot = {k: sum(f[k] for f in out["folds"]) for k in out["folds"][0] if k not in ("held_out", "threshold")}
    lines.append(
        f"| **all folds** | | **{tot['answerable_declined']}/{tot['answerable']}** | {tot['start_answerable_declined']} | "
        f"**{tot['unanswerable_caught']}/{tot['unanswerable']}** | {tot['start_unanswerable_caught']} | |"
    )
    wrong, missed = out["cost_all_sets_at_it"]
    lines += [
        "",
        f"Chosen on all 13 sets (shipped as `decline.MEANING_FLOOR`): **{out['threshold_all_sets']:.4f}** "
        f"(there: {wrong} answerable declined, {missed} unanswerable not declined by the shape check).",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
