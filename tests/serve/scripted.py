"""Scripted agents and models for the server tests, the browser tests and bench/serve.py.

`model_for(agent, body)` builds a fresh ScriptedModel per run from the run's own message, so concurrent
runs never share a script. Run as a script it serves these apps: `python tests/serve/scripted.py PORT DATA [DB]`.
"""

from __future__ import annotations

import functools
import json
import os
import re
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from orrery.agent.loop import Agent
from orrery.apps import App
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.tools import NeedsClarification, RunContext, tool

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the apps below are imported by "scripted:..." references
    sys.path.insert(0, str(HERE))


def _last_tool(messages: Any) -> str:
    return next(m.content for m in reversed(messages) if m.role == "tool")


def _expression(task: str) -> str:
    found = re.findall(r"\d[\d\s+\-*/().]*\d|\d", task.rsplit("Now:", 1)[-1])
    return max(found, key=len).strip() if found else "1+1"


def chat_script(task: str) -> list:
    """The calculator once, then an answer quoting its result (and the task, to tell runs apart); "slowly" in the
    message makes the first model call take 0.3 s."""
    expr = _expression(task)
    first = turn(call("calculate", expression=expr), content="Let me compute that.")
    slow = "slowly" in task.rsplit("Now:", 1)[-1]  # 0.3 s in the first model call: runs posted at once overlap
    return [(lambda msgs: time.sleep(0.3) or first) if slow else first, lambda msgs: f"{expr} = {_last_tool(msgs)}"]


def tool_json(messages: Any, name: str) -> dict:
    calls = {c.id: c.name for m in messages for c in m.tool_calls}
    return json.loads(next(m.content for m in reversed(messages) if m.role == "tool" and calls[m.tool_call_id] == name))


FORECAST = [
    turn(call("analyze_features")),
    turn(call("cross_validate", models=["AutoETS", "AutoTheta"], n_windows=2)),
    lambda msgs: turn(call("generate_forecast", model=tool_json(msgs, "cross_validate")["best"])),
    turn(call("detect_anomalies", level=99)),
    lambda msgs: f"The best model is {tool_json(msgs, 'cross_validate')['best']}.",
]


@tool
def book_trip(city: str = "") -> str:
    """Book a trip.

    Args:
        city: where to go
    """
    if not city:
        raise NeedsClarification("Which city should I book the trip to?")
    return f"booked a trip to {city}"


def clarify_script(task: str) -> list:
    answer = re.search(r"The user answered: (.+)", task)
    if answer is None:
        return [turn(call("book_trip"))]
    city = answer.group(1).strip()
    return [turn(call("book_trip", city=city)), lambda msgs: f"Done: {_last_tool(msgs)}."]


def steps_script(task: str, n: int = 20) -> list:
    """n tool steps then an answer: the benchmark's run ("slowly" in the task: 0.1 s per model call)."""

    def step(i: int) -> Any:
        reply = turn(call("calculate", expression=f"{i} + {i}"))
        return (lambda msgs: time.sleep(0.1) or reply) if "slowly" in task else reply

    return [*(step(i) for i in range(n - 1)), "All steps done."]


NOTES: list[dict] = []  # what write_note did in this process (and in $NOTES_FILE when set: a server process)


@tool(requires_approval=True)
def write_note(note: str, text: str) -> str:
    """Write a note (a person approves it first).

    Args:
        note: the note's name
        text: what to write
    """
    NOTES.append({"note": note, "text": text})
    if os.environ.get("NOTES_FILE"):
        with open(os.environ["NOTES_FILE"], "a") as f:
            f.write(f"{note}:{text}\n")
    return f"wrote {text!r} to {note}"


def approve_script(task: str) -> list:
    """A note the user must approve; resumed, an answer quoting the tool's result. "<b>" in the message puts
    markup in the arguments; "crash" in the note kills the process once the call ran (before the thread is saved)
    while $CRASH_FILE exists."""
    if task == "(decided)":

        def answer(msgs: Any) -> str:
            crash = os.environ.get("CRASH_FILE")
            if crash and os.path.exists(crash) and "crash" in _last_tool(msgs):
                os.remove(crash)
                os.kill(os.getpid(), 9)
            return f"Done: {_last_tool(msgs)}"

        return [answer]
    return [turn(call("write_note", note="a.txt", text=task.rsplit("Now:", 1)[-1].strip()))]


