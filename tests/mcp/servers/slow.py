"""A small real MCP server for tests: `slow` reports progress each 0.1 s for `seconds` and records whether it
was cancelled in the file named by its first argument."""

import sys
import time
from pathlib import Path

import anyio
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("slow")
marker = Path(sys.argv[1])


@server.tool()
async def slow(seconds: float, ctx: Context) -> str:
    """Wait `seconds`, reporting progress."""
    start = time.monotonic()
    steps = max(1, int(seconds / 0.1))
    try:
        for i in range(steps):
            await ctx.report_progress(i + 1, steps, "waiting")
            await anyio.sleep(0.1)
    except anyio.get_cancelled_exc_class():
        marker.write_text(f"cancelled after {time.monotonic() - start:.1f}s")
        raise
    return f"waited {seconds}s"


server.run()
