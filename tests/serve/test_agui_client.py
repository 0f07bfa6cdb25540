"""Conformance: @ag-ui/client's HttpAgent (Node, from npm; `npm ci` in tests/serve/agui_client) runs the chat
agent, a clarification with its resume and a tool call approved with its resume against a live server; the
client verifies the stream as it applies it and rebuilds the messages from our events."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

CLIENT = Path(__file__).parent / "agui_client"
pytestmark = pytest.mark.integration


def test_ag_ui_http_agent_runs_chat_and_a_resumed_clarification(live):
    assert shutil.which("node"), "Node.js is needed: .ci/run installs it with @ag-ui/client"
    assert (CLIENT / "node_modules" / "@ag-ui" / "client").is_dir(), "run `npm ci` in tests/serve/agui_client"
    done = subprocess.run(["node", "run.mjs", live.url], cwd=CLIENT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    chat = out["chat"]
    assert chat["types"][0] == "RUN_STARTED" and chat["types"][-1] == "RUN_FINISHED"
    assert chat["result"] == {"status": "completed"}
    roles = [m["role"] for m in chat["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant"], roles
    call = chat["messages"][1]["toolCalls"][0]
    assert call["function"]["name"] == "calculate" and json.loads(call["function"]["arguments"]) == {
        "expression": "6*7"
    }
    assert chat["messages"][1]["content"] == "Let me compute that."
    assert chat["messages"][2]["content"] == "42" and chat["messages"][3]["content"] == "6*7 = 42"
    ask = out["ask"]
    assert [p["message"] for p in ask["pending"]] == ["Which city should I book the trip to?"]
    assert ask["pending"][0]["reason"] == "clarification"
    resume = out["resume"]
    assert resume["pending"] == [] and resume["messages"][-1] == {
        "role": "assistant",
        "content": "Done: booked a trip to Lisbon.",
        "toolCalls": None,
    }
    approval = out["approval"]  # a tool call waiting for approval, then approved
    assert [p["reason"] for p in approval["pending"]] == ["tool_approval"]
    assert approval["pending"][0]["message"] == "Run write_note?"
    approved = out["approved"]
    assert approved["pending"] == [] and approved["types"][-1] == "RUN_FINISHED"
    assert approved["messages"][-1]["content"] == "Done: wrote 'hello' to a.txt"
    assert approved["messages"][-2] == {"role": "tool", "content": "wrote 'hello' to a.txt", "toolCalls": None}
