"""Round 29's no-model replay of rule Y (orrery/bi/tools.py: `decline_unheld_year`): the stored SQL of every
question in every stored bench/results/bi_nokeys_*.json (deduplicated by database, question and SQL) re-run;
where it finds nothing, would the rule decline? Prints the answerable and unanswerable questions it fires on.
With --values, the diagnosis of a rule not written (bench/bi.md "Round 29", rule V): where the stored SQL finds nothing,
which of its compared text values no indexed value holds (exact, within rapidfuzz ratio 90, or all its words).
With --absent, round 31's rule V (orrery/bi/decline.py: `absent_value`, judged by a scan of the data) on the same
stored SQL.

    PYTHONPATH=$PWD python bench/bi_r29_years.py [--values | --absent]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # bi_nokeys_data, as bench/bi_nokeys.py reads it

import sqlglot  # noqa: E402
from bi_nokeys import engine_for  # noqa: E402
from rapidfuzz import utils  # noqa: E402
from sqlglot import exp  # noqa: E402

from orrery.bi import decline, tools  # noqa: E402
from orrery.bi.semantic import load  # noqa: E402
from orrery.bi.tools import BIContext, CannotAnswer  # noqa: E402

RESULTS = Path(__file__).parent / "results"


def stored() -> dict[tuple[str, str, str], bool]:
    """(db, question, sql) -> answerable, over every stored run."""
    out = {}
    for path in sorted(RESULTS.glob("bi_nokeys_*.json")):
        data = json.loads(path.read_text())
        for q in data.get("questions", []) if isinstance(data, dict) else []:
            if q.get("sql") and q.get("db"):
                out[(q["db"], q["question"], q["sql"])] = q.get("gold") is not None
    return out


def absent_values(bi: BIContext, sql: str) -> list[str]:
    """The text values the query compares a column with that no indexed value holds, nor nearly."""
    lookup = bi.lookup()
    tree = sqlglot.parse_one(sql, read=bi.engine.dialect)
    texts = {
        utils.default_process(lit.this)
        for lit in tree.find_all(exp.Literal)
        if lit.is_string and lit.find_ancestor(exp.EQ, exp.In) and re.search(r"[a-z]", lit.this, re.I)
    }
    return [t for t in texts if t and not lookup.near(t) and not lookup.holding_all(set(t.split()))]


def main() -> None:
    contexts: dict[str, BIContext] = {}
    fired = {True: [], False: []}
    runs = stored()
    for (db, question, sql), answerable in runs.items():
        if db not in contexts:
            engine = engine_for(db)
            contexts[db] = BIContext(engine, load(engine.name, engine), None)
        bi = contexts[db]
        error = tools.dry_run(bi.engine, sql, probe=bi.probe)
        if "--absent" in sys.argv:
            if error == tools.NOTHING and (absent := decline.absent_value(bi, sql, question)):
                fired[answerable].append(f"{db}: {question} -> {absent!r}")
            continue
        if "--values" in sys.argv:
            if error == tools.NOTHING and (absent := absent_values(bi, sql)):
                fired[answerable].append(f"{db}: {question} -> {absent}")
            continue
        try:
            tools.decline_unheld_year(bi, sql, question, error)
        except CannotAnswer as exc:
            fired[answerable].append(f"{db}: {question} -> {exc}")
    print(f"{len(runs)} stored (question, SQL) pairs")
    for answerable, lines in fired.items():
        print(f"{'answerable' if answerable else 'unanswerable'} declined: {len(lines)}")
        print("\n".join(f"    {line}" for line in sorted(set(lines))))


if __name__ == "__main__":
    main()
