"""Framework overhead per agent step: orrery vs smolagents vs pydantic-ai, with scripted models.

One task, 20 steps: the model asks for `add(a, b)` 19 times (one call a step), then answers.
Every framework uses its own test double for the model, so what is timed is the framework:
building the context, calling the model object, validating/dispatching the tool call, recording
the result in its history, and deciding whether to go on.

- orrery:      `orrery.llm.scripted.ScriptedModel` replaying 19 `turn(call("add", ...))` then "done".
- orrery+otel: the same run with OpenTelemetry tracing on (`orrery.otel.SpanRecorder`, an SDK tracer provider
               with a batch span processor whose exporter drops the spans): the cost of tracing. It is not
               a framework of its own: the fastest and the goal are decided among the other three.
- pydantic-ai: `pydantic_ai.models.function.FunctionModel` returning 19 `ToolCallPart("add")` then a
               `TextPart("done")`; run with `Agent.run_sync`.
- smolagents:  `ToolCallingAgent` with a `Model` subclass whose `generate` returns scripted
               `ChatMessage`s with `ChatMessageToolCall`s (the FakeToolCallModel pattern of
               smolagents' own tests): 19 `add` calls, then the built-in `final_answer` tool.
               `verbosity_level=LogLevel.OFF` (no rich console output; orrery runs with verbose=False).

Each repetition builds a fresh agent and model for every framework (not timed), then times only
the run call. Frameworks are interleaved in one process, in a rotated order each repetition, with
`gc.collect()` before each timed run. Peak memory is measured in separate, untimed runs with
tracemalloc (allocations during the run call, and during setup + run). A cProfile of orrery runs
is recorded too, to show where orrery's time goes.

    . .venv/bin/activate && python bench/overhead.py            # 30 repetitions
    python bench/overhead.py --reps 50 --warmup 5 --no-write    # print only
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import gc
import io
import json
import os
import platform
import pstats
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TOOL_CALLS = 19
STEPS = TOOL_CALLS + 1
TASK = "Add the numbers step by step."

# A Runner builds a fresh agent (untimed) and returns a thunk that runs the task and returns
# (final output, number of times the tool body actually ran).
Runner = Callable[[], Callable[[], tuple[str, int]]]


def counted_add() -> tuple[Callable[[int, int], int], list[int]]:
    """The benchmark's one tool, with a counter of how often its body ran (every framework wraps it)."""
    count = [0]

    def add(a: int, b: int) -> int:
        """Add two integers.

        Args:
            a: The first integer.
            b: The second integer.
        """
        count[0] += 1
        return a + b

    return add, count


# -- orrery ------------------------------------------------------------------------------------
def orrery_runner(handlers: tuple[Any, ...] = ()) -> Callable[[], tuple[str, int]]:
    from orrery.agent.loop import Agent, AgentConfig
    from orrery.llm.scripted import ScriptedModel, call, turn

    add, count = counted_add()

    turns: list[Any] = [turn(call("add", a=i, b=1)) for i in range(TOOL_CALLS)] + ["done"]
    agent = Agent(ScriptedModel(turns), [add], AgentConfig(max_rounds=STEPS), on_event=handlers)

    def go() -> tuple[str, int]:
        count[0], agent.model.index = 0, 0  # type: ignore[attr-defined]  # rewind for a reused agent
        agent.model.requests.clear()  # type: ignore[attr-defined]
        result = agent.run(TASK)
        assert result.status == "completed", (result.status, result.errors)
        assert result.steps == STEPS, result.steps
        assert len(result.tool_calls) == TOOL_CALLS and all(r.ok for r in result.tool_calls)
        return result.output, count[0]

    return go


_PROVIDER: list[Any] = []


def tracer_provider() -> Any:
    """One OpenTelemetry SDK provider for every traced run: a batch processor (what `orrery.otel.setup` uses)
    in front of an exporter that drops the spans, so what is timed is making and queueing them."""
    if not _PROVIDER:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

        class Dropped(SpanExporter):
            def export(self, _spans: Any) -> SpanExportResult:
                return SpanExportResult.SUCCESS

        provider = TracerProvider()
        provider.add_span_processor(BatchSpanProcessor(Dropped()))
        _PROVIDER.append(provider)
    return _PROVIDER[0]


