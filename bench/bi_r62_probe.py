"""Round 62: 24 questions of the shapes rules B and C2 read (a thing counted; a phrase after a copula), written
before their run, on chinook and tpch: does the shape check change between the code before round 62 and this
branch? (bench/bi.md, round 62)

    PYTHONPATH=<base or $PWD> python bench/bi_r62_probe.py

Loads bench/bi_nokeys.py by path (bench/mcp.py would shadow the `mcp` package).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).parent
Q = {
    "chinook": [
        "How many songs are there?",
        "How many songs does each album have?",
        "How many tunes are in each genre?",
        "How many bands are there?",
        "How many musicians are there?",
        "How many clients does each employee support?",
        "How many records did each artist release?",
        "How many hits does each artist have?",
        "How many playlists are there?",
        "How many tracks are sung in Portuguese?",
        "How many customers are located in Brazil?",
        "How many invoices were billed to Paris?",
    ],
    "tpch": [
        "How many vendors are there?",
        "How many shipments were made by truck?",
        "How many items were returned?",
        "How many lines does each order have?",
        "How many orders were shipped by rail in 1995?",
        "How many orders are marked urgent?",
        "How many parts are packed in a jumbo box?",
        "How many customers are in the building segment?",
        "How many suppliers are located in Germany?",
        "How many orders are still open?",
        "How many parts are made of polished brass?",
        "How many line items are delivered in person?",
    ],
}


def main() -> None:
    from orrery.bi import decline as d
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    spec = importlib.util.spec_from_file_location("bi_nokeys", HERE / "bi_nokeys.py")
    nk = importlib.util.module_from_spec(spec)
    sys.modules["bi_nokeys"] = nk
    spec.loader.exec_module(nk)
    for db, qs in Q.items():
        engine = nk.engine_for(db)
        bi = BIContext(engine, load(engine.name, engine), None)
        for q in qs:
            reason = d.shape_decline(bi, q)
            print(f"{'DECLINED' if reason else 'passes  '} {db}: {q} -> {reason}")


if __name__ == "__main__":
    main()
