"""Round 71's measure (bench/bi_r71.md): entity resolution of the code on PYTHONPATH replayed, no model, on the stored
mentions of the `resolve_entities` step of the newest record of every question of the development sets
(`bi_recompose.newest`), with the question. `run` writes each question's resolved values (or its decline);
`compare` reads two such files (start's code, this branch's) against the gold's string conditions: values newly
found that the gold filters on (gains), values lost that it filters on, values newly added that it does not filter on,
and unanswerable questions newly resolved or no longer declined.

    PYTHONPATH=/work/wt/start python bench/bi_r71_replay.py run /tmp/r71/start.json
    PYTHONPATH=$PWD python bench/bi_r71_replay.py run /tmp/r71/here.json
    python bench/bi_r71_replay.py compare /tmp/r71/start.json /tmp/r71/here.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def run(out_path: str) -> None:
    from orrery.bi.tools import CannotAnswer

    recompose, bnk = _load("bi_recompose"), _load("bi_nokeys")
    out = []
    for s, q in recompose.newest():
        steps = [st for st in q.get("steps", []) if st.startswith("resolve_entities")]
        if not steps:
            continue
        mentions = [m for st in steps for m in recompose.RESOLVED.findall(st)]
        mentions = [m[0] for m in mentions] + [m for st in steps for m in recompose.unresolved_in(st)]
        row = {"set": s, "db": q["db"], "question": q["question"], "gold": q.get("gold"), "status": q["status"],
               "correct": bool(q.get("correct")), "sql": q.get("sql"), "mentions": mentions}  # fmt: skip
        try:
            row["resolved"] = recompose.resolved_again(q, bnk.context_for(q["db"]), mentions)
        except CannotAnswer as exc:
            row["declined"] = str(exc)
        out.append(row)
    Path(out_path).write_text(json.dumps(out, indent=1, default=str))
    print(len(out), "questions replayed")


def _literals(gold: Any) -> set[tuple[str, str]]:
    """(column, literal) of each string comparison of the gold SQL, lower-cased."""
    conditions = _load("bi_r67_dropped").conditions
    if not isinstance(gold, str):
        return set()
    try:
        return {(c.lower(), v.lower().strip("%")) for c, vs in conditions(gold) for v in vs}
    except Exception:  # noqa: BLE001 - a gold the parser cannot read has no conditions to count
        return set()


def _found(row: dict[str, Any]) -> set[tuple[str, str]]:
    return {(r["column"].lower(), str(r["value"]).lower()) for r in row.get("resolved", [])}


def _kinds(s: dict[str, Any], r: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind, detail) of each change between start's replay `s` and this branch's `r` of one question."""
    before, after, gold = _found(s), _found(r), _literals(r["gold"])
    if not r["gold"]:
        out = [("unanswerable: no longer declined", "")] if "declined" in s and "declined" not in r else []
        return out + ([("unanswerable: newly resolved", str(sorted(after - before)))] if after - before else [])
    kind = "right" if r["correct"] else r["status"] if r["status"] == "declined" else "wrong"
    out = [
        (f"gain ({kind})", {v for v in after - before if v in gold}),
        (f"lost gold value ({kind})", {v for v in before - after if v in gold}),
        (f"added, not gold ({kind})", {v for v in after - before if v not in gold}),
    ]
    out = [(k, str(sorted(v))) for k, v in out if v]
    return out + ([(f"newly declined ({kind})", r["declined"])] if "declined" in r and "declined" not in s else [])


def compare(start_path: str, here_path: str) -> None:
    start = {(r["set"], r["question"]): r for r in json.loads(Path(start_path).read_text())}
    tally: dict[str, list[str]] = {}
    for r in json.loads(Path(here_path).read_text()):
        for kind, detail in _kinds(start[(r["set"], r["question"])], r):
            tally.setdefault(kind, []).append(f"{r['set']} | {r['db']} | {r['question']} | {detail}")
    for k, rows in sorted(tally.items()):
        print(f"{k}: {len(rows)}")
        for line in rows:
            print("   ", line)


if __name__ == "__main__":
    {"run": run, "compare": compare}[sys.argv[1]](*sys.argv[2:])
