"""Round 61's measure (no model): for each term of an answerable question the field judgment declines today (round
58's population, results/bi_r58_fit.json), whether the columns a decline now names (`decline.nearest_columns`: the
three nearest the term's meaning, keys aside) hold one the gold SQL reads; the same count over the unanswerable ones
says how often a decline of a question the data cannot answer offers a column anyway (always, by design: the nearest
is a suggestion, not a claim).

    PYTHONPATH=$PWD python bench/bi_r61_nearest.py
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from bi_r58_nearest import declined_terms  # noqa: E402


def main() -> None:
    from orrery.bi.decline import nearest_columns

    counts = Counter()
    for db, _, term, bi, sql in declined_terms():
        near = nearest_columns(bi, term)
        hit = [i for i, c in enumerate(near) if re.search(rf"\b{re.escape(c.split('.')[1].lower())}\b", sql)]
        counts["first" if hit and hit[0] == 0 else "second or third" if hit else "none of three"] += 1
        print(f"{db:9} {term[:30]:30} {', '.join(near)[:70]:70} {hit[0] + 1 if hit else '-'}")
    print(dict(counts), "of", sum(counts.values()))


if __name__ == "__main__":
    main()
