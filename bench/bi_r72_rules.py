"""Round 72's per-term probe (no model): each standing term of a stored replay (`bi_r55_fields.py`) asked of this
round's rules one by one (`decline.spelt_column`, `coded_column`, `only_conditions`, `held_under_conditions`),
printed with whether its question is answerable.

    PYTHONPATH=$PWD python bench/bi_r72_rules.py results/bi_r55_fields_r72base.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import loading  # noqa: E402


def main() -> None:
    from orrery.bi import decline

    bnk = loading.load("bi_nokeys")
    for r in json.loads((HERE / sys.argv[1]).read_text()):
        if not r["stands"]:
            continue
        bi, q = bnk.context_for(r["db"]), r["question"]
        for t in r["still_missing"]:
            rules = {
                "spelt": decline.spelt_column(bi, t),
                "coded": decline.coded_column(bi, t),
                "numbers": decline.only_conditions(t),
                "conditions": decline.held_under_conditions(bi, t, q),
            }
            fired = [k for k, v in rules.items() if v]
            if fired:
                kind = "ans" if r["answerable"] else "un "
                print(f"{kind} {r['db']:9} {r['set']:9} {t[:36]:36} {fired} {q[:60]}")


if __name__ == "__main__":
    main()
