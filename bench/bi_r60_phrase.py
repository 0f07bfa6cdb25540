"""Round 60: where the predicate-phrase rule (decline.predicate_phrase) fires, on every set's questions, no model.

    python bench/bi_r60_phrase.py      # each question whose phrase no word of the data holds: answerable or not,
                                       # and whether the shape check declined it without the rule

Loads bench/bi_nokeys.py by path (bench/mcp.py would shadow the `mcp` package).
"""

from __future__ import annotations

import sys
from pathlib import Path
from unittest import mock

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load  # noqa: E402


def _nokeys():
    return load("bi_nokeys")


def main() -> None:
    from orrery.bi import decline as d

    nk = _nokeys()
    for which in nk.SCORED:
        for q in nk.items(which):
            phrase = d.predicate_phrase(q["question"])
            if not phrase:
                continue
            bi = nk.context_for(q["db"])
            if any(d._predicate_held(bi, w, q["question"]) or d.value_word(bi, w) for w in phrase):
                continue
            with mock.patch.object(d, "predicate_phrase", lambda _q: []):
                before = d.shape_decline(bi, q["question"])
            kind = "answerable" if q["gold"] is not None else "unanswerable"
            print(f"{which:10} {kind:12} {'already declined' if before else 'NEWLY declined'}: {q['question']}")


if __name__ == "__main__":
    main()
