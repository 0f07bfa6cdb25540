"""Round 24 (bench/bi_memory_r24.md): a no-model replay of keeping a person's answer to the field question, on
round 61's ask sample (bi_r61_ask.sample). Pass 1: each askable missing term of each question (`missing_asked`,
the shape path) is asked by `tools.ask_field` and answered by round 61's simulated user (`bi_r61_ask.reply`), all on
one memory store. Pass 2: a fresh context on the same store, the same terms again, and the terms of every other
development question on the same database with the same normal form. Written to results/bi_memory_r24.json.

    PYTHONPATH=$PWD nice -n 10 timeout 900 python bench/bi_memory_r24.py
"""

from __future__ import annotations

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


def context(engine: Any, store: Path) -> Any:
    """A new run's context on `engine`, asking on, with the memory store `store`."""
    from orrery.bi.context import BIContext
    from orrery.bi.examples import ExampleMemory, open_examples
    from orrery.bi.semantic import load

    bi = BIContext(engine, load(engine.name, engine), None)
    bi.clarify, bi.approved = True, ExampleMemory(open_examples(store, embedder=None))
    return bi


def terms(bi: Any, question: str) -> list[str]:
    from orrery.bi.decline import askable, missing_asked, read_typos

    return [t for t in missing_asked(bi, read_typos(bi, question)) if askable(bi, [t])]


def ask(bi: Any, term: str, answer: str | None) -> tuple[str, str]:
    """('asked', the question) / ('mapped', column) / ('declined', reason) of one `ask_field` call."""
    from orrery.bi.tools import CannotAnswer, ask_field
    from orrery.tools.core import NeedsClarification

    try:
        got = ask_field(bi, term, answer)
    except NeedsClarification as exc:
        return "asked", str(exc)
    except CannotAnswer as exc:
        return "declined", str(exc)
    return "mapped", f"{got['table']}.{got['column']}"


def _as_said(said: str, column: str | None) -> bool:
    from orrery.bi.tools import NOT_HELD

    return said == (column or NOT_HELD)


def _read_by(gold: str, column: str | None) -> bool:
    """The kept column is one the gold SQL reads; 'not held' counts as right (the user said none of the nearest
    columns is read by the gold)."""
    return column is None or re.search(rf"\b{re.escape(column.split('.')[-1].lower())}\b", gold.lower()) is not None


def main() -> None:
    from orrery.bi.examples import field_answers, field_term, keepable

    bnk, r61 = _load("bi_nokeys"), _load("bi_r61_ask")
    store = Path(tempfile.mkdtemp(prefix="bi-r24-")) / "memory.db"
    engines: dict[str, Any] = {}
    engine = lambda db: engines.get(db) or engines.setdefault(db, bnk.engine_for(db))  # noqa: E731
    first, second = [], []
    sample = r61.sample()
    for item in sample:
        t0, bi = time.perf_counter(), context(engine(item["db"]), store)
        for term in terms(bi, item["question"]):
            state, text = ask(bi, term, None)
            said = r61.reply(text, item["gold"]) if state == "asked" else None
            after = ask(bi, term, said) if said else (state, text)
            first.append(
                {
                    "db": item["db"],
                    "question": item["question"],
                    "term": term,
                    "first": state,
                    "said": said,
                    "result": after[0],
                    "column": after[1] if after[0] == "mapped" else None,
                }
            )
        first[-1:] and first[-1].update(seconds=round(time.perf_counter() - t0, 2))
    kept = {db: field_answers(context(engine(db), store).approved.examples, db) for db in {i["db"] for i in sample}}
    normal = {(r["db"], field_term(r["term"])) for r in first if keepable(r["term"])}
    others = [
        q
        for s in bnk.SETS
        if not bnk.pending(s)
        for q in bnk.items(s)
        if q["db"] in kept and q["question"] not in {i["question"] for i in sample}
    ]
    again = [*sample, *others]
    for item in again:
        t0, bi = time.perf_counter(), context(engine(item["db"]), store)
        for term in terms(bi, item["question"]):
            if not keepable(term) or (item["db"], field_term(term)) not in normal:
                continue
            state, text = ask(bi, term, None)
            second.append(
                {
                    "db": item["db"],
                    "question": item["question"],
                    "term": term,
                    "state": state,
                    "text": text[:200],
                    "same_question": item in sample,
                    "seconds": round(time.perf_counter() - t0, 2),
                }
            )
    said = {(r["db"], field_term(r["term"])): r for r in first if r["said"] and keepable(r["term"])}
    gold = {(i["db"], i["question"]): i["gold"] for i in sample}
    checked = [(said.get((db, a.term)), a) for db, answers in kept.items() for a in answers]
    out = {
        "sample": len(sample),
        "asked_first": sum(r["first"] == "asked" for r in first),
        "kept": sum(len(a) for a in kept.values()),
        "kept_as_said": sum(r is not None and _as_said(r["said"], a.column) for r, a in checked),
        "kept_read_by_gold": sum(
            r is not None and _read_by(gold[r["db"], r["question"]], a.column) for r, a in checked
        ),
        "second_terms": len(second),
        "second_same_questions": sum(r["same_question"] for r in second),
        "asked_again": sum(r["state"] == "asked" for r in second),
        "asked_again_same": sum(r["state"] == "asked" and r["same_question"] for r in second),
        "first": first,
        "second": second,
        "kept_answers": {db: [a.__dict__ for a in answers] for db, answers in kept.items()},
    }
    (HERE / "results" / "bi_memory_r24.json").write_text(json.dumps(out, indent=1))
    print(json.dumps({k: v for k, v in out.items() if not isinstance(v, list | dict)}, indent=1))


if __name__ == "__main__":
    main()
