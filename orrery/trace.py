"""Every run as JSON lines; `replay` re-runs a trace with the recorded model outputs."""

from __future__ import annotations

import importlib
import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orrery.events import Event
from orrery.messages import ModelResponse


class TraceWriter:
    """An event handler appending one JSON line per event (flushed, so a crash loses nothing)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        line = json.dumps({"t": time.time(), **event.to_dict()}, default=str)
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")


def read_trace(path: str | Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


@dataclass
class ReplayReport:
    task: str
    tool_results: int = 0
    differences: list[dict[str, Any]] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not self.differences


def load_tools(ref: str) -> list[Any]:
    """`module:attribute` -> the tools it names (a list, a Toolset, or a function returning one)."""
    module, _, attr = ref.partition(":")
    obj = getattr(importlib.import_module(module), attr)
    return obj() if callable(obj) and not isinstance(obj, list) and not hasattr(obj, "invoke") else obj


def replay(path: str | Path, tools: Any = None, **agent_kwargs: Any) -> ReplayReport:
    """Re-run the first run in the trace with its recorded model outputs, executing the tools
    again, and report each tool result that differs from the recorded one."""
    from orrery.agent.loop import Agent, AgentConfig
    from orrery.llm.scripted import ScriptedModel

    events = read_trace(path)
    start = next(e for e in events if e["kind"] == "run_start")
    end = next((i for i, e in enumerate(events) if e["kind"] == "final"), len(events))
    run = events[: end + 1]
    replies = [ModelResponse.from_dict(e["response"]) for e in run if e["kind"] == "model_reply"]
    recorded = [e for e in run if e["kind"] == "tool_result"]
    if tools is None:
        if not start.get("tools_ref"):
            raise ValueError("the trace does not name its tools; pass tools= (or --tools module:attr)")
        tools = load_tools(start["tools_ref"])
    new: list[Event] = []
    agent = Agent(ScriptedModel(replies), tools, agent_kwargs.pop("config", None) or AgentConfig(),
                  on_event=[new.append], **agent_kwargs)
    agent.run(start["task"], **start.get("options", {}))
    fresh = [e.to_dict() for e in new if e.kind == "tool_result"]
    report = ReplayReport(start["task"], len(recorded))
    for i, (old, now) in enumerate(zip(recorded, fresh, strict=False)):
        if old["content"] != now["content"] or old["ok"] != now["ok"]:
            report.differences.append({"index": i, "tool": old["call"]["name"],
                                       "recorded": old["content"], "replayed": now["content"]})
    if len(recorded) != len(fresh):
        report.differences.append({"index": min(len(recorded), len(fresh)), "tool": "-",
                                   "recorded": f"{len(recorded)} tool results", "replayed": f"{len(fresh)} tool results"})
    return report
