"""Round 55's replay (no model): every stored 'the data has no field [or value] for X' decline of sets #1..#21 (the
newest record of each question, `bi_recompose.newest`, held-out #21 included), each of its terms judged again by
`decline.missing_fields` under the code on PYTHONPATH, and the question by `decline.shape_decline`. A decline stands
when a term is still missing or the shape still declines; else it is freed (the planner's query would run).

    PYTHONPATH=$PWD python bench/bi_r55_fields.py [--tag T]     # writes results/bi_r55_fields[_T].json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
REASON = re.compile(r"no field (?:or value )?for (.*?)(?:; the nearest columns it holds: .*)?$")
QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def declines() -> list[tuple[str, dict]]:
    """(set, record) of each newest stored record declined for a missing field."""
    rc = _load("bi_recompose")
    out = [
        (s, q) for s, q in rc.newest(skip=()) if q.get("status") == "declined" and REASON.search(q.get("answer") or "")
    ]
    return sorted(out, key=lambda x: (x[1]["gold"] is None, x[1]["db"], x[0], x[1]["question"]))


def main() -> None:
    from orrery.bi import decline
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    p = argparse.ArgumentParser()
    p.add_argument("--tag", default="")
    p.add_argument("--causes", type=Path, help="tag the standing declines of a stored replay instead")
    args = p.parse_args()
    if args.causes:
        return causes(args.causes)
    sys.path.insert(0, str(HERE))
    bnk, contexts, rows = _load("bi_nokeys"), {}, []
    for s, q in declines():
        if q["db"] not in contexts:
            engine = bnk.engine_for(q["db"])
            contexts[q["db"]] = BIContext(engine, load(engine.name, engine), None)
        bi, question = contexts[q["db"]], q["question"]
        terms = [a or b for a, b in QUOTED.findall(REASON.search(q["answer"]).group(1))]
        still = [t for t in terms if decline.missing_fields(bi, [t], question)]
        shape = decline.shape_decline(bi, question)
        rows.append(
            {
                "set": s,
                "db": q["db"],
                "question": question,
                "answerable": q["gold"] is not None,
                "terms": terms,
                "still_missing": still,
                "shape": shape,
                "stands": bool(still or shape),
            }
        )
        mark = "stands" if still or shape else "FREED "
        kind = "ans" if q["gold"] is not None else "un "
        print(f"{kind} {mark} {q['db']:9} {s:9} {question[:60]:60} | {terms} | still {still} | shape {bool(shape)}")
    for kind in (True, False):
        sub = [r for r in rows if r["answerable"] is kind]
        print(f"{'answerable' if kind else 'unanswerable'}: {len(sub)} stored, {sum(r['stands'] for r in sub)} stand")
    out = HERE / "results" / f"bi_r55_fields{'_' + args.tag if args.tag else ''}.json"
    out.write_text(json.dumps(rows, indent=1))


def causes(path: Path) -> None:
    """The diagnosis's tagging of each standing decline's missing terms: per word, what it is (an aggregate word of
    `semantic.GENERIC`, grammar, a calendar unit, a whole word of a stored value) and, for the rest, the columns of
    the database one of whose name's words it abbreviates (`names.abbreviates`, as written or in the singular)."""
    from orrery.bi import decline
    from orrery.bi.names import abbreviates, singular, words
    from orrery.bi.semantic import GENERIC

    bnk = _load("bi_nokeys")
    for r in json.loads(path.read_text()):
        if not r["stands"]:
            continue
        bi = bnk.context_for(r["db"])
        for t in r["still_missing"]:
            tags = []
            for w in re.findall(r"[a-z0-9]+", t.lower()):
                if w in GENERIC:
                    tags.append(f"{w}:agg")
                elif w in decline.GRAMMAR or w in decline.CALENDAR or singular(w) in decline.CALENDAR:
                    tags.append(f"{w}:gram/unit")
                elif decline.value_word(bi, w):
                    tags.append(f"{w}:value")
                else:
                    cols = [
                        c
                        for _, c, _ in bi.semantic.columns()
                        if any(abbreviates(k, w) or abbreviates(k, singular(w)) for k in words(c).split())
                    ]
                    tags.append(f"{w}:abbr{cols}" if cols else f"{w}:-")
            kind = "ans" if r["answerable"] else "un "
            print(f"{kind} {r['db']:9} {r['set']:9} {t[:34]:34} {' '.join(tags)}")


if __name__ == "__main__":
    main()
