"""MCP servers that misbehave, for tests/mcp/test_bad_servers.py: `python broken.py MODE`.

exit: exits at start; hang: reads requests and never answers; garbage: answers initialize, then writes a line
that is not JSON-RPC for every later request; crash: the same, but exits at the first call; big: a real server
whose tool returns 10 MB of text."""

import sys
import time

mode = sys.argv[1]
if mode == "exit":
    print("broken server: missing configuration", file=sys.stderr)
    sys.exit(3)
if mode == "hang":
    for _ in sys.stdin:
        time.sleep(0.01)
    sys.exit(0)
if mode in ("garbage", "crash"):
    import json

    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("method") == "initialize":
            reply = {
                "jsonrpc": "2.0",
                "id": msg["id"],
                "result": {
                    "protocolVersion": msg["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "garbage", "version": "1"},
                },
            }
            print(json.dumps(reply), flush=True)
        elif msg.get("method") == "tools/list":
            tool = {"name": "oops", "description": "answers garbage", "inputSchema": {"type": "object"}}
            print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [tool]}}), flush=True)
        elif "id" in msg and mode == "crash":
            sys.exit(1)
        elif "id" in msg:
            print("{this is not json-rpc", flush=True)
    sys.exit(0)
if mode == "big":
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("big")

    @server.tool()
    def big() -> str:
        """Ten megabytes of text."""
        return "x" * (10 * 2**20)

    server.run()
