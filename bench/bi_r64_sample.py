"""Round 64's model sample (bench/bi.md, round 64), fixed by rule before its run, no model here: the stored wrong answers
of sub-class (a) 'code for label' (`bi_r64_tables.py`), the stored answers whose recomposed SQL the change alters
(results/bi_r64_recompose_{main,here}.json), and for each of their databases the first stored right answer (by set,
question) whose SQL has a GROUP BY, as guards. Prints set|index|db|stored|why|question, and the --only lists per set.

    PYTHONPATH=$PWD python bench/bi_r64_sample.py
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def sample() -> list[tuple[str, dict[str, Any], str]]:
    tables, wrong = _load("bi_r64_tables"), _load("bi_r59_wrong")
    picked = {
        (s, q["question"]): (s, q, "code for label") for s, q, r in tables.rows() if r.get("kind") == "code for label"
    }
    main, here = (json.loads((HERE / "results" / f"bi_r64_recompose_{c}.json").read_text()) for c in ("main", "here"))
    answered = {(s, q["question"]): q for s, q in wrong.answered()}
    for key in (k for k in main if main[k][0] != here[k][0]):
        s, question = key.split("|", 1)
        if (s, question) not in answered:  # re-run since round 64: no longer an answered newest record
            print(f"# {s}: {question!r} is no longer answered in the newest stored records; left out", file=sys.stderr)
            continue
        picked.setdefault((s, question), (s, answered[(s, question)], "recomposed SQL changed"))
    dbs = {q["db"] for _, q, _ in picked.values()}
    for s, q in wrong.answered():
        if q["correct"] and q["db"] in dbs and "GROUP BY" in q["sql"].upper():
            picked.setdefault((s, q["question"]), (s, q, "guard"))
            dbs.discard(q["db"])
    return sorted(picked.values(), key=lambda r: (r[0], r[1]["question"]))


def main() -> None:
    wrong = _load("bi_r59_wrong")
    per_set = collections.defaultdict(list)
    for s, q, why in sample():
        i = wrong.index_in_set(s, q["question"])
        per_set[s].append(i)
        print(f"{s}|{i}|{q['db']}|{'right' if q['correct'] else 'wrong'}|{why}|{q['question']}")
    for s, idx in per_set.items():
        print(f"--set {s} --only {','.join(map(str, sorted(idx)))}")


if __name__ == "__main__":
    main()
