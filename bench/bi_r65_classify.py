"""Round 65: the leaks that bench/bi_r65_leaks.py wrote, by category (the set's label, read by a keyword) and by
what let them through; with a second argument `x`, one table row per leak.

    python bench/bi_r65_classify.py /tmp/r65/leaks.json [x]
"""

from __future__ import annotations

import collections
import json
import re
import sys
from pathlib import Path
from typing import Any

CATEGORY = [  # (keyword of the label, category), first match wins: 'a year outside the data' is a year
    ("absent", "value the data lacks"),
    ("value the data lacks", "value the data lacks"),
    ("no ", "plausible field it lacks"),
    ("plausible", "plausible field it lacks"),
    ("data the database lacks", "plausible field it lacks"),
    ("attribute", "plausible field it lacks"),
    ("year outside", "year outside the data"),
    ("years", "year outside the data"),
    ("opinion", "opinion/advice"),
    ("advice", "opinion/advice"),
    ("future", "the future"),
    ("outside", "outside facts"),
    ("fact", "outside facts"),
]
UNRESOLVED = re.compile(r'"unresolved": (\[[^\]]*\])')
RESOLVED = re.compile(r'\{"mention": "([^"]*)", "table": "[^"]*", "column": "[^"]*", "value": ("[^"]*"|[-\d.]+)')


def category(label: str) -> str:
    return next((c for k, c in CATEGORY if k in label.lower()), "unlabelled")


def mechanism(r: dict[str, Any]) -> str:
    if r["shape_now"]:
        return "shape check declines it today (after the record)"
    steps = [s for s in r["steps"] if s.startswith("resolve")]
    if any(json.loads(m.group(1)) for s in steps if (m := UNRESOLVED.search(s))):
        return "named value unresolved, plan ran on"
    resolved = [(m, json.loads(v)) for s in steps for m, v in RESOLVED.findall(s)]
    if any(isinstance(v, str) and m.lower() != v.lower() for m, v in resolved):
        return "named value resolved to a near value"
    return "named value resolved exactly" if resolved else "no value named to resolution"


def main(path: str, each: bool) -> None:
    rows = [(category(r["label"]), mechanism(r), r) for r in json.loads(Path(path).read_text())["leaks"]]
    print(collections.Counter(c for c, _, _ in rows))
    print(collections.Counter(m for _, m, _ in rows))
    for k, v in sorted(collections.Counter((c, m) for c, m, _ in rows).items()):
        print(v, k)
    for c, m, r in sorted(rows, key=lambda x: x[:2]) if each else []:
        print(f"| {c} | {r['set']} | {r['db']} | {r['question']} | {r['status']} | {m} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:] == ["x"])
