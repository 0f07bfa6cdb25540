"""Round 58 (no model): how decline.FIELD_MODEL is chosen. The population is every question of every set (the shape
check's: `decline.shape_decline`) and every stored field decline of round 55's replay (`bi_r55_fields.declines()`:
its quoted terms by `missing_fields`, its question by `shape_decline`). Each item is judged once as today,
recording the terms the chain of tests leaves unheld (`decline._unheld`) and their signals (`field_signals`), and once with every recorded term held (`other`: it declines for another cause). A
logistic regression over the signals (L2 1.0, Newton) is fitted leave-one-database-out on the terms of the items the
decision can change, each labelled by its question (answerable 1, unanswerable 0); each item is then judged again
under the model fitted without its database (out of fold): `_unheld` and not held by the model. The fit on
every database is printed. The decision did not meet its criterion and is not in decline.py: it is applied here by
replacing `decline._unheld` for the run.
Cost: answerable declined + unanswerable not declined (bench/bi.md, round 58).

    PYTHONPATH=$PWD nice -n 10 python bench/bi_r58_fit.py [--tag T]   # -> results/bi_r58_fit[_T].json
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
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
        for s in bnk.SCORED
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


def field_signals(bi: Any, term: str) -> np.ndarray | None:
    """The decision's signals for a term (bench/bi.md, round 58): the best cosine of its meaning words to a layer text that
    is no categorical value, that cosine's margin over every other target, the best cosine of all its own words to a
    table's text (a table's rows named by another noun: 'trading days'), the best rapidfuzz field score / 100, its
    number of own words, and whether one of them is a stored value's word. None without MiniLM or own words."""
    kept = bi.derived("field_signals", dict)
    if term not in kept:
        kept[term] = _signals(bi, term)
    return kept[term]


def _signals(bi: Any, term: str) -> np.ndarray | None:
    from orrery.bi import decline
    from orrery.bi.semantic import rank_fields

    own = decline._term_words(term)
    scores = decline._meaning_scores(bi, term) if own else None
    if scores is None:
        return None
    texts, targets = decline._layer_texts(bi)
    best: dict[tuple[tuple[str, Any], ...], float] = {}
    for score, target in zip(scores, targets, strict=True):
        if "value" not in target:
            key = tuple(sorted(target.items()))
            best[key] = max(best.get(key, -1.0), float(score))
    ranked = sorted(best.values(), reverse=True)
    top, margin = ranked[0], ranked[0] - (ranked[1] if len(ranked) > 1 else 0.0)
    tables = [i for i, g in enumerate(targets) if set(g) == {"table"}]
    embedder = decline._embedder()
    whole = decline._vectors(embedder, (" ".join(own),))[0]
    table = float(np.max(decline._layer_vectors(embedder, tuple(texts))[tables] @ whole)) if tables else 0.0
    fields = rank_fields(bi.semantic, term)
    lexical = fields[0][0] / 100 if fields else 0.0
    valued = float(any(decline.value_word(bi, w) for w in own))
    return np.array([top, margin, table, lexical, float(len(own)), valued])


def held(model: tuple | None, bi: Any, term: str) -> bool:
    """Whether the model holds a term the chain of tests leaves unheld (False when None or without signals)."""
    signals = field_signals(bi, term) if model is not None else None
    if signals is None:
        return False
    means, scales, weights, bias = (np.asarray(v) for v in model)
    return float(bias + weights @ ((signals - means) / scales)) > 0


@contextlib.contextmanager
def deciding(hold: Callable[[Any, str], bool], seen: dict[str, Any] | None = None) -> Iterator[None]:
    """`decline._unheld` replaced for the block: the chain's verdict (each unheld term recorded in `seen` with its
    signals), then the term held when `hold` says so."""
    from orrery.bi import decline

    chain = decline._unheld

    def unheld(bi: Any, t: str, question: str) -> bool:
        out = chain(bi, t, question)
        if out and seen is not None and t not in seen:
            signals = field_signals(bi, t)
            seen[t] = None if signals is None else [round(float(v), 5) for v in signals]
        return out and not hold(bi, t)

    decline._unheld = unheld
    try:
        yield
    finally:
        decline._unheld = chain


def record(bi: Any, item: dict[str, Any]) -> None:
    """The item's status as today, the terms the chain leaves unheld with their signals, and `other`."""
    seen: dict[str, Any] = {}
    with deciding(lambda *_: False, seen):
        item["declined"] = declined(bi, item)
    with deciding(lambda *_: True, seen):
        item["other"] = declined(bi, item) if seen else item["declined"]
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
        for it in items:
            if it["db"] == db:
                with deciding(lambda bi, t, m=model: held(m, bi, t)):
                    it["oof"] = declined(context(db), it) if it["terms"] else it["declined"]
                it["oof_held"] = sorted(t for t in it["terms"] if held(model, context(db), t))
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
    print(
        "fit on every database (means, scales, weights), bias =",
        tuple(map(lambda v: [round(a, 4) for a in v], shipped[:3])),
        round(shipped[3], 4),
    )
    out = HERE / "results" / f"bi_r58_fit{'_' + args.tag if args.tag else ''}.json"
    write_atomic(out, json.dumps({"before": before, "oof": after, "all_databases": shipped, "items": items}, indent=1))


if __name__ == "__main__":
    main()
