"""Round 49's diagnosis (bench/bi.md, round 49), no model: every distinct stored SQL of the development sets
(`results/bi_nokeys_*.json`) that compares a value with a `(SELECT MIN/MAX ..)` subquery (or an ordered, limited
one), and which of the two readings of that shape fires on it: compose's `_extreme_as_order` (before the query runs)
and relax's `_extreme_as_ranking` (after a query that found nothing). One JSON line per SQL:
{"q", "sql", "compose", "relax", "kind"}; then the counts.

    PYTHONPATH=$PWD python bench/bi_r49_extremes.py > /tmp/extremes.jsonl
"""

from __future__ import annotations

import glob
import json
from collections import Counter
from pathlib import Path

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from orrery.bi import compose, relax

HERE = Path(__file__).parent
COMPARED = exp.EQ | exp.GT | exp.GTE | exp.LT | exp.LTE


def stored() -> dict[tuple[str, str], str]:
    """(question, sql) -> the set it came from, over every stored record that has SQL."""
    out: dict[tuple[str, str], str] = {}
    for f in sorted(glob.glob(str(HERE / "results" / "bi_nokeys_*.json"))):
        d = json.loads(Path(f).read_text())
        for q in d.get("questions", []) if isinstance(d, dict) else []:
            if q.get("sql"):
                out.setdefault((q["question"], q["sql"]), d.get("set", "?"))
    return out


def kind(tree: exp.Select) -> str:
    """How a comparison with a MIN / MAX or limited subquery is written: its operator, side, place and whether the subquery filters."""
    for part in ("where", "having"):
        for cond in relax.conjuncts(tree.args[part].this if tree.args.get(part) else None):
            sub = next((n for n in (cond.this, cond.expression) if isinstance(n, exp.Subquery)), None)
            inner = sub.this if sub is not None and isinstance(cond, COMPARED) else None
            if isinstance(inner, exp.Select) and (inner.find(exp.Max, exp.Min) or inner.args.get("limit")):
                side = "col" if isinstance(cond.this, exp.Column) else type(cond.this).__name__
                inner = "filtered" if sub.this.args.get("where") else "plain"
                alone = "alone" if len(relax.conjuncts(tree.args[part].this)) == 1 else "beside"
                grouped = "grouped" if tree.args.get("group") else "ungrouped"
                return f"{part} {type(cond).__name__} {side} {inner} {alone} {grouped}"
    return ""


def composed(tree: exp.Select, question: str) -> bool:
    where = tree.args.get("where")
    group = tree.args.get("group")
    trees = {
        "select": list(tree.expressions),
        "where": relax.conjuncts(where.this if where else None),
        "group_by": list(group.expressions) if group else [],
        "order_by": [],
    }
    return compose._extreme_as_order(trees, None, question) == 1


def main() -> None:
    counts: Counter[str] = Counter()
    for (question, sql), s in stored().items():
        try:
            tree = sqlglot.parse_one(sql, read="sqlite")
        except SqlglotError:
            continue
        if not isinstance(tree, exp.Select) or not (k := kind(tree)):
            continue
        c = composed(tree.copy(), question)
        r = relax._extreme_as_ranking(tree.copy(), question, [])
        counts[f"{k} | compose={c} relax={r}"] += 1
        print(json.dumps({"set": s, "q": question, "sql": sql, "compose": c, "relax": r, "kind": k}))
    for k, n in sorted(counts.items()):
        print(f"# {n:3d} {k}")


if __name__ == "__main__":
    main()
