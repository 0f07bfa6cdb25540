"""Round 71's model sample, fixed by rule before any model call: the answerable questions answered wrong or declined
whose gold condition the replay newly finds (`bench/bi_r71_replay.py compare` output: 'gain (wrong)' and 'gain
(declined)'), one per (set, database) pair, at most two per database, then the right-answer and unanswerable
questions that now resolve a value (controls). Prints one line per set: `SET i,j,k` (1-based numbers of
`bi_nokeys.items`).

    python bench/bi_r71_sample.py bench/results/bi_r71_replay_v3.txt
"""

from __future__ import annotations

import collections
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402

PER_DB = 2


def main(compare_path: str) -> None:
    rows: dict[str, list[tuple[str, str, str]]] = {}
    kind = ""
    for line in Path(compare_path).read_text().splitlines():
        if not line.startswith(" "):
            kind = line.rsplit(":", 1)[0]
            continue
        s, db, question, _ = (p.strip() for p in line.split(" | ", 3))
        rows.setdefault(kind, []).append((s, db, question))
    per_db: collections.Counter[str] = collections.Counter()
    chosen = []
    for s, db, question in rows.get("gain (wrong)", []) + rows.get("gain (declined)", []):
        if per_db[db] < PER_DB:
            per_db[db] += 1
            chosen.append((s, question))
    chosen += [(s, q) for k in ("gain (right)", "unanswerable: newly resolved") for s, _, q in rows.get(k, [])]
    bnk, picked = _load("bi_nokeys"), collections.defaultdict(list)
    for s, question in chosen:
        picked[s].append(next(i for i, it in enumerate(bnk.items(s), 1) if it["question"] == question))
    for s, ns in sorted(picked.items(), key=lambda p: int(re.sub(r"\D", "", p[0]) or 0)):
        print(s, ",".join(map(str, sorted(ns))))


if __name__ == "__main__":
    main(sys.argv[1])