def approve_agent(llm: Any = None, **config: Any) -> Agent:
    return Agent(llm, [write_note])


class Hidden:
    """An app that streams an inner Agent's events without exposing it: its pause cannot be resumed."""

    def __init__(self, inner: Agent):
        self.inner, self.handlers = inner, []

    def stream(self, task: str, **inputs: Any) -> Any:
        return self.inner.stream(task)


def hidden_agent(llm: Any = None, **config: Any) -> Hidden:
    return Hidden(approve_agent(llm))


def clarify_agent(llm: Any = None, **config: Any) -> Agent:
    return Agent(llm, [book_trip])


def steps_agent(llm: Any = None, **config: Any) -> Agent:
    from orrery.agent.loop import AgentConfig
    from orrery.tools.builtin import DEFAULT_TOOLS

    return Agent(llm, DEFAULT_TOOLS, AgentConfig(max_rounds=50, answer_on_repeat=False))


# A PlanAgent (seed 003) that asks which port is meant, as the BI agent does.
@tool
def resolve_dates(text: str) -> str:
    """Turn a relative date into a range.

    Args:
        text: a date such as "last week"
    """
    return "2025-01-08..2025-01-15"


@tool
def resolve_port(ctx: RunContext, name: str) -> str:
    """Resolve a port name; asks when it is ambiguous.

    Args:
        name: a port name
    """
    answer = ctx.options["clarification"]
    if name == "Miami" and answer is None:
        raise NeedsClarification("Which Miami: Port of Miami or Miami Container Terminal?")
    return f"PORT:{answer or name}"


@tool
def fetch_shipments(ctx: RunContext) -> str:
    """Run the shipment query with the resolved filters."""
    return f"142 shipments to {ctx.options['results']['port']}"


MIAMI = {
    "request": "Shipments to Miami port last week",
    "todos": [
        {
            "key": "dates",
            "description": "Resolve last week",
            "tool": "resolve_dates",
            "arguments": {"text": "last week"},
        },
        {"key": "port", "description": "Resolve the port", "tool": "resolve_port", "arguments": {"name": "Miami"}},
        {"key": "fetch", "description": "Fetch the shipments", "tool": "fetch_shipments", "arguments": {}},
    ],
}


def planner_script(task: str) -> list:
    if task.startswith("The user answered"):
        return [{"intent": "exact_answer"}, lambda msgs: f"Found {msgs[-1].content.split('142 ')[-1][:60]}"]
    return [MIAMI]


def planner_agent(llm: Any = None, *, store: Any = None, session_id: str = "default", **config: Any) -> Any:
    from orrery.agent.planner import PlanAgent

    return PlanAgent(llm, [resolve_dates, resolve_port, fetch_shipments], store, session_id)


# Stand-ins for the markets and BI tools' result shapes: OHLC rows, and a query's {columns, rows}.
@tool
def price_history(symbol: str) -> dict:
    """Daily OHLC rows of a symbol.

    Args:
        symbol: ticker
    """
    rows, close = [], 100.0
    for day in range(1, 31):
        open_ = close
        close = round(open_ + (3 if day % 3 else -4) + (day % 5) * 0.5, 2)
        rows.append(
            {
                "date": f"2013-01-{day:02d}",
                "open": open_,
                "high": max(open_, close) + 1.5,
                "low": min(open_, close) - 1.5,
                "close": close,
                "sma_5": round(close - 1, 2),
            }
        )
    return {"symbol": symbol, "rows": rows}


@tool
def run_sql(sql: str) -> dict:
    """Run a read-only SQL query.

    Args:
        sql: the query
    """
    return {"columns": ["region", "sales"], "rows": [["east", 120.5], ["west", 98.0], ["north", 143.25]]}


