"""The cost of one MCP tool call through an agent: orrery vs pydantic-ai, on the same MCP server, side by side.

The server is `mcp-server-time` (PyPI), started as a stdio subprocess by each client and held open for the whole
benchmark (orrery: `with server:`; pydantic-ai: `async with agent:`; the anchor: the `mcp` SDK's `Client`).
Timed, per repetition:

- anchor: `mcp.Client.call_tool("get_current_time", {"timezone": "Etc/UTC"})`, the SDK's own round trip.
- orrery: `Agent(ScriptedModel([call get_current_time, "done"]), [MCPServerStdio(...)]).run(...)`: two model
  turns, one MCP tool call through `Toolset.run_one` (schema check, timeout, events).
- pydantic-ai: `Agent(FunctionModel(...), toolsets=[MCPToolset(StdioTransport(...))]).run(...)`: the same two
  turns and one call through its MCP toolset (FastMCP client).

The three are interleaved in one process and one event loop, the order rotated each repetition, after warm-up
runs; each run asserts the tool's result came back. "Overhead" = the agent run minus the anchor's median.

    python bench/mcp.py              # 200 repetitions
    python bench/mcp.py --reps 50 --no-write
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gc
import json
import os
import platform
import shutil
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's folder comes first on sys.path, where this file would shadow the `mcp` SDK.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SERVER = shutil.which("mcp-server-time") or "mcp-server-time"
ARGS = {"timezone": "Etc/UTC"}
Timed = Callable[[], Awaitable[None]]


def anchor(client: Any) -> Timed:
    async def go() -> None:
        result = await client.call_tool("get_current_time", ARGS)
        assert '"Etc/UTC"' in result.content[0].text

    return go


def orrery_run(server: Any) -> Timed:
    from orrery.agent.loop import Agent
    from orrery.llm.scripted import ScriptedModel, call, turn

    async def go() -> None:
        model = ScriptedModel([turn(call("get_current_time", **ARGS)), "done"])
        result = Agent(model, [server]).run("What time is it?")
        assert result.ok and result.tool_calls[0].ok and '"Etc/UTC"' in result.tool_calls[0].content

    return go


def pydantic_ai_run(agent: Any) -> Timed:
    from pydantic_ai.messages import ToolReturnPart

    async def go() -> None:
        result = await agent.run("What time is it?")
        returns = [p for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
        assert result.output == "done" and "Etc/UTC" in str(returns[0].content), returns

    return go


def pydantic_ai_agent() -> Any:
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai import Agent
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    def script(messages: list[Any], _info: AgentInfo) -> ModelResponse:
        answered = any(isinstance(p, ToolReturnPart) for m in messages if isinstance(m, ModelRequest) for p in m.parts)
        if answered:
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart("get_current_time", dict(ARGS), tool_call_id="call_0")])

    toolset = MCPToolset(StdioTransport(SERVER, []))
    return Agent(FunctionModel(script), toolsets=[toolset])


async def measure(reps: int, warmup: int) -> dict[str, list[float]]:
    from mcp import Client, StdioServerParameters

    from orrery.mcp import MCPServerStdio

    server = MCPServerStdio(SERVER, prefix="")
    pai = pydantic_ai_agent()
    times: dict[str, list[float]] = {"mcp SDK call (anchor)": [], "orrery agent run": [], "pydantic-ai agent run": []}
    async with Client(StdioServerParameters(command=SERVER)) as client, pai:
        with server:
            runs = dict(zip(times, [anchor(client), orrery_run(server), pydantic_ai_run(pai)], strict=True))
            for _ in range(warmup):
                for go in runs.values():
                    await go()
            names = list(runs)
            for rep in range(reps):
                order = names[rep % 3 :] + names[: rep % 3]
                for name in order:
                    gc.collect()
                    t0 = time.perf_counter()
                    await runs[name]()
                    times[name].append(time.perf_counter() - t0)
    return times


def summarize(times: dict[str, list[float]]) -> list[dict[str, Any]]:
    base = statistics.median(times["mcp SDK call (anchor)"])
    rows = []
    for name, xs in times.items():
        xs = sorted(xs)
        med = statistics.median(xs)
        rows.append(
            {
                "what": name,
                "n": len(xs),
                "median_ms": med * 1e3,
                "p90_ms": xs[int(0.9 * (len(xs) - 1))] * 1e3,
                "vs_anchor": med / base,
                "overhead_ms": (med - base) * 1e3,
            }
        )
    return rows


def versions() -> dict[str, str]:
    out = {}
    for pkg in ("mcp", "mcp-server-time", "pydantic-ai-slim", "fastmcp-slim"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "?"
    return out


def write(rows: list[dict[str, Any]], reps: int, warmup: int) -> None:
    meta = {
        "date": dt.date.today().isoformat(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "reps": reps,
        "warmup": warmup,
        "versions": versions(),
    }
    (ROOT / "bench" / "results").mkdir(exist_ok=True)
    (ROOT / "bench" / "results" / "mcp.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    orrery_row, pai_row = rows[1], rows[2]
    lines = [
        "# One MCP tool call through an agent: orrery vs pydantic-ai",
        "",
        f"{meta['date']} · {meta['cpus']} vCPU · Python {meta['python']} · `python bench/mcp.py` · "
        f"{', '.join(f'{k} {v}' for k, v in meta['versions'].items())} · raw figures: "
        "[results/mcp.json](results/mcp.json)",
        "",
        "| what | n | median ms | p90 ms | vs anchor | overhead ms (median − anchor) |",
        "|---|---:|---:|---:|---:|---:|",
        *(
            f"| {r['what']} | {r['n']} | {r['median_ms']:.2f} | {r['p90_ms']:.2f} | {r['vs_anchor']:.2f} | "
            f"{r['overhead_ms']:.2f} |"
            for r in rows
        ),
        "",
        f"orrery's agent run with one MCP call costs {orrery_row['overhead_ms']:.2f} ms over the SDK's bare call; "
        f"pydantic-ai's {pai_row['overhead_ms']:.2f} ms "
        f"({pai_row['median_ms'] / orrery_row['median_ms']:.2f}× orrery's run time).",
        "",
        "## How it is measured",
        "",
        "- One `mcp-server-time` subprocess per client (stdio), connected once and held for the whole run.",
        "- anchor: the official `mcp` SDK `Client.call_tool` (one round trip). orrery and pydantic-ai: a whole agent "
        "run with a scripted model (orrery `ScriptedModel`, pydantic-ai `FunctionModel`): a turn asking for "
        "`get_current_time`, the MCP call, a turn answering `done`; each run asserts the tool's result.",
        f"- {reps} repetitions after {warmup} warm-up runs each, interleaved in one process and one event loop "
        "(orrery's client runs its own loop on a thread; its `run()` is called from the benchmark's loop), order "
        "rotated each repetition, `gc.collect()` before each timed call. Shared 2-vCPU machine: read the medians.",
    ]
    (ROOT / "bench" / "mcp.md").write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    a = ap.parse_args()
    rows = summarize(asyncio.run(measure(a.reps, a.warmup)))
    for r in rows:
        print(
            f"{r['what']:24} n={r['n']} median {r['median_ms']:.2f} ms p90 {r['p90_ms']:.2f} ms "
            f"x{r['vs_anchor']:.2f} overhead {r['overhead_ms']:.2f} ms"
        )
    if not a.no_write:
        write(rows, a.reps, a.warmup)


if __name__ == "__main__":
    main()
