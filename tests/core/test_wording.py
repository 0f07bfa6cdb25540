"""Comments, docstrings and help text (core and apps) speak of the code, not of its history (the READMEs may cite
seeds)."""

import re
from pathlib import Path

ROOT = Path(__file__).parents[2] / "orrery"
CORE = [
    *ROOT.glob("*.py"),
    *(ROOT / "agent").glob("*.py"),
    *(ROOT / "tools").glob("*.py"),
    *(ROOT / "llm").glob("*.py"),
]


def test_sources_do_not_cite_seeds():
    cited = [
        f"{p.relative_to(ROOT.parent)}:{n}"
        for p in ROOT.rglob("*.py")
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"\bseed 0\d\d", line, re.I)
    ]
    assert len(CORE) > 20 and cited == []
