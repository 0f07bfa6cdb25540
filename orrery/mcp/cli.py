"""`orrery mcp`: every installed app as an MCP server, on stdio (for Claude Desktop, an IDE) or streamable HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer


def mcp(
    transport: Annotated[Literal["stdio", "http"], typer.Option(help="stdio, or streamable HTTP at /mcp")] = "stdio",
    app_name: Annotated[str | None, typer.Option("--app", help="Serve this app alone (default: every app)")] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="local | openai:MODEL | ollama:MODEL | http://host:port/v1")
    ] = None,
    llm: Annotated[str | None, typer.Option("--llm", hidden=True, help="The old name of --model")] = None,
    files: Annotated[
        Path | None,
        typer.Option(
            help="The folder whose CSV/Parquet files clients may name as data (default: none; data comes inline)"
        ),
    ] = None,
    db: Annotated[
        list[str] | None,
        typer.Option(help="A database name the BI tool may use (repeatable; default: any name the BI app knows)"),
    ] = None,
    host: str = "127.0.0.1",
    port: int = 8001,
    token: Annotated[str | None, typer.Option(help="Bearer token (or ORRERY_TOKEN); required off loopback")] = None,
    max_upload_mb: float = 20,
    run_timeout: float = 600,
) -> None:
    """Serve the installed apps as MCP tools (forecast, research, markets, bi, chat)."""
    from orrery.errors import ConfigError
    from orrery.mcp.server import Settings, run_http, run_stdio

    if files is not None and not files.is_dir():
        raise ConfigError(f"--files {files} is not a folder; name the folder whose data files clients may use")
    settings = Settings(
        model=model or llm,
        files=files,
        dbs=tuple(db or ()),
        only=app_name,
        run_timeout=run_timeout,
        max_upload_bytes=int(max_upload_mb * 2**20),
    )
    if transport == "http":
        run_http(settings, host, port, token)
    else:
        run_stdio(settings)
