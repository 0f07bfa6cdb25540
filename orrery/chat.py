"""The generic agent as an app: a calculator and a fact lookup behind the plain loop."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from orrery.apps import App

MCP_CONFIG_ENV = "ORRERY_MCP_CONFIG"


def chat_agent(model: Any = None, *, mcp_servers: Sequence[Any] = (), llm: Any = None, **config: Any) -> Any:
    """An `Agent` with the built-in tools; `model` is a Model or a spec for `resolve_model` (`llm`: its deprecated
    name). `mcp_servers` adds MCP
    servers' tools (`orrery.mcp` servers, or `--mcp` specs: a command line or a URL), and so does the operator's
    config file named by $ORRERY_MCP_CONFIG (how `orrery serve`'s chat agent gets them; a client never names one)."""
    from orrery.agent.loop import Agent, AgentConfig
    from orrery.llm import model_argument, resolve_model
    from orrery.tools.builtin import DEFAULT_TOOLS

    model = resolve_model(model_argument(model, llm))
    servers = [*configured_servers(), *mcp_servers]
    if servers:
        from orrery.mcp import server_from_spec

        servers = [server_from_spec(s) if isinstance(s, str) else s for s in servers]
    return Agent(
        model,
        [*DEFAULT_TOOLS, *servers],
        AgentConfig(**config),
        tools_ref="orrery.tools.builtin:DEFAULT_TOOLS",
        name="chat",
    )


def configured_servers() -> list[Any]:
    """The MCP servers of the operator's config file ($ORRERY_MCP_CONFIG), in the common `mcpServers` layout:
    `{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}, "docs": {"url": "http://..."}}}`."""
    path = os.environ.get(MCP_CONFIG_ENV)
    if not path:
        return []
    from orrery.files import read_text
    from orrery.mcp.client import servers_from_config

    text = read_text(path, what=f"the MCP config (${MCP_CONFIG_ENV})", max_bytes=1 << 20)
    return servers_from_config(text, where=path)


APP = App(
    name="chat",
    description="The generic agent: a safe calculator and a small fact store, in a ReAct or native tool loop.",
    agent="orrery.chat:chat_agent",
    message="a question",
)
