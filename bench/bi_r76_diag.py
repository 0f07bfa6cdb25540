"""Round 76: the stored errors of development data (the newest record per question, `bi_recompose.newest()`, sets
of `bi_nokeys.SCORED`), each with its set, 1-based number, composed and fallback cause (`bi_r75_replay.cause`),
and the stored right answers, for picking the model sample. No model.

    PYTHONPATH=$PWD python bench/bi_r76_diag.py [--right]
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import loading  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--right", action="store_true", help="list the newest records that are right instead")
    args = p.parse_args()
    bnk, rec, r75 = loading.load("bi_nokeys"), loading.load("bi_recompose"), loading.load("bi_r75_replay")
    number = {}
    for s in bnk.SCORED:
        for i, q in enumerate(bnk.items(s), 1):
            number[(s, q["question"])] = i
    table = collections.Counter()
    for which, q in sorted(rec.newest(), key=lambda r: r[0]):
        if which not in bnk.SCORED:
            continue
        n = number.get((which, q["question"]))
        if args.right:
            if q["correct"]:
                print(f"{which}:{n}\t{q['status']}\t{q['db']}\t{q['question'][:90]}")
            continue
        if q["status"] != "error":
            continue
        texts = [str(t).split("failed: ", 1)[-1] for t in (q["answer"], q.get("steps", ""))]
        composed = texts[0].partition(r75.FALLBACK[:30])[0]
        fallback = max((t.partition(r75.FALLBACK[:30])[2] for t in texts), key=len)
        answerable = q["gold"] not in (None, "", "None")
        last = r75.cause(fallback) if fallback.strip() else "(cut)"
        table[(r75.cause(composed), last)] += 1
        names = ",".join(dict.fromkeys(r75.names(" ".join(texts))))
        print(
            f"{which}:{n}\t{'A' if answerable else 'U'}\t{r75.cause(composed)} | {last}\t{names}\t{q['question'][:70]}"
        )
    for k, v in table.most_common():
        print(v, *k, sep="\t")


if __name__ == "__main__":
    main()
