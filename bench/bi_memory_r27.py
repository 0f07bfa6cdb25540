"""Round 27 of the approved memory (issue 26): a kept answer found under other words. Round 26's sample
(bench/bi_memory_r26.py's SAMPLE: 14 stored answerable questions, each declined for one term, with the column the
gold SQL reads for it), each with its gold column kept under OTHER words (`paraphrase`: a phrasing of the term's
group in bench/bi_memory_r27_set.py), asking OFF, each question a new session on a new store with MiniLM.

Arms: `para` (the paraphrase kept -> the gold's column), run at the base code (PYTHONPATH=$ORRERY_MAIN) and at this
branch; `para_not_held` (the paraphrase kept as 'not held'). `--check`: no model, which questions the code reads
the paraphrase in (`ExampleMemory.said`).

    PYTHONPATH=$PWD nice -n 5 python bench/bi_memory_r27.py --arm para --out bench/results/bi_memory_r27_para_here.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402

# the group of bench/bi_memory_r27_set.py each sample term belongs to (written before any run of this script)
GROUP = {
    "temperature": "boiling point",
    "births per woman": "fertility",
    "support contact": "support rep",
    "inhabitants": "population",
    "babies": "fertility",
    "temp": "melting point",
    "carrier": "airline",
    "joblessness": "unemployment",
    "metascore": "metacritic",
    "major": "field of study",
    "butterfat": "butterfat",
    "fat content": "butterfat",
    "Tomatometer": "tomatometer",
    "money": "profit",
}


def paraphrase(term: str, question: str) -> str:
    """The first phrasing of the term's group that a person could keep (`field_term`), that does not say the term's
    words nor is said by the question (`_said_at`): the term kept under other words."""
    from orrery.bi.examples import _core, _said_at, field_term

    same = _load("bi_memory_r27_set").GROUPS[GROUP[term]]["same"]
    return next(
        p
        for p in same
        if field_term(p) is not None and not _said_at(_core(term), p) and not _said_at(_core(p), question)
    )


def counted(memory: Any) -> list[int]:
    """A counter of the store reads of kept answers (`store.items` of kind 'field')."""
    store, reads = memory.examples.store, [0]
    items = store.items

    def counting(*args: Any, **kwargs: Any) -> Any:
        reads[0] += "field" in (kwargs.get("kinds") or [])
        return items(*args, **kwargs)

    store.items = counting
    return reads


def run_one(model: Any, calls: list, engine: Any, store: str, item: dict[str, Any], arm: str) -> dict[str, Any]:
    from orrery.bi.agent import BIAgent
    from orrery.bi.examples import use_examples

    agent = use_examples(BIAgent(model, engine, store=store, session_id="q", clarify=False, prose=False), store)
    column = item["column"] if arm == "para" else None
    agent.bi.approved.keep_field(engine.name, agent.bi.semantic, item["kept"], column)
    reads = counted(agent.bi.approved)
    t0, calls[:] = time.perf_counter(), []
    answer = agent.ask(item["question"])
    return {
        "status": answer.status,
        "sql": answer.sql,
        "rows": answer.rows,
        "field_decline": bool(
            answer.status == "declined" and _load("bi_memory_r26").FIELD_DECLINE.search(answer.answer)
        ),
        "you_said": "you said the data does not hold" in answer.answer,
        "answer": answer.answer[:300],
        "model_calls": len(calls),
        "store_reads": reads[0],
        "seconds": round(time.perf_counter() - t0, 1),
    }


def check(items: list[dict[str, Any]], bnk: Any) -> None:
    """No model: whether the code reads each question's paraphrase (`said`)."""
    from orrery.bi.agent import BIAgent
    from orrery.bi.examples import use_examples
    from orrery.llm.scripted import ScriptedModel

    for item in items:
        engine = bnk.engine_for(item["db"])
        with tempfile.TemporaryDirectory() as tmp:
            agent = use_examples(BIAgent(ScriptedModel([]), engine, store=f"{tmp}/s.db", prose=False), f"{tmp}/s.db")
            memory, layer = agent.bi.approved, agent.bi.semantic
            memory.keep_field(engine.name, layer, item["kept"], item["column"])
            said = [(item["question"][a:b], k.term) for (a, b), k in memory.said(engine.name, layer, item["question"])]
        print(f"{item['term']!r:22} kept {item['kept']!r:22} said {said}", flush=True)


def main() -> None:
    from orrery.llm import resolve_model

    p = argparse.ArgumentParser()
    p.add_argument("--arm", choices=("para", "para_not_held"), default="para")
    p.add_argument("--out", type=Path)
    p.add_argument("--check", action="store_true")
    args = p.parse_args()
    from bi import scored  # after orrery is imported: bench/bi.py puts this checkout first on sys.path

    r26, bnk = _load("bi_memory_r26"), _load("bi_nokeys")
    records = r26.stored()
    items = []
    for which, question, term, column in r26.SAMPLE:
        rec = records[(which, question)]
        items.append(
            {
                "set": which,
                "db": rec["db"],
                "question": question,
                "gold": rec["gold"],
                "term": term,
                "kept": paraphrase(term, question),
                "column": column,
            }
        )
    if args.check:
        return check(items, bnk)
    model, engines, rows = resolve_model("local"), {}, []
    calls = bnk._count_calls(model)
    for i, item in enumerate(items):
        engine = engines.get(item["db"]) or engines.setdefault(item["db"], bnk.engine_for(item["db"]))
        with tempfile.TemporaryDirectory() as tmp:
            out = run_one(model, calls, engine, f"{tmp}/s.db", item, args.arm)
        out["correct"] = scored(item, engine, out["status"], out["sql"], out.pop("rows"))
        rows.append({**item, **out})
        print(
            f"[{i + 1}/{len(items)}] {'OK ' if out['correct'] else 'BAD'} {item['db']:9} {item['question'][:50]} "
            f"kept {item['kept']!r} -> {out['status']} calls={out['model_calls']} reads={out['store_reads']} "
            f"{out['seconds']}s {out['answer'][:80]!r}",
            flush=True,
        )
    summary = {
        "arm": args.arm,
        "code": sys.modules["orrery"].__file__,
        "questions": len(rows),
        "right": sum(r["correct"] for r in rows),
        "declined": sum(r["status"] == "declined" for r in rows),
        "field_declines": sum(r["field_decline"] for r in rows),
        "you_said": sum(r["you_said"] for r in rows),
        "no_model_call": sum(r["model_calls"] == 0 for r in rows),
        "store_reads_per_question": round(sum(r["store_reads"] for r in rows) / max(len(rows), 1), 1),
        "seconds_per_question": round(sum(r["seconds"] for r in rows) / max(len(rows), 1), 1),
    }
    args.out.write_text(json.dumps({**summary, "rows": rows}, indent=1, default=str))
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
