"""Round 24 with the model (bench/bi_memory_r24.md): round 61's ask sample (bi_r61_ask.sample) as a session of two
passes on one memory store; pass 1 as bi_r61_ask (the simulated user answers), pass 2 the same questions again on
new agents (a new conversation each). Counts the questions asked the field question again in pass 2 (goal 0).
Written after each question to results/bi_memory_r24_model.json.

    PYTHONPATH=$PWD nice -n 10 timeout 900 python bench/bi_memory_r24_model.py
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def main() -> None:
    from bi import scored

    from orrery.bi.agent import BIAgent
    from orrery.bi.examples import use_examples
    from orrery.llm import resolve_model

    bnk, r61 = _load("bi_nokeys"), _load("bi_r61_ask")
    qs, model, engines, rows = r61.sample(), resolve_model("local"), {}, []
    tmp = Path(tempfile.mkdtemp(prefix="bi-r24m-"))
    out = HERE / "results" / "bi_memory_r24_model.json"
    for n, item in [(n, item) for n in (1, 2) for item in qs]:
        engine = engines.get(item["db"]) or engines.setdefault(item["db"], bnk.engine_for(item["db"]))
        t0 = time.perf_counter()
        agent = BIAgent(model, engine, store=tmp / "s.db", session_id=f"p{n}q{len(rows)}", clarify=True, prose=False)
        use_examples(agent, tmp / "memory.db", embedder=None)
        answer, said, asked = agent.ask(item["question"]), [], []
        while answer.status == "paused" and answer.clarification and len(said) < r61.ROUNDS:
            asked.append(bool(r61.FIELD_QUESTION.search(answer.clarification)))
            said.append(r61.reply(answer.clarification, item["gold"]))
            answer = agent.ask(said[-1])
        correct = scored(item, engine, answer.status, answer.sql, answer.rows)
        rows.append(
            {
                **item,
                "pass": n,
                "status": answer.status,
                "sql": answer.sql,
                "correct": correct,
                "said": said,
                "field_asked": any(asked),
                "answer": answer.answer[:300],
                "seconds": round(time.perf_counter() - t0, 1),
            }
        )
        print(f"p{n} {'OK ' if correct else 'BAD'} {item['db']:8} {item['question']} {said} -> {answer.status}")
        summary = {
            f"pass{p}": {
                "run": len(r := [x for x in rows if x["pass"] == p]),
                "right": sum(x["correct"] for x in r),
                "field_asked": sum(x["field_asked"] for x in r),
                "seconds": round(sum(x["seconds"] for x in r), 1),
            }
            for p in (1, 2)
        }
        out.write_text(json.dumps({**summary, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
