"""Round 29 of the approved memory (issue 26): reusing an approved query (values swapped, no model call) for the
same question in other words. No model: for every question of the scored sets (`bi_nokeys.SCORED`, pending sets
left out), the memory is the right answers of the newest stored records (`bi_recompose.newest`: per (set,
question) the newest record, helpers' branch samples left out), approved per database with MiniLM vectors as
`grown` built it; leave-one-out (a question never reuses its own pair nor a pair of the same text). For each
question: does `reuse_approved` fire (with the stored entity step's resolved values and the agent's dry run), and
does the reused SQL's result equal the gold's (bench/bi.py's `same_result`)? A reuse for an unanswerable question
is wrong.

Run it once per code and compare:

    PYTHONPATH=/work/wt/start python bench/bi_memory_r29.py --out bench/results/bi_memory_r29_base.json
    PYTHONPATH=$PWD python bench/bi_memory_r29.py --out bench/results/bi_memory_r29_here.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def _resolved(record: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The values the stored entity step resolved (its text, as bi_recompose reads it)."""
    rec = _load("bi_recompose")
    steps = [st for st in (record or {}).get("steps", []) if st.startswith("resolve_entities")]
    return [
        {"mention": m[1], "table": m[2], "column": m[3], "value": json.loads(m[4])}
        for st in steps
        for m in rec.RESOLVED.finditer(st)
    ]


def memory_pairs(records: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, str, str]]:
    """(db, question, SQL) of each right stored answer to an answerable question, once each."""
    seen: set[tuple[str, str, str]] = set()
    for _, q in records:
        key = (q["db"], q["question"], q.get("sql") or "")
        if q.get("gold") and q.get("correct") in (True, "True") and key[2] and key not in seen:
            seen.add(key)
    return sorted(seen)


def measure(sets: tuple[str, ...]) -> list[dict[str, Any]]:
    from orrery.bi.examples import ExampleMemory, reuse_approved
    from orrery.bi.tools import dry_run
    from orrery.recall import ApprovedExamples
    from orrery.recall.embed import default_embedder

    bnk, rec, bi_bench = _load("bi_nokeys"), _load("bi_recompose"), _load("bi")
    records = rec.newest()
    by_key = {(s, q["question"]): q for s, q in records}
    pairs = memory_pairs(records)
    out: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        examples = ApprovedExamples(f"{tmp}/memory.db", embedder=default_embedder())
        for db, question, sql in pairs:
            examples.approve(db, question, sql)
        memory = ExampleMemory(examples, leave_one_out=True)
        for which in sets:
            for item in bnk.items(which):
                bi = bnk.context_for(item["db"])
                bi.approved, bi.notes, bi.question = memory, [], item["question"]
                checked = lambda s, bi=bi: dry_run(bi.engine, s, probe=bi.probe)  # noqa: E731
                record = by_key.get((which, item["question"]))
                got = reuse_approved(bi, item["question"], checked, _resolved(record))
                row = {"set": which, "db": item["db"], "question": item["question"], "answerable": bool(item["gold"])}
                row |= {"fired": got is not None, "right": None, "sql": None, "from": None}
                if got is not None:
                    row |= {"sql": got["sql"], "from": got["reused"]["question"], "values": got["reused"]["values"]}
                    row["right"] = bool(item["gold"]) and _same(bi_bench, bi.engine, got["sql"], item["gold"])
                out.append(row)
                if got is not None:
                    print(
                        f"{which:10} {row['right']!s:5} {item['question'][:60]!r} <- {row['from'][:60]!r}", flush=True
                    )
    return out


def _same(bi_bench: Any, engine: Any, sql: str, gold: str) -> bool:
    """bench/bi.py's scoring of a completed answer's rows against the gold's."""
    try:
        rows = engine.execute(sql).rows
    except Exception:  # noqa: BLE001 - a reused query that fails to run is a wrong answer
        return False
    item = {"gold": gold}
    return bi_bench.scored(item, engine, "completed", sql, [list(r) for r in rows])


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    per: dict[str, Counter] = {}
    for r in rows:
        c = per.setdefault(r["set"], Counter())
        c["questions"] += 1
        c["fired"] += r["fired"]
        c["right"] += bool(r["right"])
        c["wrong"] += r["fired"] and not r["right"]
        c["unanswerable_fired"] += r["fired"] and not r["answerable"]
    total = sum(per.values(), Counter())
    precision = total["right"] / total["fired"] if total["fired"] else None
    return {"total": dict(total), "precision": precision, "per_set": {k: dict(v) for k, v in per.items()}}


def main() -> None:
    import orrery

    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--set", action="append", default=[])
    args = p.parse_args()
    code = orrery.__file__
    sets = tuple(args.set) or _load("bi_nokeys").SCORED
    rows = measure(sets)
    assert sys.modules["orrery"].__file__ == code, "the measured orrery changed on import"
    result = {"code": code, **summary(rows), "rows": rows}
    args.out.write_text(json.dumps(result, indent=1, default=str))
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=1), flush=True)


if __name__ == "__main__":
    main()
