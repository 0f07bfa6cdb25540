"""Round 71's look at a meaning reading (not shipped): MiniLM cosines of a question's lower-case content words against
the values of the gold's category column, written '<column words>: <value>', on the development questions whose
gold filters on a value the user names by a word meaning it (round 67's class: 'champion' -> medal GOLD, 'drove' ->
mode 'Car'). For each: the gold value's best cosine over the question's words, and the best cosine of any other value
of any category column of the database (what a floor must stay above). No model call beyond the embedder.

    PYTHONPATH=$PWD python bench/bi_r71_meaning.py bench/results/bi_r71_replay_v3.txt
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402

# (set, start of the question, gold column, gold value): the 'word meaning a value' rows of round 67's listing that
# today's replay still misses (bench/bi_r71.md, diagnosis)
CASES = [
    ("heldout25", "fastest champion", "medal", "GOLD"),
    ("heldout14", "americans who won", "medal", "GOLD"),
    ("heldout17", "quickest olympic", "medal", "GOLD"),
    ("heldout20", "brits who finished", "medal", "SILVER"),
    ("heldout24", "households making", "mode_nm", "Car"),
    ("heldout21", "solo travellers", "mode_nm", "Car"),
    ("heldout20", "household income, drivers", "mode_nm", "Car"),
    ("heldout22", "sodium content of headlight", "cls_desc", "headlamp"),
    ("heldout16", "headlight glass", "cls_desc", "headlamp"),
    ("heldout24", "car-related glass", "use_area", "vehicle"),
    ("heldout15", "fragments from cars", "use_area", "vehicle"),
    ("heldout21", "steelmakers", "sector", "steel"),
    ("heldout16", "oil cos.", "sector", "petroleum"),
    ("heldout23", "southern states", "rgn_nm", "South"),
    ("heldout21", "northeastern state", "region", "northeast"),
]


def main() -> None:
    from orrery.bi.decline import GRAMMAR, categories
    from orrery.bi.names import words
    from orrery.recall.embed import default_embedder

    embedder, bnk, rc = default_embedder(), _load("bi_nokeys"), _load("bi_recompose")
    records = {(s, q["question"]): q for s, q in rc.newest()}
    out = []
    for s, start, column, value in CASES:
        q = next(q for (s2, text), q in records.items() if s2 == s and text.startswith(start))
        bi = bnk.context_for(q["db"])
        said = [w for w in re.findall(r"[a-z][a-z-]+", q["question"].lower()) if w not in GRAMMAR]
        texts = {
            (c.column, str(c.value)): f"{words(c.column)}: {c.value}" for held in categories(bi).values() for c in held
        }
        keys = list(texts)
        v = embedder.embed([texts[k] for k in keys])
        w = embedder.embed(said)
        sims = v @ w.T  # values x words
        gold = [
            i for i, (col, val) in enumerate(keys) if col.lower() == column.lower() and val.lower() == value.lower()
        ]
        best_gold = float(sims[gold].max()) if gold else None
        others = [i for i in range(len(keys)) if i not in gold]
        j = int(np.argmax(sims[others].max(axis=1)))
        row = {"set": s, "question": q["question"], "gold": f"{column} = {value}", "gold_cos": best_gold,
               "best_other": f"{keys[others[j]]}", "other_cos": float(sims[others[j]].max())}  # fmt: skip
        out.append(row)
        print(f"{row['gold_cos']:.2f} vs {row['other_cos']:.2f} {row['best_other']} | {s} | {q['question']}")
    Path("/tmp/r71_meaning.json").write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