def orrery_otel_runner() -> Callable[[], tuple[str, int]]:
    """orrery with OpenTelemetry tracing on: `orrery.otel.SpanRecorder` as a handler of the run's events."""
    from orrery.otel import SpanRecorder

    return orrery_runner((SpanRecorder(tracer_provider()),))


# -- pydantic-ai -------------------------------------------------------------------------------
def pydantic_ai_runner() -> Callable[[], tuple[str, int]]:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    add, count = counted_add()

    def script(messages: list[Any], _info: AgentInfo) -> ModelResponse:
        n = sum(1 for m in messages if isinstance(m, ModelResponse))  # model turns so far
        if n < TOOL_CALLS:
            return ModelResponse(parts=[ToolCallPart("add", {"a": n, "b": 1}, tool_call_id=f"call_{n}")])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(script), tools=[add])

    def go() -> tuple[str, int]:
        count[0] = 0  # the script is stateless (it counts model turns in the history)
        result = agent.run_sync(TASK)
        responses = [m for m in result.all_messages() if isinstance(m, ModelResponse)]
        assert len(responses) == STEPS, len(responses)
        return result.output, count[0]

    return go


# -- smolagents --------------------------------------------------------------------------------
def smolagents_runner() -> Callable[[], tuple[str, int]]:
    from smolagents import ToolCallingAgent, tool
    from smolagents.memory import ActionStep
    from smolagents.models import (
        ChatMessage,
        ChatMessageToolCall,
        ChatMessageToolCallFunction,
        MessageRole,
        Model,
    )
    from smolagents.monitoring import LogLevel

    plain_add, count = counted_add()
    add = tool(plain_add)

    class ScriptedToolCallModel(Model):
        """smolagents' test pattern (FakeToolCallModel): generate() returns scripted tool calls."""

        def __init__(self) -> None:
            super().__init__(model_id="scripted")
            self.i = 0

        # smolagents' signature, called with keywords
        def generate(
            self,
            messages,  # noqa: ARG002
            stop_sequences=None,  # noqa: ARG002
            response_format=None,  # noqa: ARG002
            tools_to_call_from=None,  # noqa: ARG002
            **kwargs,  # noqa: ARG002
        ):
            i, self.i = self.i, self.i + 1
            if i < TOOL_CALLS:
                fn = ChatMessageToolCallFunction(name="add", arguments={"a": i, "b": 1})
            else:
                fn = ChatMessageToolCallFunction(name="final_answer", arguments={"answer": "done"})
            return ChatMessage(
                role=MessageRole.ASSISTANT,
                content="",
                tool_calls=[ChatMessageToolCall(id=f"call_{i}", type="function", function=fn)],
            )

    agent = ToolCallingAgent(tools=[add], model=ScriptedToolCallModel(), max_steps=STEPS, verbosity_level=LogLevel.OFF)

    def go() -> tuple[str, int]:
        count[0], agent.model.i = 0, 0  # rewind for a reused agent (run() resets its memory)
        output = agent.run(TASK)  # plain run: return_full_result=True would add a dict dump of memory
        actions = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
        assert len(actions) == STEPS and not any(s.error for s in actions), len(actions)
        assert actions[-1].is_final_answer
        return output, count[0]

    return go


FRAMEWORKS: dict[str, Runner] = {
    "orrery": orrery_runner,
    "orrery+otel": orrery_otel_runner,
    "pydantic-ai": pydantic_ai_runner,
    "smolagents": smolagents_runner,
}
VERSIONS = {
    "orrery": "orrery",
    "orrery+otel": "opentelemetry-sdk",
    "pydantic-ai": "pydantic-ai-slim",
    "smolagents": "smolagents",
}


