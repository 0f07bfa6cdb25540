"""orrery's MCP client against real MCP servers started as subprocesses: `mcp-server-time` (PyPI) and
`@modelcontextprotocol/server-everything` (npm, tests/mcp/npm), driven by the scripted model."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

from orrery.agent.loop import Agent
from orrery.events import Progress, ToolResultEvent
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.mcp import MCPServerStdio
from orrery.messages import ToolCall

HERE = Path(__file__).parent
EVERYTHING = HERE / "npm" / "node_modules" / ".bin" / "mcp-server-everything"
TIME = shutil.which("mcp-server-time") or "mcp-server-time"

pytestmark = pytest.mark.integration


def everything(**options) -> MCPServerStdio:
    if not EVERYTHING.exists():
        pytest.fail("run `npm ci` in tests/mcp/npm (.ci/run does) to install the MCP servers the tests start")
    return MCPServerStdio(str(EVERYTHING), ["stdio"], **options)


def test_time_server_tools_through_the_agent_loop():
    server = MCPServerStdio(TIME)
    model = ScriptedModel(
        [
            turn(call("time_get_current_time", timezone="Europe/Paris")),
            turn(call("time_get_current_time", timezone="Mars/Olympus"), call("time_get_current_time", tz="UTC")),
            "It is evening in Paris.",
        ]
    )
    result = Agent(model, [server]).run("What time is it in Paris?")
    assert result.ok and result.output == "It is evening in Paris."
    offered = {s.name: s for s in model.requests[0]["specs"]}
    assert set(offered) == {"time_get_current_time", "time_convert_time"}
    assert offered["time_get_current_time"].parameters["required"] == ["timezone"]
    paris, bad_zone, bad_args = result.tool_calls
    assert paris.ok and '"timezone": "Europe/Paris"' in paris.content and '"datetime": "20' in paris.content
    assert not bad_zone.ok and "Invalid timezone" in bad_zone.content  # the server's isError result
    assert not bad_args.ok and "'timezone' is a required property" in bad_args.content  # checked before the call
    assert server._loop is None  # the connection lived as long as the run


def test_filter_prefix_cache_and_a_connection_the_caller_holds():
    server = MCPServerStdio(TIME, prefix="clock", tools=["convert_time"], cache_ttl=60)
    with server:
        for run in range(2):
            model = ScriptedModel(
                [
                    turn(
                        call(
                            "clock_convert_time", source_timezone="Etc/UTC", time="12:00", target_timezone="Asia/Tokyo"
                        )
                    ),
                    "21:00 in Tokyo.",
                ]
            )
            result = Agent(model, [server]).run("Noon UTC in Tokyo?")
            assert model.requests[0]["tools"] == ["clock_convert_time"]
            assert result.tool_calls[0].ok and '"time_difference": "+9.0h"' in result.tool_calls[0].content
            assert result.tool_calls[0].cached == (run == 1)  # the same call on the held connection: cached
            assert server._loop is not None  # still open: the caller holds it
    assert server._loop is None


def test_everything_server_tools_errors_progress_and_resources():
    server = everything(prefix="ev")
    model = ScriptedModel(
        [
            turn(call("ev_echo", message="hello mcp"), call("ev_get-sum", a=2, b=40)),
            # a tool that fails on the server (its isError result): a fetch of a loopback port nothing listens on
            turn(
                ToolCall("c_gzip", "ev_gzip-file-as-resource", {"name": "x.gz", "data": "http://127.0.0.1:9/nothing"}),
                call("ev_get-resource-reference", resourceType="Nonsense", resourceId=1),
            ),
            turn(call("ev_trigger-long-running-operation", duration=1, steps=4)),
            "done",
        ]
    )
    events = list(Agent(model, [server]).stream("exercise the server"))
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    echo, total, failing, refused, slow = results
    assert echo.ok and "hello mcp" in echo.content
    assert total.ok and "42" in total.content
    assert not failing.ok and failing.content == "Error: tool 'ev_gzip-file-as-resource' failed: fetch failed"
    assert not refused.ok and "resourceType: 'Nonsense' is not one of ['Text', 'Blob']" in refused.content
    assert slow.ok
    progress = [e for e in events if isinstance(e, Progress)]
    assert [p.done for p in progress] == [1, 2, 3, 4] and {p.total for p in progress} == {4}
    with server:
        uris = [r.uri for r in server.resources()]
        assert "demo://resource/static/document/architecture.md" in uris
        assert "Architecture" in server.read_resource("demo://resource/static/document/architecture.md")
        assert "simple-prompt" in [p.name for p in server.prompts()]
        messages = server.get_prompt("args-prompt", {"city": "Lyon"})
        assert messages[0].role == "user" and "Lyon" in messages[0].content


def _slow(tmp_path: Path, **options) -> tuple[MCPServerStdio, Path]:
    marker = tmp_path / "cancelled.txt"
    return MCPServerStdio(sys.executable, [str(HERE / "servers" / "slow.py"), str(marker)], **options), marker


def _wait_for(path: Path, seconds: float = 10) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not path.exists():
        time.sleep(0.05)
    return path.read_text() if path.exists() else ""


def test_a_call_past_its_timeout_is_cancelled_on_the_server(tmp_path):
    server, marker = _slow(tmp_path, timeout=1.0)
    model = ScriptedModel([turn(call("slow_slow", seconds=30)), "gave up"])
    with server:
        result = Agent(model, [server]).run("wait")
        assert "timed out after 1.0s" in result.tool_calls[0].content
        assert _wait_for(marker).startswith("cancelled after")  # notifications/cancelled reached the server


def test_closing_the_stream_cancels_the_running_call(tmp_path):
    server, marker = _slow(tmp_path)
    model = ScriptedModel([turn(call("slow_slow", seconds=30)), "never"])
    with server:
        events = Agent(model, [server]).stream("wait")
        started = time.monotonic()
        for event in events:
            if isinstance(event, Progress):
                events.close()  # the consumer leaves (a web client gone, Ctrl-C)
                break
        assert time.monotonic() - started < 10
        assert _wait_for(marker).startswith("cancelled after")
