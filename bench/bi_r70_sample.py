"""Round 70's model sample, fixed by rule before any model call: every answerable question the replay frees
(`results/bi_r55_fields_r70.json` against `_r70base.json`), and for each of their databases the unanswerable
questions the replay declines for a field, newest sets first, at most two per database. Prints one line per set:
`SET i,j,k` (1-based numbers of `bi_nokeys.items`).

    PYTHONPATH=$PWD python bench/bi_r70_sample.py
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from bi_r55_fields import _load  # noqa: E402

GUARDS = 2


def main() -> None:
    base, here = (json.loads((HERE / "results" / f"bi_r55_fields_{t}.json").read_text()) for t in ("r70base", "r70"))
    stands = {(r["set"], r["question"]): r["stands"] for r in base}
    freed = [r for r in here if r["answerable"] and stands[(r["set"], r["question"])] and not r["stands"]]
    dbs = {r["db"] for r in freed}
    guards = defaultdict(list)
    for r in sorted(here, key=lambda r: -int(re.sub(r"\D", "", r["set"]) or 0)):
        if not r["answerable"] and r["stands"] and r["db"] in dbs and len(guards[r["db"]]) < GUARDS:
            guards[r["db"]].append(r)
    bnk, picked = _load("bi_nokeys"), defaultdict(list)
    for r in [*freed, *(g for gs in guards.values() for g in gs)]:
        numbers = [i for i, it in enumerate(bnk.items(r["set"]), 1) if it["question"] == r["question"]]
        picked[r["set"]].append(numbers[0])
    for s, ns in sorted(picked.items()):
        print(s, ",".join(map(str, sorted(ns))))


if __name__ == "__main__":
    main()
