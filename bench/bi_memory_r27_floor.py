"""Round 27 of the approved memory (issue 26): MEANT, the similarity at which a phrase means a kept term in other
words, chosen by cross-validation on bench/bi_memory_r27_set.py and evaluated once on its TEST groups (the rule and
the folds are in bench/bi_memory_r27.md, written before this ran).

A pair (kept, said) matches at a floor when the said phrase's `_core` is the kept term's (`field_term`: round 26's
match by words), or its MiniLM cosine to the kept term is at least the floor and neither says every word of the
other (`_nested`): `ExampleMemory.mapped`'s rule for one kept term. Beside it, the question level: each said phrase
inside a question, read through `ExampleMemory.said` on a store holding the kept term, at the chosen floor.

    PYTHONPATH=$PWD python bench/bi_memory_r27_floor.py --out bench/results/bi_memory_r27_floor.json

The meaning match it measures did not ship (bench/bi_memory_r27.md): run it with PYTHONPATH at a checkout of commit
673106e of branch bimem27 (`_nested`, `ExampleMemory(meant=...)` are not in the shipped code).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402

FLOORS = [round(0.5 + 0.025 * i, 3) for i in range(19)]  # 0.50 .. 0.95
PRECISION = 0.95
TEMPLATE = "which one has the highest {} ?"


def scored(pairs: list[tuple[str, str, bool, str]]) -> list[dict]:
    """Each pair with its exact match, nesting and cosine (MiniLM, the store's embedder); a kept phrasing that is
    never kept (`field_term` refuses its characters: 'no. of inhabitants', "buyer's age") is left out as kept."""
    from orrery.bi.examples import _core, _nested, field_term
    from orrery.recall.embed import lazy_embedder

    embedder = lazy_embedder()
    out = []
    for kept, said, match, group in pairs:
        if (term := field_term(kept)) is None:
            continue
        a, b = embedder.embed([said, term])
        out.append(
            {
                "kept": kept,
                "said": said,
                "match": match,
                "group": group,
                "exact": _core(said) == _core(term),
                "nested": _nested(_core(said), _core(term)),
                "cosine": round(float(a @ b), 4),
            }
        )
    return out


def matched(row: dict, floor: float) -> bool:
    return row["exact"] or (row["cosine"] >= floor and not row["nested"])


def pr(rows: list[dict], floor: float) -> dict:
    tp = sum(r["match"] and matched(r, floor) for r in rows)
    fp = sum(not r["match"] and matched(r, floor) for r in rows)
    pos = sum(r["match"] for r in rows)
    return {
        "floor": floor,
        "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
        "recall": round(tp / pos, 3) if pos else 0.0,
        "tp": tp,
        "fp": fp,
        "positives": pos,
    }


def choose(rows: list[dict]) -> float:
    """The lowest floor of precision >= PRECISION on `rows`; else the floor of highest precision."""
    table = [pr(rows, f) for f in FLOORS]
    ok = [t["floor"] for t in table if t["precision"] >= PRECISION]
    return min(ok) if ok else max(table, key=lambda t: (t["precision"], t["recall"]))["floor"]


def question_level(pairs: list[tuple[str, str, bool, str]], floor: float) -> dict:
    """The pairs said inside a question, read by `ExampleMemory.said` on a store holding the kept term (asked as
    'not held': no layer column needed)."""
    from orrery.bi.examples import ExampleMemory, field_term, open_examples
    from orrery.bi.semantic import Semantic

    layer = Semantic.from_dict({"database": "d", "tables": {}})
    tp = fp = 0
    wrong = []
    with tempfile.TemporaryDirectory() as tmp:
        memory = ExampleMemory(open_examples(f"{tmp}/s.db"), meant=floor)
        for kept, said, match, _ in pairs:
            if field_term(kept) is None:
                continue
            memory.keep_field("c", layer, kept, None)
            hit = bool(memory.said("c", layer, TEMPLATE.format(said)))
            for k in memory.fields("c"):
                memory.examples.remove("c", k.id)
            memory.anew()
            tp += hit and match
            fp += hit and not match
            if hit != match:
                wrong.append({"kept": kept, "said": said, "match": match})
    pos = sum(p[2] for p in pairs if field_term(p[0]) is not None)
    return {
        "floor": floor,
        "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
        "recall": round(tp / pos, 3),
        "tp": tp,
        "fp": fp,
        "wrong": wrong,
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    s = _load("bi_memory_r27_set")
    dev = scored(s.pairs(s.DEV))
    folds = []
    for i, fold in enumerate(s.FOLDS):
        train = [r for r in dev if r["group"] not in fold]
        floor = choose(train)
        folds.append({"fold": i, "groups": fold, "chosen": floor, **pr([r for r in dev if r["group"] in fold], floor)})
    cv_tp, cv_fp = sum(f["tp"] for f in folds), sum(f["fp"] for f in folds)
    cv = {
        "precision": round(cv_tp / (cv_tp + cv_fp), 3) if cv_tp + cv_fp else 1.0,
        "recall": round(cv_tp / sum(f["positives"] for f in folds), 3),
    }
    meant = choose(dev)
    test = scored(s.pairs(s.TEST))
    out = {
        "dev_per_floor": [pr(dev, f) for f in FLOORS],
        "words_only_dev": pr(dev, 2.0),
        "folds": folds,
        "cv": cv,
        "meant": meant,
        "test_once": pr(test, meant),
        "words_only_test": pr(test, 2.0),
        "question_level_dev": question_level(s.pairs(s.DEV), meant),
        "question_level_test": question_level(s.pairs(s.TEST), meant),
        "dev_rows": dev,
        "test_rows": test,
    }
    args.out.write_text(json.dumps(out, indent=1))
    for f in out["dev_per_floor"]:
        print(f)
    print("folds", json.dumps(folds))
    print("cv", cv, "MEANT", meant)
    print("test once", out["test_once"], "words only", out["words_only_test"])
    for k in ("question_level_dev", "question_level_test"):
        print(k, {x: y for x, y in out[k].items() if x != "wrong"})


if __name__ == "__main__":
    main()
