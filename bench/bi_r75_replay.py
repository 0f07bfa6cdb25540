"""Round 75: every stored error (the newest record per question, `bi_recompose.newest()`), classed by the cause
of its composed query and of the SQL the model then wrote over the schema; and each column name it invented
(read from the stored error text) through `tools.said_column`, no model.

    PYTHONPATH=$PWD python bench/bi_r75_replay.py --no-map     # the classes only (the code as shipped)
    git worktree add /tmp/r75 e45216f && PYTHONPATH=/tmp/r75 python bench/bi_r75_replay.py --out X.json
                                                               # the mapping too: round 75's code, reverted after
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
import loading  # noqa: E402

FALLBACK = "; the SQL the model then wrote over the schema failed too: "
_UNKNOWN = re.compile(r"no table has a column named ((?:'[^']+'(?:, )?)+)")
_ENGINE_MISSING = re.compile(
    r'no such column: (\w+(?:\.\w+)?)|does not have a column named "(\w+)"|Referenced column "(\w+)" not found'
)
CLASSES = (  # (class, pattern of the error text), first match
    ("invented column (parts)", r"no table has a column named"),
    ("invented column (SQL)", r"no such column|does not have a column named|Referenced column|no such table"),
    ("no join path", r"no join path"),
    ("not SQL (a part)", r"is not valid SQL|TokenError|does not parse"),
    ("reply cut", r"not complete JSON"),
    ("engine error (aggregate, function)", r"Error|misuse|no such function"),
    ("(cut in the stored text)", r"."),
)


def cause(text: str) -> str:
    return next(c for c, pattern in CLASSES if re.search(pattern, text))


def names(text: str) -> list[str]:
    out = [n for m in _UNKNOWN.finditer(text) for n in re.findall(r"'([^']+)'", m.group(1))]
    return out + [next(g for g in m.groups() if g) for m in _ENGINE_MISSING.finditer(text)]


def gold_columns(gold: str) -> set[str]:
    import sqlglot
    from sqlglot import exp

    return {c.name.lower() for c in sqlglot.parse_one(gold, read="sqlite").find_all(exp.Column)}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=None)
    p.add_argument("--no-map", action="store_true", help="the classes only: the mapping is not in the shipped code")
    args = p.parse_args()
    if not args.no_map:
        from orrery.bi.tools import said_column  # round 75's code (e45216f), reverted

    bnk, rec = loading.load("bi_nokeys"), loading.load("bi_recompose")
    rows, table = [], collections.Counter()
    for which, q in rec.newest():
        if q["status"] != "error":
            continue
        # the answer and the build step each keep the error's start (cut): the longer part after the marker
        texts = [str(t).split("failed: ", 1)[-1] for t in (q["answer"], q.get("steps", ""))]
        composed = texts[0].partition(FALLBACK[:30])[0]
        fallback = max((t.partition(FALLBACK[:30])[2] for t in texts), key=len)
        text = " ".join(texts)
        answerable = q["gold"] not in (None, "", "None")
        ran = f"ran: {cause(fallback)}" if fallback.strip() else "(cut in the stored text)"
        table[(cause(composed), ran, answerable)] += 1
        bi = bnk.context_for(q["db"])
        for name in [] if args.no_map else dict.fromkeys(names(text)):
            target = said_column(bi, name, q["question"])
            used = bool(target) and answerable and target[1].lower() in gold_columns(q["gold"])
            rows.append(
                {
                    "set": which,
                    "question": q["question"],
                    "answerable": answerable,
                    "name": name,
                    "mapped": ".".join(target) if target else None,
                    "in_gold": used,
                }
            )
    print("| composed query's cause | the model's SQL over the schema | answerable | unanswerable |")
    print("|---|---|---|---|")
    for c, f in sorted({k[:2] for k in table}, key=lambda k: -sum(table[(*k, a)] for a in (True, False))):
        print(f"| {c} | {f} | {table[(c, f, True)]} | {table[(c, f, False)]} |")
    print(f"errors: {sum(table.values())}")
    for r in rows:
        if r["mapped"]:
            print(f"  mapped {r['set']} {r['question']!r}: {r['name']} -> {r['mapped']} (gold uses it: {r['in_gold']})")
    count = collections.Counter(
        ("answerable" if r["answerable"] else "unanswerable", "mapped" if r["mapped"] else "not mapped") for r in rows
    )
    print(dict(count), "mapped to a gold column:", sum(r["in_gold"] for r in rows))
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
