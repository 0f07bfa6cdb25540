"""Round 60: a set's answers today (results/bi_SET_r60.json) against the stored 2026-11-22 answers, per question.

    python bench/bi_r60_compare.py heldout2      # prints the table row and every changed verdict

The stored answer of a question is its latest 11-22 run: for heldout and dev the r2 run where it has the question
(a subset for heldout), else the first-round run. Questions are matched by their text.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

RESULTS = Path(__file__).parent / "results"
STORED = {"heldout2": ("bi_heldout2",), "heldout": ("bi_heldout1_r2", "bi_heldout"), "dev": ("bi_dev_r2", "bi_dev")}
DECLINED = ("declined", "cannot_answer")


def _load(name: str) -> list[dict]:
    return json.loads((RESULTS / f"{name}.json").read_text())["questions"]


def stored(which: str) -> dict[str, dict]:
    """The latest 11-22 answer of each question of the set, by question text (earlier files win)."""
    out: dict[str, dict] = {}
    for name in STORED[which]:
        for q in _load(name):
            out.setdefault(q["question"], q | {"from": name})
    return out


def verdict(q: dict) -> str:
    if q["correct"]:
        return "right" if q["gold"] else "declined(right)"
    if q["status"] in DECLINED:
        return "declined"
    if q["status"] not in ("completed", "answered"):
        return f"error:{q['status']}"
    return "wrong"


def compare(which: str) -> None:
    before, today = stored(which), _load(f"bi_{which}_r60")
    rows = [(before[q["question"]], q) for q in today]
    for label, pick in (("11-22", 0), ("today", 1)):
        ans = [r[pick] for r in rows if r[1]["gold"]]
        un = [r[pick] for r in rows if not r[1]["gold"]]
        print(
            f"{label}: answerable {sum(q['correct'] for q in ans)}/{len(ans)}, "
            f"unanswerable declined {sum(q['correct'] for q in un)}/{len(un)}"
        )
    for i, (b, t) in enumerate(rows, 1):
        if verdict(b) != verdict(t):
            print(f"\n#{i} [{t['db']}] {t['question']}\n  {verdict(b)} -> {verdict(t)}  (stored: {b['from']})")
            print(f"  11-22 SQL: {b['sql']}\n  today SQL: {t['sql']}\n  today answer: {t['answer'][:200]}")


if __name__ == "__main__":
    compare(sys.argv[1])
