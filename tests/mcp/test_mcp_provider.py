"""The tool-provider hook every MCP server uses: `Toolset.open()`/`close()` around each agent run, a name clash,
a provider that fails to open; and the small parts of the MCP client that need no server."""

from __future__ import annotations

import pytest

from orrery.agent.loop import Agent
from orrery.errors import ConfigError, ToolError
from orrery.events import ErrorEvent, RunStart
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.mcp.client import _default_name, _text, server_from_spec, servers_from_config
from orrery.tools.core import Tool, Toolset, tool


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class Provider:
    def __init__(self, tools=(), fail: str | None = None):
        self.tools, self.fail, self.log = list(tools), fail, []

    def open(self) -> list[Tool]:
        self.log.append("open")
        if self.fail:
            raise ToolError(self.fail)
        return self.tools

    def close(self) -> None:
        self.log.append("close")


def test_a_providers_tools_exist_for_the_run_only():
    remote = Tool(lambda text: text.upper(), name="shout", description="Upper-case a text.")
    provider = Provider([remote])
    model = ScriptedModel([turn(call("shout", text="hi")), "HI"])
    agent = Agent(model, [add, provider])
    events = list(agent.stream("shout hi"))
    assert next(e for e in events if isinstance(e, RunStart)).tools == ["add", "shout"]
    assert model.requests[0]["tools"] == ["add", "shout"]
    assert events[-1].result.tool_calls[0].content == "HI"
    assert provider.log == ["open", "close"] and list(agent.tools.tools) == ["add"]


def test_a_provider_that_cannot_open_ends_the_run_in_one_line():
    provider = Provider(fail="MCP server 'x' could not start: boom")
    events = list(Agent(ScriptedModel(["unused"]), [add, provider]).stream("hi"))
    assert [type(e).__name__ for e in events] == ["ErrorEvent", "Final"]
    assert isinstance(events[0], ErrorEvent) and events[-1].result.status == "error"
    assert events[-1].result.output == "MCP server 'x' could not start: boom"


def test_a_provider_tool_may_not_shadow_a_local_one():
    clash, other = Provider([Tool(lambda a, b: 0, name="add")]), Provider()
    tools = Toolset([add, other, clash])
    with pytest.raises(ConfigError, match="has the name of a local tool"):
        tools.open()
    assert other.log == ["open", "close"] and list(tools.tools) == ["add"]


def test_names_specs_and_config():
    assert _default_name("uvx", ["mcp-server-time"]) == "time"
    assert _default_name("npx", ["-y", "@modelcontextprotocol/server-everything"]) == "everything"
    assert _default_name("python", ["-m", "my_server.py"]) == "my_server"
    assert server_from_spec("http://127.0.0.1:9/mcp").url == "http://127.0.0.1:9/mcp"
    stdio = server_from_spec("uvx mcp-server-time --local-timezone 'Europe/Paris'")
    assert (stdio.command, stdio.args, stdio.prefix) == (
        "uvx",
        ["mcp-server-time", "--local-timezone", "Europe/Paris"],
        "time",
    )
    with pytest.raises(ConfigError, match="cannot read the MCP server command"):
        server_from_spec("uvx 'unclosed")
    [named] = servers_from_config('{"mcpServers": {"clock": {"command": "mcp-server-time", "args": ["-v"]}}}')
    assert (named.name, named.args) == ("clock", ["-v"])
    [remote] = servers_from_config(
        '{"mcpServers": {"apps": {"url": "http://h/mcp", "headers": {"Authorization": "B"}}}}'
    )
    assert (remote.name, remote.headers) == ("apps", {"Authorization": "B"})
    with pytest.raises(ConfigError, match='needs a "command" or a "url"'):
        servers_from_config('{"mcpServers": {"x": {"cmd": "y"}}}')


def test_long_results_are_cut_and_say_how_much():
    class Block:
        type, text = "text", "x" * 50

    assert _text([Block()], 20) == "x" * 20 + "\n[cut: 30 more characters of 50]"


def test_the_react_prompt_lists_a_providers_tools():
    from orrery.agent.loop import AgentConfig

    provider = Provider([Tool(lambda text: text.upper(), name="shout", description="Upper-case a text.")])
    model = ScriptedModel([{"thought": "done", "answer": "ok"}])
    Agent(model, [add, provider], AgentConfig(format="react")).run("hi")
    system = model.requests[0]["messages"][0].content
    assert "shout" in system and "add" in system


def test_the_planner_holds_its_providers_for_a_turn(tmp_path):
    from orrery.agent.planner import PlanAgent

    provider = Provider([Tool(lambda text: text.upper(), name="shout", description="Upper-case a text.")])
    plan = {
        "request": "shout hi",
        "todos": [{"key": "s", "description": "shout", "tool": "shout", "arguments": {"text": "hi"}}],
    }
    model = ScriptedModel([plan, "HI it is."])
    result = PlanAgent(model, [add, provider], tmp_path / "s.db", "s1").run("shout hi")
    assert result.status == "completed" and result.todos[0].status == "done" and "HI" in result.todos[0].result
    assert model.requests[0]["schema"]["properties"]["todos"]["items"]["properties"]["tool"]["enum"] == ["add", "shout"]
    assert provider.log == ["open", "close"]


def test_the_router_holds_its_providers_for_a_run():
    from orrery.agent.router import RouterAgent

    provider = Provider([Tool(lambda text: text.upper(), name="shout", description="Upper-case a text.")])
    classify = {"type": "general", "entities": [], "categories": ["text"]}
    route = {"selected_tools": ["shout"], "complexity": "SIMPLE", "strategy": "DIRECT", "max_turns": 1}
    model = ScriptedModel([classify, route, turn(call("shout", text="hi")), "HI it is."])
    result = RouterAgent(model, [add, provider]).run("shout hi")
    assert result.ok and result.tool_calls[0].content == "HI" and result.output == "HI it is."
    assert provider.log == ["open", "close"]
