"""Round 66 (bench/bi_r66.md): the shape of each newest stored answer's SQL against its gold's, no model. For every
answerable, completed record of every stored set (`bi_recompose.newest`), sqlglot reads both queries: ranked (an
ORDER BY with a LIMIT of at most 10, or a MAX / MIN), grouped (a GROUP BY). Prints the count of each difference by
whether the record was right, and writes the examples:

    PYTHONPATH=$PWD python bench/bi_r66_shapes.py /tmp/shapes.json"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import sqlglot
from loading import load
from sqlglot import exp
from sqlglot.errors import SqlglotError


def shape(sql: str) -> dict[str, bool] | None:
    try:
        tree = sqlglot.parse_one(sql, read="duckdb")
    except SqlglotError:
        return None
    select = tree if isinstance(tree, exp.Select) else tree.find(exp.Select)
    if select is None:
        return None
    limit = select.args.get("limit")
    small = limit is not None and isinstance(limit.expression, exp.Literal) and int(limit.expression.name) <= 10
    where = select.args.get("where")
    extreme = any(n.find(exp.Max, exp.Min) for n in [*select.expressions, *([where] if where else [])])
    return {
        "ranked": (select.args.get("order") is not None and small) or extreme,
        "grouped": bool(select.args.get("group")),
    }


def differences(gold: dict[str, bool], got: dict[str, bool]) -> list[str]:
    out = []
    for key, name in (("ranked", "ranks"), ("grouped", "groups")):
        if gold[key] and not got[key]:
            out.append(f"gold {name}, the SQL does not")
        if got[key] and not gold[key]:
            out.append(f"the SQL {name}, gold does not")
    return out


def main(out_path: str) -> None:
    counts: Counter[tuple[str, bool]] = Counter()
    examples: dict[str, list[Any]] = {}
    for s, q in load("bi_recompose").newest():
        if not q.get("gold") or q["status"] != "completed" or not q.get("sql"):
            continue
        gold, got = shape(q["gold"]), shape(q["sql"])
        for diff in differences(gold, got) if gold and got else []:
            counts[(diff, q["correct"])] += 1
            examples.setdefault(f"{diff} | right={q['correct']}", []).append([s, q["question"], q["sql"], q["gold"]])
    for (diff, right), n in sorted(counts.items()):
        print(f"{diff:32} right={right!s:5} {n}")
    Path(out_path).write_text(json.dumps(examples, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
