"""Round 26 of the approved memory (issue 26): a person's kept field answer is read before any decline. A sample of
stored answerable questions (held-out #11..#25, the newest record of each, `bi_recompose.newest`) that were declined
naming one field-like term ('the data has no field or value for X', 'the data holds no value like X'), each with the
column the gold SQL reads for that term: what a person who knows the data answers to "do you mean ...?".

Each question runs with asking OFF, each a new session, on a new store per arm:

- `empty`: nothing kept (the stored decline, as today);
- `kept`: the term kept -> the gold's column (`ExampleMemory.keep_field`) before the question;
- `not_held`: the term kept as 'not held' (the guard: it must decline at once, "you said the data does not hold").

Run `kept` with PYTHONPATH at the base code (before) and at this branch (after); `empty` and `not_held` here.

    PYTHONPATH=$PWD nice -n 5 python bench/bi_memory_r26.py --arm kept --out results/bi_memory_r26_kept_here.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402

FIELD_DECLINE = re.compile(r"no field or value for|holds no value|you said the data does not hold")
# (set, question, the term its stored decline names, the column the gold SQL reads for it): written from the
# stored records before any run of this script
SAMPLE = [
    ("heldout11", "Which halogen boils at the highest temperature?", "temperature", "phys_props.bp_k"),
    ("heldout12", "average births per woman for each region in 1970", "births per woman", "indicators.fertility"),
    (
        "heldout13",
        "Name the employee who is the support contact for the largest number of customers",
        "support contact",
        "Customer.SupportRepId",
    ),
    (
        "heldout13",
        "Which South Asian country had the most inhabitants in 1970?",
        "inhabitants",
        "indicators.population",
    ),
    (
        "heldout15",
        "in 1990 which african country south of the sahara had the most babies per woman",
        "babies",
        "indicators.fertility",
    ),
    ("heldout17", "at what temp in kelvin do gold, copper and iron melt", "temp", "phys_props.mp_k"),
    ("heldout19", "DL and UA, number of routes for each carrier", "carrier", "routes.Airline"),
    ("heldout23", "in ohio what county had the least joblessness in 09", "joblessness", "unemployment.rate"),
    ("heldout23", "metascore pulp fiction and fight club", "metascore", "omdb.Metacritic"),
    ("heldout23", "which major had the fewest women proportionally in 85", "major", "study_fields.field_nm"),
    ("heldout24", "two-year-old heifers, butterfat avg for each breed", "butterfat", "milk_samples.bf_pct"),
    ("heldout25", "ayrshire two-year-olds, avg fat content", "fat content", "milk_samples.bf_pct"),
    ("heldout7", "Which Christopher Nolan film has the lowest Tomatometer?", "Tomatometer", "tomatoes.Meter"),
    ("heldout7", "Which sub-category lost us the most money?", "money", "orders.profit"),
]


def stored() -> dict[tuple[str, str], dict[str, Any]]:
    """The newest stored record of each (set, question) (`bi_recompose.newest`: held-out sets not yet run left out)."""
    return {(s, q["question"]): q for s, q in _load("bi_recompose").newest()}


def run_one(model: Any, calls: list, engine: Any, store: str, item: dict[str, Any], arm: str) -> dict[str, Any]:
    from orrery.bi.agent import BIAgent
    from orrery.bi.examples import use_examples

    agent = use_examples(
        BIAgent(model, engine, store=store, session_id="q", clarify=False, prose=False), store, embedder=None
    )
    if arm != "empty":
        column = item["column"] if arm == "kept" else None
        agent.bi.approved.keep_field(engine.name, agent.bi.semantic, item["term"], column)
    t0, calls[:] = time.perf_counter(), []
    answer = agent.ask(item["question"])
    return {
        "status": answer.status,
        "sql": answer.sql,
        "rows": answer.rows,
        "field_decline": bool(answer.status == "declined" and FIELD_DECLINE.search(answer.answer)),
        "you_said": "you said the data does not hold" in answer.answer,
        "answer": answer.answer[:300],
        "model_calls": len(calls),
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main() -> None:
    from orrery.llm import resolve_model

    p = argparse.ArgumentParser()
    p.add_argument("--arm", choices=("empty", "kept", "not_held"), required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--limit", type=int, default=None)
    args = p.parse_args()
    from bi import scored  # after orrery is imported: bench/bi.py puts this checkout first on sys.path

    bnk, records = _load("bi_nokeys"), stored()
    model, engines, rows = resolve_model("local"), {}, []
    calls = bnk._count_calls(model)
    for i, (which, question, term, column) in enumerate(SAMPLE[: args.limit]):
        rec = records[(which, question)]
        item = {
            "set": which,
            "db": rec["db"],
            "question": question,
            "gold": rec["gold"],
            "term": term,
            "column": column,
        }
        engine = engines.get(item["db"]) or engines.setdefault(item["db"], bnk.engine_for(item["db"]))
        with tempfile.TemporaryDirectory() as tmp:
            out = run_one(model, calls, engine, f"{tmp}/s.db", item, args.arm)
        out["correct"] = scored(item, engine, out["status"], out["sql"], out.pop("rows"))
        out["stored_status"], out["stored_correct"] = rec["status"], rec["correct"]
        rows.append({**item, **out})
        print(
            f"[{i + 1}/{len(SAMPLE)}] {'OK ' if out['correct'] else 'BAD'} {item['db']:9} {question[:55]} "
            f"-> {out['status']} calls={out['model_calls']} {out['seconds']}s {out['answer'][:90]!r}",
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
        "seconds_per_question": round(sum(r["seconds"] for r in rows) / max(len(rows), 1), 1),
    }
    args.out.write_text(json.dumps({**summary, "rows": rows}, indent=1, default=str))
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
