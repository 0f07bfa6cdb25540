"""Round 51 (issue 20): values named in short forms, measured without the model, over round 24's recall harness.

    PYTHONPATH=$PWD python bench/bi_r51_values.py recall OUT.json [--with-plan]   # bi_r24_values.py recall
    python bench/bi_r51_values.py missed OUT.json                                 # the gold text values missed
    python bench/bi_r51_values.py diff MAIN.json HERE.json                        # every value one code adds

`recall` is `bench/bi_r24_values.py recall` (the stored mentions plus the agent's question-level passes, then
entity_resolution); `--with-plan` also adds `tools.short_values`' mentions to the plan's values, as
`agent.plan_todos` adds `category_values`' (the line proposed to agent.py's owner), so that a question whose only
value is a short form runs the resolution step. `diff` lists, per question, the values resolved under one code and
not the other, each marked gold (a gold literal, or a value of its row) or not."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def _r24() -> Any:
    spec = importlib.util.spec_from_file_location("bi_r24_values", HERE / "bi_r24_values.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def recall(out_path: str, with_plan: bool) -> None:
    r24 = _r24()
    if with_plan:
        from orrery.bi import tools

        plain = r24.resolve_now

        def resolve_now(bi: Any, question: str, mentions: list[str]) -> list[dict[str, Any]]:
            have = {m.lower() for m in mentions}
            more = [r["mention"] for r in tools.short_values(bi, question) if r["mention"].lower() not in have]
            return plain(bi, question, [*mentions, *more])

        r24.resolve_now = resolve_now
    r24.recall(out_path)


def missed(path: str) -> None:
    """The gold text values not resolved (nor stood for by a value of their row), one a line."""
    for key, r in json.loads(Path(path).read_text()).items():
        if not r["answerable"]:
            continue
        got = {v.lower() for v in r["resolved"]}
        miss = [g for g in r["gold"] if g.lower() not in got]
        for g in miss[len(r["same_row"]) :]:  # as round 24's summary: a value of the row stands for one
            print(f"{r['db']} | {key} | {g} | mentions {r['mentions']} | resolved {r['resolved']}")


def diff(main_path: str, here_path: str) -> None:
    main, here = (json.loads(Path(p).read_text()) for p in (main_path, here_path))
    for key, r in here.items():
        old = {v.lower() for v in main.get(key, {}).get("resolved", [])}
        new = {v.lower() for v in r["resolved"]}
        if old == new:
            continue
        gold = {g.lower() for g in r["gold_all"]} | {v.lower() for v in r["same_row"]}
        mark = {v: ("gold" if v in gold else "NOT GOLD") for v in new ^ old}
        kind = "answerable" if r["answerable"] else "UNANSWERABLE"
        print(f"{kind} | {key} | +{sorted(new - old)} -{sorted(old - new)} | {mark} | gold {r['gold']}")


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    if cmd == "recall":
        recall(args[0], "--with-plan" in args[1:])
    elif cmd == "missed":
        missed(args[0])
    else:
        diff(args[0], args[1])
