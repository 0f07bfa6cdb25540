"""Round 29's diagnosis (no model): each question of the scored sets whose gold query is an approved query's template
(bench/bi_memory_ceiling.py: literals abstracted) of another question text of its database, the memory being
bench/bi_memory_r29.py's (right answers of the newest stored records). Lists (question, approved question) so the
word differences can be classed (`classify`: the closest of its pairs, read by words alone with the base's
readers of shape, condition and direction); `--out` writes them, with the class counts."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    from bi_memory_ceiling import same_question, sql_facts

    bnk, rec, r29 = _load("bi_nokeys"), _load("bi_recompose"), _load("bi_memory_r29")
    mem = _load("bi_memory")
    records = rec.newest()
    gold_of = {(q["db"], q["question"]): q.get("gold") for _, q in records}
    pairs = r29.memory_pairs(records)
    schemas, dialects, templates = {}, {}, {}
    for db, question, sql in pairs:
        if db not in schemas:
            schemas[db], dialects[db] = mem._schema(db), bnk.engine_for(db).dialect
        for s in (sql, gold_of.get((db, question))):
            f = sql_facts(s, schemas[db], dialects[db]) if s else None
            if f:
                templates.setdefault((db, f["template"]), set()).add(question)
    out, seen = [], set()
    for which in bnk.SCORED:
        for item in bnk.items(which):
            if not item["gold"] or item["db"] not in schemas or (item["db"], item["question"]) in seen:
                continue
            seen.add((item["db"], item["question"]))
            f = sql_facts(item["gold"], schemas[item["db"]], dialects[item["db"]])
            near = sorted(
                q
                for q in templates.get((item["db"], f["template"]) if f else (), set())
                if not same_question(q, item["question"])
            )
            if near:
                out.append({"set": which, "db": item["db"], "question": item["question"], "approved": near})
    for r in out:
        r["class"] = min((classify(a, r["question"]) for a in r["approved"]), key=ORDER.index)
    counts = {c: sum(r["class"] == c for r in out) for c in ORDER}
    args.out.write_text(json.dumps({"counts": counts, "questions": out}, indent=1))
    print(len(out), "questions with a template pair of another text", counts)


ORDER = ("same words", "one word each side", "reading differs", "more words differ")
FILLER = {"s", "many", "much", "number", "count", "total", "sum", "average", "avg", "mean", "pls", "please", "again"}


def classify(approved: str, question: str) -> str:
    """How far a question's words are from an approved question's with the same gold template, values aside
    (each side's capitalised words, numbers and words the other side lacks count as differences)."""
    from orrery.bi.decline import GRAMMAR
    from orrery.bi.examples import condition, direction, shape
    from orrery.bi.names import singular

    a, q = approved.lower(), question.lower()
    if shape(a) != shape(q) or condition(a) != condition(q) or direction(a) != direction(q):
        return "reading differs"

    def content(text: str) -> set[str]:
        return {singular(w) for w in re.findall(r"[a-z]+", text) if w not in GRAMMAR | FILLER}

    only_a, only_q = content(a) - content(q), content(q) - content(a)
    values = max(len(re.findall(r"\b[A-Z][a-z]+|\d+", approved)), 1)
    if len(only_a) <= values and len(only_q) <= values:
        return "same words"
    return "one word each side" if len(only_a) <= values + 1 and len(only_q) <= values + 1 else "more words differ"


if __name__ == "__main__":
    main()
