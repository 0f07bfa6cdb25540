"""MCP both ways: MCP servers' tools for any agent (`MCPServerStdio`, `MCPServerHTTP`), and every installed app
as an MCP server (`orrery mcp`, `orrery.mcp.server`). Needs the `mcp` extra: `pip install 'orrery[mcp]'`."""

from orrery.mcp.client import (
    MCPServer,
    MCPServerError,
    MCPServerHTTP,
    MCPServerStdio,
    MCPTool,
    server_from_spec,
    servers_from_config,
)

__all__ = [
    "MCPServer",
    "MCPServerError",
    "MCPServerHTTP",
    "MCPServerStdio",
    "MCPTool",
    "server_from_spec",
    "servers_from_config",
]
