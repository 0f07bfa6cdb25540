"""Round 76: the model sample's numbers against the criterion (bench/bi_r76.md), from the side-by-side results
`results/bi_nokeys_<set>_{main,here}_<tag>.json` of `bench/bi_r76_sample.sh`.

    python bench/bi_r76_score.py [tag]
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).parent
A = {
    "heldout21": [30], "heldout22": [7], "heldout24": [29], "heldout25": [6, 50, 55, 61],
    "heldout26": [61], "heldout27": [13, 14, 18, 25, 55, 58, 59],
}  # fmt: skip
B = {
    "heldout16": [14], "heldout17": [14], "heldout18": [14], "heldout19": [25], "heldout20": [21], "heldout21": [13],
    "heldout22": [17], "heldout23": [13], "heldout24": [18], "heldout25": [10], "heldout26": [11], "heldout27": [15],
}  # fmt: skip


def rows(tag: str, code: str) -> dict[tuple[str, str], dict]:
    out = {}
    for f in sorted(HERE.glob(f"results/bi_nokeys_*_{code}_{tag}.json")):
        d = json.loads(f.read_text())
        for q in d["questions"]:
            out[(d["set"], q["question"])] = q
    return out


def main() -> None:
    tag = sys.argv[1] if len(sys.argv) > 1 else "bi76"
    sys.path.insert(0, str(HERE))
    import loading

    bnk = loading.load("bi_nokeys")
    main_, here = rows(tag, "main"), rows(tag, "here")
    seconds = {"main": [], "here": []}
    for name, sample in (("a", A), ("b", B)):
        tally = {"main": {"error": 0, "right": 0}, "here": {"error": 0, "right": 0}}
        for s, numbers in sample.items():
            items = bnk.items(s)
            for n in numbers:
                key = (s, items[n - 1]["question"])
                got = {c: r.get(key) for c, r in (("main", main_), ("here", here))}
                line = []
                for c, q in got.items():
                    if q is None:
                        line.append(f"{c}: (not run)")
                        continue
                    tally[c]["error"] += q["status"] == "error"
                    tally[c]["right"] += bool(q["correct"])
                    seconds[c].append(q["seconds"])
                    line.append(f"{c}: {q['status']}{' right' if q['correct'] else ''} {q['seconds']}s")
                print(f"({name}) {s}:{n} | " + " | ".join(line) + f" | {key[1][:50]}")
        print(f"({name}) {json.dumps(tally)}")
    for c, v in seconds.items():
        print(f"{c}: median {statistics.median(v) if v else None} s over {len(v)}")


if __name__ == "__main__":
    main()
