"""Round 66 (bench/bi_r66.md): two outputs of bench/bi_recompose.py side by side: the answers gained and lost, and
every recomposed SQL that changed (right before and after included), so a rule that touches right answers shows.

    PYTHONPATH=/work/wt/start python bench/bi_recompose.py /tmp/main.json
    PYTHONPATH=$PWD python bench/bi_recompose.py /tmp/here.json
    python bench/bi_r66_compare.py /tmp/main.json /tmp/here.json"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(before_path: str, after_path: str) -> None:
    before, after = (json.loads(Path(p).read_text()) for p in (before_path, after_path))
    changed = [k for k in before if k in after and before[k][0] != after[k][0]]
    gained = [k for k in changed if before[k][1] is not True and after[k][1] is True]
    lost = [k for k in changed if before[k][1] is True and after[k][1] is not True]
    kept = [k for k in changed if before[k][1] is True and after[k][1] is True]
    for k in changed:
        print(f"{before[k][1]!s:5} -> {after[k][1]!s:5} {k}\n   {after[k][0][:220]}")
    right = [sum(v[1] is True for v in d.values()) for d in (before, after)]
    print(
        f"right {right[0]} -> {right[1]} of {len(after)}; SQL changed {len(changed)}: gained {len(gained)}, "
        f"lost {len(lost)}, right before and after {len(kept)}"
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
