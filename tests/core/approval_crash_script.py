"""One process of test_approvals' crash test: `run` pauses for an approval and saves the session; `resume`
restores it and approves the call (KILL_AT=before|after exits 9 just before / just after the call runs).
ARCH=loop (default) runs the plain loop; ARCH=planner a PlanAgent whose one TODO is the call."""

import os
import sys
from pathlib import Path

from orrery import Agent, ScriptedModel, tool
from orrery import events as ev
from orrery.errors import ConfigError
from orrery.llm.scripted import turn
from orrery.messages import ToolCall
from orrery.sessions import Session, open_store

DIR = Path(os.environ["APPROVAL_DIR"])


@tool(requires_approval=True)
def write_line(text: str) -> str:
    """Append a line to the effects file.

    Args:
        text: the line
    """
    with open(DIR / "effects.txt", "a") as f:
        f.write(text + "\n")
    return "written"


def crash_at(point: str):
    def handler(event: ev.Event) -> None:
        if (point == "before" and isinstance(event, ev.ApprovalDecision)) or (
            point == "after" and isinstance(event, ev.ToolResultEvent)
        ):
            os._exit(9)

    return handler


def planner(phase: str) -> int:
    """The planner keeps the paused TODO in its own session; a new PlanAgent on it resumes."""
    from orrery.agent.planner import PlanAgent

    plan = {
        "request": "Write hello",
        "todos": [{"key": "write", "description": "write it", "tool": "write_line", "arguments": {"text": "hello"}}],
    }
    agent = PlanAgent(
        ScriptedModel([plan] if phase == "run" else ["The line is written."]),
        [write_line],
        DIR / "sessions.db",
        "thread",
        on_event=[crash_at(os.environ.get("KILL_AT", ""))],
    )
    if phase == "run":
        assert agent.run("write hello").status == "paused"
        return 0
    try:
        result = agent.resume({"write-1": True})  # the id the paused turn gave: its TODO's key and turn
    except ConfigError:
        return 3
    assert result.status == "completed", result
    return 0


def main(phase: str) -> int:
    if os.environ.get("ARCH") == "planner":
        return planner(phase)
    store = open_store(DIR / "sessions.db")
    turns = [turn(ToolCall("c1", "write_line", {"text": "hello"}))] if phase == "run" else ["The line is written."]
    agent = Agent(ScriptedModel(turns), [write_line], on_event=[crash_at(os.environ.get("KILL_AT", ""))], ledger=store)
    if phase == "run":
        assert agent.run("write hello").status == "paused"
        store.save(Session("thread", "chat", agent.snapshot()))
        return 0
    saved = store.load("thread")
    agent.restore(saved.data)
    try:
        result = agent.resume({"c1": True})
    except ConfigError:
        return 3
    assert result.status == "completed", result
    store.save(Session("thread", "chat", agent.snapshot(), version=saved.version))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
