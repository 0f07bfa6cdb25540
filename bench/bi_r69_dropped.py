"""Round 69's diagnosis (bench/bi_r69.md): the (question, condition) rows round 67's script (`bi_r67_dropped.py`)
calls RESOLVED-DROPPED, each with its record's status, its `build_query` step and its SQL, so the reason the value
is missing can be read (an error with no SQL, the model's own SQL of the fallback, a relaxed query, a query that
names the value in another form or groups by it). No model, no database.

    python bench/bi_r69_dropped.py > /tmp/r69/why.txt
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from bi_r67_dropped import conditions  # noqa: E402
from loading import load as _load  # noqa: E402


def main() -> None:
    for s, q in _load("bi_recompose").newest():
        if not q.get("gold") or q.get("correct") or q["status"] == "declined":
            continue
        gold = q["gold"] if isinstance(q["gold"], str) else json.dumps(q["gold"])
        sql = (q.get("sql") or "").lower()
        step = " ".join(st for st in q.get("steps", []) if st.startswith("resolve_entities")).lower()
        missed = [v for _, lits in conditions(gold) for v in lits if v.lower() not in sql]
        if not any(f'"value": "{v.lower()}"' in step for v in missed):
            continue
        build = next((st for st in q.get("steps", []) if st.startswith("build_query")), "")
        print(f"== {s} | {q['db']} | {q['question']} | missed {missed} | {q['status']}")
        print(f"   resolve: {step[:300]}")
        print(f"   build: {build[:300]}")
        print(f"   sql: {q.get('sql')}")
        print(f"   gold: {gold}")


if __name__ == "__main__":
    main()
