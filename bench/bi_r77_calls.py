"""Round 77's measure of item 4 (bench/bi_r77.md), no model: the checks a plan runs without the model on every
question of every scored set (`bi_nokeys.SCORED`), as `BIAgent.plan_todos` runs them for a new request: the shape
check (asking on), the planner's check of missing terms, the category values the user writes in lower case. Counted:
how often `missing_asked` is asked, how often it computes (`unplaced` runs), and the seconds; and every answer, so
two codes' outputs are compared.

    PYTHONPATH=$PWD python bench/bi_r77_calls.py out.json
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any
from unittest import mock

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def main(out_path: str) -> None:
    from orrery.bi import decline as d
    from orrery.bi.semantic import load
    from orrery.bi.tools import BIContext

    bnk = _load("bi_nokeys")
    contexts: dict[str, Any] = {}
    answers: dict[str, Any] = {}
    asked = computed = 0
    seconds = 0.0
    for which in bnk.SCORED:
        for q in bnk.items(which):
            if q["db"] not in contexts:
                engine = bnk.engine_for(q["db"])
                contexts[q["db"]] = BIContext(engine, load(engine.name, engine), None)
                d.shape_decline(contexts[q["db"]], "warm up")  # the derived readings built before the clock
            bi, text = contexts[q["db"]], q["question"]
            bi.question = text
            with (
                mock.patch.object(d, "missing_asked", wraps=d.missing_asked) as ask,
                mock.patch.object(d, "unplaced", wraps=d.unplaced) as runs,
            ):
                start = time.perf_counter()
                reason = d.shape_decline(bi, text, ask=True)
                missing = d.missing_asked(bi, d.as_kept(bi, text))
                values = d.category_values(bi, text)
                seconds += time.perf_counter() - start
            asked, computed = asked + ask.call_count, computed + runs.call_count
            answers[f"{which}|{text}"] = [reason, missing, [v["value"] for v in values]]
    Path(out_path).write_text(json.dumps(answers, indent=0, default=str))
    print(f"{len(answers)} questions: missing_asked asked {asked}, computed {computed}, {seconds:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1])
