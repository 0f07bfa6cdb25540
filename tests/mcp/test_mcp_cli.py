"""`orrery chat --mcp` end to end in a subprocess: a command line (stdio, `mcp-server-time`) and a URL (orrery's own
MCP server over HTTP), with a fake OpenAI-compatible model server scripting the turns."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import fake_http
import pytest

from orrery.apps import discover
from orrery.llm.scripted import ScriptedModel
from orrery.mcp.server import Settings

sys.path.insert(0, str(Path(__file__).parent))
from test_mcp_server import HTTPServer  # noqa: E402

ROOT = Path(__file__).parents[2]
TIME = shutil.which("mcp-server-time") or "mcp-server-time"

pytestmark = pytest.mark.integration


def chunks(*, text: str = "", tool: str = "", arguments: dict | None = None) -> list[dict]:
    """One streamed chat completion: a text answer or one tool call."""
    delta = (
        {"role": "assistant", "content": text}
        if text
        else {
            "role": "assistant",
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": tool, "arguments": json.dumps(arguments)},
                }
            ],
        }
    )
    head = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return [
        {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if tool else "stop"}]},
    ]


def encode(payload):
    return "text/event-stream", ("".join(f"data: {json.dumps(c)}\n\n" for c in payload) + "data: [DONE]\n\n").encode()


def chat(llm_url: str, mcp: str, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "orrery",
            "chat",
            "--model",
            f"{llm_url}/v1",
            "-m",
            "go",
            "--mcp",
            mcp,
            "--trace",
            str(tmp_path / "t.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"},
    )


def test_orrery_chat_with_a_stdio_server_by_its_command_line(tmp_path):
    script = [
        (200, {}, chunks(tool="time_get_current_time", arguments={"timezone": "Asia/Tokyo"})),
        (200, {}, chunks(text="Tokyo time, from the server.")),
    ]
    with fake_http.fake_server(
        script, encode, lambda r: json.loads(r.rfile.read(int(r.headers["Content-Length"])))
    ) as (url, hits):
        done = chat(url, TIME, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "time_get_current_time" in [t["function"]["name"] for t in hits[0][1]["tools"]]
    tool_result = next(m for m in hits[1][1]["messages"] if m["role"] == "tool")
    assert '"timezone": "Asia/Tokyo"' in tool_result["content"]  # the server's answer reached the model
    assert "Tokyo time, from the server." in done.stdout + done.stderr


def test_orrery_chat_with_orrery_mcp_by_its_url(tmp_path):
    settings = Settings(model=ScriptedModel(["It is 42."]), apps={"chat": discover()["chat"]})
    script = [
        (200, {}, chunks(tool="mcp_chat", arguments={"message": "What is 6*7?"})),
        (200, {}, chunks(text="The other agent says 42.")),
    ]
    with (
        HTTPServer(settings) as mcp_url,
        fake_http.fake_server(script, encode, lambda r: json.loads(r.rfile.read(int(r.headers["Content-Length"])))) as (
            url,
            hits,
        ),
    ):
        done = chat(url, mcp_url, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "The other agent says 42." in done.stdout + done.stderr
    tool_result = next(m for m in hits[1][1]["messages"] if m["role"] == "tool")
    assert tool_result["content"] == "It is 42."
