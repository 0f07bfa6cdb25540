"""Round 72's model sample, fixed by rule before any model call: every answerable question the replay frees
(`results/bi_r55_fields_r72.json` against `_r72base.json`) or the shape check frees (the answerable questions
`results/bi_r72_shapes_base.txt` declines and `_here.txt` does not), at most MAX_FREED, and for each of their
databases the unanswerable questions whose replay decline stands, newest sets first, at most GUARDS per database.
Prints one line per set: `SET i,j,k` (1-based numbers of `bi_nokeys.items`).

    PYTHONPATH=$PWD python bench/bi_r72_sample.py
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import loading  # noqa: E402

GUARDS = 2
MAX_FREED = 10
_SET = re.compile(r"^(\w+): answerable declined")


def shape_declined(path: Path) -> set[tuple[str, str]]:
    """(set, question) of each answerable question a shape check's printout declines."""
    out, which = set(), None
    for line in path.read_text().splitlines():
        if m := _SET.match(line):
            which = m.group(1)
        elif line.startswith("    ") and " -> " in line and not line.lstrip().startswith(("by check", "without")):
            out.add((which, line.strip().split(" -> ")[0]))
    return out


def main() -> None:
    results = HERE / "results"
    base, here = (json.loads((results / f"bi_r55_fields_{t}.json").read_text()) for t in ("r72base", "r72"))
    stands = {(r["set"], r["question"]): r["stands"] for r in base}
    freed = [
        (r["set"], r["question"], r["db"])
        for r in here
        if r["answerable"] and stands[(r["set"], r["question"])] and not r["stands"]
    ]
    bnk = loading.load("bi_nokeys")
    by_question = {(s, it["question"]): it for s in bnk.SETS if not bnk.pending(s) for it in bnk.items(s)}
    shape_freed = shape_declined(results / "bi_r72_shapes_base.txt") - shape_declined(
        results / "bi_r72_shapes_here.txt"
    )
    freed += [(s, q, by_question[(s, q)]["db"]) for s, q in sorted(shape_freed) if (s, q) not in {f[:2] for f in freed}]
    freed = freed[:MAX_FREED]
    dbs = {db for _, _, db in freed}
    guards = defaultdict(list)
    for r in sorted(here, key=lambda r: -int(re.sub(r"\D", "", r["set"]) or 0)):
        if not r["answerable"] and r["stands"] and r["db"] in dbs and len(guards[r["db"]]) < GUARDS:
            guards[r["db"]].append((r["set"], r["question"], r["db"]))
    picked = defaultdict(list)
    for s, q, _ in [*freed, *(g for gs in guards.values() for g in gs)]:
        picked[s].append(next(i for i, it in enumerate(bnk.items(s), 1) if it["question"] == q))
    for s, ns in sorted(picked.items()):
        print(s, ",".join(map(str, sorted(ns))))


if __name__ == "__main__":
    main()
