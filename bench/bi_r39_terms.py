"""Round 39's diagnosis (no model): over the newest stored record of each answerable question of sets #1..#19
(`bi_recompose.newest()`), the ones that ended wrong or in an error where the SQL names a column the layer lacks or
misses a column the gold reads. For each gold column the stored SQL lacks (join keys aside): its rank under
`semantic.rank_fields` for the question's best-matching words and whether field mapping's recorded output named it.

    PYTHONPATH=$PWD python bench/bi_r39_terms.py
    PYTHONPATH=$PWD python bench/bi_r39_terms.py --hints   # rule D: the repair's hints against the stored ones
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import sqlglot
from sqlglot import exp

HERE = Path(__file__).parent


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _columns(sql: str, dialect: str) -> set[str]:
    """The columns a query reads, join conditions aside."""
    tree = sqlglot.parse_one(sql, read=dialect)
    keys = {id(c) for j in tree.find_all(exp.Join) for c in j.find_all(exp.Column)}
    return {c.name.lower() for c in tree.find_all(exp.Column) if id(c) not in keys}


def hints() -> None:
    """Each stored (question, name) of compose's `UnknownField` on an answerable question (every `_here` file,
    `bi_r33_errors.stored_names`): does the stored hint ('the closest are ...') name a column the gold reads, and
    does `tools._layer_hints` under the code on PYTHONPATH?"""
    from orrery.bi import tools
    from orrery.bi.context import BIContext
    from orrery.bi.semantic import load

    errors, bnk = _load("bi_r33_errors"), _load("bi_nokeys")
    contexts: dict = {}
    before = after = n = 0
    for (db, question, item), q in sorted(errors.stored_names().items()):
        part, name = item.split("|", 1)
        if part != "select" or not q["gold"]:
            continue
        if db not in contexts:
            engine = bnk.engine_for(db)
            contexts[db] = BIContext(engine, load(engine.name, engine), None)
        bi = contexts[db]
        gold = _columns(q["gold"], bi.engine.dialect)
        stored = re.search(r"the closest are ([^)]*)\)", q["answer"] or "")
        old = {c.split(".")[-1].lower() for c in stored.group(1).split(", ")} if stored else set()
        new = set(re.findall(r"may be \w+\.(\w+)", tools._layer_hints(bi, [name], [])))
        n, before, after = n + 1, before + bool(old & gold), after + bool((old | {c.lower() for c in new}) & gold)
        print(f"{db:9} {question[:45]:45} | {name[:22]:22} | stored {sorted(old)} | now {sorted(new)}")
    print(f"\n{n} stored names; a column the gold reads hinted: stored {before}, with the layer's hints added {after}")


def main() -> None:
    if "--hints" in sys.argv[1:]:
        return hints()
    sys.path.insert(0, str(HERE))
    rc, bnk = _load("bi_recompose"), _load("bi_nokeys")
    from orrery.bi.semantic import load

    layers: dict = {}
    for s, q in sorted(rc.newest(), key=lambda x: (x[0], x[1]["question"])):
        if not q.get("gold") or q["correct"] or q["status"] not in ("completed", "error"):
            continue
        if q["db"] not in layers:
            engine = bnk.engine_for(q["db"])
            layers[q["db"]] = (engine, load(engine.name, engine))
        engine, semantic = layers[q["db"]]
        real = {c.lower() for t in semantic.tables.values() for c in t["columns"]}
        gold = _columns(q["gold"], engine.dialect)
        mapped = next((st for st in q.get("steps", []) if st.startswith("map_fields")), "")
        mapped_cols = set(re.findall(r'"column": "(\w+)"', mapped))
        if q["status"] == "error":
            unknown = re.findall(
                r"'([^']+)'",
                (re.search(r"no table has a column named ((?:'[^']+'(?:, )?)+)", q["answer"] or "") or [""])[0],
            )
            if not unknown:
                continue
            lacking, made_up = gold, unknown
        else:
            try:
                used = _columns(q["sql"], engine.dialect)
            except sqlglot.errors.ParseError:
                continue
            lacking, made_up = gold - used, sorted(used - gold)
        if not lacking:
            continue
        print(
            json.dumps(
                {
                    "set": s,
                    "db": q["db"],
                    "q": q["question"],
                    "status": q["status"],
                    "gold_lacking": sorted(lacking),
                    "used_instead": made_up,
                    "unreal": sorted(n for n in made_up if n.split(".")[-1].lower() not in real),
                    "mapped": sorted(mapped_cols),
                }
            )
        )


if __name__ == "__main__":
    main()
