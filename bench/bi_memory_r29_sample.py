"""Round 29's model sample: the questions where reuse newly fires (bench/bi_memory_r29.py's outputs, fired at this
branch and not at the base; once per (db, question), in the sets' order, the first `--n`), each answered by the agent
with the embedded model and the memory of bench/bi_memory_r29.py (leave-one-out), by the orrery on PYTHONPATH. Run
once per code, one after the other:

    PYTHONPATH=/work/wt/start nice -n 5 python bench/bi_memory_r29_sample.py --out bench/results/bi_memory_r29_sample_main.json
    PYTHONPATH=$PWD nice -n 5 python bench/bi_memory_r29_sample.py --out bench/results/bi_memory_r29_sample_here.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))
from loading import load as _load  # noqa: E402


def sample(n: int) -> list[dict[str, Any]]:
    base = json.loads((RESULTS / "bi_memory_r29_base.json").read_text())["rows"]
    here = json.loads((RESULTS / "bi_memory_r29_here.json").read_text())["rows"]
    before = {(r["set"], r["question"]) for r in base if r["fired"]}
    seen: set[tuple[str, str]] = set()
    out = []
    for r in here:
        key = (r["db"], r["question"])
        if r["fired"] and (r["set"], r["question"]) not in before and key not in seen:
            seen.add(key)
            out.append(r)
    return out[:n]


def main() -> None:
    import orrery
    from orrery.bi.examples import ExampleMemory
    from orrery.llm import resolve_model
    from orrery.recall import ApprovedExamples
    from orrery.recall.embed import default_embedder

    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--n", type=int, default=12)
    args = p.parse_args()
    bnk, rec, mem, r29 = _load("bi_nokeys"), _load("bi_recompose"), _load("bi_memory"), _load("bi_memory_r29")
    golds = {(w, q["question"]): q["gold"] for w in bnk.SCORED for q in bnk.items(w)}
    model = resolve_model("local")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        examples = ApprovedExamples(f"{tmp}/memory.db", embedder=default_embedder())
        for db, question, sql in r29.memory_pairs(rec.newest()):
            examples.approve(db, question, sql)
        memory = ExampleMemory(examples, leave_one_out=True)
        for i, r in enumerate(sample(args.n)):
            item = {"db": r["db"], "question": r["question"], "gold": golds[(r["set"], r["question"])]}
            got = mem.answer(model, bnk.engine_for(r["db"]), item, tmp, f"q{i}", memory)
            rows.append({"set": r["set"], **item, **got})
            print(f"{got['correct']!s:5} {got['seconds']:6.1f}s reused={bool(got['reused'])!s:5} {r['question']!r}")
            args.out.write_text(json.dumps({"code": orrery.__file__, "rows": rows}, indent=1, default=str))
    right = sum(r["correct"] for r in rows)
    print(json.dumps({"code": orrery.__file__, "questions": len(rows), "right": right}))


if __name__ == "__main__":
    main()
