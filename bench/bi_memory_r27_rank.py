"""Round 27 of the approved memory (issue 26), a next step's evidence (DEV groups only): one kept phrasing per group
of bench/bi_memory_r27_set.py (the first `field_term` keeps), all kept together; for each other phrasing, whether
the kept term most similar to it (MiniLM) is of its own group. A ranking to offer a person, not a floor to decide.

    PYTHONPATH=$PWD python bench/bi_memory_r27_rank.py
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def main() -> None:
    from orrery.bi.examples import field_term
    from orrery.recall.embed import lazy_embedder

    s, embedder = _load("bi_memory_r27_set"), lazy_embedder()
    kept = {g: next(p for p in s.GROUPS[g]["same"] if field_term(p)) for g in s.DEV}
    names = list(kept)
    vectors = embedder.embed([field_term(kept[g]) for g in names])
    first = said = 0
    for g in s.DEV:
        for phrase in s.GROUPS[g]["same"]:
            if phrase != kept[g]:
                sims = vectors @ embedder.embed([phrase])[0]
                said, first = said + 1, first + (names[int(sims.argmax())] == g)
    print(f"said phrasings {said}, the most similar kept term of their own group: {first}")


if __name__ == "__main__":
    main()
