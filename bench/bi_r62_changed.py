"""Round 62: every question of every set (heldout23 pending: not read) whose shape check (`shape_decline`, no model)
changes (declined <-> passed) when one of the new rules of orrery/bi/decline.py is on alone, against all of them off (= the code before
round 62); answerable or not. Rules: bench/bi_r62_rules.py's A, B, C, as the code on sys.path has them (A2 and C2 from 4f4252f; A2 withdrawn in dfc161b).

    PYTHONPATH=$PWD python bench/bi_r62_changed.py [A B C]
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def main() -> None:
    from orrery.bi import decline as d

    nk, rules = _load("bi_nokeys"), _load("bi_r62_rules")
    wanted = sys.argv[1:] or ["A", "B", "C"]
    for which in nk.SCORED:
        for i, q in enumerate(nk.items(which), 1):
            bi = nk.context_for(q["db"])
            with contextlib.ExitStack() as stack:
                for rule in "ABC":
                    stack.enter_context(rules.off(rule))
                before = d.shape_decline(bi, q["question"])
            kind = "answerable" if q["gold"] is not None else "UNANSWERABLE"
            for rule in wanted:
                with contextlib.ExitStack() as stack:
                    for other in "ABC":
                        if other != rule:
                            stack.enter_context(rules.off(other))
                    after = d.shape_decline(bi, q["question"])
                if bool(after) != bool(before):  # C2 also narrows round 60's phrase rule: a release is listed too
                    change = "newly declined" if after else f"RELEASED (was: {before})"
                    print(f"{rule} {which:10} #{i:<3} {kind:12} {change}: {q['question']} -> {after}", flush=True)


if __name__ == "__main__":
    main()
