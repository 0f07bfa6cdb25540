"""Round 58 (no model): how decline.FIELD_MODEL is chosen. The population is every question of every set (the shape
check's: `decline.shape_decline`) and every stored field decline of round 55's replay (`bi_r55_fields.declines()`:
its quoted terms by `missing_fields`, its question by `shape_decline`). Each item is judged once with the decision
off, recording the terms the chain of tests leaves unheld (`decline._chain_unheld`) and their signals
(`decline.field_signals`), and once with every recorded term held (`other`: it declines for another cause). A
logistic regression over the signals (L2 1.0, Newton) is fitted leave-one-database-out on the terms of the items the
decision can change, each labelled by its question (answerable 1, unanswerable 0); each item is then judged again
under the model fitted without its database (out of fold). The shipped model is the fit on every database.
Cost: answerable declined + unanswerable not declined (bench/bi_r58.md).

    PYTHONPATH=$PWD nice -n 10 python bench/bi_r58_fit.py [--tag T]   # -> results/bi_r58_fit[_T].json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).parent
PENALTY = 1.0  # L2 on the standardised weights, not the intercept


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def population() -> list[dict[str, Any]]:
    """Shape items (every question of every set) and replay items (every stored field decline)."""
    bnk, fields = _load("bi_nokeys"), _load("bi_r55_fields")
    out = [
        {"kind": "shape", "set": s, "db": q["db"], "question": q["question"], "answerable": q["gold"] is not None}
        for s in bnk.SETS
        for q in bnk.items(s)
    ]
    for s, q in fields.declines():
        terms = [a or b for a, b in fields.QUOTED.findall(fields.REASON.search(q["answer"]).group(1))]
        out.append(
            {
                "kind": "replay",
                "set": s,
                "db": q["db"],
                "question": q["question"],
                "answerable": q["gold"] is not None,
                "quoted": terms,
            }
        )
    return out


def declined(bi: Any, item: dict[str, Any]) -> bool:
    from orrery.bi import decline

    quoted = item.get("quoted", [])
    return any(decline.missing_fields(bi, [t], item["question"]) for t in quoted) or bool(
        decline.shape_decline(bi, item["question"])
    )


def record(bi: Any, item: dict[str, Any]) -> None:
    """The item's status with the decision off, the terms the chain leaves unheld with their signals, and `other`."""
    from orrery.bi import decline

    chain, held, seen = decline._chain_unheld, decline.held_by_signals, {}

    def recording(bi_: Any, t: str, question: str) -> bool:
        out = chain(bi_, t, question)
        if out and t not in seen:
            signals = decline.field_signals(bi_, t)
            seen[t] = None if signals is None else [round(float(v), 5) for v in signals]
        return out

    decline._chain_unheld = recording
    decline.FIELD_MODEL = None
    try:
        item["declined"] = declined(bi, item)
        decline.held_by_signals = lambda *_: True
        item["other"] = declined(bi, item) if seen else item["declined"]
    finally:
        decline._chain_unheld, decline.held_by_signals = chain, held
    item["terms"] = seen


def fit(x: np.ndarray, y: np.ndarray) -> tuple[list[float], list[float], list[float], float]:
    """Logistic regression (means, scales, weights, bias) on standardised signals, L2 PENALTY, by Newton's method."""
    means, scales = x.mean(0), x.std(0)
    scales[scales == 0] = 1.0
    z = np.c_[np.ones(len(x)), (x - means) / scales]
    w, penalty = np.zeros(z.shape[1]), np.diag([0.0] + [PENALTY] * x.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-z @ w))
        step = np.linalg.solve(z.T @ (z * (p * (1 - p))[:, None]) + penalty, z.T @ (p - y) + penalty @ w)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return means.tolist(), scales.tolist(), w[1:].tolist(), float(w[0])


def training(items: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    rows = [
        (s, float(it["answerable"]))
        for it in items
        if it["declined"] and not it["other"]
        for s in it["terms"].values()
        if s is not None
    ]
    return np.array([r[0] for r in rows]), np.array([r[1] for r in rows])


def tally(items: list[dict[str, Any]], key: str) -> dict[str, dict[str, int]]:
    out = {}
    for kind in ("shape", "replay"):
        sub = [it for it in items if it["kind"] == kind]
        out[kind] = {
            "answerable": sum(it["answerable"] for it in sub),
            "unanswerable": sum(not it["answerable"] for it in sub),
            "answerable_declined": sum(it["answerable"] and it[key] for it in sub),
            "unanswerable_declined": sum(not it["answerable"] and it[key] for it in sub),
        }
        out[kind]["cost"] = (
            out[kind]["answerable_declined"] + out[kind]["unanswerable"] - out[kind]["unanswerable_declined"]
        )
    return out


def main() -> None:
    from orrery.bi import decline
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext
    from orrery.files import write_atomic

    p = argparse.ArgumentParser()
    p.add_argument("--tag", default="")
    args = p.parse_args()
    sys.path.insert(0, str(HERE))
    bnk, contexts = _load("bi_nokeys"), {}

    def context(db: str) -> Any:
        if db not in contexts:
            engine = bnk.engine_for(db)
            contexts[db] = BIContext(engine, load(engine.name, engine), None)
        return contexts[db]

    items = population()
    for it in items:
        record(context(it["db"]), it)
    print("recorded:", len(items), "items,", sum(bool(it["terms"]) for it in items), "with unheld terms")
    for db in sorted({it["db"] for it in items}):
        x, y = training([it for it in items if it["db"] != db])
        model = fit(x, y)
        decline.FIELD_MODEL = model
        for it in items:
            if it["db"] == db:
                it["oof"] = declined(context(db), it) if it["terms"] else it["declined"]
                it["oof_held"] = sorted(t for t in it["terms"] if decline.held_by_signals(context(db), t))
    decline.FIELD_MODEL = None
    x, y = training(items)
    shipped = fit(x, y)
    before, after = tally(items, "declined"), tally(items, "oof")
    print("training terms (all):", len(y), "answerable", int(y.sum()))
    print("before:", before)
    print("out of fold:", after)
    for kind in ("replay", "shape"):
        for answerable in (True, False):
            freed = [it for it in items if it["kind"] == kind and it["answerable"] is answerable]
            freed = [it for it in freed if it["declined"] and not it["oof"]]
            label = "answerable" if answerable else "unanswerable"
            print(f"{kind} {label} freed out of fold: {len(freed)}, by db {dict(Counter(it['db'] for it in freed))}")
            for it in freed:
                print(f"    {it['db']:9} {it['set']:9} {it['question'][:70]:70} | held {it['oof_held']}")
        newly = [it for it in items if it["kind"] == kind and not it["declined"] and it["oof"]]
        assert not newly, newly  # the decision only holds terms
    print("shipped FIELD_MODEL =", tuple(map(lambda v: [round(a, 4) for a in v], shipped[:3])), round(shipped[3], 4))
    out = HERE / "results" / f"bi_r58_fit{'_' + args.tag if args.tag else ''}.json"
    write_atomic(out, json.dumps({"before": before, "oof": after, "shipped": shipped, "items": items}, indent=1))


if __name__ == "__main__":
    main()
