"""The no-model recomposition check (rounds 19, 21 and 23 of bench/bi.md): the newest stored record
of each answerable question of the development sets (`results/bi_nokeys_<set>_here*.json`, newest by `date`; no
held-out set that has not been run; #21 is included since round 56), its SQL read back into `QueryParts` by sqlglot, composed again by the orrery on
PYTHONPATH, executed and scored as bench/bi.py scores. Run it once per code and compare the two outputs:

    PYTHONPATH=/work/main python bench/bi_recompose.py /tmp/main.json
    PYTHONPATH=$PWD python bench/bi_recompose.py /tmp/here.json

Output: {"<set>|<question>": [composed SQL or "ERR ...", right now (None when not recomposable), right in the record]}.
The resolved values come from the record's `resolve_entities` step, whose text is cut at 200 characters, so a string
literal of an indexed column the stored SQL filters on counts as resolved too. With `--resolve` (round 34), entity
resolution itself runs again under the code on PYTHONPATH, on the mentions the step names (resolved and unresolved),
for the records that have the step: a change to entity resolution is then measured with no model too. With `--relax`
(round 49), a composed query that finds nothing is replaced by the first of relax.py's rewrites that finds rows, as
the agent does before the model's repair (`tools._relaxed`): relax.py's path is then measured too."""

from __future__ import annotations

import glob
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

HERE = Path(__file__).parent
UNRESOLVED = re.compile(r'"unresolved": (\[[^\]]*\])')
RESOLVED = re.compile(r'\{"mention": "([^"]*)", "table": "([^"]*)", "column": "([^"]*)", "value": ("[^"]*"|[-\d.]+)\}')


