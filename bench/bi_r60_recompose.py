"""Round 60: the 11-22 SQL of every answered Chinook/TPC-H question (results/bi_heldout2.json, bi_heldout1_r2.json
and bi_heldout.json, bi_dev_r2.json and bi_dev.json: the latest of each question, as bench/bi_r60_compare.py reads
them) read back into parts and composed again by the orrery on PYTHONPATH (bench/bi_recompose.py's steps), no model:
does today's composer keep the 11-22 answers? A question whose verdict changes is a compose rule's doing.

    PYTHONPATH=$PWD python bench/bi_r60_recompose.py
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def main() -> None:
    from orrery.bi.compose import compose
    from orrery.bi.context import BIContext
    from orrery.bi.data import open_engine
    from orrery.bi.semantic import load

    rc, cmp = _load("bi_recompose"), _load("bi_r60_compare")
    sys.path.insert(0, str(HERE))
    from bi import scored

    contexts, kept, changed = {}, 0, []
    for which in ("heldout2", "heldout", "dev"):
        for q in cmp.stored(which).values():
            if not q.get("gold") or q["status"] not in ("completed", "answered") or not q.get("sql"):
                continue
            if q["db"] not in contexts:
                engine = open_engine(q["db"])
                contexts[q["db"]] = BIContext(engine=engine, semantic=load(engine.name, engine), model=None)
            bi = contexts[q["db"]]
            parts, tables = rc.parts_of(q["sql"], bi.engine.dialect)
            resolved = rc.resolved_of(q, q["sql"], bi, tables)
            sql = compose(parts, bi.semantic, tables, resolved, bi.engine.dialect, q["question"], bi.values)
            right = scored(q, bi.engine, "completed", sql, bi.engine.execute(sql).rows)
            if right == q["correct"]:
                kept += 1
            else:
                changed.append(
                    f"{which}: {q['question']}\n  11-22 ({q['correct']}): {q['sql']}\n  now ({right}): {sql}"
                )
    print(f"{kept} kept their verdict, {len(changed)} changed")
    print("\n".join(changed))


if __name__ == "__main__":
    main()
