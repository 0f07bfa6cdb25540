"""The README's main job measured: `orrery demo`'s analysis with the embedded model, where the time goes.

    python bench/demo.py            # writes bench/results/demo.json and bench/demo.md
"""

from __future__ import annotations

import json
import os
import platform
import time
from datetime import date
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from orrery import events as ev  # noqa: E402
from orrery.forecast.agent import ForecastAgent  # noqa: E402
from orrery.forecast.cli import SAMPLE  # noqa: E402
from orrery.llm.local import LocalModel  # noqa: E402

HERE = Path(__file__).parent


def main() -> None:
    model = LocalModel()
    t0 = time.perf_counter()
    model.load()
    load_s = time.perf_counter() - t0
    model_s, tool_s, calls = [], [], []
    agent = ForecastAgent(model, on_event=[lambda e: (
        model_s.append(e.seconds) if isinstance(e, ev.ModelReply) else
        tool_s.append(e.seconds) if isinstance(e, ev.ToolResultEvent) else
        calls.append(e.call.name) if isinstance(e, ev.ToolCallEvent) else None)])
    t0 = time.perf_counter()
    result = agent.analyze(SAMPLE, query="Forecast the next two years of passengers and explain the result.")
    wall = time.perf_counter() - t0
    figures = {
        "date": date.today().isoformat(), "machine": f"{os.cpu_count()} vCPU, {platform.processor() or 'x86_64'}",
        "load_s": round(load_s, 2), "wall_s": round(wall, 1), "model_calls": len(model_s),
        "model_s": round(sum(model_s), 1), "tool_s": round(sum(tool_s), 2), "tool_calls": calls,
        "status": result.status, "best_model": result.best_model, "beats_baseline": result.beats_baseline,
        "prompt_tokens": result.usage.prompt_tokens, "completion_tokens": result.usage.completion_tokens,
        "warnings": result.warnings, "commentary_omitted": result.commentary_omitted, "narrative": result.narrative,
    }
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "demo.json").write_text(json.dumps(figures, indent=2))
    (HERE / "demo.md").write_text(f"""## The demo (`orrery demo`, embedded model)

{figures['date']}, {figures['machine']}, `python bench/demo.py`; AirPassengers (144 monthly values), h=24.

| load s | wall s | model calls | model s | tool s | tokens in / out | status | best model | beats SeasonalNaive |
|---:|---:|---:|---:|---:|---|---|---|---|
| {figures['load_s']} | {figures['wall_s']} | {figures['model_calls']} | {figures['model_s']} | {figures['tool_s']} | {figures['prompt_tokens']} / {figures['completion_tokens']} | {figures['status']} | {figures['best_model']} | {figures['beats_baseline']} |

Tool calls in order: {', '.join(calls)}. The model's time dominates; the statsforecast work is {figures['tool_s']} s.
""")
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