def _nokeys() -> Any:
    spec = importlib.util.spec_from_file_location("bi_nokeys", HERE / "bi_nokeys.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# a helper's sample of its branch's code (`results/bi_nokeys_<set>_here_bi67b.json`): code that was merged later or
# reverted, never the code a later round starts from; the lead's own records (full sets, `_here_rNN` samples) stay
BRANCH_SAMPLE = re.compile(r"_here_bi\d+[a-z]?\.json$")


def newest(skip: tuple[str, ...] = ()) -> list[tuple[str, dict[str, Any]]]:
    """(set, record) of the newest stored record of each (set, question), leaving out a helper's branch samples
    (`BRANCH_SAMPLE`) and the files whose name holds a word of `skip` or names a held-out set not yet run
    (`bi_nokeys.pending`)."""
    recs: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {}
    bnk = _nokeys()
    for f in glob.glob(str(HERE / "results" / "bi_nokeys_*_here*.json")):
        if any(s in f for s in skip) or bnk.pending(f) or BRANCH_SAMPLE.search(f):
            continue
        d = json.loads(Path(f).read_text())
        for q in d.get("questions", []):
            k = (d["set"], q["question"])
            if k not in recs or recs[k][0] < d["date"]:
                recs[k] = (d["date"], q)
    return [(k[0], v[1]) for k, v in recs.items()]


def parts_of(sql: str, dialect: str) -> tuple[Any, list[str]]:
    """The stored SQL as the parts the model would have written, and its tables in order."""
    from orrery.bi.compose import QueryParts

    tree = sqlglot.parse_one(sql, read=dialect)
    where, lim, group, order = (tree.args.get(k) for k in ("where", "limit", "group", "order"))
    limit = int(lim.expression.this) if lim is not None else None
    parts = QueryParts(
        select=[n.sql(dialect=dialect) for n in tree.expressions],
        where=[where.this.sql(dialect=dialect)] if where else [],
        group_by=[n.sql(dialect=dialect) for n in group.expressions] if group else [],
        having=[tree.args["having"].this.sql(dialect=dialect)] if tree.args.get("having") else [],
        order_by=[n.sql(dialect=dialect) for n in order.expressions] if order else [],
        limit=None if limit == 1000 else limit,
    )
    return parts, list(dict.fromkeys(t.name for t in tree.find_all(exp.Table)))


def resolved_of(q: dict[str, Any], sql: str, bi: Any, tables: list[str], again: bool = False) -> list[dict[str, Any]]:
    steps = [st for st in q.get("steps", []) if st.startswith("resolve_entities")]
    out = [
        {"mention": m[1], "table": m[2], "column": m[3], "value": json.loads(m[4])}
        for st in steps
        for m in RESOLVED.finditer(st)
    ]
    if again and steps:
        out = resolved_again(q, bi, [r["mention"] for r in out] + [m for st in steps for m in unresolved_in(st)])
    have = {(r["table"].lower(), r["column"].lower(), str(r["value"])) for r in out}
    # under --resolve a stored literal the re-run resolution placed (on any column) is not added back where it was
    again_values = {str(r["value"]).lower() for r in out} if again and steps else set()
    for cond in sqlglot.parse_one(sql, read=bi.engine.dialect).find_all(exp.EQ, exp.In):
        col = cond.this
        if not isinstance(col, exp.Column):
            continue
        owner = next((t for t in bi.semantic.tables if t.lower() == (col.table or tables[0]).lower()), tables[0])
        for lit in [cond.expression] if isinstance(cond, exp.EQ) else cond.expressions:
            key = (owner.lower(), col.name.lower(), lit.name)
            ok = isinstance(lit, exp.Literal) and lit.is_string and lit.name.lower() in bi.values(owner, col.name)
            if ok and key not in have and lit.name.lower() not in again_values:
                have.add(key)
                out.append({"mention": lit.name, "table": owner, "column": col.name, "value": lit.name})
    return out


def unresolved_in(step: str) -> list[str]:
    found = UNRESOLVED.search(step)
    return json.loads(found.group(1)) if found else []


def resolved_again(q: dict[str, Any], bi: Any, mentions: list[str]) -> list[dict[str, Any]]:
    """Entity resolution of the code on PYTHONPATH on the stored mentions (no clarification: the top pick)."""
    from orrery.bi import tools
    from orrery.tools.core import RunContext

    bi.question, bi.clarify = q["question"], False
    return tools.entity_resolution(RunContext(deps=bi, options={}), list(dict.fromkeys(mentions)))["resolved"]


def relaxed_run(bi: Any, sql: str, question: str, resolved: list[dict[str, Any]]) -> tuple[str, list[Any]]:
    """The composed query and its rows, or, when it finds nothing (`tools.dry_run`'s NOTHING), the first relaxed
    rewrite that finds something (`tools._relaxed`)."""
    from orrery.bi import tools

    if tools.dry_run(bi.engine, sql) == tools.NOTHING and (other := tools._relaxed(bi, sql, question, resolved)):
        sql = other
    return sql, bi.engine.execute(sql).rows


def main(out_path: str, again: bool = False, relax: bool = False) -> None:
    from orrery.bi.compose import compose
    from orrery.bi.context import BIContext
    from orrery.bi.semantic import load

    bnk = _nokeys()
    sys.path.insert(0, str(HERE))
    from bi import scored

    contexts: dict[str, Any] = {}
    out: dict[str, Any] = {}
    for s, q in newest():
        if not q.get("gold") or q["status"] != "completed" or not q.get("sql"):
            continue
        if q["db"] not in contexts:
            engine = bnk.engine_for(q["db"])
            contexts[q["db"]] = BIContext(engine=engine, semantic=load(engine.name, engine), model=None)
        bi = contexts[q["db"]]
        try:
            parts, tables = parts_of(q["sql"], bi.engine.dialect)
            resolved = resolved_of(q, q["sql"], bi, tables, again)
            sql = compose(parts, bi.semantic, tables, resolved, bi.engine.dialect, q["question"], bi.values)
            sql, rows = relaxed_run(bi, sql, q["question"], resolved) if relax else (sql, bi.engine.execute(sql).rows)
            right = scored(q, bi.engine, "completed", sql, rows)
        except Exception as exc:  # noqa: BLE001 - a query that cannot be recomposed is named, not scored
            sql, right = f"ERR {type(exc).__name__}: {str(exc)[:150]}", None
        out[f"{s}|{q['question']}"] = [sql, right, q["correct"]]
    Path(out_path).write_text(json.dumps(out, indent=0))
    print(f"{len(out)} recomposed, {sum(v[1] is True for v in out.values())} right, written to {out_path}")


if __name__ == "__main__":
    main(sys.argv[1], "--resolve" in sys.argv[2:], "--relax" in sys.argv[2:])
