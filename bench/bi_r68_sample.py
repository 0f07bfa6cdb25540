"""Round 68's model sample (bench/bi_r68.md), fixed by rule before its run, no model here: every answerable question
this round frees (the replay, results/bi_r55_fields_r68{base,}.json, and the shape check, results/bi_r68_shapes_
{base,here}.txt), and for each of their databases the unanswerable questions the replay declines for a field, from
its two newest sets (by set number), at most two per database, as guards. Prints set|index|db|why|question and the
--only lists per set.

    PYTHONPATH=$PWD python bench/bi_r68_sample.py
"""

from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))
from bi_r55_fields import _load  # noqa: E402


def _shape_declined(path: Path) -> set[str]:
    return {m.group(1) for m in re.finditer(r"^    (.*?) -> ", path.read_text(), re.M)}


def _number(s: str) -> int:
    return int(re.sub(r"\D", "", s) or 0)


def sample() -> list[tuple[str, str, str, str]]:
    base, here = (json.loads((RESULTS / f"bi_r55_fields_r68{t}.json").read_text()) for t in ("base", ""))
    freed = {(r["set"], r["question"]): r["db"] for r, h in zip(base, here, strict=True) if r["stands"] > h["stands"]}
    bnk = _load("bi_nokeys")
    shape_freed = _shape_declined(RESULTS / "bi_r68_shapes_base.txt") - _shape_declined(
        RESULTS / "bi_r68_shapes_here.txt"
    )
    for s in bnk.SETS:
        for q in bnk.items(s):
            if q["question"] in shape_freed and q.get("gold"):
                freed[(s, q["question"])] = q["db"]
    picked = [(s, q, db, "freed") for (s, q), db in freed.items()]
    guards = collections.defaultdict(list)
    for r in sorted(base, key=lambda r: -_number(r["set"])):
        if not r["answerable"] and r["db"] in set(freed.values()) and len(guards[r["db"]]) < 2:
            guards[r["db"]].append((r["set"], r["question"], r["db"], "guard"))
    return sorted(picked + [g for gs in guards.values() for g in gs])


def main() -> None:
    bnk, per_set = _load("bi_nokeys"), collections.defaultdict(list)
    for s, question, db, why in sample():
        i = 1 + [q["question"] for q in bnk.items(s)].index(question)
        per_set[s].append(i)
        print(f"{s}|{i}|{db}|{why}|{question}")
    for s, idx in per_set.items():
        print(f"--set {s} --only {','.join(map(str, sorted(idx)))}")


if __name__ == "__main__":
    main()
