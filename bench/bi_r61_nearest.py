"""Round 61's measure (no model): for each term of an answerable question the field judgment declines today (round
58's population, results/bi_r58_fit.json), whether the columns a decline now names (`decline.nearest_columns`: the
three nearest the term's meaning, keys aside) hold one the gold SQL reads; the same count over the unanswerable ones
says how often a decline of a question the data cannot answer offers a column anyway (always, by design: the nearest
is a suggestion, not a claim).

    PYTHONPATH=$PWD python bench/bi_r61_nearest.py
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from bi_r58_nearest import _load  # noqa: E402


def main() -> None:
    from orrery.bi.decline import nearest_columns
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    bnk, fields, contexts = _load("bi_nokeys"), _load("bi_r55_fields"), {}
    gold = {(q["db"], q["question"]): q["gold"] for s in bnk.SETS if not bnk.pending(s) for q in bnk.items(s)}
    gold |= {(q["db"], q["question"]): q["gold"] for _, q in fields.declines()}
    data = json.loads((HERE / "results" / "bi_r58_fit.json").read_text())
    counts, seen = Counter(), set()
    for it in data["items"]:
        if not (it["answerable"] and it["declined"] and not it["other"]):
            continue
        if it["db"] not in contexts:
            engine = bnk.engine_for(it["db"])
            contexts[it["db"]] = BIContext(engine, load(engine.name, engine), None)
        sql = (gold.get((it["db"], it["question"])) or "").lower()
        for term in it["terms"]:
            if (it["db"], it["question"], term) in seen:
                continue
            seen.add((it["db"], it["question"], term))
            near = nearest_columns(contexts[it["db"]], term)
            hit = [i for i, c in enumerate(near) if re.search(rf"\b{re.escape(c.split('.')[1].lower())}\b", sql)]
            counts["first" if hit and hit[0] == 0 else "second or third" if hit else "none of three"] += 1
            print(f"{it['db']:9} {term[:30]:30} {', '.join(near)[:70]:70} {hit[0] + 1 if hit else '-'}")
    print(dict(counts), "of", sum(counts.values()))


if __name__ == "__main__":
    main()
