"""Round 65's diagnosis (bench/bi.md, round 65): every unanswerable question of the development sets whose newest stored
record (`bi_recompose.newest`) was answered, not declined, with its set's label (the comment beside it in the set's
module, where it has one), its database, what entity resolution made of its names (the record's
`resolve_entities` step) and what the shape checks (decline.shape_decline) say of it under the code on PYTHONPATH;
and the answerable questions whose newest record declined. No model.

    PYTHONPATH=$PWD python bench/bi_r65_leaks.py /tmp/r65/leaks.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def labels() -> dict[str, str]:
    """question -> the comment on its line in any bench set module (the set's own category label)."""
    out: dict[str, str] = {}
    for f in HERE.glob("bi_*.py"):
        for line in f.read_text().splitlines():
            found = re.search(r'\(\s*"[^"]+",\s*"((?:[^"\\]|\\.)+)"\),?\s*#\s*(.+)$', line)
            if found:
                out[found.group(1)] = found.group(2).strip()
    return out


def main(out_path: str) -> None:
    from orrery.bi import decline as d
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    recompose, bnk = _load("bi_recompose"), _load("bi_nokeys")
    label = labels()
    contexts: dict[str, Any] = {}
    leaks, over = [], []
    for s, q in sorted(recompose.newest(), key=lambda p: (p[0], p[1]["db"])):
        unanswerable = q.get("gold") is None
        if unanswerable == (q["status"] == "declined"):
            continue
        if q["db"] not in contexts:
            engine = bnk.engine_for(q["db"])
            contexts[q["db"]] = BIContext(engine, load(engine.name, engine), None)
        steps = [st[:600] for st in q.get("steps", []) if st.startswith(("resolve_entities", "map_fields", "plan"))]
        row = {
            "set": s,
            "db": q["db"],
            "question": q["question"],
            "status": q["status"],
            "label": label.get(q["question"], ""),
            "shape_now": d.shape_decline(contexts[q["db"]], q["question"]),
            "sql": q.get("sql"),
            "answer": (q.get("answer") or "")[:200],
            "steps": steps,
        }
        (leaks if unanswerable else over).append(row)
    Path(out_path).write_text(json.dumps({"leaks": leaks, "answerable_declined": over}, indent=1))
    print(f"{len(leaks)} unanswerable answered, {len(over)} answerable declined; written to {out_path}")


if __name__ == "__main__":
    main(sys.argv[1])
