"""Round 64's diagnosis (bench/bi.md, round 64), no model: the stored wrong answers of round 59's class "tables read"
(`bi_r59_wrong.wrong_class`, newest record per question of every set not pending) in sub-classes, by the tables the
answer's SQL and the gold's read (sqlglot):

    (a) gold reads more: the answer's tables are a proper subset of the gold's
    (b) answer reads more: the gold's tables are a proper subset of the answer's
    (c) other tables: neither holds the other

Each table that differs is attributed to the step that brought it: 'values' (the record's resolve_entities step put a
value on it), 'parts' (a column of it is in the answer's SELECT / WHERE / GROUP BY / HAVING / ORDER BY), 'join path'
(only in the FROM: compose joined it to connect the others). For (b), whether the extra table is the referred side of
every layer join it takes part in within the answer (a lookup: one row per key, no fan-out) or a referring side (a
fan-out that can inflate COUNT / SUM), and whether only its join key is used ('key only': the other side holds the
same value). For (c), whether the question names a gold-only table / an answer-only table by a word
(`names.names_table` on `said_words`).

    PYTHONPATH=$PWD python bench/bi_r64_tables.py            # the tables
    PYTHONPATH=$PWD python bench/bi_r64_tables.py --list     # one line per answer
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def tables_of(sql: str) -> set[str]:
    return {t.name.lower() for t in sqlglot.parse_one(sql, read="sqlite").find_all(exp.Table)}


def part_tables(sql: str) -> set[str]:
    """The tables whose columns the answer's clauses other than FROM name (compose qualifies every column)."""
    tree = sqlglot.parse_one(sql, read="sqlite")
    nodes = [*tree.expressions, *(tree.args.get(k) for k in ("where", "group", "having", "order"))]
    return {c.table.lower() for n in nodes if n is not None for c in n.find_all(exp.Column) if c.table}


def part_columns(sql: str, table: str) -> set[str]:
    tree = sqlglot.parse_one(sql, read="sqlite")
    nodes = [*tree.expressions, *(tree.args.get(k) for k in ("where", "group", "having", "order"))]
    return {c.name.lower() for n in nodes if n is not None for c in n.find_all(exp.Column) if c.table.lower() == table}


def value_tables(q: dict[str, Any]) -> set[str]:
    rec = _load("bi_recompose")
    return {
        m[2].lower()
        for st in q.get("steps", [])
        if st.startswith("resolve_entities")
        for m in rec.RESOLVED.finditer(st)
    }


def origin(table: str, q: dict[str, Any]) -> str:
    if table in value_tables(q):
        return "values"
    if table in part_tables(q["sql"]):
        return "parts"
    return "join path"


def lookup_kind(table: str, tables: set[str], joins: list[str]) -> str:
    """'lookup' when `table` is only ever the referred end of the layer's joins among `tables`, else 'fan-out'."""
    from orrery.bi.joins import join_ends

    ends = [join_ends(j) for j in joins]
    mine = [
        (a.lower(), b.lower()) for a, b in ends if table in (a.lower(), b.lower()) and {a.lower(), b.lower()} <= tables
    ]
    return "lookup" if mine and all(b == table for _, b in mine) else "fan-out"


def key_only(table: str, q: dict[str, Any], joins: list[str]) -> bool:
    """The answer names, of `table`, only columns that a layer join ties to a column of another table it reads."""
    from orrery.bi.joins import join_columns

    used = part_columns(q["sql"], table)
    keys = {c.lower() for j in joins for t, c in join_columns(j) if t.lower() == table}
    return bool(used) and used <= keys


def gold_uses(gold: str, tables: set[str]) -> list[str]:
    """The clauses of the gold query that name a column of `tables` (aliases resolved); 'join only' when none."""
    tree = sqlglot.parse_one(gold, read="sqlite")
    alias = {t.alias_or_name.lower(): t.name.lower() for t in tree.find_all(exp.Table)}
    clauses = {"select": tree.expressions, **{k: [tree.args.get(k)] for k in ("where", "group", "order")}}
    return sorted(
        {
            k
            for k, nodes in clauses.items()
            for n in nodes
            if n is not None
            for c in n.find_all(exp.Column)
            if alias.get(c.table.lower(), c.table.lower()) in tables
        }
    ) or ["join only"]


