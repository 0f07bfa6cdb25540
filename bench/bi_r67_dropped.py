"""Round 67's diagnosis (bench/bi_r67.md): for the newest record of every answerable question of the development sets
(`bi_recompose.newest`) answered wrong (not declined), each string literal the gold SQL compares a column with that the
answer's SQL lacks, and whether the record's `resolve_entities` step found it ('RESOLVED-DROPPED': found, then not
used; 'NOT-FOUND': never found), with the step's mentions and unresolved mentions. No model, no database.

    python bench/bi_r67_dropped.py > /tmp/r67/dropped.txt
"""

from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path

import sqlglot
from sqlglot import exp

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def conditions(gold: str) -> list[tuple[str, list[str]]]:
    """(column, string literals) of each comparison of the gold SQL with string literals (=, IN, LIKE)."""
    out = []
    for e in sqlglot.parse_one(gold).find_all(exp.EQ, exp.In, exp.Like, exp.ILike):
        literals = [lit.this for lit in e.find_all(exp.Literal) if lit.is_string]
        columns = [c.name for c in e.find_all(exp.Column)]
        if literals and columns:
            out.append((columns[0], literals))
    return out


def main() -> None:
    rows = []
    for s, q in _load("bi_recompose").newest():
        if not q.get("gold") or q.get("correct") or q["status"] == "declined":
            continue
        gold = q["gold"] if isinstance(q["gold"], str) else json.dumps(q["gold"])
        sql = (q.get("sql") or "").lower()
        step = " ".join(st for st in q.get("steps", []) if st.startswith("resolve_entities")).lower()
        for column, literals in conditions(gold):
            if missed := [v for v in literals if v.lower() not in sql]:
                found = any(f'"value": "{v.lower()}"' in step for v in missed)
                kind = "RESOLVED-DROPPED" if found else "NOT-FOUND"
                mentions = re.findall(r'"mention": "([^"]*)"', step)
                unresolved = re.findall(r'"unresolved": (\[[^\]]*\])', step)
                rows.append((kind, s, q["db"], q["question"], column, missed, mentions, unresolved))
    print(collections.Counter(r[0] for r in rows), "questions:", len({(r[1], r[3]) for r in rows}))
    for kind, s, db, question, column, missed, mentions, unresolved in sorted(rows):
        print(f"{kind} | {s} | {db} | {question} | {column} {missed} | mentions {mentions} | unresolved {unresolved}")


if __name__ == "__main__":
    main()
