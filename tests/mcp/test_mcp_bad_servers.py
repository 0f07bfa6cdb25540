"""MCP servers that misbehave (tests/mcp/servers/broken.py): each gives one observation or one line, in
bounded time, with no traceback, and the run goes on or ends cleanly."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from orrery.agent.loop import Agent
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.mcp import MCPServerStdio

BROKEN = str(Path(__file__).parent / "servers" / "broken.py")

pytestmark = pytest.mark.integration


def broken(mode: str, **options) -> MCPServerStdio:
    return MCPServerStdio(sys.executable, [BROKEN, mode], name=mode, **options)


@pytest.mark.parametrize(
    "mode, wait, says",
    [
        ("exit", 30, "MCP server 'exit' could not start"),  # seen when its stdout closes, long before the 30 s
        ("hang", 3, "MCP server 'hang' did not answer within 3s of starting"),
    ],
)
def test_a_server_that_cannot_start_ends_the_run_in_one_line(mode, wait, says):
    result = Agent(ScriptedModel(["unused"]), [broken(mode, connect_timeout=wait)]).run("hi")
    assert result.status == "error" and result.output.startswith(says)
    assert "\n" not in result.output and "Traceback" not in result.output


def test_the_stderr_of_a_server_that_exits_is_in_the_line():
    result = Agent(ScriptedModel(["unused"]), [broken("exit", connect_timeout=30)]).run("hi")
    assert "missing configuration" in result.output


def test_malformed_json_rpc_is_an_observation_and_the_run_goes_on():
    model = ScriptedModel([turn(call("garbage_oops")), "the tool is broken"])
    # The timeout is room for a loaded machine; the observation must be the malformed line, not the timeout (the
    # content says which: no wall-clock assertion, so a busy machine cannot fail it).
    result = Agent(model, [broken("garbage", timeout=60)]).run("hi")
    assert result.ok and result.output == "the tool is broken"
    [r] = result.tool_calls
    assert not r.ok and "MCP server 'garbage'" in r.content and "Traceback" not in r.content
    assert "timed out" not in r.content


def test_a_ten_megabyte_result_is_cut_to_what_the_model_reads():
    model = ScriptedModel([turn(call("big_big")), "long"])
    result = Agent(model, [broken("big", max_result_chars=1000)]).run("hi")
    [r] = result.tool_calls
    assert r.ok and len(r.content) < 1100 and f"more characters of {10 * 2**20}" in r.content


def test_a_server_that_dies_mid_run_is_an_observation_at_once():
    model = ScriptedModel([turn(call("crash_oops")), turn(call("crash_oops")), "the server is gone"])
    result = Agent(model, [broken("crash", timeout=60)]).run("hi")
    assert result.ok and result.output == "the server is gone"
    assert all(
        not r.ok and "MCP server 'crash'" in r.content and "Connection closed" in r.content for r in result.tool_calls
    )
