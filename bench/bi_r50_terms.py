"""Round 50's diagnosis and measures (bench/bi_r50.md): the answerable questions of sets #1..#20 whose newest stored
record (`bi_recompose.newest()`) is declined, wrong or an error while the gold reads a column that no word of the
question names (no word of the column's name by its stem or as a short form, no whole synonym of the drafted layer):
the question's everyday words for that column are what no reader maps.

    PYTHONPATH=$PWD python bench/bi_r50_terms.py               # the list and the count by database
    PYTHONPATH=$PWD python bench/bi_r50_terms.py --glossed     # the same records with each database's cached
                                                               # glossary merged: the gold's column named now?
    PYTHONPATH=$PWD python bench/bi_r50_terms.py --shapes TAG  # bi_nokeys --shapes on every set, glossed layers
    PYTHONPATH=$PWD nice -n 10 python bench/bi_r50_terms.py --make   # the glossary of every drafted database
                                                               # of the sets, with the embedded model (cached)
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

import sqlglot
from sqlglot import exp

HERE = Path(__file__).parent
# a row's label or key, shown beside what is asked, not a term the question must name
LABEL = re.compile(r"(name|title|^id$|_?id$|_?key$|_no$|_nm$)", re.I)


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _gold_columns(sql: str, dialect: str, question: str) -> set[str]:
    """The columns the gold reads, join conditions aside, and those compared with a value the question writes
    ('Year = 2009', "country = 'Norway'": the question names the value, not the column)."""
    tree = sqlglot.parse_one(sql, read=dialect)
    keys = {id(c) for j in tree.find_all(exp.Join) for c in j.find_all(exp.Column)}
    for cmp in tree.find_all(exp.Binary):
        lit = next((x for x in (cmp.left, cmp.right) if isinstance(x, exp.Literal)), None)
        if lit is not None and lit.this.lower().strip("%") in question.lower():
            keys |= {id(c) for c in cmp.find_all(exp.Column)}
    for col in tree.find_all(exp.In):
        if any(isinstance(x, exp.Literal) and x.this.lower() in question.lower() for x in col.expressions):
            keys.add(id(col.this))
    return {c.name for c in tree.find_all(exp.Column) if id(c) not in keys}


def named(semantic, column: str, question: str) -> bool:
    """Whether a word of the question names the column: a word of its name (by stem, or the name's token a short
    form of the question's word) or every word of one of its synonyms."""
    from orrery.bi.names import abbreviates, words
    from orrery.bi.semantic import GENERIC, stems

    said = set(stems(question))
    infos = [info for _, c, info in semantic.columns() if c == column]
    if not infos:
        return True  # an alias or a computed name: not a column to judge
    name = stems(words(column))
    if any(w in said for w in name if len(w) >= 3) or any(abbreviates(t, w) for t in name for w in said):
        return True
    for info in infos:
        for syn in info.get("synonyms") or []:
            ws = [w for w in stems(syn) if w not in GENERIC]
            if ws and all(w in said for w in ws):
                return True
    return False


def records(glossed: bool = False):
    """(set, record, [gold columns no word of the question names]) of each miss in the class."""
    sys.path.insert(0, str(HERE))
    rc, bnk = _load("bi_recompose"), _load("bi_nokeys")
    layers: dict = {}
    for s, q in sorted(rc.newest(), key=lambda x: (x[0], x[1]["question"])):
        if not q.get("gold") or q["correct"]:
            continue
        if q["db"] not in layers:
            layers[q["db"]] = _layer(bnk, q["db"], glossed)
        engine, semantic = layers[q["db"]]
        gold = _gold_columns(q["gold"], engine.dialect, q["question"])
        if q["status"] == "completed" and q.get("sql"):  # a wrong answer: only the gold columns its SQL lacks
            gold -= _gold_columns(q["sql"], engine.dialect, "")
        unnamed = sorted(c for c in gold if not LABEL.search(c) and not named(semantic, c, q["question"]))
        if not unnamed:
            continue
        yield s, q, unnamed, semantic


def _layer(bnk, db: str, glossed: bool):
    from orrery.bi.semantic import load

    engine = bnk.engine_for(db)
    semantic = load(engine.name, engine)
    if glossed:
        from orrery.bi.glossary import cached

        semantic = cached(semantic) or semantic
    return engine, semantic


def diagnose(glossed: bool = False) -> None:
    by_db, n = Counter(), 0
    for s, q, unnamed, _ in records(glossed):
        n += 1
        by_db[q["db"]] += 1
        print(json.dumps({"set": s, "db": q["db"], "q": q["question"], "status": q["status"], "unnamed": unnamed}))
    print(f"\n{n} answerable misses whose gold reads a column the question's words do not name")
    print("by database:", dict(by_db.most_common()))


def glossed() -> None:
    """The diagnosis' records, and which of their unnamed columns the glossary now names (field mapping's first
    field for the glossary phrase the question holds)."""
    from orrery.bi.names import words
    from orrery.bi.semantic import rank_fields, stems

    before = list(records(False))
    n, now, first = len(before), 0, 0
    for s, q, unnamed, _ in before:
        engine, semantic = _layer(_load("bi_nokeys"), q["db"], True)
        freed = [c for c in unnamed if named(semantic, c, q["question"])]
        said = set(stems(q["question"]))
        mapped = []
        for c in freed:
            for _, col, info in semantic.columns():
                if col != c:
                    continue
                for p in info.get("synonyms") or []:
                    if all(w in said for w in stems(p)) and rank_fields(semantic, p)[0][2].get("column") == c:
                        mapped.append(f"{p!r} -> {c}")
        now += bool(freed)
        first += bool(mapped)
        print(f"{s:10} {q['db']:10} {'NAMED' if freed else '-    '} {q['question']!r}: {unnamed} {mapped}")
    print(
        f"\n{n} records; a glossary phrase of the question names the gold's column: {now}; and field mapping ranks "
        f"it first for that phrase: {first}"
    )
    _ = words


def shapes(tag: str) -> None:
    """bi_nokeys --shapes on every set, each drafted layer with its cached glossary merged."""
    from orrery.bi.glossary import cached

    import orrery.bi.semantic as semantic_module

    plain = semantic_module.load
    semantic_module.load = lambda db, engine: cached(plain(db, engine)) or plain(db, engine)
    bnk = _load("bi_nokeys")
    bnk.shapes(bnk.SETS, tag)


def make() -> None:
    """The glossary of every database the sets name whose layer is drafted, with the embedded model."""
    from orrery.bi.glossary import glossary

    from orrery.bi.semantic import SHIPPED, draft, user_path
    from orrery.llm import resolve_model

    sys.path.insert(0, str(HERE))
    bnk = _load("bi_nokeys")
    dbs = sorted({q["db"] for s in bnk.SETS if s != "heldout21" for q in bnk.items(s)})
    model = resolve_model("local")
    for db in dbs:
        engine = bnk.engine_for(db)
        if (SHIPPED / f"{engine.name}.yaml").is_file() or user_path(engine.name).is_file():
            continue
        t0 = time.perf_counter()
        semantic = draft(engine)
        glossary(semantic, model)
        print(f"{db}: {len(semantic.tables)} tables, {time.perf_counter() - t0:.1f} s", flush=True)


def main() -> None:
    args = sys.argv[1:]
    if "--make" in args:
        return make()
    if "--glossed" in args:
        return glossed()
    if "--shapes" in args:
        return shapes(args[args.index("--shapes") + 1] if len(args) > args.index("--shapes") + 1 else "r50")
    diagnose()


if __name__ == "__main__":
    main()
