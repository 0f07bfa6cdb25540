"""Round 78's model sample (bench/bi_r78.md), fixed by rule before any model call: round 71's picking
(`bench/bi_r71_sample.py`) of the replay's gains, one question per database, and the right answers that newly find
their value (controls). Prints one line per set: `SET i,j,k` (1-based numbers of `bi_nokeys.items`).

    python bench/bi_r78_sample.py bench/results/bi_r78_replay_v1.txt
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from loading import load as _load  # noqa: E402

if __name__ == "__main__":
    sample = _load("bi_r71_sample")
    sample.PER_DB = 1
    sample.main(sys.argv[1])
