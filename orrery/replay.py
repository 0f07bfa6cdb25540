"""`orrery replay`: re-run a trace with the recorded model outputs, and report each tool result that differs.

A trace is data: replay never imports or calls anything it names. The tools come from the caller
(`--tools module:attr` typed by the user, or `--app NAME`, an installed app's agent); the trace's
`tools_ref` is only shown as a hint, and the recorded tool names must all be among the given tools.
It sits beside the CLI (it builds agents and reads the app registry); `orrery.trace` is the JSONL writer/reader.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orrery.errors import ConfigError, DataError
from orrery.events import Event
from orrery.messages import ModelResponse
from orrery.trace import read_trace


@dataclass
class ReplayReport:
    task: str
    tool_results: int = 0
    differences: list[dict[str, Any]] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not self.differences


def load_tools(ref: str) -> Any:
    """The tools named by `module:attr` that the user typed (never one read from a trace): a list,
    a Toolset, or a function returning one."""
    from orrery.apps import load_ref

    if ":" not in ref:
        raise ConfigError(f"--tools {ref!r}: write module:attribute, e.g. orrery.tools.builtin:DEFAULT_TOOLS")
    try:
        obj = load_ref(ref)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"--tools {ref!r} cannot be loaded: {exc}") from None
    if callable(obj) and not isinstance(obj, list) and not hasattr(obj, "invoke"):  # a factory
        try:
            obj = obj()
        except TypeError as exc:
            raise ConfigError(
                f"--tools {ref!r} is a function that needs arguments ({exc}); name a list of "
                "tools, a Toolset, or a function without parameters that returns one"
            ) from None
    if not (isinstance(obj, list | tuple) or hasattr(obj, "tools")):
        raise ConfigError(f"--tools {ref!r} is a {type(obj).__name__}, not tools; name a list of tools or a Toolset")
    return obj


def app_tools(name: str) -> Any:
    """The toolset of an installed app's agent (built with a model that is never called)."""
    from orrery.apps import get
    from orrery.llm.scripted import ScriptedModel

    agent = get(name).make_agent(ScriptedModel([]))
    for holder in (agent, getattr(agent, "agent", None)):
        tools = getattr(holder, "tools", None)
        if hasattr(tools, "tools"):  # a Toolset
            return tools
    raise ConfigError(f"app {name!r} does not expose its tools; pass --tools module:attr instead")


def tool_names(tools: Any) -> set[str]:
    from orrery.tools.core import Toolset

    return set((tools if isinstance(tools, Toolset) else Toolset(tools)).tools)


def replay(path: str | Path, tools: Any, **agent_kwargs: Any) -> ReplayReport:
    """Re-run the first run in the trace with its recorded model outputs, executing ``tools`` (the
    caller's, never code the trace names), and report each tool result that differs."""
    from orrery.llm.scripted import ScriptedModel

    events = read_trace(path)
    start = next((e for e in events if e["kind"] == "run_start"), None)
    if start is None or not isinstance(start.get("task"), str) or not isinstance(start.get("options", {}), dict):
        raise DataError(f"{path} has no valid run_start event (a task and an options object); is this an orrery trace?")
    if tools is None:
        hint = (
            f" (it was recorded with {start['tools_ref']}; pass that if you trust it)" if start.get("tools_ref") else ""
        )
        raise ConfigError(
            f"replay runs tools you choose, never code named in a trace: pass --tools module:attr or --app NAME{hint}"
        )
    end = next((i for i, e in enumerate(events) if e["kind"] == "final"), len(events))
    run = events[: end + 1]
    try:
        replies = [ModelResponse.from_dict(e["response"]) for e in run if e["kind"] == "model_reply"]
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(f"{path}: a model_reply event is malformed ({exc}); is this an orrery trace?") from None
    recorded = [e for e in run if e["kind"] == "tool_result"]
    called = {str(e.get("call", {}).get("name")) for e in recorded}
    had = start.get("tools")  # a call to a tool the agent never had was an error then and is one now
    missing = (called & set(had) if isinstance(had, list) else called) - tool_names(tools)
    if missing:
        raise ConfigError(
            f"the trace calls {', '.join(sorted(missing))}, which the given tools lack; "
            "pass the tools the trace was recorded with"
        )
    new: list[Event] = []
    _rerun(start, ScriptedModel(replies), tools, new.append, agent_kwargs)
    fresh = [e.to_dict() for e in new if e.kind == "tool_result"]
    report = ReplayReport(start["task"], len(recorded))
    for i, (old, now) in enumerate(zip(recorded, fresh, strict=False)):
        if old["content"] != now["content"] or old["ok"] != now["ok"]:
            report.differences.append(
                {"index": i, "tool": old["call"]["name"], "recorded": old["content"], "replayed": now["content"]}
            )
    if len(recorded) != len(fresh):
        report.differences.append(
            {
                "index": min(len(recorded), len(fresh)),
                "tool": "-",
                "recorded": f"{len(recorded)} tool results",
                "replayed": f"{len(fresh)} tool results",
            }
        )
    return report


def _rerun(start: dict[str, Any], model: Any, tools: Any, emit: Any, agent_kwargs: dict[str, Any]) -> None:
    """The run again with the architecture that recorded it: the plain loop (whatever app named it: chat,
    forecast) with the caller's tools, the router or the planner; an app's own router or planner (markets, bi)
    is rebuilt by that app."""
    from orrery.agent import Agent, AgentConfig, PlanAgent, RouterAgent

    task, options = start["task"], start.get("options", {})
    name = start.get("agent", "agent")
    architecture = start.get("architecture") or name  # older traces name only the architecture
    if architecture not in ("agent", name):
        return _rerun_app(name, model, emit, task, options)
    match architecture:
        case "router":
            RouterAgent(model, tools, on_event=[emit]).run(task, **options)
        case "planner":
            with tempfile.TemporaryDirectory() as tmp:  # a fresh session: the trace's first turn
                PlanAgent(model, tools, Path(tmp) / "replay.db", "replay", on_event=[emit]).run(task)
        case "agent":
            agent = Agent(
                model, tools, agent_kwargs.pop("config", None) or AgentConfig(), on_event=[emit], **agent_kwargs
            )
            agent.run(task, **options)
        case other:
            _rerun_app(other, model, emit, task, options)


def _rerun_app(name: str, model: Any, emit: Any, task: str, options: dict[str, Any]) -> None:
    """A run recorded by an app's own agent (RunStart.agent names the app, e.g. markets): rebuilt by that
    installed app's factory around the recorded replies, its tools the app's own."""
    from orrery.apps import discover

    app = discover().get(name)
    if app is None:
        raise DataError(
            f"the trace was recorded by {name!r}, which is neither an architecture replay knows "
            "(agent, router, planner) nor an installed app: install the app that recorded it"
        )
    with tempfile.TemporaryDirectory() as tmp, _data_dir(tmp):  # the app's sessions (bi's plan) go there
        agent = app.make_agent(model)
        agent.handlers.append(emit)
        agent.run(task, **options)


@contextlib.contextmanager
def _data_dir(path: str) -> Iterator[None]:
    """`sessions.data_dir()` is `path` meanwhile: a replay writes nothing beside the user's sessions."""
    before = os.environ.get("ORRERY_DATA_DIR")
    os.environ["ORRERY_DATA_DIR"] = path
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("ORRERY_DATA_DIR", None)
        else:
            os.environ["ORRERY_DATA_DIR"] = before
