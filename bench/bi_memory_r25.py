"""Round 25 of the approved memory (issue 26): a person's kept field answer with asking OFF. Round 61's ask sample
(bench/bi_r61_ask.py: its sample, its simulated user; with asking off every one was declined by the field judgment)
as two phases on one store:

- phase 1 (asking on): each field question answered by the simulated user and kept (`ExampleMemory.keep_field`);
- phase 2 (asking off, each question a new session, on a copy of phase 1's store): run once with the code at
  $ORRERY_MAIN (PYTHONPATH=$ORRERY_MAIN: before) and once with this code (after). Then `VARIANTS`: a kept term
  written in the same normal form, and in other words (asking off): is the person's answer reused?

Counted per phase: right (bench/bi.py's `scored`), field declines ('no field or value' / 'you said the data does
not hold'), seconds per question.

    PYTHONPATH=$PWD nice -n 5 python bench/bi_memory_r25.py --phase 1 --store /tmp/m25/s.db --out OUT.json
    cp /tmp/m25/s.db /tmp/m25/main.db; PYTHONPATH=$ORRERY_MAIN nice -n 5 python bench/bi_memory_r25.py --phase 2 \
        --store /tmp/m25/main.db --out MAIN.json    (and the same with PYTHONPATH=$PWD on another copy)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402

ASKED = re.compile(r"has no field named '(.*?)'")
FIELD_DECLINE = re.compile(r"no field or value for|you said the data does not hold")
# (db, question, the kept term it names, whether in the kept term's normal form): written for this check, after
# phase 1's kept terms were known from round 24 (world 'kid per woman' -> indicators.fertility; tpch 'shipping
# method' -> not held)
VARIANTS = [
    ("world", "Brazil's Kids Per Woman in 1995", "kid per woman", True),
    ("world", "Brazil's children per woman in 1995", "kid per woman", False),
    ("tpch", "number of line items per Shipping Methods in 1996", "shipping method", True),
    ("tpch", "number of line items per ship mode in 1996", "shipping method", False),
]


def run_one(model: Any, engine: Any, store: str, session: str, question: str, clarify: bool, gold: str) -> dict:
    from orrery.bi.agent import BIAgent
    from orrery.bi.examples import use_examples

    r61 = _load("bi_r61_ask")
    t0 = time.perf_counter()
    agent = BIAgent(model, engine, store=store, session_id=session, clarify=clarify, prose=False)
    use_examples(agent, store, embedder=None)
    answer, said, asked = agent.ask(question), [], []
    while answer.status == "paused" and answer.clarification and len(said) < r61.ROUNDS:
        asked += ASKED.findall(answer.clarification)
        said.append(r61.reply(answer.clarification, gold))
        answer = agent.ask(said[-1])
    return {
        "status": answer.status,
        "sql": answer.sql,
        "rows": answer.rows,
        "said": said,
        "asked": asked,
        "field_decline": bool(answer.status == "declined" and FIELD_DECLINE.search(answer.answer)),
        "answer": answer.answer[:300],
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main() -> None:
    from bi import scored

    from orrery.llm import resolve_model

    p = argparse.ArgumentParser()
    p.add_argument("--phase", type=int, choices=(1, 2), required=True)
    p.add_argument("--store", required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--limit", type=int, default=None)
    args = p.parse_args()
    bnk, r61 = _load("bi_nokeys"), _load("bi_r61_ask")
    qs = r61.sample()[: args.limit]
    model, engines, rows = resolve_model("local"), {}, []
    engine = lambda db: engines.get(db) or engines.setdefault(db, bnk.engine_for(db))  # noqa: E731
    for i, item in enumerate(qs):
        out = run_one(
            model, engine(item["db"]), args.store, f"p{args.phase}q{i}", item["question"], args.phase == 1, item["gold"]
        )
        out["correct"] = scored(item, engine(item["db"]), out["status"], out["sql"], out.pop("rows"))
        rows.append({**item, **out})
        print(
            f"[{i + 1}/{len(qs)}] {'OK ' if out['correct'] else 'BAD'} {item['db']:8} {item['question'][:60]} "
            f"asked={out['asked']} said={out['said']} -> {out['status']} {out['answer'][:100]!r}",
            flush=True,
        )
    variants = []
    if args.phase == 2:
        for i, (db, question, term, same) in enumerate(VARIANTS):
            out = run_one(model, engine(db), args.store, f"v{i}", question, False, "")
            out.pop("rows")
            variants.append({"db": db, "question": question, "term": term, "same_normal_form": same, **out})
            print(
                f"[variant {i + 1}] {db} {question} -> {out['status']} {out['sql']} {out['answer'][:100]!r}", flush=True
            )
    summary = {
        "phase": args.phase,
        "right": sum(r["correct"] for r in rows),
        "field_declines": sum(r["field_decline"] for r in rows),
        "field_declines_of_answerable": sum(r["field_decline"] for r in rows if r.get("answerable", True)),
        "seconds_per_question": round(sum(r["seconds"] for r in rows) / max(len(rows), 1), 1),
    }
    args.out.write_text(json.dumps({**summary, "rows": rows, "variants": variants}, indent=1, default=str))
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
