"""The README's main job measured: `orrery demo`'s analysis with the embedded model, where the time goes.

python bench/demo.py            # writes bench/results/demo.json and bench/demo.md
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import date
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from orrery import events as ev  # noqa: E402
from orrery.forecast.agent import ForecastAgent  # noqa: E402
from orrery.forecast.cli import SAMPLE  # noqa: E402
from orrery.llm.local import LocalModel  # noqa: E402

HERE = Path(__file__).parent


def measure(model: LocalModel, catalogue: bool) -> dict:
    """One demo analysis; per model call: seconds and llama.cpp's prompt tokens processed / reused from cache."""
    model.profile = replace(
        model.profile, takes_catalogue=catalogue
    )  # False: the anchor, the tool list in the prompt changes with gating
    model_s, tool_s, calls, per_call = [], [], [], []

    def seen(e: ev.Event) -> None:
        if isinstance(e, ev.ModelReply):
            model_s.append(e.seconds)
            t = model.last_timings
            per_call.append(
                {
                    "s": round(e.seconds, 2),
                    "prompt_processed": t.get("prompt_n"),
                    "prompt_cached": t.get("cache_n"),
                    "completion": t.get("predicted_n"),
                }
            )
        elif isinstance(e, ev.ToolResultEvent):
            tool_s.append(e.seconds)
        elif isinstance(e, ev.ToolCallEvent):
            calls.append(e.call.name)

    agent = ForecastAgent(model, on_event=[seen])
    t0 = time.perf_counter()
    result = agent.analyze(SAMPLE, query="Forecast the next two years of passengers and explain the result.")
    return {
        "wall_s": round(time.perf_counter() - t0, 1),
        "model_calls": len(model_s),
        "model_s": round(sum(model_s), 1),
        "tool_s": round(sum(tool_s), 2),
        "tool_calls": calls,
        "per_call": per_call,
        "prompt_processed": sum(c["prompt_processed"] or 0 for c in per_call),
        "prompt_cached": sum(c["prompt_cached"] or 0 for c in per_call),
        "status": result.status,
        "best_model": result.best_model,
        "beats_baseline": result.beats_baseline,
        "commentary_omitted": result.commentary_omitted,
        "narrative": result.narrative,
    }


def _call(c: dict) -> str:
    return f"{c['prompt_processed']}/{c['prompt_cached']}/{c['completion']}"


def command_wall() -> float:
    """`orrery demo` as a user runs it (a fresh process: imports, model load, analysis, report files)."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "orrery.cli", "demo", "--out-dir", tmp, "--no-verbose"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        return round(time.perf_counter() - t0, 1)


def main() -> None:
    model = LocalModel()
    t0 = time.perf_counter()
    model.load()
    load_s = time.perf_counter() - t0
    load0 = os.getloadavg()[0]
    runs = {"catalogue": measure(model, True), "anchor (tools in the prompt per step)": measure(model, False)}
    del model  # the command below loads its own copy
    cli_s = command_wall()
    figures = {
        "date": date.today().isoformat(),
        "machine": f"{os.cpu_count()} vCPU, {platform.processor() or 'x86_64'}",
        "load_s": round(load_s, 2),
        "runs": runs,
        "orrery_demo_wall_s": cli_s,
        "load_average": [round(load0, 2), round(os.getloadavg()[0], 2)],
    }
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "demo.json").write_text(json.dumps(figures, indent=2))
    base = runs["anchor (tools in the prompt per step)"]["wall_s"]
    rows = "\n".join(
        f"| {name} | {r['wall_s']} | {r['wall_s'] / base:.2f} | {r['model_calls']} | {r['model_s']} | "
        f"{r['tool_s']} | {r['prompt_processed']} / {r['prompt_cached']} | "
        f"{' '.join(_call(c) for c in r['per_call'])} | "
        f"{r['status']} | {r['best_model']} |"
        for name, r in runs.items()
    )
    (HERE / "demo.md").write_text(f"""## The demo (`orrery demo`, embedded model)

{figures["date"]}, {figures["machine"]}, `python bench/demo.py`; AirPassengers (144 monthly values), h=24; both runs
in one process, one after the other, model loaded once ({figures["load_s"]} s). The anchor shows the model only the
tools offered at each step, so its system prompt changes as the workflow's gates open; `catalogue` lists every
tool in a stable system prompt and gates through the grammar, so llama.cpp reuses the cached prefix.

| run | wall s | vs anchor | model calls | model s | tool s | prompt tokens processed / reused | per call processed/reused/completion | status | best model |
|---|---:|---:|---:|---:|---:|---|---|---|---|
{rows}

Tool calls (catalogue run): {", ".join(runs["catalogue"]["tool_calls"])}. The model's time dominates.
`orrery demo` itself, run afterwards as a user runs it (a new process: imports, model load, the analysis, the
report files): {cli_s} s. Load average {figures["load_average"][0]} at the start, {figures["load_average"][1]} at
the end.
""")
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
