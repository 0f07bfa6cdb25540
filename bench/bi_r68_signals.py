"""Round 68's diagnosis (no model): each term a stored 'no field' decline still declines (a replay of
`bench/bi_r55_fields.py`, its JSON), tagged by the structural signals this round considers, answerable against
unanswerable: the four rules of this round (`decline.kind_column`, `initials_column`, `per_person_column`,
`_measure_of_held`), each asked alone of each term.

    PYTHONPATH=$PWD python bench/bi_r68_signals.py results/bi_r55_fields_r68base.json
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from bi_r55_fields import _load  # noqa: E402


def main() -> None:
    from orrery.bi import decline

    bnk, counts = _load("bi_nokeys"), Counter()
    for r in json.loads(Path(sys.argv[1]).read_text()):
        if not r["stands"]:
            continue
        bi = bnk.context_for(r["db"])
        for t in r["still_missing"]:
            tags = [name for name, f in SIGNALS.items() if f(decline, bi, t, r["question"])]
            kind = "ans" if r["answerable"] else "un "
            counts.update((kind, g) for g in tags)
            print(f"{kind} {r['db']:9} {r['set']:9} {t[:40]:40} {' '.join(tags)}")
    print(dict(counts))


SIGNALS = {
    "kind": lambda d, bi, t, _q: d.kind_column(bi, t),
    "initials": lambda d, bi, t, _q: d.initials_column(bi, t),
    "per_person": lambda d, bi, t, q: d.per_person_column(bi, t, q),
    "measure_noun": lambda d, bi, t, q: d._measure_of_held(bi, t, q),
}

if __name__ == "__main__":
    main()
