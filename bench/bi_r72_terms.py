"""Round 72's diagnosis (no model): each word of every standing term of a stored replay (`bi_r55_fields.py`),
tagged by what the data's names and values hold of it: g (grammar, an aggregate or ranking word, a unit of time, a
number), c (a token of a column's name not of keys: the word, its singular or its abbreviation), t (a table's name
token), v (a whole word of a stored value), h (a word of the names, synonyms or descriptions), - (nothing).

    PYTHONPATH=$PWD python bench/bi_r72_terms.py results/bi_r55_fields_r72base.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import loading  # noqa: E402


def tag(bi, w: str) -> str:
    from orrery.bi import decline
    from orrery.bi.names import key_like, singular
    from orrery.bi.semantic import GENERIC, abbreviates

    s = singular(w)
    if w in decline.GRAMMAR or w in GENERIC or w in decline.RANKING or s in decline.CALENDAR or w.isdigit():
        return "g"
    out = ""
    toks = [(c, k) for _, c, _ in bi.semantic.columns() if not key_like(c) for k in decline._tokens(c)]
    cols = sorted({c for c, k in toks if k in (w, s) or abbreviates(k, w) or abbreviates(k, s)})
    if cols:
        out += "c" + ",".join(cols)
    if any(k in (w, s) or abbreviates(k, w) for t in bi.semantic.tables for k in decline._tokens(t)):
        out += "t"
    if decline.value_word(bi, w):
        out += "v"
    if decline.word_held(bi, w):
        out += "h"
    return out or "-"


def main() -> None:
    bnk = loading.load("bi_nokeys")
    for r in json.loads((HERE / sys.argv[1]).read_text()):
        if not r["stands"]:
            continue
        bi = bnk.context_for(r["db"])
        for t in r["still_missing"]:
            tags = " ".join(f"{w}:{tag(bi, w)}" for w in re.findall(r"[a-z0-9]+", t.lower()))
            print(f"{'ans' if r['answerable'] else 'un '} {r['db']:9} {r['set']:9} {t[:36]:36} {tags}")


if __name__ == "__main__":
    main()
