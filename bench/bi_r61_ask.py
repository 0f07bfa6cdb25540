"""Round 61's model sample: a term no column holds, asked about instead of declined (asking on), answered by a user
who knows the data. The sample, fixed before its run: round 58's population of answerable questions the field
judgment declines today (results/bi_r58_fit.json: answerable, declined, no other cause), one per question, ordered
by (set, question), every `STEP`-th from the first. The user: asked which column a term means
('The data has no field named ...; do you mean A or B or C or none of these...?'), names the first option whose
column the gold SQL reads, else 'none of these'; any other question (which value, which join) is answered '1' (what
asking off takes). At most `ROUNDS` answers per question. Scored as bench/bi.py scores (`scored`); with asking off
every one of them declines (that is how the population was drawn), so the baseline is 0 right.

    PYTHONPATH=$PWD nice -n 10 timeout 900 python bench/bi_r61_ask.py [--limit N]
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

STEP = 6
ROUNDS = 3
FIELD_QUESTION = re.compile(r"has no field named .*?; do you mean: (.*)\?$", re.S)


def sample() -> list[dict[str, Any]]:
    bnk, fields = _load("bi_nokeys"), _load("bi_r55_fields")
    gold = {(q["db"], q["question"]): q["gold"] for s in bnk.SCORED for q in bnk.items(s)}
    gold |= {(q["db"], q["question"]): q["gold"] for _, q in fields.declines()}
    data = json.loads((HERE / "results" / "bi_r58_fit.json").read_text())
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for it in data["items"]:
        key = (it["db"], it["question"])
        if it["answerable"] and it["declined"] and not it["other"] and gold.get(key) and key not in seen:
            seen[key] = {"set": it["set"], "db": it["db"], "question": it["question"], "gold": gold[key]}
    ordered = sorted(seen.values(), key=lambda q: (q["set"], q["question"]))
    return ordered[::STEP]


def reply(clarification: str, gold: str) -> str:
    """What a user who knows the data answers."""
    from orrery.bi.tools import NOT_HELD

    m = FIELD_QUESTION.search(clarification)
    if not m:
        return "1"
    options = m.group(1).split(" or ")
    for option in options[:-1]:
        if re.search(rf"\b{re.escape(option.split('.')[-1].lower())}\b", gold.lower()):
            return option
    return NOT_HELD


def main() -> None:
    from bi import scored

    from orrery.bi.agent import BIAgent
    from orrery.llm import resolve_model

    p = argparse.ArgumentParser()
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--out", type=Path, default=HERE / "results" / "bi_r61_ask.json")
    args = p.parse_args()
    bnk = _load("bi_nokeys")
    qs = sample()[: args.limit]
    model, engines, rows = resolve_model("local"), {}, []
    sessions = tempfile.mkdtemp(prefix="bi-r61-")
    for i, item in enumerate(qs):
        engine = engines.get(item["db"]) or engines.setdefault(item["db"], bnk.engine_for(item["db"]))
        t0 = time.perf_counter()
        agent = BIAgent(model, engine, store=f"{sessions}/s.db", session_id=f"q{i}", clarify=True, prose=False)
        answer, said = agent.ask(item["question"]), []
        while answer.status == "paused" and answer.clarification and len(said) < ROUNDS:
            said.append(reply(answer.clarification, item["gold"]))
            answer = agent.ask(said[-1])
        correct = scored(item, engine, answer.status, answer.sql, answer.rows)
        rows.append(
            {
                **item,
                "status": answer.status,
                "sql": answer.sql,
                "correct": correct,
                "said": said,
                "answer": answer.answer[:300],
                "seconds": round(time.perf_counter() - t0, 1),
            }
        )
        print(
            f"[{i + 1}/{len(qs)}] {'OK ' if correct else 'BAD'} {item['db']:8} {item['question']} {said} -> {answer.status}"
        )
        args.out.write_text(
            json.dumps({"right": sum(r["correct"] for r in rows), "run": len(rows), "rows": rows}, indent=1)
        )


if __name__ == "__main__":
    main()
