"""Round 62, rule D: the shape check with asking on (`shape_decline(..., ask=True)`, a BIContext with `clarify`) on
every set's questions (heldout23 pending: not read), no model: rule D off (a missing term near a column is left to
field mapping, `askable`) vs on (only when field mapping finds it missing too, `decline.asked_later`). Lists every
question whose verdict changes and the counts per set (bench/bi.md, round 62).

    PYTHONPATH=$PWD python bench/bi_r62_ask.py

Loads bench/bi_nokeys.py by path (bench/mcp.py would shadow the `mcp` package).
"""

from __future__ import annotations

import sys
from pathlib import Path
from unittest import mock

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as load_bench  # noqa: E402


def main() -> None:
    from orrery.bi import decline as d
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    nk = load_bench("bi_nokeys")
    contexts: dict[str, BIContext] = {}
    for which in nk.SCORED:
        counts = {"off": [0, 0], "on": [0, 0]}  # [answerable declined, unanswerable declined]
        for i, q in enumerate(nk.items(which), 1):
            if q["db"] not in contexts:
                engine = nk.engine_for(q["db"])
                contexts[q["db"]] = BIContext(engine, load(engine.name, engine), None, clarify=True)
            bi, answerable = contexts[q["db"]], q["gold"] is not None
            with mock.patch.object(d, "asked_later", lambda bi, missing, _q: d.askable(bi, missing)):
                before = d.shape_decline(bi, q["question"], ask=True)
            after = d.shape_decline(bi, q["question"], ask=True)
            for key, reason in (("off", before), ("on", after)):
                counts[key][0 if answerable else 1] += bool(reason)
            if bool(before) != bool(after):
                kind = "answerable" if answerable else "UNANSWERABLE"
                change = "newly declined" if after else "released"
                print(f"  {which:10} #{i:<3} {kind:12} {change}: {q['question']} -> {after or before}", flush=True)
        print(
            f"{which}: declined with asking on, answerable {counts['off'][0]} -> {counts['on'][0]}, "
            f"unanswerable {counts['off'][1]} -> {counts['on'][1]}",
            flush=True,
        )


if __name__ == "__main__":
    main()
