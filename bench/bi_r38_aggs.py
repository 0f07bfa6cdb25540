"""Round 38's diagnosis (no model): of the newest stored record of each development question (bench/bi_recompose.py's
`newest()`), the wrong completed answers whose SQL's aggregate differs from the gold's, by class:

- `count for sum`: the SQL counts rows (`COUNT(*)`) where the gold sums a column;
- `agg lost`: the gold has MIN / MAX / AVG / SUM that the SQL lacks (not the class above);
- `agg added`: the SQL aggregates where the gold has no aggregate;
- `other column`: the same function over another column;
- `other agg`: another function (SUM for AVG, ...).

    PYTHONPATH=$PWD python bench/bi_r38_aggs.py [out.json]
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path

import sqlglot
from sqlglot import exp

HERE = Path(__file__).parent
AGGS = (exp.Sum, exp.Count, exp.Avg, exp.Min, exp.Max)
WORDS = re.compile(
    r"\b(min\w*|max\w*|lowest|highest|least|most|smallest|largest|biggest|avg|average|mean|typical|"
    r"total|sum|overall|combined|units?|sold|per|each|how many|number of|count)\b",
    re.I,
)


def aggregates(sql: str, dialect: str) -> list[tuple[str, str]]:
    """(function, column or '*') of each aggregate the query computes."""
    tree = sqlglot.parse_one(sql, read=dialect)
    out = []
    for node in tree.find_all(*AGGS):
        col = node.find(exp.Column)
        out.append((node.key.upper(), col.name.lower() if col else "*"))
    return sorted(out)


def kind(mine: list[tuple[str, str]], gold: list[tuple[str, str]]) -> str | None:
    if mine == gold or set(mine) == set(gold):
        return None
    fm, fg = {f for f, _ in mine}, {f for f, _ in gold}
    if "SUM" in fg and "SUM" not in fm and "COUNT" in fm:
        return "count for sum"
    if not gold:
        return "agg added"
    if fg - fm:
        return "agg lost"
    if fm == fg:
        return "other column"
    return "other agg"


def main(out_path: str | None) -> None:
    spec = importlib.util.spec_from_file_location("rc", HERE / "bi_recompose.py")
    rc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rc)
    dialects = {"chinook": "sqlite"}
    rows, counts = [], Counter()
    for s, q in rc.newest():
        if not q.get("gold") or q["status"] != "completed" or q.get("correct") in (True, "True") or not q.get("sql"):
            continue
        dialect = dialects.get(q["db"], "duckdb")
        try:
            mine, gold = aggregates(q["sql"], dialect), aggregates(q["gold"], dialect)
        except sqlglot.errors.ParseError:
            continue
        k = kind(mine, gold)
        counts[k or "same"] += 1
        if k:
            words = sorted({w.lower() for w in WORDS.findall(q["question"])})
            rows.append(
                {
                    "set": s,
                    "db": q["db"],
                    "question": q["question"],
                    "kind": k,
                    "sql_aggs": mine,
                    "gold_aggs": gold,
                    "words": words,
                    "sql": q["sql"],
                    "gold": q["gold"],
                }
            )
    print(dict(counts))
    for r in sorted(rows, key=lambda r: (r["kind"], r["db"])):
        print(f"[{r['kind']}] {r['set']} {r['db']}: {r['question']!r}\n   sql {r['sql_aggs']} gold {r['gold_aggs']}")
    if out_path:
        Path(out_path).write_text(json.dumps({"counts": dict(counts), "rows": rows}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else None)
