"""Round 74's diagnosis (no model): the newest stored record of each answerable, completed question of every set
not pending (`bi_recompose.newest`, branch samples left out) whose SQL has the shape 'an aggregate (COUNT / SUM /
AVG) over one lookup only (a table a layer join refers to), filtered by a literal on one of its columns'. For each:
right or wrong in the record, whether the gold reads that lookup and another table too, and the tables whose join
refers to the lookup (one: the referring table is known; several: ambiguous).

    PYTHONPATH=$PWD python bench/bi_r74_shape.py            # the table
    PYTHONPATH=$PWD python bench/bi_r74_shape.py --list     # one line per record
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def shape(sql: str) -> str | None:
    """The one table read when the SQL aggregates over it alone and filters it by a literal, else None."""
    tree = sqlglot.parse_one(sql, read="sqlite")
    tables = {t.name.lower() for t in tree.find_all(exp.Table)}
    aggs = [n for s in tree.expressions for n in s.find_all(exp.Count, exp.Sum, exp.Avg)]
    where = tree.args.get("where")
    literal = where is not None and any(
        isinstance(c.expression, exp.Literal) for c in where.find_all(exp.EQ, exp.In, exp.Like)
    )
    return next(iter(tables)) if len(tables) == 1 and aggs and literal else None


def main(listing: bool) -> None:
    rec = _load("bi_recompose")
    bnk = rec._nokeys()
    from orrery.bi.joins import join_ends
    from orrery.bi.semantic import load

    layers: dict[str, Any] = {}
    counts: collections.Counter[tuple[str, ...]] = collections.Counter()
    for s, q in rec.newest():
        if not q.get("gold") or q["status"] != "completed" or not q.get("sql"):
            continue
        table = shape(q["sql"])
        if table is None:
            continue
        if q["db"] not in layers:
            engine = bnk.engine_for(q["db"])
            layers[q["db"]] = load(engine.name, engine)
        sem = layers[q["db"]]
        into = [left.lower() for left, right in map(join_ends, sem.joins) if right.lower() == table]
        if not into:
            continue  # not a lookup
        gold = {t.name.lower() for t in sqlglot.parse_one(q["gold"], read="sqlite").find_all(exp.Table)}
        gold_more = table in gold and len(gold) > 1
        refs = "one join into it" if len(into) == 1 else f"{len(into)} joins into it"
        head = q["sql"].upper().split(" FROM ")[0]
        agg = "SUM/AVG" if "SUM(" in head or "AVG(" in head else "COUNT"
        key = ("right" if q["correct"] else "wrong", "gold joins more" if gold_more else "gold same/other", agg, refs)
        counts[key] += 1
        if listing:
            print(f"{key[0]:5} | {s} | {q['db']} | {q['question'][:70]} | {q['sql'][:110]} | into={into}")
    for k, v in sorted(counts.items()):
        print(f"{v:4}  {' | '.join(k)}")


if __name__ == "__main__":
    main("--list" in sys.argv[1:])
