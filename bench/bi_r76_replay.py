"""Round 76, no model: every stored right answer (the newest record per question, `bi_recompose.newest()`, sets of
`bi_nokeys.SCORED`) read back into parts (`bi_recompose.parts_of`), each part through the slice's SQL pattern
(`constrain.sql_pattern`; the slice: `semantic.retrieve(question)` plus the SQL's own tables): how many right answers
the pattern would have refused a part of (a loss bound: the model wrote those parts and the grammar would not have
let it), and which parts. Also every stored error's invented names: how many the pattern admits (should be none).

    PYTHONPATH=$PWD python bench/bi_r76_replay.py [--out X.json]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import loading  # noqa: E402


def main() -> None:
    from orrery.bi.constrain import sql_pattern

    p = argparse.ArgumentParser()
    p.add_argument("--out", default=None)
    args = p.parse_args()
    bnk, rec, r75 = loading.load("bi_nokeys"), loading.load("bi_recompose"), loading.load("bi_r75_replay")
    counts, refused = collections.Counter(), []
    for which, q in rec.newest():
        if which not in bnk.SCORED:
            continue
        bi = bnk.context_for(q["db"])
        if q["status"] == "error":
            slice_ = bi.semantic.retrieve(q["question"])
            pattern = sql_pattern(bi.semantic, slice_, aliases=True)
            for name in dict.fromkeys(r75.names(str(q["answer"]) + " " + str(q.get("steps", "")))):
                counts["invented name admitted" if re.fullmatch(pattern, name) else "invented name refused"] += 1
            continue
        if not (q["correct"] and q["status"] == "completed" and q.get("sql")):
            continue
        try:
            parts, tables = rec.parts_of(q["sql"], bi.engine.dialect)
        except Exception as exc:  # noqa: BLE001 -- a stored SQL sqlglot cannot read back is counted, not fatal
            counts[f"not read back ({type(exc).__name__})"] += 1
            continue
        slice_ = list(dict.fromkeys([*bi.semantic.retrieve(q["question"]), *tables]))
        slice_ = [t for t in slice_ if t in bi.semantic.tables]
        pattern = sql_pattern(bi.semantic, slice_, aliases=False)
        items = [s for k in ("select", "where", "group_by", "having", "order_by") for s in getattr(parts, k)]
        bad = [s for s in items if not re.fullmatch(pattern, s)]
        counts["right, every part admitted" if not bad else "right, a part refused"] += 1
        if bad:
            refused.append({"set": which, "question": q["question"], "refused": bad})
    print(json.dumps(counts, indent=1))
    for r in refused:
        print(r["set"], "|", r["question"][:60], "|", r["refused"])
    if args.out:
        Path(args.out).write_text(json.dumps({"counts": counts, "refused": refused}, indent=1))


if __name__ == "__main__":
    main()