def missing_kind(q: dict[str, Any], missing: set[str], answer: set[str], joins: list[str]) -> str:
    """'fact missing': a missing table refers to a table the answer reads (the answer read the lookup, not the rows
    that refer to it); 'code for label': the answer selects or groups by a key that refers to a missing table (the
    code, not the lookup's name); 'lookup filter missing': the gold filters on a missing lookup and the answer does
    not name it; else 'other'."""
    from orrery.bi.joins import join_columns

    ends = [join_columns(j) for j in joins]
    if any(r[0].lower() in missing and t[0].lower() in answer for r, t in ends):
        return "fact missing"
    tree = sqlglot.parse_one(q["sql"], read="sqlite")
    shown = {
        (c.table.lower(), c.name.lower())
        for n in [*tree.expressions, *(tree.args["group"].expressions if tree.args.get("group") else [])]
        for c in n.find_all(exp.Column)
    }
    if any((r[0].lower(), r[1].lower()) in shown and t[0].lower() in missing for r, t in ends):
        return "code for label"
    if "where" in gold_uses(q["gold"], missing):
        return "lookup filter missing"
    return "other"


def classify(q: dict[str, Any], semantic: Any) -> dict[str, Any]:
    from orrery.bi.names import names_table, said_words

    g, a = tables_of(q["gold"]), tables_of(q["sql"])
    said = said_words(q["question"])
    named = {t.lower() for t in semantic.tables if names_table(t, said)}
    row: dict[str, Any] = {"gold": sorted(g), "answer": sorted(a)}
    if a < g:
        row["sub"] = "(a) gold reads more"
        row["missing"] = {t: lookup_kind(t, g, semantic.joins) for t in sorted(g - a)}
        row["gold uses missing in"] = gold_uses(q["gold"], g - a)
        row["kind"] = missing_kind(q, g - a, a, semantic.joins)
    elif g < a:
        row["sub"] = "(b) answer reads more"
        row["extra"] = {
            t: f"{origin(t, q)}, {lookup_kind(t, a, semantic.joins)}{', key only' if key_only(t, q, semantic.joins) else ''}"
            for t in sorted(a - g)
        }
    else:
        row["sub"] = "(c) other tables"
        row["gold only"] = {t: ("named" if t in named else "not named") for t in sorted(g - a)}
        row["answer only"] = {t: f"{origin(t, q)}, {'named' if t in named else 'not named'}" for t in sorted(a - g)}
    return row


def rows() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    from orrery.bi.semantic import load

    wrong, bnk = _load("bi_r59_wrong"), _load("bi_nokeys")
    semantics: dict[str, Any] = {}
    out = []
    for s, q in wrong.answered():
        if q["correct"] or wrong.wrong_class(q["gold"], q["sql"]) != "wrong join / table":
            continue
        if q["db"] not in semantics:
            engine = bnk.engine_for(q["db"])
            semantics[q["db"]] = load(engine.name, engine)
        out.append((s, q, classify(q, semantics[q["db"]])))
    return out


def main() -> None:
    found = rows()
    if "--list" in sys.argv:
        for s, q, r in found:
            print(f"{s}|{q['db']}|{q['question']}|{json.dumps(r)}")
        return
    print(f"tables-read wrong answers: {len(found)}")
    subs = collections.defaultdict(list)
    for s, q, r in found:
        subs[r["sub"]].append((s, q, r))
    for sub, items in sorted(subs.items()):
        dbs = collections.Counter(q["db"] for _, q, _ in items)
        print(f"\n{sub}: {len(items)} answers on {len(dbs)} databases: {dict(dbs.most_common())}")
        for key in ("missing", "extra", "gold only", "answer only"):
            what = collections.Counter(v for _, _, r in items for v in r.get(key, {}).values())
            if what:
                print(f"  {key}: {dict(what.most_common())}")
        kinds = collections.Counter(r["kind"] for _, _, r in items if "kind" in r)
        if kinds:
            print(f"  kind: {dict(kinds.most_common())}")
            for kind in kinds:
                dbs = collections.Counter(q["db"] for _, q, r in items if r.get("kind") == kind)
                print(f"    {kind}: {len(dbs)} databases {dict(dbs.most_common())}")
        where = collections.Counter(
            "+".join(r["gold uses missing in"]) for _, _, r in items if "gold uses missing in" in r
        )
        if where:
            print(f"  gold uses the missing table in: {dict(where.most_common())}")


if __name__ == "__main__":
    main()
