"""The agent server's speed: `orrery serve` against pydantic-ai's AG-UI adapter (`pydantic_ai.ui.ag_ui`)
serving the same scripted 20-step run (19 `add` tool calls, then "done"), side by side in one run.

    python bench/serve.py            # writes bench/results/serve.json and bench/serve.md

Each server runs in its own process (uvicorn, loopback); this process is the client. Measured per run:
time to first event (request sent -> first `data:` line), events and wall time; sequential runs alternate
between the servers (order rotated each repetition), then a concurrent phase (C clients at once).
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).parent
STEPS = 20
TOOL_CALLS = STEPS - 1
REPS = 40
CONCURRENT, PER_CLIENT = 10, 4


def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first
        b: the second
    """
    return a + b


# -- the two servers ----------------------------------------------------------------------------------
def orrery_steps_agent(llm: Any = None, **options: Any) -> Any:  # noqa: ARG001 - an app factory's signature
    from orrery.agent.loop import Agent, AgentConfig

    return Agent(llm, [add], AgentConfig(max_rounds=STEPS + 5, answer_on_repeat=False))


def orrery_server(port: int, data: str) -> None:
    import uvicorn

    from orrery.apps import App
    from orrery.llm.scripted import ScriptedModel, call, turn
    from orrery.serve import Settings, create_app

    def model(_agent: str, _body: Any) -> ScriptedModel:  # a fresh script per run
        return ScriptedModel([*(turn(call("add", a=i, b=1)) for i in range(TOOL_CALLS)), "done"])

    apps = {"steps": App("steps", "20 scripted steps", f"{__name__}:orrery_steps_agent")}
    uvicorn.run(
        create_app(Settings(model=model, apps=apps, data=Path(data))), host="127.0.0.1", port=port, log_level="warning"
    )


def pydantic_ai_server(port: int, _data: str) -> None:
    import uvicorn
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse
    from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
    from pydantic_ai.ui.ag_ui import AGUIAdapter
    from starlette.applications import Starlette
    from starlette.routing import Route

    async def script(messages: list[Any], _info: AgentInfo):
        n = sum(1 for m in messages if isinstance(m, ModelResponse))  # model turns so far
        if n < TOOL_CALLS:
            yield {0: DeltaToolCall(name="add", json_args=json.dumps({"a": n, "b": 1}), tool_call_id=f"call_{n}")}
        else:
            yield "done"

    agent = Agent(FunctionModel(stream_function=script), tools=[add])

    async def run(request: Any) -> Any:
        return await AGUIAdapter.dispatch_request(request, agent=agent)

    app = Starlette(routes=[Route("/agents/steps", run, methods=["POST"])])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


