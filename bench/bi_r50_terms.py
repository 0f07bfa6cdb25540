"""Round 50's diagnosis and measures (bench/bi.md, round 50): the answerable questions of sets #1..#20 whose newest stored
record (`bi_recompose.newest()`) is declined, wrong or an error while the gold reads a column that no word of the
question names (no word of the column's name by its stem or as a short form, no whole synonym of the drafted layer):
the question's everyday words for that column are what no reader maps. Every mode but the first reads the glossary
code, which was not shipped: run them with PYTHONPATH at a checkout of e88b083 (branch bi50).

    PYTHONPATH=$PWD python bench/bi_r50_terms.py               # the list and the count by database
    PYTHONPATH=$PWD python bench/bi_r50_terms.py --glossed     # the same records with each database's cached
                                                               # glossary merged: the gold's column named now?
    PYTHONPATH=$PWD python bench/bi_r50_terms.py --shapes TAG  # bi_nokeys --shapes on every set, glossed layers
    PYTHONPATH=$PWD nice -n 10 python bench/bi_r50_terms.py --make   # the glossary of every drafted database
                                                               # of the sets, with the embedded model (cached)
    PYTHONPATH=$PWD python bench/bi_r50_terms.py --recompose OUT.json  # bi_recompose.py, glossed layers
    PYTHONPATH=$PWD OMP_WAIT_POLICY=passive python bench/bi_r50_terms.py --sample SET 1,2 TAG  # the model sample,
                                                               # glossary on (main: bi_nokeys.py --code main)
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
    """Criterion 1: the diagnosis' records, and which of their unnamed columns a glossary phrase the question holds
    names now, field mapping ranking that column first for the phrase. Criterion 2: over every stored question, the
    columns a glossary phrase of the question names that the plain layer does not, and whether the gold reads it."""
    from orrery.bi.semantic import rank_fields, stems

    bnk = _load("bi_nokeys")
    layers: dict = {}

    def both(db):
        if db not in layers:
            layers[db] = (_layer(bnk, db, False), _layer(bnk, db, True))
        return layers[db]

    def phrases_naming(semantic, column: str, question: str) -> list[str]:
        said = set(stems(question))
        return [
            p
            for _, c, info in semantic.columns()
            if c == column
            for p in info.get("glossary") or []
            if all(w in said for w in stems(p)) and rank_fields(semantic, p)[0][2].get("column") == column
        ]

    before = list(records(False))
    first = 0
    for s, q, unnamed, _ in before:
        (_, plain), (_, glossy) = both(q["db"])
        mapped = {c: phrases_naming(glossy, c, q["question"]) for c in unnamed}
        mapped = {c: p for c, p in mapped.items() if p}
        first += bool(mapped)
        print(f"{s:10} {q['db']:9} {'NAMED' if mapped else '-    '} {q['question']!r}: {unnamed} {mapped or ''}")
    print(
        f"\ncriterion 1: {len(before)} records; the gold's unnamed column named by a glossary phrase and ranked "
        f"first for it: {first}"
    )

    rc = _load("bi_recompose")
    right = wrong = unanswerable = 0
    for s, q in sorted(rc.newest(), key=lambda x: (x[0], x[1]["question"])):
        (engine, plain), (_, glossy) = both(q["db"])
        new = sorted(
            c
            for _, c, info in glossy.columns()
            if info.get("glossary") and named(glossy, c, q["question"]) and not named(plain, c, q["question"])
        )
        if not new:
            continue
        if q.get("gold") is None:
            unanswerable += len(new)
            verdict = "UNANSWERABLE"
        else:
            gold = _gold_columns(q["gold"], engine.dialect, "")
            hits = [c for c in new if c in gold]
            right, wrong = right + len(hits), wrong + len(new) - len(hits)
            verdict = f"gold reads {hits}, not {[c for c in new if c not in gold]}"
        print(f"  {s:10} {q['db']:9} {q['question']!r}: newly named {new}: {verdict}")
    print(
        f"criterion 2: columns newly named on answerable questions: gold reads {right}, not {wrong}; "
        f"on unanswerable questions: {unanswerable}"
    )


def recompose(out: str) -> None:
    """bi_recompose.py with each drafted layer's cached glossary merged (criterion 4)."""
    from orrery.bi.glossary import cached

    import orrery.bi.semantic as semantic_module

    plain = semantic_module.load
    semantic_module.load = lambda db, engine: cached(plain(db, engine)) or plain(db, engine)
    _load("bi_recompose").main(out)


def shapes(tag: str) -> None:
    """bi_nokeys --shapes on every set, each drafted layer with its cached glossary merged."""
    from orrery.bi.glossary import cached

    import orrery.bi.semantic as semantic_module

    plain = semantic_module.load
    semantic_module.load = lambda db, engine: cached(plain(db, engine)) or plain(db, engine)
    bnk = _load("bi_nokeys")
    bnk.shapes(bnk.SCORED, tag)


def make() -> None:
    """The glossary of every database the sets name whose layer is drafted, with the embedded model."""
    from orrery.bi.glossary import glossary

    from orrery.bi.semantic import SHIPPED, draft, user_path
    from orrery.llm import resolve_model

    sys.path.insert(0, str(HERE))
    bnk = _load("bi_nokeys")
    dbs = sorted({q["db"] for s in bnk.SCORED for q in bnk.items(s)})
    model = resolve_model("local")
    for db in dbs:
        engine = bnk.engine_for(db)
        if (SHIPPED / f"{engine.name}.yaml").is_file() or user_path(engine.name).is_file():
            continue
        t0 = time.perf_counter()
        semantic = draft(engine)
        glossary(semantic, model)
        print(f"{db}: {len(semantic.tables)} tables, {time.perf_counter() - t0:.1f} s", flush=True)


def sample(which: str, only: str, tag: str) -> None:
    """bi_nokeys' worker on the code here with the glossary on (`BIAgent(glossary=True)`, as the app factory does),
    written as results/bi_nokeys_<set>_here_<tag>.json; run `bi_nokeys.py --code main` for the other side."""
    import functools

    import orrery.bi.agent as agent_module

    agent_module.BIAgent = functools.partial(agent_module.BIAgent, glossary=True)
    bnk = _load("bi_nokeys")
    out = bnk.RESULTS / f"bi_nokeys_{which}_here_{tag}.json"
    bnk.worker(which, "here", out, None, [int(i) for i in only.split(",")])


def main() -> None:
    args = sys.argv[1:]
    if "--make" in args:
        return make()
    if "--glossed" in args:
        return glossed()
    if "--sample" in args:
        return sample(*args[args.index("--sample") + 1 : args.index("--sample") + 4])
    if "--recompose" in args:
        return recompose(args[args.index("--recompose") + 1])
    if "--shapes" in args:
        return shapes(args[args.index("--shapes") + 1] if len(args) > args.index("--shapes") + 1 else "r50")
    diagnose()


if __name__ == "__main__":
    main()
