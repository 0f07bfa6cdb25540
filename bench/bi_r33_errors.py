"""Round 33's diagnosis: every stored ERROR over sets #1..#18, the newest stored result of each (set, question)
under `--code here`, classified by its cause from the error text (no model).

    python bench/bi_r33_errors.py
    PYTHONPATH=$PWD python bench/bi_r33_errors.py --mend   # round 35: each stored name composed again, no model

Causes: `examples` (the name the model invented is one of prompts/query_examples.yaml's schema), `other db`
(a column of another bench database), `year col` (a date or year column
made up where the question names a year), `invented` (any other name neither the database nor those hold: made up from the
question's words or the database's own prefixes), `invalid` (an SQL part that does not parse), `engine` (SQL
the engine rejects: a function it lacks, an aggregate misplaced), `other` (a reply cut at max_tokens, no join
path)."""

from __future__ import annotations

import collections
import json
import re
import sqlite3
import sys
from pathlib import Path

import yaml

HERE = Path(__file__).parent
PROMPTS = HERE.parent / "orrery" / "bi" / "prompts"
NOKEYS = Path.home() / ".cache" / "orrery" / "bi" / "nokeys"
SHIPPED = HERE.parent / "orrery" / "bi" / "semantic"
_MISSING = re.compile(r"no table has a column named ((?:'[^']+'(?:, )?)+)")


def latest() -> dict[tuple[str, str, str], dict]:
    """(set, db, question) -> the newest stored result under the code of this checkout's line."""
    out: dict[tuple[str, str, str], tuple[str, dict]] = {}
    for f in sorted((HERE / "results").glob("bi_nokeys_*_here*.json")):
        if "_r33" in f.name:  # this round's own runs: the diagnosis is of what was stored before it
            continue
        d = json.loads(f.read_text())
        for q in d.get("questions", []):
            key = (d["set"], q["db"], q["question"])
            if key not in out or d["date"] >= out[key][0]:
                out[key] = (d["date"], {**q, "file": f.name})
    return {k: v for k, (_, v) in out.items()}


def example_names() -> set[str]:
    text = "\n".join(e["user"] for e in yaml.safe_load((PROMPTS / "query_examples.yaml").read_text()))
    return {w.lower() for w in re.findall(r"(?m)^(?:TABLE )?\s*(\w+) (?:--|[A-Z]+ --)", text)}


def db_columns() -> dict[str, set[str]]:
    out = {}
    for path in NOKEYS.glob("*.sqlite"):
        with sqlite3.connect(path) as con:
            tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            out[path.stem] = {r[1].lower() for t in tables for r in con.execute(f'PRAGMA table_info("{t}")')}
    for path in SHIPPED.glob("*.yaml"):
        layer = yaml.safe_load(path.read_text())
        out[path.stem] = {c.lower() for t in layer["tables"].values() for c in t["columns"]}
    return out


def cause(q: dict, examples: set[str], columns: dict[str, set[str]]) -> tuple[str, str]:
    text = q.get("answer") or ""
    if m := _MISSING.search(text):
        names = [n.split(".")[-1] for n in re.findall(r"'([^']+)'", m.group(1))]
        if any(n.lower() in examples and n.lower() not in columns.get(q["db"], set()) for n in names):
            return "examples", ", ".join(names)
        others = [db for db, cols in columns.items() if db != q["db"] and any(n.lower() in cols for n in names)]
        if others and all(len(n) > 4 and "_" in n for n in names):  # a distinctive name, not 'weight'
            return "other db", f"{', '.join(names)} ({', '.join(sorted(others))})"
        if any(re.search(r"year|date", n, re.I) for n in names):
            return "year col", ", ".join(names)  # a date or year column made up for a year the question names
        return "invented", ", ".join(names)
    if "is not valid SQL" in text:
        return "invalid", text[text.index("failed: ") + 8 : text.index(" is not valid SQL")]
    if "not complete JSON" in text or "no join path" in text:
        return "other", "reply cut at max_tokens" if "JSON" in text else "no join path"
    return "engine", re.sub(r".*still fails after one repair: ", "", text.split("; the SQL")[0])


