"""Round 39's diagnosis (no model): over the newest stored record of each answerable question of sets #1..#19
(`bi_recompose.newest()`), the ones that ended wrong or in an error where the SQL names a column the layer lacks or
misses a column the gold reads. For each gold column the stored SQL lacks (join keys aside): its rank under
`semantic.rank_fields` for the question's best-matching words and whether field mapping's recorded output named it.

    PYTHONPATH=$PWD python bench/bi_r39_terms.py
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


def main() -> None:
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
