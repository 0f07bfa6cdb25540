"""The chat app with MCP servers: `orrery chat --mcp`, and the operator's $ORRERY_MCP_CONFIG (how `orrery serve`'s
chat agent gets them)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from orrery.chat import chat_agent
from orrery.llm.scripted import ScriptedModel, call, turn

ROOT = Path(__file__).parents[2]
TIME = shutil.which("mcp-server-time") or "mcp-server-time"

pytestmark = pytest.mark.integration


def test_chat_takes_mcp_servers_beside_its_own_tools():
    model = ScriptedModel(
        [turn(call("time_get_current_time", timezone="Etc/UTC"), call("calculate", expression="6*7")), "42, at noon"]
    )
    result = chat_agent(model, mcp_servers=[TIME]).run("time and a sum")
    assert [r.ok for r in result.tool_calls] == [True, True]
    assert '"timezone": "Etc/UTC"' in result.tool_calls[0].content and result.tool_calls[1].content == "42"


def test_the_operators_config_file_gives_the_chat_agent_its_servers(tmp_path, monkeypatch):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"clock": {"command": TIME}}}))
    monkeypatch.setenv("ORRERY_MCP_CONFIG", str(config))
    model = ScriptedModel([turn(call("clock_get_current_time", timezone="Asia/Tokyo")), "done"])
    result = chat_agent(model).run("time in Tokyo")
    assert result.tool_calls[0].ok and "Asia/Tokyo" in result.tool_calls[0].content
    config.write_text("{not json")
    with pytest.raises(Exception, match="expected"):
        chat_agent(model)


def test_orrery_chat_with_a_server_that_will_not_start_says_so_in_one_line(tmp_path):
    broken = f"{sys.executable} {ROOT / 'tests' / 'mcp' / 'servers' / 'broken.py'} exit"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "orrery",
            "chat",
            "--llm",
            "http://127.0.0.1:9/v1",
            "-m",
            "hi",
            "--mcp",
            broken,
            "--trace",
            str(tmp_path / "t.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "MCP server 'broken' could not start" in lines[0]
    assert "missing configuration" in lines[0] and "Traceback" not in done.stderr