def _nokeys():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bi_nokeys", HERE / "bi_nokeys.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stored_names() -> dict[tuple[str, str, str], dict]:
    """(db, question, 'select|name' or 'where|part') -> its record, of every stored compose error of sets #1..#18."""
    seen: dict[tuple[str, str, str], dict] = {}
    bnk = _nokeys()
    for f in sorted((HERE / "results").glob("bi_nokeys_*_here*.json")):
        if bnk.pending(f.name):
            continue
        for q in json.loads(f.read_text()).get("questions", []):
            text = q.get("answer") or ""
            if q["status"] != "error":
                continue
            if m := _MISSING.search(text):
                for name in re.findall(r"'([^']+)'", m.group(1)):
                    seen.setdefault((q["db"], q["question"], f"select|{name}"), q)
            elif m := re.search(r"(select|where) item '(.*?)' is not valid SQL", text):
                seen.setdefault((q["db"], q["question"], f"{m[1]}|{m[2]}"), q)
    return seen


def mends() -> None:
    """Round 35: each distinct stored (question, name) of compose's `UnknownField` or of a part that does not parse,
    over every `_here` file (all rounds), composed alone (`SELECT <name>` / the part as written) over its database's
    layer, the gold's tables as the slice, under the orrery on PYTHONPATH: the column it becomes, and whether the
    gold uses it."""
    import sqlglot
    from sqlglot import exp

    from orrery.bi.compose import QueryParts, compose
    from orrery.bi.semantic import load

    bnk = _nokeys()
    seen = stored_names()
    layers: dict = {}
    mended = 0
    for (db, question, item), q in sorted(seen.items()):
        if db not in layers:
            engine = bnk.engine_for(db)
            layers[db] = (engine, load(engine.name, engine))
        engine, semantic = layers[db]
        gold = sqlglot.parse_one(q["gold"], read=engine.dialect) if q["gold"] else None
        tables = [t.name for t in gold.find_all(exp.Table)] if gold else list(semantic.tables)
        part, text = item.split("|", 1)
        parts = QueryParts(select=[text] if part == "select" else ["COUNT(*)"], where=[text] if part == "where" else [])
        try:
            sql = compose(
                parts,
                semantic,
                [t for t in semantic.tables if t.lower() in map(str.lower, tables)],
                [],
                engine.dialect,
                question,
            )
        except Exception as exc:  # noqa: BLE001 - a name still unknown is the measure, named
            print(f"stays    {db:9} {question[:45]:45} | {text[:40]:40} | {type(exc).__name__}")
            continue
        cols = {c.name.lower() for c in sqlglot.parse_one(sql, read=engine.dialect).find_all(exp.Column)}
        gold_cols = {c.name.lower() for c in gold.find_all(exp.Column)} if gold else set()
        verdict = "U" if gold is None else ("gold" if cols <= gold_cols else "NOT gold")
        mended += 1
        print(f"mended   {db:9} {question[:45]:45} | {text[:40]:40} | {sorted(cols)} {verdict}")
    print(f"\n{len(seen)} stored names, {mended} compose now")


def main() -> None:
    if "--mend" in sys.argv[1:]:
        return mends()
    examples, columns = example_names(), db_columns()
    errors = [(k, q) for k, q in sorted(latest().items()) if q["status"] == "error"]
    counts: collections.Counter = collections.Counter()
    for (which, db, question), q in errors:
        kind, detail = cause(q, examples, columns)
        answerable = q["gold"] is not None
        counts[kind, answerable] += 1
        print(f"{kind:9} {'A' if answerable else 'U'} {which:9} {db:9} {question[:60]:60} | {detail[:70]}")
    print(
        f"\n{len(errors)} errors;",
        ", ".join(f"{k} {'answerable' if a else 'unanswerable'}: {n}" for (k, a), n in sorted(counts.items())),
    )


if __name__ == "__main__":
    sys.exit(main())