SERVERS = {"orrery": orrery_server, "pydantic-ai": pydantic_ai_server}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(name: str, data: str) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    proc = subprocess.Popen([sys.executable, __file__, "server", name, str(port), data], env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.post(f"{url}/agents/steps", content=b"{}", timeout=2)
            return proc, url
        except httpx.TransportError:
            assert proc.poll() is None and time.monotonic() < deadline, f"{name} server did not start"
            time.sleep(0.2)


# -- the client --------------------------------------------------------------------------------------
def body(i: int) -> dict[str, Any]:
    return {
        "threadId": f"bench-{i}",
        "runId": f"run-{i}",
        "state": {},
        "tools": [],
        "context": [],
        "forwardedProps": {},
        "messages": [{"id": f"m{i}", "role": "user", "content": "add the numbers"}],
    }


def check(name: str, events: list[dict[str, Any]]) -> None:
    types = [e["type"] for e in events]
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED", (name, types[:3], types[-3:])
    assert types.count("TOOL_CALL_RESULT") == TOOL_CALLS, (name, types.count("TOOL_CALL_RESULT"))
    text = "".join(e.get("delta", "") for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "done", (name, text)


def one_run(client: httpx.Client, name: str, i: int) -> dict[str, float]:
    t0 = time.perf_counter()
    first = None
    events = []
    with client.stream("POST", "/agents/steps", json=body(i), headers={"Accept": "text/event-stream"}) as r:
        assert r.status_code == 200, r.read()
        for line in r.iter_lines():
            if line.startswith("data: "):
                first = first or time.perf_counter()
                events.append(json.loads(line[6:]))
    wall = time.perf_counter() - t0
    check(name, events)
    return {"ttfe_ms": (first - t0) * 1000, "wall_ms": wall * 1000, "events": len(events)}


async def concurrent(url: str, name: str) -> tuple[float, int, list[float]]:
    async def client(k: int, http: httpx.AsyncClient) -> tuple[int, list[float]]:
        n, firsts = 0, []
        for j in range(PER_CLIENT):
            t0, first, events = time.perf_counter(), None, []
            async with http.stream("POST", "/agents/steps", json=body(10_000 + k * 100 + j)) as r:
                async for line in r.aiter_lines():
                    if line.startswith("data: "):
                        first = first or time.perf_counter()
                        events.append(json.loads(line[6:]))
            check(name, events)
            n += len(events)
            firsts.append((first - t0) * 1000)
        return n, firsts

    async with httpx.AsyncClient(base_url=url, timeout=120, limits=httpx.Limits(max_connections=CONCURRENT)) as http:
        t0 = time.perf_counter()
        done = await asyncio.gather(*(client(k, http) for k in range(CONCURRENT)))
        wall = time.perf_counter() - t0
    return wall, sum(n for n, _ in done), [f for _, fs in done for f in fs]


def pct(xs: list[float], q: float) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[q - 1] if len(xs) > 1 else xs[0]


def main() -> None:
    data = tempfile.mkdtemp(prefix="bench-serve-")
    procs, urls = {}, {}
    for name in SERVERS:
        procs[name], urls[name] = start(name, str(Path(data) / name))
    try:
        clients = {n: httpx.Client(base_url=u, timeout=120) for n, u in urls.items()}
        runs: dict[str, list[dict[str, float]]] = {n: [] for n in SERVERS}
        names = list(SERVERS)
        for i in range(3):  # warm-up
            for n in names:
                one_run(clients[n], n, -1 - i)
        for rep in range(REPS):
            for n in names[rep % 2 :] + names[: rep % 2]:
                runs[n].append(one_run(clients[n], n, rep))
        loads = {n: asyncio.run(concurrent(urls[n], n)) for n in names}
    finally:
        for p in procs.values():
            p.terminate()
            p.wait(20)
    report(runs, loads)


def report(runs: dict[str, list[dict[str, float]]], loads: dict[str, tuple[float, int, list[float]]]) -> None:
    rows = {}
    for n, rs in runs.items():
        ttfe = [r["ttfe_ms"] for r in rs]
        rates = [r["events"] / (r["wall_ms"] / 1000) for r in rs]
        wall, events, firsts = loads[n]
        rows[n] = {
            "version": version("orrery" if n == "orrery" else "pydantic-ai-slim"),
            "events_per_run": int(statistics.median(r["events"] for r in rs)),
            "ttfe_ms_p50": round(pct(ttfe, 50), 2),
            "ttfe_ms_p95": round(pct(ttfe, 95), 2),
            "run_ms_p50": round(statistics.median(r["wall_ms"] for r in rs), 2),
            "events_per_s_p50": round(statistics.median(rates)),
            "concurrent_events_per_s": round(events / wall),
            "concurrent_runs_per_s": round(CONCURRENT * PER_CLIENT / wall, 1),
            "concurrent_ttfe_ms_p95": round(pct(firsts, 95), 2),
        }
    a, b = rows["orrery"], rows["pydantic-ai"]
    figures = {
        "date": date.today().isoformat(),
        "machine": f"{os.cpu_count()} vCPU, {platform.processor() or 'x86_64'}",
        "python": platform.python_version(),
        "steps": STEPS,
        "reps": REPS,
        "concurrent_clients": CONCURRENT,
        "runs_per_client": PER_CLIENT,
        "servers": rows,
        "ratios": {
            "events_per_s": round(a["events_per_s_p50"] / b["events_per_s_p50"], 2),
            "run_time": round(a["run_ms_p50"] / b["run_ms_p50"], 2),
            "ttfe_p95": round(a["ttfe_ms_p95"] / b["ttfe_ms_p95"], 2),
            "concurrent_runs_per_s": round(a["concurrent_runs_per_s"] / b["concurrent_runs_per_s"], 2),
        },
    }
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "serve.json").write_text(json.dumps(figures, indent=2) + "\n")
    table = "\n".join(
        f"| {n} | {r['version']} | {r['ttfe_ms_p50']} | {r['ttfe_ms_p95']} | {r['run_ms_p50']} | {r['events_per_run']} | "
        f"{r['events_per_s_p50']} | {r['concurrent_runs_per_s']} | {r['concurrent_events_per_s']} | {r['concurrent_ttfe_ms_p95']} |"
        for n, r in rows.items()
    )
    goal_ttfe = "met" if a["ttfe_ms_p95"] < 50 else "not met"
    goal_rate = "met" if a["events_per_s_p50"] >= b["events_per_s_p50"] else "not met"
    (HERE / "serve.md").write_text(f"""# Agent server: orrery serve vs pydantic-ai's AG-UI adapter

{figures["date"]} · machine: {figures["machine"]} · Python {figures["python"]} · `python bench/serve.py`
· raw figures: [results/serve.json](results/serve.json)

| server | version | first event ms p50 | p95 | run ms p50 | events/run | events/s p50 | concurrent runs/s | concurrent events/s | concurrent first event ms p95 |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
{table}

Goals: first event < 50 ms p95: {goal_ttfe} ({a["ttfe_ms_p95"]} ms). Events/s at least pydantic-ai's: {goal_rate}
(ratio {figures["ratios"]["events_per_s"]}; whole run time ratio {figures["ratios"]["run_time"]}, concurrent runs/s
ratio {figures["ratios"]["concurrent_runs_per_s"]}; orrery / pydantic-ai).

How it is measured: one scripted run of {STEPS} steps ({TOOL_CALLS} `add(a, b)` tool calls, then the answer
"done"), served over loopback by each server in its own uvicorn process. orrery: `orrery.serve.create_app`
with a `ScriptedModel` per run (streamed: token and tool-call deltas), the thread and the run's events saved
to SQLite at the end; pydantic-ai: `AGUIAdapter.dispatch_request` with a `FunctionModel` stream function.
The client (this process, httpx) checks every run: RUN_STARTED first, {TOOL_CALLS} TOOL_CALL_RESULTs,
answer "done", RUN_FINISHED last. {REPS} sequential runs per server after 3 warm-ups, alternating servers
with the order rotated each repetition; first event = request sent to the first `data:` line; events/s =
a run's events / its wall time. Then {CONCURRENT} concurrent clients x {PER_CLIENT} runs per server.
The servers emit different event counts for the same run (orrery adds STEP_STARTED/FINISHED per step);
run time and runs/s compare the same work.
""")


if __name__ == "__main__":
    if sys.argv[1:2] == ["server"]:
        SERVERS[sys.argv[2]](int(sys.argv[3]), sys.argv[4])
    else:
        main()
