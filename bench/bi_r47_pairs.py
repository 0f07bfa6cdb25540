"""Round 47: small lookups under two key-like names, on every bench database (no model).

    python bench/bi_r47_pairs.py --pairs   # every (referring column, unique key) pair whose names are both key-like,
                                           # with fewer than MIN_DISTINCT sampled values and >= INCLUSION of them
                                           # found in the key: the rule it meets, the name evidence, the golds using it
    python bench/bi_r47_pairs.py --joins   # the joins `draft()` writes for each database (run under each code's
                                           # PYTHONPATH and compare)

Databases: chinook, tpch and every no-key database of bench/bi_nokeys_data.py. Golds: every answerable question of
`bi_nokeys.SETS` (#1..#20, all development data now).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))


def databases() -> list[str]:
    from bi_nokeys_data import BUILDERS

    return ["chinook", "tpch", *BUILDERS]


def golds() -> dict[str, list[str]]:
    from bi_nokeys import SCORED, items

    out: dict[str, list[str]] = {}
    for s in SCORED:
        for it in items(s):
            if it.get("gold"):
                out.setdefault(it["db"], []).append(it["gold"])
    return out


def _uses(sql: str, a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Whether a gold joins a.x to b.y: an equality between the two column names (qualified or not)."""
    x, y = re.escape(a[1]), re.escape(b[1])
    text = sql.lower()
    if a[0].lower() not in text or b[0].lower() not in text:
        return False
    pat = rf"(?:\w+\.)?{x.lower()}\s*=\s*(?:\w+\.)?{y.lower()}\b|(?:\w+\.)?{y.lower()}\s*=\s*(?:\w+\.)?{x.lower()}\b"
    return re.search(pat, text) is not None


def pairs() -> None:
    from bi_nokeys import engine_for

    from orrery.bi.joins import KEYISH, MIN_DISTINCT, _Checker, _family, rule_for
    from orrery.bi.profile import profile

    gold = golds()
    for db in databases():
        engine = engine_for(db)
        tables = engine.tables()
        samples = profile(engine, tables)
        check = _Checker(engine, samples)
        for a_table, cols in tables.items():
            for a in cols:
                held = samples[a_table].distinct(a.name)
                if not KEYISH.search(a.name) or not held or len(held) >= MIN_DISTINCT:
                    continue
                for b_table, bcols in tables.items():
                    for b in bcols:
                        if b_table == a_table or not KEYISH.search(b.name) or _family(a.type) != _family(b.type):
                            continue
                        if not check.unique(b_table, b.name):
                            continue
                        share, n = check.inclusion((a_table, a.name), (b_table, b.name))
                        if not n or share < 0.9:
                            continue
                        used = sum(_uses(g, (a_table, a.name), (b_table, b.name)) for g in gold.get(db, []))
                        print(
                            json.dumps(
                                {
                                    "db": db,
                                    "pair": f"{a_table}.{a.name} -> {b_table}.{b.name}",
                                    "rule": rule_for(a, b_table, b),
                                    "distinct": len(held),
                                    "lookup_rows": samples[b_table].count,
                                    "covers_lookup": held == samples[b_table].distinct(b.name),
                                    "repeats": not samples[a_table].unique(a.name),
                                    "golds_using": used,
                                }
                            )
                        )
        engine.close()


def joins() -> None:
    from bi_nokeys import engine_for

    from orrery.bi.semantic import draft

    for db in databases():
        engine = engine_for(db)
        sem = draft(engine)
        print(json.dumps({"db": db, "joins": sorted(sem.joins), "inferred": dict(sorted(sem.inferred.items()))}))
        engine.close()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--pairs", action="store_true")
    p.add_argument("--joins", action="store_true")
    args = p.parse_args()
    pairs() if args.pairs else joins()
