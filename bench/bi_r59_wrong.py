"""Round 59's diagnosis (bench/bi_r59.md), no model: the answerable questions the newest stored answer of sets
#1..#22 (`bi_recompose.newest`) answered wrong, each given the first class its SQL differs from the gold query's
in (sqlglot, in this order): the tables read (a wrong join / table counted), the aggregates, the number of
filters (missing / extra), a literal of the filters (a value misspelt or another value), the grouping / order /
limit, the selected columns; 'same shape' when none differs. And the model sample (`sample`): every k-th wrong
and every k-th right stored answer, by (set, question) order.

    python bench/bi_r59_wrong.py            # the table by class and by database
    python bench/bi_r59_wrong.py --sample   # the fixed sample: set|index|db|stored|question
"""

from __future__ import annotations

import collections
import importlib.util
import sys
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

HERE = Path(__file__).parent
WRONG_EVERY, RIGHT_EVERY = 25, 40  # 11 wrong and 9 right of 251 / 332 (the counts at 8ee3b7f)


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _shape(sql: str) -> dict[str, Any]:
    tree = sqlglot.parse_one(sql, read="sqlite")
    where = tree.args.get("where")
    conds = list(where.this.flatten()) if where is not None and isinstance(where.this, exp.And) else []
    conds = conds or ([where.this] if where is not None else [])
    return {
        "wrong join / table": sorted({t.name.lower() for t in tree.find_all(exp.Table)}),
        "wrong aggregate": sorted(type(a).__name__ for a in tree.find_all(exp.AggFunc)),
        "missing / extra filter": len(conds),
        "a value misspelt / other value": sorted(
            str(v.this).lower() for c in conds for v in c.find_all(exp.Literal) if v.is_string
        ),
        "wrong grouping / order": [bool(tree.args.get(k)) for k in ("group", "order", "limit")],
        "wrong column": sorted({c.name.lower() for s in tree.expressions for c in s.find_all(exp.Column)}),
    }


def wrong_class(gold: str, sql: str) -> str:
    try:
        g, s = _shape(gold), _shape(sql)
    except sqlglot.errors.SqlglotError:
        return "unparsed"
    return next((k for k in g if g[k] != s[k]), "same shape (values differ)")


def answered() -> list[tuple[str, dict[str, Any]]]:
    recs = _load("bi_recompose").newest()
    return sorted(
        ((s, q) for s, q in recs if q.get("gold") and q["status"] == "completed"),
        key=lambda r: (r[0], r[1]["question"]),
    )


def sample() -> list[tuple[str, dict[str, Any]]]:
    rows = answered()
    wrong = [r for r in rows if not r[1]["correct"]][::WRONG_EVERY]
    right = [r for r in rows if r[1]["correct"]][::RIGHT_EVERY]
    return wrong + right


def index_in_set(which: str, question: str) -> int:
    sys.path.insert(0, str(HERE))
    return next(i for i, it in enumerate(_load("bi_nokeys").items(which), 1) if it["question"] == question)


def main() -> None:
    if "--sample" in sys.argv:
        for s, q in sample():
            print(
                f"{s}|{index_in_set(s, q['question'])}|{q['db']}|{'right' if q['correct'] else 'wrong'}|{q['question']}"
            )
        return
    rows = [(s, q) for s, q in answered() if not q["correct"]]
    by_class = collections.Counter(wrong_class(q["gold"], q["sql"]) for _, q in rows)
    by_db = collections.Counter(q["db"] for _, q in rows)
    right_db = collections.Counter(q["db"] for _, q in answered() if q["correct"])
    print(f"answered wrong: {len(rows)}; right: {sum(right_db.values())}")
    for k, n in by_class.most_common():
        print(f"| {k} | {n} |")
    for db, n in by_db.most_common():
        print(f"| {db} | {n} | {right_db[db]} |")


if __name__ == "__main__":
    main()
