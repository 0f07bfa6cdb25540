"""Round 28: the field check replayed without the model. Every declined question of the newest stored record of
every development set (bench/results/bi_nokeys_*.json; never a held-out set not yet run: `bi_nokeys.PENDING`) whose reason names terms ('the data has no
field [or value] for ...'): are those terms still missing under the code on sys.path (`missing_fields`), and does the
shape check (`shape_decline`) still decline the question? Answerable ones should drop; unanswerable ones must stay.

    PYTHONPATH=$PWD python bench/bi_r28_replay.py [--tag X]   # writes results/bi_r28_replay[_X].json
    PYTHONPATH=$PWD python bench/bi_r28_replay.py --cv set|db  # round 32: rule M's margin by cross-validation
    PYTHONPATH=$PWD python bench/bi_r28_replay.py --cv set --rule T  # round 37: rule T''s TIE_MARGIN (bench/bi.md, round 37)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
_FIELD = re.compile(r"no field (?:or value )?for (.*?)(?:; the nearest columns it holds: .*)?$")


def _nokeys() -> Any:
    spec = importlib.util.spec_from_file_location("bi_nokeys", HERE / "bi_nokeys.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def newest_declined() -> list[dict[str, Any]]:
    """The newest record of each (set, question), kept when it was declined on named field terms."""
    newest: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    for path in sorted((HERE / "results").glob("bi_nokeys_*.json")):
        if (
            "shapes" in path.name or _nokeys().pending(path.name) or re.search(r"_r(28|32|37|40)", path.name)
        ):  # nor own runs
            continue
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or "questions" not in data:
            continue
        for q in data["questions"]:
            key = (data.get("set", ""), q["question"])
            if key not in newest or data.get("date", "") > newest[key][0]:
                newest[key] = (data.get("date", ""), q)
    out = []
    for (which, _), (_, q) in sorted(newest.items()):
        m = _FIELD.search((q.get("answer") or "").split(" (")[0])
        if q.get("status") == "declined" and m:
            out.append({**q, "set": which, "terms": re.findall(r"'([^']+)'", m.group(1))})
    return out


def replayed(questions: list[dict[str, Any]], contexts: dict[str, Any]) -> list[dict[str, Any]]:
    """Each stored decline judged again by the code on sys.path: the terms still missing, the shape's reason."""
    from orrery.bi import decline as d
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    nk, rows = _nokeys(), []
    for q in questions:
        if q["db"] not in contexts:
            engine = nk.engine_for(q["db"])
            contexts[q["db"]] = BIContext(engine, load(engine.name, engine), None)
        bi = contexts[q["db"]]
        missing = d.missing_fields(bi, q["terms"], q["question"])
        shape = d.shape_decline(bi, q["question"])
        rows.append(
            {
                "set": q["set"],
                "db": q["db"],
                "question": q["question"],
                "answerable": q.get("gold") is not None,
                "terms": q["terms"],
                "missing": missing,
                "shape": shape,
                "declined": bool(missing or shape),
            }
        )
    return rows


# round 37: the threshold each rule's cross-validation chooses, and the settings it holds the other rule at (rule C,
# a categorical column's card, was measured and removed: bench/bi.md, round 37)
RULES = {
    "M": ("MEANING_MARGIN", {"TIE_MARGIN": float("inf")}),
    "T": ("TIE_MARGIN", {"MEANING_MARGIN": 0.16}),
}


def cross_validated(questions: list[dict[str, Any]], grid: list[float], fold: str, rule: str = "M") -> dict[str, Any]:
    """Round 32: rule M's margin (`decline.MEANING_MARGIN`; round 37: rule T's `TIE_MARGIN`, `RULES`) chosen
    by leaving one fold (a set, or a database) out: on the other folds the margin of least cost (answerable still
    declined + unanswerable no longer declined; ties to the larger margin), scored on the left-out fold."""
    from orrery.bi import decline as d

    name, fixed = RULES[rule]
    for key, value in fixed.items():
        setattr(d, key, value)
    contexts: dict[str, Any] = {}
    declined = {}
    for margin in grid:
        setattr(d, name, margin)
        declined[margin] = [r["declined"] for r in replayed(questions, contexts)]
        print(f"margin {margin}: {_counts(questions, declined[margin])}", flush=True)

    def cost(margin: float, keep: list[bool]) -> int:
        return sum(
            (q.get("gold") is not None) == dec for q, dec, k in zip(questions, declined[margin], keep, strict=True) if k
        )

    folds, out = sorted({q[fold] for q in questions}), []
    for left in folds:
        train = [q[fold] != left for q in questions]
        chosen = min(grid, key=lambda m: (cost(m, train), -m))
        test = [not t for t in train]
        rows = [(q, dec) for q, dec, t in zip(questions, declined[chosen], test, strict=True) if t]
        out.append({"fold": left, "margin": chosen, **_counts([q for q, _ in rows], [dec for _, dec in rows])})
        print(out[-1], flush=True)
    every = [True] * len(questions)
    whole = min(grid, key=lambda m: (cost(m, every), -m))
    total = {k: sum(o[k] for o in out) for k in ("answerable_declined", "unanswerable_declined")}
    return {"rule": rule, "fold_by": fold, "grid": grid, "folds": out, "out_of_fold": total, "chosen_on_all": whole}


def _counts(questions: list[dict[str, Any]], declined: list[bool]) -> dict[str, int]:
    answerable = [dec for q, dec in zip(questions, declined, strict=True) if q.get("gold") is not None]
    unanswerable = [dec for q, dec in zip(questions, declined, strict=True) if q.get("gold") is None]
    return {
        "answerable_declined": sum(answerable),
        "answerable": len(answerable),
        "unanswerable_declined": sum(unanswerable),
        "unanswerable": len(unanswerable),
    }


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--tag", default="")
    p.add_argument("--cv", choices=["set", "db"], help="round 32: choose rule M's margin by leaving a fold out")
    p.add_argument("--rule", choices=sorted(RULES), default="M", help="round 37: the rule whose threshold --cv chooses")
    args = p.parse_args()
    suffix = "_" + args.tag if args.tag else ""
    if args.cv:
        start = 0.04 if args.rule == "T" else 0.08
        grid = [float("inf"), *(round(start + 0.02 * i, 2) for i in range(round((0.30 - start) / 0.02) + 1))]
        report = cross_validated(newest_declined(), grid, args.cv, args.rule)
        print(report["out_of_fold"], "chosen on all:", report["chosen_on_all"])
        (HERE / "results" / f"bi_r32_cv_{args.cv}{suffix}.json").write_text(json.dumps(report, indent=1))
        return
    rows = replayed(newest_declined(), {})
    for r in rows:
        kind = "ANS" if r["answerable"] else "UN "
        print(
            f"{kind} {'DECLINED' if r['declined'] else 'passes  '} {r['set']}: {r['question']!r} {r['terms']} -> {r['missing']} {r['shape'] or ''}"
        )
    for answerable in (True, False):
        rs = [r for r in rows if r["answerable"] is answerable]
        print(
            f"{'answerable' if answerable else 'unanswerable'}: still declined {sum(r['declined'] for r in rs)}/{len(rs)}"
        )
    (HERE / "results" / f"bi_r28_replay{suffix}.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
