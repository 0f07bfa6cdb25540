"""Round 77's diagnosis (bench/bi_r77.md), no model: where each pair of twin readings of round 77 differs on the
newest stored record of every question of the scored sets (`bi_recompose.newest`), by answerable / unanswerable
and the record's status:

1. ranking words: the words of the question in one of the two old lists only (the memory's `examples.RANKING`,
   the decline checks' `decline._RANKING` of 7b9bd25, written here as they were);
2. a year's next word read as a plural: by its final 's' (the old `decline._counted`) vs `names.singular`;
5. a table the question names: compose's `_begins` (a word of four letters begins the name or the name begins it)
   vs compose's `_names_table` (`names.names_table`, or the name's last word).

    PYTHONPATH=$PWD python bench/bi_r77_twins.py
"""

from __future__ import annotations

import collections
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402

_MEMORY = set(
    re.findall(
        r"[\w-]+",
        "highest lowest most least fewest top bottom maximum minimum max min largest smallest biggest longest shortest"
        " earliest latest oldest newest best-selling best worst more less fewer greater higher lower longer shorter"
        " larger smaller bigger cheaper older younger",
    )
)
_DECLINE = set(
    re.findall(
        r"[\w-]+",
        "more most less least fewer fewest better worse best worst highest lowest largest smallest biggest greatest"
        " longest shortest",
    )
)


def _begins(table: str, said: set[str]) -> bool:
    """compose's `_begins` of 7b9bd25: a written word of four letters or more begins the table's name or the name
    begins it ('line' of `lineitem`)."""
    from orrery.bi.names import singular, words

    name = singular(words(table).replace(" ", ""))
    return any(len(w) >= 4 and len(name) >= 4 and (name.startswith(w) or w.startswith(name)) for w in said)


def main() -> None:
    from orrery.bi import compose, decline
    from orrery.bi.names import said_words, singular
    from orrery.bi.semantic import load

    recompose, bnk = _load("bi_recompose"), _load("bi_nokeys")
    layers: dict[str, object] = {}
    tally: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    seen: dict[str, list[str]] = collections.defaultdict(list)
    for s, q in recompose.newest():
        kind = f"{'answerable' if q.get('gold') else 'unanswerable'} {q['status']}"
        text = q["question"]
        said = re.findall(r"[a-z][\w-]*", text.lower())
        if only := sorted({w for w in said if (w in _MEMORY) != (w in _DECLINE)}):
            tally["1 ranking word in one list only"][kind] += 1
            seen["1"].append(f"{s} | {text} | {only}")
        for m in decline._YEAR_OF.finditer(text):
            after = re.findall(r"[A-Za-z]+|\S", text[m.end() :].lower())[:1]
            w = after[0] if after else ""
            old = w.isalpha() and w not in decline.GRAMMAR and w.endswith("s") and not w.endswith("ss")
            new = w.isalpha() and w not in decline.GRAMMAR and singular(w) != w
            if old != new:
                tally["2 year before a word read apart"][kind] += 1
                seen["2"].append(f"{s} | {text} | {w}")
        if q["db"] not in layers:
            layers[q["db"]] = load(bnk.engine_for(q["db"]).name, bnk.engine_for(q["db"]))
        words_ = said_words(text)
        apart = [t for t in layers[q["db"]].tables if _begins(t, words_) != compose._names_table(t, words_)]
        if apart:
            tally["5 table named by a prefix only"][kind] += 1
            seen["5"].append(f"{s} | {text} | {apart}")
    for k, c in sorted(tally.items()):
        print(k, dict(c))
    for k, rows in sorted(seen.items()):
        print(f"-- {k}: {len(rows)}")
        for r in rows[:40]:
            print("  ", r)


if __name__ == "__main__":
    main()
