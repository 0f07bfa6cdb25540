"""Round 62: the three unanswerable questions of held-out #1 answered since e036912 (#14, #49, #65) and the
answerable questions of their shapes, read by the shape check (`shape_decline`) and by field mapping's judgment of
the term (`missing_fields`), no model. Run once with the code before round 62 and once with this branch's:

    PYTHONPATH=/path/to/base python bench/bi_r62_three.py
    PYTHONPATH=$PWD python bench/bi_r62_three.py

Loads bench/bi_nokeys.py by path (bench/mcp.py would shadow the `mcp` package).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as load_bench  # noqa: E402

QUESTIONS = [  # (database, question, the term field mapping would judge, answerable)
    ("tpch", "What is the fuel cost of each shipment?", "fuel cost", False),
    ("chinook", "How many stars did customers give each track in reviews?", "stars", False),
    ("tpch", "How many returns were caused by damaged packaging?", "damaged packaging", False),
    ("tpch", "What is the supply cost per part?", "supply cost", True),
    ("tpch", "What is the highest supply cost of any part?", "supply cost", True),
    ("chinook", "How many tracks are called Stars?", "tracks", True),
    ("chinook", "How many genres are there?", "genres", True),
    ("tpch", "What is the package type of each part?", "package type", True),
    ("tpch", "Which ship mode is used most often?", "ship mode", True),
    ("tpch", "How many orders were shipped by air?", "orders", True),
]


def main() -> None:
    from orrery.bi import decline as d
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    nk = load_bench("bi_nokeys")
    contexts: dict[str, BIContext] = {}
    for db, question, term, answerable in QUESTIONS:
        if db not in contexts:
            engine = nk.engine_for(db)
            contexts[db] = BIContext(engine, load(engine.name, engine), None)
        bi = contexts[db]
        reason = d.shape_decline(bi, question)
        kind = "answerable" if answerable else "UNANSWERABLE"
        print(f"{kind:12} {'DECLINED' if reason else 'passes  '} {question}")
        print(f"{'':12} shape: {reason}; missing_fields({term!r}): {d.missing_fields(bi, [term], question)}")


if __name__ == "__main__":
    main()
