"""orrery's MCP client under the official conformance suite: `conformance client --command "python THIS"` runs it
with the scenario's server URL as the last argument. It connects with `MCPServerHTTP`, and an orrery Agent (a
scripted model) calls every tool the server lists once, with arguments made from the tool's schema."""

from __future__ import annotations

import sys
from typing import Any

from orrery.agent.loop import Agent
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.mcp import MCPServerHTTP

EXAMPLES = {"number": 2, "integer": 3, "string": "orrery", "boolean": True, "array": [], "object": {}}


def example(schema: dict[str, Any]) -> dict[str, Any]:
    props, required = schema.get("properties", {}), schema.get("required", [])
    return {k: EXAMPLES.get(p.get("type"), "orrery") for k, p in props.items() if k in required}


def main(url: str) -> int:
    server = MCPServerHTTP(url, name="conformance", prefix="", timeout=20, connect_timeout=20)
    with server:
        calls = [call(t.name, **example(t.parameters)) for t in server.open()]
        server.close()
        model = ScriptedModel([turn(*calls), "done"] if calls else ["done"])
        result = Agent(model, [server]).run("Call each tool once.")
    for r in result.tool_calls:
        print(f"{r.call.name}: {'ok' if r.ok else 'error'}: {r.content[:200]}")
    print(f"run {result.status}: {result.output}")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1]))
