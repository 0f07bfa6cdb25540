"""Round 39's diagnosis (no model): over the newest stored record of each answerable question of sets #1..#19
(`bi_recompose.newest()`), the ones that ended wrong or in an error where the SQL names a column the layer lacks or
misses a column the gold reads. For each gold column the stored SQL lacks (join keys aside): its rank under
`semantic.rank_fields` for the question's best-matching words and whether field mapping's recorded output named it.

    PYTHONPATH=$PWD python bench/bi_r39_terms.py
    PYTHONPATH=$PWD python bench/bi_r39_terms.py --hints   # rule D: the repair's hints against the stored ones
    PYTHONPATH=$PWD python bench/bi_r39_terms.py --meaning # round 42: cause E, field mapping and MiniLM per term
    PYTHONPATH=$PWD python bench/bi_r39_terms.py --phrases # round 42: rule Q over every stored question; needs its
                                                           # code (not shipped): PYTHONPATH at a checkout of 23ac457
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
    does `compose._layer_hints` (tools.py's before round 45) under the code on PYTHONPATH?"""
    from orrery.bi.compose import _layer_hints
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
        new = set(re.findall(r"may be \w+\.(\w+)", _layer_hints(bi.semantic, [name], [])))
        n, before, after = n + 1, before + bool(old & gold), after + bool((old | {c.lower() for c in new}) & gold)
        print(f"{db:9} {question[:45]:45} | {name[:22]:22} | stored {sorted(old)} | now {sorted(new)}")
    print(f"\n{n} stored names; a column the gold reads hinted: stored {before}, with the layer's hints added {after}")


# Round 42's diagnosis: the cause-E records of round 39 that main 63d5f7b still answers wrong (set, question, the
# question's words that name the measure, the gold's column), fixed from this script's default output before any code.
CAUSE_E = [
    ("heldout11", "units sold per shipping mode", "units sold", "quantity"),
    ("heldout12", "heaviest adelie in kilos", "heaviest", "body_mass_g"),
    ("heldout14", "leanest milk on average - which breed", "leanest milk", "bf_pct"),
    ("heldout14", "units shiped in the west and in the east, side by side", "units shiped", "quantity"),
    ("heldout15", "heaviest per cm3 - which element (symbol)", "heaviest per cm3", "dens"),
    ("heldout15", "nolan's films - critics score on rotten tomatoes, averaged", "critics score", "meter"),
    ("heldout16", "in how many years did chrysler invest over 100m", "invest", "gross_inv"),
    ("heldout16", "oil cos. - what % of all the investment over the whole period", "investment", "gross_inv"),
    ("heldout16", "who was worth the most at year end 1954", "worth", "mkt_val"),
    ("heldout17", "which breed has the creamiest milk on average", "creamiest milk", "bf_pct"),
    ("heldout18", "1980 headcount: indians vs chinese", "headcount", "population"),
    ("heldout19", "heaviest chinstrap weighed in at how many grams", "heaviest", "body_mass_g"),
    ("heldout19", "holstein milkfat: heifers of 2 yrs compared with mature cows", "milkfat", "bf_pct"),
    ("heldout5", "how long are Martin Scorsese's films on average, vs Clint Eastwood's?", "how long", "runtime"),
    ("heldout5", "what's the average fuel economy of cars with 8 cylinders?", "fuel economy", "mpg"),
    ("heldout6", "asian vs european cars: which get better fuel economy on average?", "fuel economy", "mpg"),
    ("heldout9", "hardest element to melt, which one is it?", "hardest to melt", "mp_k"),
    ("heldout9", "biggest region by combined headcount, 1990", "combined headcount", "population"),
    ("heldout19", "kubrick pictures and how long each one runs", "how long", "runtime"),
]


