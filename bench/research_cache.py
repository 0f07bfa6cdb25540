"""The research agent's source board and llama.cpp's prompt cache (issue 13).

    python bench/research_cache.py [--questions 4]

The board is re-injected every step. Pinned at message 2 (seed 001), every change of the board (a source
added, a note edited) changes the prompt right after the question, so llama.cpp must process everything after it
again; after the history, only the board and the new turns are new. Both positions run on the same questions with
the embedded model, interleaved question by question (the order alternating), in one process: per model call, the
prompt tokens processed anew and reused from the cache (llama.cpp's timings), and seconds.
Writes bench/results/research_cache.json and bench/research_cache.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from research import brier_sample  # noqa: E402

from orrery import events as ev  # noqa: E402
from orrery.llm.local import LocalModel  # noqa: E402
from orrery.research.agent import ResearchAgent  # noqa: E402
from orrery.research.batch import write_json_atomic  # noqa: E402
from orrery.research.corpus import demo_index  # noqa: E402

POSITIONS = {"pinned at message 2": 2, "after the history": None}


def one(model: LocalModel, index: Any, question: dict[str, Any], board_at: int | None) -> dict[str, Any]:
    calls: list[dict[str, Any]] = []

    def seen(e: ev.Event) -> None:
        if isinstance(e, ev.ModelReply):
            t = model.last_timings
            calls.append(
                {
                    "s": round(e.seconds, 2),
                    "processed": t.get("prompt_n", 0),
                    "cached": t.get("cache_n", 0),
                    "completion": t.get("predicted_n", 0),
                }
            )

    agent = ResearchAgent(model, index, k=3, max_rounds=6, on_event=[seen])
    agent.config.board_at = board_at
    t0 = time.perf_counter()
    result = agent.run(question)
    return {
        "question": question["id"],
        "wall_s": round(time.perf_counter() - t0, 1),
        "status": result.status,
        "probability": result.probability,
        "calls": calls,
        "processed": sum(c["processed"] for c in calls),
        "cached": sum(c["cached"] for c in calls),
    }


def render(data: dict[str, Any]) -> str:
    lines = [
        "## Research agent: where the source board goes (`bench/research_cache.py`)",
        "",
        f"{data['date']}, {data['machine']}; the embedded model, {data['n']} shipped resolved questions, "
        "max 6 steps, k=3, both positions interleaved in one process (load average "
        f"{data['load'][0]}-{data['load'][1]}).",
        "",
        "| board | model calls | prompt tokens processed | reused from cache | model s | wall s | submitted |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, rows in data["runs"].items():
        calls = [c for r in rows for c in r["calls"]]
        lines.append(
            f"| {name} | {len(calls)} | {sum(c['processed'] for c in calls)} | "
            f"{sum(c['cached'] for c in calls)} | {sum(c['s'] for c in calls):.1f} | "
            f"{sum(r['wall_s'] for r in rows):.1f} | "
            f"{sum(r['status'] == 'completed' for r in rows)} of {len(rows)} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=4)
    args = parser.parse_args()
    model = LocalModel()
    model.load()
    load0 = os.getloadavg()[0]
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in POSITIONS}
    with tempfile.TemporaryDirectory() as tmp:
        index = demo_index(Path(tmp) / "demo.sqlite")
        for i, q in enumerate(brier_sample(args.questions)):
            order = list(POSITIONS.items())[:: 1 if i % 2 == 0 else -1]
            for name, at in order:
                runs[name].append(one(model, index, q, at))
                print(name, json.dumps({k: v for k, v in runs[name][-1].items() if k != "calls"}), flush=True)
    data = {
        "date": date.today().isoformat(),
        "machine": f"{os.cpu_count()} vCPU, {platform.machine()}",
        "n": args.questions,
        "load": [round(load0, 2), round(os.getloadavg()[0], 2)],
        "runs": runs,
    }
    write_json_atomic(HERE / "results" / "research_cache.json", data)
    (HERE / "research_cache.md").write_text(render(data), encoding="utf-8")
    print(render(data))


if __name__ == "__main__":
    main()
