"""Round 67's measure (bench/bi_r67.md): `tools.sex_values` of the code on PYTHONPATH replayed, no model, on the
question of the newest record of every question of the development sets (`bi_recompose.newest`): for each value it
adds, whether the gold SQL filters on it and whether the stored SQL already did. A wrong or declined answerable answer
whose gold filters on an added value the stored SQL lacks is a condition now found ('gain'); an added value the gold
does not filter on is a risk ('wrong value'), listed for right answers and unanswerable questions too.

    PYTHONPATH=$PWD python bench/bi_r67_replay.py /tmp/r67/replay.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def _filters(sql: str | None, column: str, value: Any) -> bool:
    """Whether the SQL compares `column` with the value (as a quoted literal or a number), case aside."""
    text, v = (sql or "").lower(), str(value).lower()
    return column.lower() in text and (f"'{v}'" in text or f"= {v}" in text)


def main(out_path: str) -> None:
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext, sex_values

    recompose, bnk = _load("bi_recompose"), _load("bi_nokeys")
    contexts: dict[str, Any] = {}
    tally: dict[str, list[dict[str, Any]]] = {}
    for s, q in recompose.newest():
        if q["db"] not in contexts:
            engine = bnk.engine_for(q["db"])
            contexts[q["db"]] = BIContext(engine, load(engine.name, engine), None)
        for r in sex_values(contexts[q["db"]], q["question"]):
            gold = q["gold"] if isinstance(q.get("gold"), str) or q.get("gold") is None else json.dumps(q["gold"])
            had = _filters(q.get("sql"), r["column"], r["value"])
            if not gold:
                kind = "unanswerable " + q["status"]
            elif not _filters(gold, r["column"], r["value"]):
                kind = f"wrong value ({'right' if q.get('correct') else 'wrong'} answer)"
            elif q.get("correct"):
                kind = "right answer, value already used" if had else "right answer, value not used"
            else:
                kind = "gain: wrong/declined, stored SQL had it" if had else "gain: wrong/declined, condition found"
            row = {"set": s, "db": q["db"], "question": q["question"], "added": f"{r['column']} = {r['value']!r}"}
            tally.setdefault(kind, []).append(row)
    Path(out_path).write_text(json.dumps(tally, indent=1))
    for k, rows in sorted(tally.items()):
        print(f"{k}: {len(rows)}")
        for r in rows:
            print(f"   {r['set']} | {r['db']} | {r['question']} | {r['added']}")


if __name__ == "__main__":
    main(sys.argv[1])
