"""Round 65's measure (bench/bi.md, round 65): `decline.absent_mentions` of the code on PYTHONPATH replayed, no model, on
the unresolved mentions of the stored `resolve_entities` step of the newest record of every question of the
development sets (`bi_recompose.newest`): which unanswerable questions answered today it declines, and which
answerable ones not declined today it newly declines (each listed).

    PYTHONPATH=$PWD python bench/bi_r65_replay.py /tmp/r65/replay.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def main(out_path: str) -> None:
    from orrery.bi import decline as d
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    recompose, bnk = _load("bi_recompose"), _load("bi_nokeys")
    contexts: dict[str, Any] = {}
    tally: dict[str, list[dict[str, Any]]] = {}
    for s, q in recompose.newest():
        unresolved = [m for st in q.get("steps", []) if st.startswith("resolve_entities")
                      for m in recompose.unresolved_in(st)]  # fmt: skip
        if not unresolved:
            continue
        if q["db"] not in contexts:
            engine = bnk.engine_for(q["db"])
            contexts[q["db"]] = BIContext(engine, load(engine.name, engine), None)
        absent = d.absent_mentions(contexts[q["db"]], unresolved, q["question"])
        kind = ("answerable" if q.get("gold") else "unanswerable") + (
            " declined" if q["status"] == "declined" else " not declined"
        )
        row = {"set": s, "db": q["db"], "question": q["question"], "unresolved": unresolved, "absent": absent}
        tally.setdefault(f"{kind}: {'declines' if absent else 'passes'}", []).append(row)
    Path(out_path).write_text(json.dumps(tally, indent=1))
    for k, rows in sorted(tally.items()):
        print(f"{k}: {len(rows)}")
    for k in ("answerable not declined: declines", "unanswerable not declined: declines"):
        print(f"-- {k}")
        for r in tally.get(k, []):
            print(f"   {r['set']} | {r['db']} | {r['question']} | {r['absent']} of {r['unresolved']}")


if __name__ == "__main__":
    main(sys.argv[1])
