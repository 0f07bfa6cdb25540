"""Round 62: the shape check (bench/bi_nokeys.py --shapes) on every set with one of the three new rules of
orrery/bi/decline.py on and the other two off, then with all three (bench/bi.md, round 62):
A `_unheld_modifier` (a measure's modifier the data lacks), B `_only_a_title` (a counted thing only a title's
word), C `_phrase_held` reading later words as themselves (no near spelling holds a predicate phrase).

    PYTHONPATH=$PWD python bench/bi_r62_rules.py [A B C all]   # results/bi_nokeys_shapes_r62<X>.json
    PYTHONPATH=$PWD python bench/bi_r62_rules.py A2 C2 all2    # the narrowed A2, C2: rule letter, own tag

Loads bench/bi_nokeys.py by path (bench/mcp.py would shadow the `mcp` package).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from unittest import mock

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load  # noqa: E402


def _nokeys():
    return load("bi_nokeys")


def _old_phrase_held(bi, phrase, question):
    """The round-60 reading: any word of the phrase held, near spellings included."""
    from orrery.bi import decline as d

    return any(d._predicate_held(bi, w, question) or d.value_word(bi, w) for w in phrase)


def off(rule: str) -> contextlib.AbstractContextManager:
    from orrery.bi import decline as d

    if (
        rule == "A"
    ):  # A2 (4f4252f) withdrawn in dfc161b (bench/bi.md, round 62): nothing to turn off in the code without it
        return (
            mock.patch.object(d, "_unheld_modifier", lambda *_: False)
            if hasattr(d, "_unheld_modifier")
            else contextlib.nullcontext()
        )
    if rule == "B":
        return mock.patch.object(d, "_only_a_title", lambda *_: False)
    return mock.patch.object(d, "_phrase_held", _old_phrase_held)


def main() -> None:
    nk = _nokeys()
    sets = nk.SCORED
    for tag in sys.argv[1:] or ["A", "B", "C", "all"]:
        rule = "all" if tag.startswith("all") else tag[0]  # 'A2': rule A as the code now has it, its own tag
        with contextlib.ExitStack() as stack:
            for other in "ABC":
                if rule != "all" and other != rule:
                    stack.enter_context(off(other))
            print(f"== rule {tag}", flush=True)
            nk.shapes(sets, f"r62{tag}")


if __name__ == "__main__":
    main()
