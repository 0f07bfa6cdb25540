"""One process of test_planner_hooks' crash test: `run` plans one TODO that needs approval and pauses (the
session saves it); `resume` opens the session in a new PlanAgent and approves (KILL_AT=before|after exits 9
just before / just after the call runs)."""

import os
import sys
from pathlib import Path

from orrery import events as ev
from orrery.agent.planner import PlanAgent
from orrery.errors import ConfigError
from orrery.llm.scripted import ScriptedModel
from orrery.tools.core import tool

DIR = Path(os.environ["APPROVAL_DIR"])
PLAN = {"request": "Write hello", "todos": [{"key": "write", "description": "write it", "tool": "write_line",
                                             "arguments": {"text": "hello"}}]}


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
        if (point == "before" and isinstance(event, ev.ApprovalDecision)) or \
                (point == "after" and isinstance(event, ev.ToolResultEvent)):
            os._exit(9)
    return handler


def main(phase: str) -> int:
    turns = [PLAN] if phase == "run" else ["The line is written."]
    agent = PlanAgent(ScriptedModel(turns), [write_line], DIR / "sessions.db", "thread",
                      on_event=[crash_at(os.environ.get("KILL_AT", ""))])
    if phase == "run":
        assert agent.run("write hello").status == "paused"
        return 0
    try:
        result = agent.resume({"write-1": True})  # the id the paused turn gave: its TODO's key and turn
    except ConfigError:
        return 3
    assert result.status == "completed", result
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
