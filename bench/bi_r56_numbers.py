"""Round 56, class N (bench/bi.md, round 56): the comparisons `column <op> number` that `compose._unasked_number` (the
orrery on PYTHONPATH) drops, in every set's gold queries (#1..#21: none may be dropped) and in the newest stored
answer of each answerable question (`bi_recompose.newest`), right or wrong. No model.

    PYTHONPATH=$PWD python bench/bi_r56_numbers.py
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def dropped(sql: str, question: str, semantic: Any, dialect: str) -> list[str]:
    from orrery.bi.compose import _unasked_number

    comparisons = sqlglot.parse_one(sql, read=dialect).find_all(exp.EQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
    return [c.sql() for c in comparisons if _unasked_number(c, semantic, question)]


def main() -> None:
    from orrery.bi.semantic import load

    bnk, rc = _load("bi_nokeys"), _load("bi_recompose")
    layers: dict[str, tuple[Any, str]] = {}

    def layer(db: str) -> tuple[Any, str]:
        if db not in layers:
            engine = bnk.engine_for(db)
            layers[db] = (load(engine.name, engine), engine.dialect)
        return layers[db]

    golds = [(s, it) for s in bnk.SCORED for it in bnk.items(s) if it.get("gold")]
    hits = [(s, it["question"], d) for s, it in golds if (d := dropped(it["gold"], it["question"], *layer(it["db"])))]
    print(f"{len(golds)} gold queries, {len(hits)} with a comparison dropped: {hits}")
    count: Counter[tuple[bool, bool]] = Counter()
    for s, q in rc.newest():
        answered = q.get("gold") and q["status"] == "completed" and q.get("sql")
        if answered and (found := dropped(q["sql"], q["question"], *layer(q["db"]))):
            count[(s == "heldout21", q["correct"])] += 1
            print(s, q["db"], "right" if q["correct"] else "wrong", "|", q["question"], "|", found)
    print("stored answers with a comparison dropped, (#21, right):", dict(count))


if __name__ == "__main__":
    main()