def checked(name: str, go: Callable[[], tuple[str, int]]) -> None:
    output, calls = go()
    assert output == "done", (name, output)
    assert calls == TOOL_CALLS, f"{name}: tool ran {calls} times, expected {TOOL_CALLS}"


def timed_run(name: str, reused: bool = False) -> float:
    """Time one run. reused=True: the agent has already done the task once (warm agent)."""
    go = FRAMEWORKS[name]()
    if reused:
        checked(name, go)
    gc.collect()
    t0 = time.perf_counter()
    output, calls = go()
    elapsed = time.perf_counter() - t0
    assert output == "done" and calls == TOOL_CALLS, (name, output, calls)
    return elapsed


def peak_memory(name: str) -> tuple[float, float]:
    """(peak KiB allocated during the run call, peak KiB during setup + run), tracemalloc."""
    gc.collect()
    tracemalloc.start()
    go = FRAMEWORKS[name]()
    _, setup_peak = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    base, _ = tracemalloc.get_traced_memory()
    checked(name, go)
    _, run_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (run_peak - base) / 1024, max(setup_peak, run_peak) / 1024


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def profile_orrery(runs: int, top: int = 25) -> tuple[list[dict[str, Any]], str]:
    """cProfile `runs` orrery runs (run call only); top functions by own time, and the text."""
    prof = cProfile.Profile()
    for _ in range(runs):
        go = orrery_runner()
        prof.enable()
        checked("orrery", go)
        prof.disable()
    stats = pstats.Stats(prof)
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = []
    for (file, line, func), (_cc, ncalls, tottime, cumtime, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        rel = file
        for marker in ("site-packages/", f"python{sys.version_info[0]}.{sys.version_info[1]}/"):
            if marker in rel:
                rel = rel.split(marker, 1)[1]
                break
        else:
            rel = os.path.relpath(file, ROOT) if file.startswith(str(ROOT)) else file
        rows.append(
            {
                "where": f"{rel}:{line}:{func}",
                "calls_per_step": ncalls / runs / STEPS,
                "own_us_per_step": tottime / runs / STEPS * 1e6,
                "cum_us_per_step": cumtime / runs / STEPS * 1e6,
                "own_share": tottime / total,
            }
        )
    rows.sort(key=lambda r: r["own_us_per_step"], reverse=True)
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(30)
    return rows[:top], buf.getvalue()


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} vCPU, {cpu}, {platform.system()} {platform.release()}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--profile-runs", type=int, default=30)
    ap.add_argument("--no-write", action="store_true", help="print only; do not write results")
    args = ap.parse_args()
    names = list(FRAMEWORKS)
    load_before = os.getloadavg()[0]

    for name in names:  # import, correctness and warm-up
        for _ in range(args.warmup):
            checked(name, FRAMEWORKS[name]())

    times: dict[str, list[float]] = {n: [] for n in names}
    reused_times: dict[str, list[float]] = {n: [] for n in names}
    for rep in range(args.reps):
        k = rep % len(names)
        for name in names[k:] + names[:k]:  # rotate the order so no framework always goes first
            times[name].append(timed_run(name))
            reused_times[name].append(timed_run(name, reused=True))

    memory = {n: peak_memory(n) for n in names}
    # tracemalloc results vary a little run to run; take the median of three
    for n in names:
        samples = [memory[n]] + [peak_memory(n) for _ in range(2)]
        memory[n] = (statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples))

    per_step = {n: [t / STEPS for t in times[n]] for n in names}
    med = {n: statistics.median(per_step[n]) for n in names}
    peers = [n for n in names if n != "orrery+otel"]
    fastest = min(peers, key=lambda n: med[n])
    med_reused = {n: statistics.median(reused_times[n]) / STEPS for n in names}
    fastest_reused = min(peers, key=lambda n: med_reused[n])
    results: dict[str, Any] = {}
    for n in names:
        results[n] = {
            "version": metadata.version(VERSIONS[n]) if n != "orrery" else _orrery_version(),
            "seconds_per_step": {"median": med[n], "p90": percentile(per_step[n], 0.9), "min": min(per_step[n])},
            "seconds_per_run": {"median": statistics.median(times[n]), "p90": percentile(times[n], 0.9)},
            "peak_kib": round(memory[n][0], 1),
            "peak_kib_incl_setup": round(memory[n][1], 1),
            "ratio_vs_orrery": med[n] / med["orrery"],
            "ratio_vs_fastest": med[n] / med[fastest],
            "reused_agent": {
                "seconds_per_step_median": med_reused[n],
                "seconds_per_step_p90": percentile([t / STEPS for t in reused_times[n]], 0.9),
                "ratio_vs_orrery": med_reused[n] / med_reused["orrery"],
                "ratio_vs_fastest": med_reused[n] / med_reused[fastest_reused],
            },
            "tool_executions_per_run": TOOL_CALLS,
        }

    profile_rows, profile_text = profile_orrery(args.profile_runs)
    now = dt.datetime.now(dt.UTC)
    out = {
        "date": now.isoformat(timespec="seconds"),
        "machine": machine(),
        "load_average_1min": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
        "python": platform.python_version(),
        "task": {
            "steps": STEPS,
            "tool_calls": TOOL_CALLS,
            "tool": "add(a: int, b: int) -> int",
            "final": "text answer (smolagents: final_answer tool call)",
        },
        "method": {
            "repetitions": args.reps,
            "warmup_runs": args.warmup,
            "timed": "run call only; fresh agent + scripted model built untimed per repetition",
            "interleaved": "one process, frameworks rotated each repetition, gc.collect() before each",
            "per_step": "run wall time / 20 steps",
            "reused_agent": "also timed: a second run on an agent that already did the task once",
            "memory": "tracemalloc peak during the run call (median of 3 untimed runs)",
        },
        "fastest": fastest,
        "tracing": {
            "seconds_per_step_added": med["orrery+otel"] - med["orrery"],
            "ratio_vs_orrery": med["orrery+otel"] / med["orrery"],
            "spans_per_step": "about 3 (step, chat, execute_tool) plus the run's",
        },
        "goal": "orrery no slower than the fastest (ratio_vs_fastest <= 1.00)",
        "goal_met": fastest == "orrery",
        "fastest_reused_agent": fastest_reused,
        "frameworks": results,
        "orrery_profile": {"runs": args.profile_runs, "top_by_own_time": profile_rows},
    }

    table = render_table(out)
    print(table)
    print("\norrery, top functions by own time (us/step):")
    for r in profile_rows[:15]:
        print(
            f"  {r['own_us_per_step']:7.2f}  cum {r['cum_us_per_step']:7.2f}  x{r['calls_per_step']:.1f}  {r['where']}"
        )
    if args.no_write:
        print(profile_text)
        return
    res = ROOT / "bench" / "results"
    res.mkdir(parents=True, exist_ok=True)
    (res / "overhead.json").write_text(json.dumps(out, indent=2) + "\n")
    (ROOT / "bench" / "overhead.md").write_text(render_md(out, table))
    print(f"\nwrote {res / 'overhead.json'} and {ROOT / 'bench' / 'overhead.md'}")


