"""Round 63: the joins every gold SQL uses vs the joins the drafted layer infers, per bench database (no model).

    python bench/bi_r63_joins.py --out bench/results/bi_r63_joins_<tag>.json   # run under each code's PYTHONPATH
    python bench/bi_r63_joins.py --errors                                      # stored 'no join path' errors

A gold join is an equality `a.x = b.y` between columns of two tables (sqlglot, aliases resolved); it is found
when the drafted layer has the same pair of columns (either direction). For a missed one, `why` names the check
that rejects it (the referenced column's uniqueness, the inclusion share, MIN_DISTINCT / reach, no name rule and
no value candidate). Databases: chinook, tpch and every no-key database of bench/bi_nokeys_data.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import sqlglot
from sqlglot import exp

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))


def gold_joins() -> dict[str, dict[frozenset, int]]:
    """Per database: each pair of (table, column) ends a gold equates, with the number of golds using it."""
    from bi_nokeys import SCORED, items

    out: dict[str, dict[frozenset, int]] = {}
    for s in SCORED:
        for it in items(s):
            if it.get("gold"):
                for pair in _equalities(it["gold"]):
                    per = out.setdefault(it["db"], {})
                    per[pair] = per.get(pair, 0) + 1
    return out


def _equalities(sql: str) -> set[frozenset]:
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.ParseError:
        return set()
    out = set()
    for select in tree.find_all(exp.Select):
        alias = {}
        for t in select.find_all(exp.Table):
            alias[(t.alias_or_name).lower()] = t.name.lower()
        for eq in select.find_all(exp.EQ):
            x, y = eq.left, eq.right
            if isinstance(x, exp.Column) and isinstance(y, exp.Column) and x.table and y.table:
                a, b = alias.get(x.table.lower()), alias.get(y.table.lower())
                if a and b and a != b:
                    out.add(frozenset(((a, x.name.lower()), (b, y.name.lower()))))
    return out


def _ends(on: str) -> frozenset:
    from orrery.bi.joins import join_columns

    return frozenset((t.lower(), c.lower()) for t, c in join_columns(on))


def why(engine, tables, samples, pair) -> str:
    """Which check rejects a gold join, tried in both directions (a referring end, a referenced end)."""
    from orrery.bi.joins import MIN_DISTINCT, _Checker, _family, rule_for

    names = {t.lower(): t for t in tables}
    reasons = []
    for (at, ac), (bt, bc) in (tuple(pair), tuple(pair)[::-1]):
        a_t, b_t = names.get(at), names.get(bt)
        if a_t is None or b_t is None:
            return "table absent"
        a = next(c for c in tables[a_t] if c.name.lower() == ac)
        b = next(c for c in tables[b_t] if c.name.lower() == bc)
        chk = _Checker(engine, samples)
        uniq = chk.unique(b_t, b.name)
        share, n = chk.inclusion((a_t, a.name), (b_t, b.name))
        held = len(samples[a_t].distinct(a.name))
        rule = rule_for(a, b_t, b)
        fam = _family(a.type) == _family(b.type)
        reasons.append(
            f"{a_t}.{a.name}->{b_t}.{b.name}: rule={rule} family_ok={fam} unique={uniq} share={share:.2f} of {n} "
            f"distinct={held} (<{MIN_DISTINCT}={held < MIN_DISTINCT}) a_unique={samples[a_t].unique(a.name)}"
        )
    return " | ".join(reasons)


def run(out: Path) -> None:
    from bi_nokeys import engine_for
    from bi_nokeys_data import BUILDERS

    from orrery.bi.profile import profile
    from orrery.bi.semantic import draft

    gold = gold_joins()
    report = {}
    for db in ["chinook", "tpch", *BUILDERS]:
        engine = engine_for(db)
        layer = draft(engine)
        inferred = {_ends(on): on for on in layer.inferred}
        declared = {_ends(j if isinstance(j, str) else j["on"]) for j in layer.joins} - set(inferred)
        g = gold.get(db, {})
        tables = engine.tables()
        samples = profile(engine, tables)
        missed = {
            " = ".join(".".join(e) for e in sorted(p)): why(engine, tables, samples, p)
            for p in g
            if p not in inferred and p not in declared
        }
        report[db] = {
            "declared": len(declared),
            "gold": len(g),
            "found": sorted(" = ".join(".".join(e) for e in sorted(p)) for p in g if p in inferred or p in declared),
            "missed": missed,
            "unused_inferred": sorted(on for p, on in inferred.items() if p not in g),
            "inferred": sorted(layer.inferred),
        }
        print(
            db,
            len(g),
            "gold;",
            len(report[db]["found"]),
            "found;",
            len(missed),
            "missed;",
            len(report[db]["unused_inferred"]),
            "inferred unused",
            flush=True,
        )
    out.write_text(json.dumps(report, indent=1))


def errors() -> None:
    """'no join path' errors in the newest results file of each set (by its `date`; bench/results/bi_nokeys_*.json)."""
    import re

    from bi_nokeys import SETS, pending

    newest: dict[str, dict] = {}
    for f in sorted((HERE / "results").glob("bi_nokeys_*.json")):
        data = json.loads(f.read_text())
        if not isinstance(data, dict):
            continue
        s = data.get("set")
        fits = isinstance(data.get("questions"), list) and s in SETS and not pending(f.name)
        if fits and (s not in newest or data.get("date", "") > newest[s]["date"]):
            newest[s] = {"date": data.get("date", ""), "file": f.name, "questions": data["questions"]}
    for s, n in newest.items():
        for i, q in enumerate(n["questions"]):
            m = re.search(r"no join path from [^;]*", json.dumps(q.get("answer", "")) + str(q.get("status")))
            if m:
                print(s, n["file"], i, q["db"], m.group(0), "|", q["question"][:70])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path)
    p.add_argument("--errors", action="store_true")
    a = p.parse_args()
    errors() if a.errors else run(a.out)


if __name__ == "__main__":
    main()