def views_script(task: str) -> list:
    return [
        turn(call("price_history", symbol="AAPL")),
        turn(call("run_sql", sql="select region, sum(sales)")),
        "AAPL rose over the month; north sells most.",
    ]


def views_agent(llm: Any = None, **config: Any) -> Agent:
    return Agent(llm, [price_history, run_sql])


def research_script(task: str) -> list:
    """A search, the first hit on the board, a probability (on the research app's shipped demo corpus)."""

    def add_first(msgs: Any) -> Any:
        return turn(call("add_source", id=re.search(r"id=(\S+)", msgs[-1].content).group(1), why="the market price"))

    return [
        turn(call("search", query="election")),
        add_first,
        turn(call("submit", probability=0.6, rationale="The market leans this way [1].")),
    ]


def markets_script(task: str) -> list:
    """The markets app's router (classify, route), one price history, an answer without numbers."""
    if task == "(decided)":
        return ["Apple's daily prices for November and December 2012 are in the chart."]
    return [
        {"type": "stock_specific", "entities": ["AAPL"], "categories": ["history"]},
        {"selected_tools": ["price_history"], "complexity": "SIMPLE", "strategy": "DIRECT", "max_turns": 2},
        turn(call("price_history", symbol="AAPL", start="2012-11-01", end="2012-12-31", limit=40)),
        "Apple's daily prices for November and December 2012 are in the chart.",
    ]


MARKETS_STORE = Path(tempfile.gettempdir()) / "orrery-serve-tests-markets"


def markets_agent(llm: Any = None, *, approve_tools: bool = False, **options: Any) -> Any:
    """The real markets app on a store built once in a temp folder (not the user's cache), driven by the model
    (the script above classifies, routes and calls), not by the app's rules; each tool run is counted."""
    from orrery.markets.agent import markets_agent as make

    agent = make(llm, store_dir=MARKETS_STORE, decide_by_rules=False, approve_tools=approve_tools, **options)
    for t in agent.tools.tools.values():
        t.fn = counted(t.name, t.fn)
    return agent


CALLS: list[str] = []  # the tool runs and SQL queries of this process (and in $CALLS_FILE when set: a server process)


