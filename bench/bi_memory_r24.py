"""Round 24 of the approved memory (issue 26): round 61's ask sample (bench/bi_r61_ask.py: its sample, its simulated
user) run as a session of two passes on one store. Pass 1 answers as round 61 did; each person's answer to a field
question is kept (`ExampleMemory.keep_field`). Pass 2 asks the same questions again, each in a new session (no
choices of pass 1 carried but the kept ones). Counted: field questions asked in pass 2 and which of them ask a term
pass 1 kept (goal 0), right answers per pass, seconds per question per pass.

    PYTHONPATH=$PWD nice -n 10 timeout 900 python bench/bi_memory_r24.py [--limit N]
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

ASKED = re.compile(r"has no field named '(.*?)'")


def run_one(model: Any, engine: Any, store: str, session: str, item: dict[str, Any], r61: Any) -> dict[str, Any]:
    from bi import scored

    from orrery.bi.agent import BIAgent
    from orrery.bi.examples import use_examples

    t0 = time.perf_counter()
    agent = BIAgent(model, engine, store=store, session_id=session, clarify=True, prose=False)
    use_examples(agent, store, embedder=None)
    answer, said, asked = agent.ask(item["question"]), [], []
    while answer.status == "paused" and answer.clarification and len(said) < r61.ROUNDS:
        asked += ASKED.findall(answer.clarification)
        said.append(r61.reply(answer.clarification, item["gold"]))
        answer = agent.ask(said[-1])
    return {
        "status": answer.status,
        "correct": scored(item, engine, answer.status, answer.sql, answer.rows),
        "sql": answer.sql,
        "said": said,
        "asked": asked,
        "answer": answer.answer[:300],
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main() -> None:
    from orrery.bi.examples import ExampleMemory, field_term, open_examples
    from orrery.llm import resolve_model

    p = argparse.ArgumentParser()
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--out", type=Path, default=HERE / "results" / "bi_memory_r24.json")
    args = p.parse_args()
    bnk, r61 = _load("bi_nokeys"), _load("bi_r61_ask")
    qs = r61.sample()[: args.limit]
    model, engines = resolve_model("local"), {}
    store = f"{tempfile.mkdtemp(prefix='bi-m24-')}/s.db"
    rows: list[dict[str, Any]] = [dict(q) for q in qs]
    for npass in (1, 2):
        for i, item in enumerate(qs):
            engine = engines.get(item["db"]) or engines.setdefault(item["db"], bnk.engine_for(item["db"]))
            out = rows[i][f"pass{npass}"] = run_one(model, engine, store, f"p{npass}q{i}", item, r61)
            print(
                f"[pass {npass} {i + 1}/{len(qs)}] {'OK ' if out['correct'] else 'BAD'} {item['db']:8} "
                f"{item['question'][:60]} asked={out['asked']} said={out['said']} -> {out['status']}",
                flush=True,
            )
        memory = ExampleMemory(open_examples(store, embedder=None))
        kept = {(db, f.term) for db in engines for f in memory.fields(db)}
        summary = {
            f"pass{n}": {
                "right": sum(r[f"pass{n}"]["correct"] for r in rows if f"pass{n}" in r),
                "asked": sum(bool(r[f"pass{n}"]["asked"]) for r in rows if f"pass{n}" in r),
                "seconds_per_question": round(
                    sum(r[f"pass{n}"]["seconds"] for r in rows if f"pass{n}" in r) / max(len(rows), 1), 1
                ),
            }
            for n in range(1, npass + 1)
        }
        summary["kept"] = sorted(f"{db}: {t}" for db, t in kept)
        summary["asked_again_of_a_kept_term"] = sum(
            (r["db"], field_term(t)) in kept for r in rows if "pass2" in r for t in r["pass2"]["asked"]
        )
        args.out.write_text(json.dumps({**summary, "rows": rows}, indent=1))
        print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