def _orrery_version() -> str:
    try:
        return metadata.version("orrery")
    except metadata.PackageNotFoundError:
        return "dev"


def render_table(out: dict[str, Any]) -> str:
    rows = [
        "| framework | version | µs/step median | µs/step p90 | ms/run median | peak KiB (run) "
        "| peak KiB (setup+run) | vs orrery | vs fastest | reused agent µs/step (vs orrery) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for n, r in sorted(out["frameworks"].items(), key=lambda kv: kv[1]["seconds_per_step"]["median"]):
        rows.append(
            f"| {n} | {r['version']} | {r['seconds_per_step']['median'] * 1e6:.0f} "
            f"| {r['seconds_per_step']['p90'] * 1e6:.0f} | {r['seconds_per_run']['median'] * 1e3:.2f} "
            f"| {r['peak_kib']:.0f} | {r['peak_kib_incl_setup']:.0f} "
            f"| {r['ratio_vs_orrery']:.2f} | {r['ratio_vs_fastest']:.2f} "
            f"| {r['reused_agent']['seconds_per_step_median'] * 1e6:.0f} "
            f"({r['reused_agent']['ratio_vs_orrery']:.2f}) |"
        )
    return "\n".join(rows)


def render_md(out: dict[str, Any], table: str) -> str:
    m = out["method"]
    prof = out["orrery_profile"]["top_by_own_time"][:12]
    prof_rows = "\n".join(
        f"| `{r['where']}` | {r['own_us_per_step']:.1f} | {r['cum_us_per_step']:.1f} | {r['calls_per_step']:.1f} |"
        for r in prof
    )
    tr = out["tracing"]
    mins = {n: out["frameworks"][n]["seconds_per_step"]["min"] * 1e6 for n in ("orrery", "orrery+otel")}
    tracing = (
        f"Tracing on (orrery+otel) adds {tr['seconds_per_step_added'] * 1e6:.0f} µs a step at the median "
        f"({tr['ratio_vs_orrery']:.2f}x orrery's time; {mins['orrery+otel'] - mins['orrery']:.0f} µs between "
        f"the fastest runs; {tr['spans_per_step']}), almost all of it the OpenTelemetry SDK making spans; "
        "tracing off is orrery's row."
    )
    verdict = (
        "orrery is the fastest: goal met."
        if out["goal_met"]
        else f"{out['fastest']} is the fastest; orrery is "
        f"{out['frameworks']['orrery']['ratio_vs_fastest']:.2f}x its time per step: goal not met."
    )
    return f"""# Framework overhead per step (scripted models)

{out["date"][:10]} · machine: {out["machine"]} · Python {out["python"]} · `python bench/overhead.py`
· 1-minute load average {out["load_average_1min"]["before"]} before, {out["load_average_1min"]["after"]} after (the
machine is shared: a high load stretches the longer runs most, so the ratios grow with it; the minima in the JSON
are the least disturbed figures)
· raw figures: [results/overhead.json](results/overhead.json)

{table}

{verdict} (orrery = 1.00 in "vs orrery"; "vs fastest" is against the fastest median.)
{tracing}

## How it is measured

- One task of {out["task"]["steps"]} steps: the model asks for `{out["task"]["tool"]}` once a step,
  {out["task"]["tool_calls"]} times, then answers `done` (smolagents: through its `final_answer`
  tool, its only way to finish). Each run asserts
  the tool body executed exactly {out["task"]["tool_calls"]} times and the output is `done`.
- orrery+otel: orrery with `orrery.otel.SpanRecorder` on its events, an OpenTelemetry SDK provider with a
  batch span processor and an exporter that drops the spans (span creation and queueing are timed, not export).
- Each framework with its own test model: orrery `ScriptedModel`; pydantic-ai `FunctionModel`
  (`Agent.run_sync`); smolagents `ToolCallingAgent` with a `Model` subclass returning scripted
  `ChatMessage` tool calls (its tests' FakeToolCallModel pattern), `verbosity_level=OFF`.
- Timed: the run call only; a fresh agent and model are built (untimed) for every repetition.
  {m["repetitions"]} repetitions after {m["warmup_runs"]} warm-up runs each, all in one process,
  interleaved with the order rotated each repetition, `gc.collect()` before every timed run.
  Per step = run wall time / {out["task"]["steps"]}; median and p90 over repetitions.
  "Reused agent": the same, but a second run on an agent that has already done the task once
  (any lazy per-agent set-up already paid); the scripted model is rewound between runs.
- Peak memory: tracemalloc peak of allocations during the run call (and during setup + run),
  median of 3 separate untimed runs.

## Where orrery's time goes (cProfile, {out["orrery_profile"]["runs"]} runs, per step)

cProfile inflates small calls; read shares, not absolute times.

| function | own µs/step | cumulative µs/step | calls/step |
|---|---:|---:|---:|
{prof_rows}
"""


if __name__ == "__main__":
    main()