def counted(name: str, fn: Any) -> Any:
    """`fn`, noting each call as `name` in CALLS and $CALLS_FILE."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        CALLS.append(name)
        if os.environ.get("CALLS_FILE"):
            with open(os.environ["CALLS_FILE"], "a") as f:
                f.write(name + "\n")
        return fn(*args, **kwargs)

    return run


def nations_script(task: str) -> list:
    """BI on TPC-H: count the nations (a plan, the query's parts); decided, the summary."""
    if task == "(decided)":
        return [lambda msgs: "Summary: " + msgs[-1].content[:200]]
    return [
        {"request": "Count the nations", "kind": "query", "values": [], "fields": []},
        {
            "select": ["count(*) AS nations"],
            "from": "nation",
            "where": [],
            "group_by": [],
            "having": [],
            "order_by": [],
            "limit": None,
        },
        lambda msgs: "Summary: " + msgs[-1].content[:200],
    ]


def bi_counted_agent(
    llm: Any = None, *, db: str = "tpch", session_id: str = "default", store: Any = None, approve_sql: bool = False
) -> Any:
    """The BI app's agent, each SQL query it runs on the database counted (as "sql")."""
    from orrery.bi.agent import bi_agent
    from orrery.bi.shots import drafted_shots

    agent = bi_agent(llm, db=db, session_id=session_id, store=store, approve_sql=approve_sql)
    # The value index (bounded DISTINCT reads of the layer's value columns, read once per connection, before any
    # plan) and the worked examples drafted from the layer (bounded reads, once per connection) are no query of
    # the answer: what is counted is what an approval gates.
    agent.bi.index()
    drafted_shots(agent.bi)
    agent.bi.engine.execute = counted("sql", agent.bi.engine.execute)
    return agent


def bi_script(task: str) -> list:
    """Seed 003's scenario 2 on the BI app (TPC-H): the plan asks which 'United'; the answer reruns the TODO."""
    if task.startswith("The user answered"):
        return [
            {"intent": "exact_answer"},
            {
                "select": ["count(*)"],
                "where": ["year(lineitem.l_shipdate) = 1995"],
                "group_by": [],
                "having": [],
                "order_by": [],
                "limit": None,
            },  # the default "parts" mode: joins are derived
            "Here are the 1995 shipments to the United Kingdom.",
        ]
    return [
        {
            "request": "Count the shipments to customers in United in 1995",
            "kind": "query",
            "values": ["United"],
            "fields": [],
        }
    ]


class PlotFails:
    """A finished result whose plot cannot be drawn (as a forecast whose series id matplotlib reads as math)."""

    status, output, data = "completed", "The forecast is done.", {"best_model": "AutoETS"}

    def views(self) -> list:
        return []

    def files(self) -> dict:
        return {"result.json": lambda p: p.write_text(json.dumps(self.data)), "plot.png": self.plot}

    def plot(self, _path: Any) -> None:
        raise ValueError("Unknown symbol: \\foo, found '\\'  (at char 1), (line:1, col:2)")


class Broken(PlotFails):
    """A result the server cannot read: its status raises (a crash after the agent finished)."""

    output = "never shown"

    @property
    def status(self) -> str:
        raise RuntimeError("the result broke while it was read")


class Returns:
    """An agent without stream(): `run()` returns a fixed result."""

    def __init__(self, result: Any):
        self.handlers: list = []
        self.result = result

    def run(self, task: str, **inputs: Any) -> Any:
        return self.result


def plot_fails_agent(llm: Any = None, **config: Any) -> Returns:
    return Returns(PlotFails())


def broken_agent(llm: Any = None, **config: Any) -> Returns:
    return Returns(Broken())


SCRIPTS = {
    "bi": bi_script,
    "bisql": nations_script,
    "markets": markets_script,
    "research": research_script,
    "views": views_script,
    "planner": planner_script,
    "chat": chat_script,
    "clarify": clarify_script,
    "approve": approve_script,
    "hidden": approve_script,
    "steps": steps_script,
    "forecast": lambda task: list(FORECAST),
}


def model_for(agent: str, body: Any) -> ScriptedModel:
    if agent not in SCRIPTS:  # an agent that calls no model
        return ScriptedModel([])
    users = [m for m in body.messages if m.role == "user"]
    text = users[-1].content if users else ""
    if body.resume:  # the answer to the clarification, or approvals decided
        payload = body.resume[0].payload
        text = f"The user answered: {payload.get('answer') if isinstance(payload, dict) else payload}"
        if agent == "approve" or (isinstance(payload, dict) and "approved" in payload):
            text = "(decided)"
    return ScriptedModel(SCRIPTS[agent](text if isinstance(text, str) else ""))


def apps() -> dict[str, App]:
    from orrery.bi.app import APP as BI
    from orrery.bi.app import BIInputs
    from orrery.chat import APP as CHAT
    from orrery.forecast.app import APP as FORECAST_APP
    from orrery.markets.app import MarketsInputs
    from orrery.research.app import APP as RESEARCH

    return {
        "chat": CHAT,
        "forecast": FORECAST_APP,
        "research": RESEARCH,
        "bi": BI,
        "clarify": App(
            "clarify", "Books trips; asks where to when it is not told.", "scripted:clarify_agent", message="a request"
        ),
        "approve": App(
            "approve", "Writes notes; a person approves each.", "scripted:approve_agent", message="what to write"
        ),
        "hidden": App(
            "hidden", "Hides the Agent that pauses for approval.", "scripted:hidden_agent", message="what to write"
        ),
        "planner": App(
            "planner",
            "Plans shipment queries as TODOs; asks which port.",
            "scripted:planner_agent",
            message="a request",
        ),
        "markets": App(
            "markets",
            "The markets app (a store in a temp folder).",
            "scripted:markets_agent",
            inputs=MarketsInputs,
            message="a question about the stocks",
        ),
        "bisql": App(
            "bisql",
            "The BI app, its queries counted.",
            "scripted:bi_counted_agent",
            inputs=BIInputs,
            message="a question about the data",
        ),
        "views": App(
            "views",
            "Prices and a query result (stand-ins for markets and BI).",
            "scripted:views_agent",
            message="a question",
        ),
        "steps": App("steps", "Twenty calculator steps (benchmark).", "scripted:steps_agent", message="anything"),
        "plotfails": App("plotfails", "A result whose plot cannot be drawn.", "scripted:plot_fails_agent"),
        "broken": App("broken", "A result the server cannot read.", "scripted:broken_agent"),
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Live:
    """A uvicorn server on a thread of the test process."""

    def __init__(self, app):
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.server.should_exit = True
        self.thread.join(10)


def sse_events(response) -> list[dict]:
    """The AG-UI events of an SSE response, parsed from its `data:` lines."""
    return [json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: ")]


# the AG-UI event types of one scripted chat run ("what is a*b": a calculator call, then the answer)
CHAT_EVENTS = [
    "RUN_STARTED",
    "STEP_STARTED",
    "TEXT_MESSAGE_START",
    *["TEXT_MESSAGE_CONTENT"] * 4,
    "TEXT_MESSAGE_END",
    "TOOL_CALL_START",
    "TOOL_CALL_ARGS",
    "TOOL_CALL_END",
    "TOOL_CALL_RESULT",
    "STEP_FINISHED",
    "STEP_STARTED",
    "TEXT_MESSAGE_START",
    *["TEXT_MESSAGE_CONTENT"] * 3,
    "TEXT_MESSAGE_END",
    "STEP_FINISHED",
    "RUN_FINISHED",
]


def run_input(thread="t1", run="r1", text="what is 6*7", **extra) -> dict:
    return {
        "threadId": thread,
        "runId": run,
        "state": {},
        "tools": [],
        "context": [],
        "forwardedProps": {},
        "messages": [{"id": f"m-{run}", "role": "user", "content": text}],
        **extra,
    }


def post_run(client, agent, body, **kw) -> list[dict]:
    with client.stream("POST", f"/agents/{agent}", json=body, **kw) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        return sse_events(r)


def main(argv: list[str]) -> None:
    from orrery.serve import Settings, create_app

    port, data = int(argv[0]), Path(argv[1])
    db = argv[2] if len(argv) > 2 else None
    lease = float(os.environ.get("LEASE_S", "30"))
    app = create_app(Settings(model=model_for, apps=apps(), data=data, db=db, lease=lease))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


# bodies of `POST .../approve` a correction must refuse (400, nothing stored), on a run that answered or declined
CORRECTION_ATTACKS = {
    "a write": {"sql": "DROP TABLE nation"},
    "several statements": {"sql": "SELECT 1; DELETE FROM nation"},
    "another database's tables": {"sql": "SELECT count(*) FROM album JOIN artist USING (ArtistId)"},  # chinook's
    "a file read": {"sql": "SELECT * FROM read_csv_auto('/etc/passwd')"},
    "not a string": {"sql": ["SELECT 1"]},
    "empty": {"sql": ""},
    "too long for a query": {"sql": "SELECT " + "1 + " * 6000 + "1"},
}


if __name__ == "__main__":
    main(sys.argv[1:])


class ServerProcess:
    """`python tests/serve/scripted.py` in its own process: for restarts and two servers on one database."""

    def __init__(self, data: Path, db: str | None = None, env: dict[str, str] | None = None):
        import subprocess

        import httpx

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        args = [sys.executable, str(HERE / "scripted.py"), str(self.port), str(data), *([db] if db else [])]
        env = {**os.environ, "PYTHONPATH": str(HERE.parents[1]), **(env or {})}  # this checkout's orrery
        self.proc = subprocess.Popen(args, cwd=HERE.parents[1], env=env)
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None, "the server process exited"
            try:
                httpx.get(f"{self.url}/agents", timeout=1).raise_for_status()
                return
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server process did not start"
                time.sleep(0.1)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(20)