def meaning() -> None:
    """Per cause-E term: field mapping's output under the code on PYTHONPATH (the question set, no clarification),
    the lexical best field, and MiniLM's two best targets with the margin `decline.singled_out` reads."""
    from orrery.bi import decline, tools
    from orrery.bi.context import BIContext, NeedsClarification
    from orrery.bi.semantic import load, rank_fields
    from orrery.bi.tools import CannotAnswer
    from orrery.tools.core import RunContext

    bnk, contexts, handed = _load("bi_nokeys"), {}, 0
    for s, question, term, gold in CAUSE_E:
        db = next(q["db"] for q in bnk.items(s) if q["question"].startswith(question))
        if db not in contexts:
            engine = bnk.engine_for(db)
            contexts[db] = BIContext(engine, load(engine.name, engine), None)
        bi = contexts[db]
        bi.question = next(q["question"] for q in bnk.items(s) if q["question"].startswith(question))
        try:
            out = tools.field_mapping(RunContext(deps=bi, options={}), [term])["fields"]
            mapped = ",".join(f"{f.get('column')}{'' if f.get('clear', True) else '?'}" for f in out) or "-"
        except (CannotAnswer, NeedsClarification) as e:
            mapped = type(e).__name__
        measured = getattr(tools, "measured_fields", lambda *_: [])(bi, tools.read_typos(bi, bi.question), [])
        mapped += "".join(f" +{f['column']}" for f in measured)  # round 42's rule Q: the question's measure phrases
        handed += gold in re.findall(r"\w+", mapped)
        lexical = rank_fields(bi.semantic, term)[:1]
        top = decline._ranked_targets(bi, term)[:2]
        shown = [f"{t.get('column') or t.get('table') or t.get('term') or '?'} {c:.3f}" for t, c in top]
        margin = f"{top[0][1] - top[1][1]:+.3f}" if len(top) > 1 else "-"
        lex = f"{lexical[0][1]} {lexical[0][0]:.0f}" if lexical else "-"
        print(f"{s:9} {term[:18]:18} gold {gold:12} handed {mapped:20} lexical {lex:26} MiniLM {shown} {margin}")
    print(f"\n{len(CAUSE_E)} cause-E terms; the gold's column handed: {handed}")


def phrases() -> None:
    """Round 42's rule Q over every stored question of sets #1..#19 (`bi_recompose.newest()`): the columns
    `tools.measured_fields` hands for the question's measure phrases (no mapped field assumed), and for an answerable
    question whether its gold reads the column. Writes results/bi_r42_phrases[_TAG].json."""
    from orrery.bi import tools

    sys.path.insert(0, str(HERE))
    rc, bnk = _load("bi_recompose"), _load("bi_nokeys")
    rows = []
    for s, q in sorted(rc.newest(), key=lambda x: (x[0], x[1]["question"])):
        bi = bnk.context_for(q["db"])
        for f in tools.measured_fields(bi, tools.read_typos(bi, q["question"]), []):
            gold = _columns(q["gold"], bi.engine.dialect) if q.get("gold") else None
            rows.append(
                {
                    "set": s,
                    "db": q["db"],
                    "q": q["question"],
                    "phrase": f["term"],
                    "column": f["column"],
                    "gold_reads": None if gold is None else f["column"].lower() in gold,
                    "stored": "right" if q.get("correct") else q["status"],
                }
            )
            print(json.dumps(rows[-1]), flush=True)
    right = sum(r["gold_reads"] is True for r in rows)
    wrong = sum(r["gold_reads"] is False for r in rows)
    unans = sum(r["gold_reads"] is None for r in rows)
    print(f"\nhanded: {len(rows)}; the gold reads it {right}, not {wrong}; on unanswerable questions {unans}")
    tag = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--tag=")), "")
    (HERE / "results" / f"bi_r42_phrases{'_' + tag if tag else ''}.json").write_text(json.dumps(rows, indent=1))


MODES = {"--phrases": phrases, "--hints": hints, "--meaning": meaning}


def main() -> None:
    if mode := next((MODES[a] for a in sys.argv[1:] if a in MODES), None):
        return mode()
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
