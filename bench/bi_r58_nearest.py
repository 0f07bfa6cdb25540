"""Round 58's diagnostic (no model): for each term of an answerable question the field judgment declines today (the
population of bench/bi_r58_fit.py, results/bi_r58_fit.json), the column MiniLM puts nearest the term's meaning words
(`decline._meaning_scores`, column targets only) and its rank among the columns, and whether the gold SQL reads that
column: does MiniLM know where the paraphrase lives, even when no threshold can say so?

    PYTHONPATH=$PWD python bench/bi_r58_nearest.py
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def column_ranking(bi: Any, term: str) -> list[str]:
    """The columns by their best cosine to the term's meaning words, best first."""
    from orrery.bi import decline

    scores = decline._meaning_scores(bi, term)
    best: dict[str, float] = {}
    for score, target in zip(scores, decline._layer_texts(bi)[1], strict=True):
        if set(target) == {"table", "column"}:
            best[target["column"]] = max(best.get(target["column"], -1.0), float(score))
    return sorted(best, key=lambda c: -best[c])


def declined_terms() -> Iterator[tuple[str, str, str, Any, str]]:
    """Each (database, question, term, its BIContext, the gold SQL lower-cased) of round 58's population: a term of
    an answerable question the field judgment declines today, once each."""
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    sys.path.insert(0, str(HERE))
    bnk, fields, contexts = _load("bi_nokeys"), _load("bi_r55_fields"), {}
    gold = {(q["db"], q["question"]): q["gold"] for s in bnk.SCORED for q in bnk.items(s)}
    gold |= {(q["db"], q["question"]): q["gold"] for _, q in fields.declines()}
    data = json.loads((HERE / "results" / "bi_r58_fit.json").read_text())
    seen = set()
    for it in data["items"]:
        if not (it["answerable"] and it["declined"] and not it["other"]):
            continue
        if it["db"] not in contexts:
            engine = bnk.engine_for(it["db"])
            contexts[it["db"]] = BIContext(engine, load(engine.name, engine), None)
        for term in it["terms"]:
            if (it["db"], it["question"], term) not in seen:
                seen.add((it["db"], it["question"], term))
                yield (
                    it["db"],
                    it["question"],
                    term,
                    contexts[it["db"]],
                    (gold.get((it["db"], it["question"])) or "").lower(),
                )


def main() -> None:
    ranks = Counter()
    for db, _, term, bi, sql in declined_terms():
        ranking = column_ranking(bi, term)
        read = [i for i, c in enumerate(ranking) if re.search(rf"\b{re.escape(c.lower())}\b", sql)]
        first = read[0] + 1 if read else None
        ranks["1" if first == 1 else "2-3" if first and first <= 3 else ">3" if first else "none read"] += 1
        print(f"{db:9} {term[:30]:30} nearest {ranking[0]:18} gold's best rank {first}")
    print(dict(ranks))


if __name__ == "__main__":
    main()
