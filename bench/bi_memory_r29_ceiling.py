"""The ceiling of approved examples (issue 26's +10-point goal), no model: of the answerable questions whose newest
stored answer (`bi_recompose.newest`) is wrong or declined, how many have an approved pair (another question's right
answer on the same database) whose SQL has the gold's template (bench/bi_memory_r29_diag.py's classes). A perfect
reuse of approved queries could turn those right and no others; the share of all answerable records is the most
points the memory could add by reuse on this data.

    python bench/bi_memory_r29_ceiling.py --out bench/results/bi_memory_r29_ceiling.json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from bi_recompose import newest

HERE = Path(__file__).parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    records = {(s, q["question"]): q for s, q in newest()}
    answerable = [q for q in records.values() if q.get("gold")]
    missed = [q for q in answerable if not q.get("correct")]
    diag = json.loads((HERE / "results" / "bi_memory_r29_diag.json").read_text())
    by_class: Counter[str] = Counter()
    for q in diag["questions"]:
        r = records.get((q["set"], q["question"]))
        if r is not None and r.get("gold") and not r.get("correct"):
            by_class[q["class"]] += 1
    reachable = sum(by_class.values())
    out = {
        "answerable_records": len(answerable),
        "right": len(answerable) - len(missed),
        "wrong_or_declined": len(missed),
        "missed_with_an_approved_template": dict(by_class),
        "ceiling_points": round(100 * reachable / len(answerable), 1),
        "ceiling_points_by_words": round(
            100 * (by_class["same words"] + by_class["one word each side"]) / len(answerable), 1
        ),
    }
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
