"""Round 70's diagnosis (no model): each term a stored 'no field' decline still declines (a replay of
`bench/bi_r55_fields.py`, its JSON), answerable against unanswerable, asked of `decline.counted_table` (rows counted
under another noun), with whether the question's gold is a COUNT(*).

    PYTHONPATH=$PWD python bench/bi_r70_rows.py results/bi_r55_fields_r70base.json
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from bi_r55_fields import _load, declines  # noqa: E402


def main() -> None:
    from orrery.bi import decline

    gold = {(s, q["question"]): q["gold"] or "" for s, q in declines()}
    bnk, counts = _load("bi_nokeys"), Counter()
    for r in json.loads(Path(sys.argv[1]).read_text()):
        if not r["stands"]:
            continue
        bi = bnk.context_for(r["db"])
        row_count = bool(re.search(r"count\(\s*\*\s*\)", gold[(r["set"], r["question"])], re.I))
        for t in r["still_missing"]:
            table = decline.counted_table(bi, t, r["question"])
            kind = "ans" if r["answerable"] else "un "
            counts[(kind, "count(*) gold" if row_count else "other", "held" if table else "-")] += 1
            mark = f"HELD by {table}" if table else ""
            print(f"{kind} {'C' if row_count else ' '} {r['db']:9} {r['set']:9} {t[:40]:40} {mark}")
    for k, n in sorted(counts.items()):
        print(k, n)


if __name__ == "__main__":
    main()
