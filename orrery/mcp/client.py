"""MCP servers as tools for any agent: `Agent(model, [*tools, MCPServerStdio("uvx", ["mcp-server-time"])])`.

The connection is the official `mcp` SDK's `Client` (asyncio). orrery's loop is synchronous and calls tools from
worker threads, so each open server gets one event loop on a daemon thread: one task there owns the `Client`
(the SDK's transports are anyio task groups, entered and left in the same task) and every request is submitted
to that loop from the calling thread. The server's tools become `MCPTool`s, which run through the same
`Toolset.run_one` as local tools (validation, timeout, cancellation, cache, events).
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import json
import logging
import re
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from orrery.errors import Cancelled, ConfigError, ToolError
from orrery.messages import Message
from orrery.tools.core import RunContext, Tool, cancelled

NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")
MAX_TOOL_NAME = 64  # what OpenAI-style APIs accept
LIST_PAGES = 100  # a server that paginates forever cannot hang the listing

# The SDK logs a malformed message with its traceback; without a handler Python's last resort prints it on
# stderr. orrery reports it as one observation instead (see `_on_message`); a configured logging still sees it.
logging.getLogger("mcp").addHandler(logging.NullHandler())


class MCPServerError(ToolError):
    """An MCP server could not be reached, or failed a request: the message names the server and what to do."""


def _name(text: str) -> str:
    return NAME_CHARS.sub("_", text).strip("_")


class MCPServer:
    """One MCP server as a tool provider. `open()` connects (if not already) and returns its tools; `close()`
    ends the connection once every `open()` (and `with` block) is closed, so a `with server:` held by the
    caller keeps one connection across runs; otherwise each agent run connects and disconnects.

    `prefix` names the tools `<prefix>_<tool>` (default: the server's name; "" for none), `tools` picks some
    (names, or a function of the name), `timeout` bounds each call (seconds; the model reads the timeout and
    the server is sent a cancellation), `connect_timeout` the start and handshake, `max_result_chars` what
    the model reads of a result, `cache_ttl` caches results by arguments like `@tool(cache_ttl=...)`, and
    `requires_approval` puts its tools behind a person's decision like `@tool(requires_approval=...)`."""

    def __init__(
        self,
        name: str,
        *,
        prefix: str | None = None,
        tools: Iterable[str] | Callable[[str], bool] | None = None,
        timeout: float | None = 60.0,
        connect_timeout: float = 30.0,
        max_result_chars: int = 20_000,
        cache_ttl: float | None = None,
        requires_approval: Any = False,
    ):
        self.name = _name(name) or "mcp"
        self.prefix = self.name if prefix is None else _name(prefix)
        self.pick = tools if callable(tools) or tools is None else set(tools).__contains__
        self.timeout, self.connect_timeout = timeout, connect_timeout
        self.max_result_chars, self.cache_ttl = max_result_chars, cache_ttl
        self.requires_approval = requires_approval  # as `@tool(requires_approval=...)`, for each of its tools
        self._users = 0
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: Any = None
        self._stop: asyncio.Event | None = None
        self._owner: cf.Future[None] | None = None
        self._thread: threading.Thread | None = None
        self._closed = threading.Event()  # set when the task owning the connection has left it
        self.listed: list[Any] = []  # the server's tools (mcp.types.Tool) as last listed
        self._tools: list[MCPTool] = []
        self._faults: list[str] = []  # transport errors the server caused (a line that is not JSON-RPC)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    # -- what a subclass says: how to reach the server ---------------------------------------------
    def transport(self) -> Any:
        """What `mcp.Client` connects to: a URL, or a transport context manager."""
        raise NotImplementedError

    def diagnosis(self) -> str:
        """A hint added to a failure to connect (the server's last stderr line, for a subprocess)."""
        return ""

    # -- lifetime ------------------------------------------------------------------------------------
    def __enter__(self) -> MCPServer:
        self.open()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def open(self) -> list[Tool]:
        with self._lock:
            if self._users == 0:
                self._connect()
            self._users += 1
            return list(self._tools)

    def close(self) -> None:
        with self._lock:
            if self._users == 0:
                return
            self._users -= 1
            if self._users == 0:
                self._shutdown()

    def _connect(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"orrery-mcp-{self.name}", daemon=True)
        self._thread.start()
        self._stop, self._closed = asyncio.Event(), threading.Event()
        ready: cf.Future[None] = cf.Future()
        self._owner = asyncio.run_coroutine_threadsafe(self._own(ready), self._loop)
        try:
            ready.result(self.connect_timeout)
            self.listed = self._submit(self._list_tools(), self.connect_timeout)
            # One MCPTool per listed tool for the connection's life: its cache outlives a run on a held connection.
            self._tools = [MCPTool(self, t) for t in self.listed if self.pick is None or self.pick(t.name)]
        except (cf.TimeoutError, TimeoutError):
            self._shutdown()
            raise MCPServerError(
                f"MCP server {self.name!r} did not answer within {self.connect_timeout:g}s of "
                f"starting{self.diagnosis()}; check that it runs on its own"
            ) from None
        except Exception as exc:
            self._shutdown()
            raise MCPServerError(f"MCP server {self.name!r} could not start: {_why(exc)}{self.diagnosis()}") from None

    async def _own(self, ready: cf.Future[None]) -> None:
        from mcp import Client
        from mcp.types import Implementation

        try:
            async with Client(
                self.transport(),
                mode="legacy",
                message_handler=self._on_message,
                client_info=Implementation(name="orrery", version="0.1"),
            ) as client:
                self._client = client
                ready.set_result(None)
                await self._stop.wait()  # type: ignore[union-attr]
        except BaseException as exc:  # reported to the thread waiting in _connect, else the connection just ends
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else ConnectionError(repr(exc)))
        finally:
            self._client = None
            self._closed.set()

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self._faults.append(_why(message))

    def _shutdown(self) -> None:
        loop, owner = self._loop, self._owner
        if loop is None or owner is None:
            return
        # A connection that is up closes when asked (its subprocess ends with it); one still starting is cancelled.
        loop.call_soon_threadsafe(self._stop.set)  # type: ignore[union-attr]
        if self._client is None or not self._closed.wait(5):
            owner.cancel()
            self._closed.wait(5)
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            loop.close()
        self._loop = self._owner = None

    # -- requests ------------------------------------------------------------------------------------
    def _submit(self, coro: Coroutine[Any, Any, Any], timeout: float | None, ctx: RunContext | None = None) -> Any:
        """Run `coro` on the connection's loop and wait for it; a cancelled run or a tool's timeout
        (`cancelled()`) cancels it, which sends the server `notifications/cancelled`."""
        if self._loop is None or self._client is None:
            coro.close()
            raise MCPServerError(f"MCP server {self.name!r} is not connected (its connection ended); run again")
        faults = len(self._faults)  # before the request: a fast server's garbled answer may come before the next line
        fut = asyncio.run_coroutine_threadsafe(coro, self._loop)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                return fut.result(0.05)
            except cf.TimeoutError:
                if len(self._faults) > faults:  # its answer may be the line it garbled: do not wait for it
                    fut.cancel()
                    raise MCPServerError(
                        f"MCP server {self.name!r} sent a message that is not JSON-RPC "
                        f"({self._faults[-1]}); fix or replace the server"
                    ) from None
                if cancelled() or (ctx is not None and ctx.cancelled):
                    fut.cancel()
                    raise Cancelled(f"call to MCP server {self.name!r} cancelled") from None
                if deadline is not None and time.monotonic() > deadline:
                    fut.cancel()
                    raise TimeoutError from None

    async def _list_tools(self) -> list[Any]:
        tools, cursor = [], None
        for _ in range(LIST_PAGES):
            page = await self._client.list_tools(cursor=cursor) if cursor else await self._client.list_tools()
            tools.extend(page.tools)
            if not (cursor := page.next_cursor):
                break
        return tools

    def call(self, tool: str, arguments: dict[str, Any], ctx: RunContext | None = None) -> Any:
        """Call the server's `tool`; returns the `CallToolResult`. Progress goes to `ctx.progress`."""

        async def progress(done: float, total: float | None, message: str | None) -> None:
            if ctx is not None and ctx.reporter is not None and not ctx.cancelled:
                ctx.reporter(message or tool, int(done), int(total or 0))

        return self._request(self._client_call(tool, arguments, progress), ctx)

    async def _client_call(self, tool: str, arguments: dict[str, Any], progress: Any) -> Any:
        return await self._client.call_tool(tool, arguments, progress_callback=progress)

    def _request(self, coro: Coroutine[Any, Any, Any], ctx: RunContext | None = None) -> Any:
        from mcp import MCPError

        try:
            return self._submit(coro, self.timeout, ctx)
        except TimeoutError:
            raise MCPServerError(f"MCP server {self.name!r} did not answer within {self.timeout:g}s") from None
        except MCPError as exc:
            raise MCPServerError(f"MCP server {self.name!r} answered an error: {_why(exc)}") from None
        except (Cancelled, MCPServerError):
            raise
        except Exception as exc:
            raise MCPServerError(f"MCP server {self.name!r} failed: {_why(exc)}") from None

    # -- resources and prompts -------------------------------------------------------------------
    def resources(self) -> list[Any]:
        """The resources the server lists (`mcp.types.Resource`: uri, name, mime_type, ...)."""
        with self:
            return self._request(self._client.list_resources()).resources

    def read_resource(self, uri: str) -> str:
        """A resource's contents as text (binary parts are named with their size)."""
        with self:
            result = self._request(self._client.read_resource(uri))
        return "\n".join(
            getattr(c, "text", None) or f"[{c.mime_type or 'binary'} {len(c.blob)} base64 chars]"
            for c in result.contents
        )

    def prompts(self) -> list[Any]:
        """The prompts the server lists (`mcp.types.Prompt`: name, description, arguments)."""
        with self:
            return self._request(self._client.list_prompts()).prompts

    def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> list[Message]:
        """A prompt as orrery messages, ready for `Agent.memory` or a task."""
        with self:
            result = self._request(self._client.get_prompt(name, arguments or {}))
        return [Message(m.role, _text([m.content], self.max_result_chars)) for m in result.messages]


class MCPServerStdio(MCPServer):
    """A server started as a subprocess speaking MCP on stdin/stdout: `MCPServerStdio("uvx", ["mcp-server-time"])`.
    Its stderr goes to a temporary file whose last line explains a failed start."""

    def __init__(
        self,
        command: str,
        args: Iterable[str] = (),
        *,
        env: dict[str, str] | None = None,
        cwd: str | Path | None = None,
        name: str | None = None,
        **options: Any,
    ):
        self.command, self.args, self.env, self.cwd = command, list(args), env, cwd
        super().__init__(name or _default_name(command, self.args), **options)
        self._errlog: Any = None

    def transport(self) -> Any:
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        if self._errlog is not None:
            self._errlog.close()
        self._errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115 - read after the server exits
        return stdio_client(
            StdioServerParameters(command=self.command, args=self.args, env=self.env, cwd=self.cwd), errlog=self._errlog
        )

    def diagnosis(self) -> str:
        if self._errlog is None:
            return ""
        self._errlog.seek(0)
        lines = [ln.strip() for ln in self._errlog.read()[-4000:].splitlines() if ln.strip()]
        return f" (its stderr: {lines[-1][:300]})" if lines else ""


class MCPServerHTTP(MCPServer):
    """A server reached over streamable HTTP: `MCPServerHTTP("http://127.0.0.1:8001/mcp")`; `headers` go with
    every request (`{"Authorization": "Bearer ..."}`)."""

    def __init__(self, url: str, *, name: str | None = None, headers: dict[str, str] | None = None, **options: Any):
        if not re.match(r"^https?://", url):
            raise ConfigError(f"{url!r} is not an http(s) URL of an MCP server")
        self.url, self.headers = url, dict(headers or {})
        super().__init__(name or "mcp", **options)

    def transport(self) -> Any:
        return _with_headers(self.url, self.headers) if self.headers else self.url


@asynccontextmanager
async def _with_headers(url: str, headers: dict[str, str]) -> AsyncIterator[Any]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    # The SDK's own timeouts for MCP over HTTP: a response stream may stay open for minutes.
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


def server_from_spec(spec: str, **options: Any) -> MCPServer:
    """`--mcp` on the command line: a URL, or a command line run as a stdio server ("uvx mcp-server-time")."""
    import shlex

    if re.match(r"^https?://", spec.strip()):
        return MCPServerHTTP(spec.strip(), **options)
    try:
        words = shlex.split(spec)
    except ValueError as exc:
        raise ConfigError(f"cannot read the MCP server command {spec!r}: {exc}") from None
    if not words:
        raise ConfigError("--mcp needs a command line or an http(s) URL")
    return MCPServerStdio(words[0], words[1:], **options)


def servers_from_config(text: str, where: str = "the MCP config") -> list[MCPServer]:
    """Servers from the common `mcpServers` JSON layout (Claude Desktop's, the IDEs'): each entry has a `command`
    (with `args`, `env`) or a `url` (with `headers`, e.g. a bearer token); its key is the server's name (its tools'
    prefix)."""
    try:
        entries = json.loads(text)["mcpServers"]
        if not isinstance(entries, dict):
            raise TypeError("mcpServers is not an object")
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(
            f'{where}: expected {{"mcpServers": {{NAME: {{"command": ..., "args": [...]}} or '
            f'{{"url": ...}}}}}} ({_why(exc)})'
        ) from None
    servers: list[MCPServer] = []
    for name, entry in entries.items():
        if isinstance(entry, dict) and isinstance(entry.get("url"), str):
            headers = entry.get("headers") or {}
            if not (isinstance(headers, dict) and all(isinstance(v, str) for v in headers.values())):
                raise ConfigError(f"{where}: server {name!r} needs headers as an object of strings")
            servers.append(MCPServerHTTP(entry["url"], name=name, headers=headers))
        elif isinstance(entry, dict) and isinstance(entry.get("command"), str):
            args, env = entry.get("args", []), entry.get("env")
            if not (isinstance(args, list) and all(isinstance(a, str) for a in args)) or not (
                env is None or isinstance(env, dict)
            ):
                raise ConfigError(f"{where}: server {name!r} needs args as a list of strings and env as an object")
            servers.append(MCPServerStdio(entry["command"], args, env=env, name=name))
        else:
            raise ConfigError(f'{where}: server {name!r} needs a "command" or a "url"')
    return servers


class MCPTool(Tool):
    """A tool of an MCP server, run by `Toolset` like a local one. Its schema is the server's; arguments are
    checked against it (JSON Schema) before the call; an `isError` result or a server error is a `ToolError`,
    so the model reads it as an observation."""

    def __init__(self, server: MCPServer, spec: Any):
        # Not Tool.__init__: that builds the schema from a Python signature; here the server gives it.
        self.server, self.remote = server, spec.name
        self.name = _name(f"{server.prefix}_{spec.name}" if server.prefix else spec.name)[:MAX_TOOL_NAME]
        self.description = (spec.description or spec.title or spec.name).strip()
        self.parameters = _object_schema(spec.input_schema)
        self.fn = self.__call__
        self.process, self.wants_context = False, True  # the context carries progress and cancellation
        self.requires_approval = server.requires_approval
        self.timeout, self.cache_ttl = server.timeout, server.cache_ttl
        self.available = self.refine = None
        self._results: dict[str, tuple[float, Any]] = {}  # its own cache: Tool's is Tool's business
        self._results_lock = threading.Lock()

    def __call__(self, **arguments: Any) -> Any:
        return self.invoke(arguments, RunContext())[0]

    def invoke(self, arguments: dict[str, Any], ctx: RunContext) -> tuple[Any, bool]:
        self._validate(arguments)
        key = json.dumps(arguments, sort_keys=True, default=str) if self.cache_ttl is not None else None
        if key is not None:
            with self._results_lock:
                hit = self._results.get(key)
            if hit and time.monotonic() - hit[0] < self.cache_ttl:
                return hit[1], True
        result = self.server.call(self.remote, arguments, ctx)
        text = _text(result.content, self.server.max_result_chars)
        if result.is_error:
            raise ToolError(f"tool {self.name!r} failed: {text or 'the server gave no reason'}")
        value = text if text or result.structured_content is None else result.structured_content
        if key is not None:
            with self._results_lock:
                self._results[key] = (time.monotonic(), value)
        return value, False

    def _validate(self, arguments: dict[str, Any]) -> None:
        import jsonschema

        validator = jsonschema.Draft202012Validator(self.parameters)
        problems = [
            f"{'.'.join(map(str, e.absolute_path)) or 'arguments'}: {e.message}"
            for e in sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))[:5]
        ]
        if problems:
            raise ToolError(
                f"invalid arguments for {self.name!r}: {'; '.join(problems)}. "
                f"Expected schema: {json.dumps(self.parameters)}"
            )


def _object_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    out = dict(schema or {})
    out.setdefault("type", "object")
    out.setdefault("properties", {})
    out.pop("$schema", None)
    return out


def _text(content: Iterable[Any], limit: int) -> str:
    """What the model reads of MCP content blocks: text as it is, other blocks named; cut at `limit`."""
    parts = []
    for block in content:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "resource":
            res = block.resource
            parts.append(getattr(res, "text", None) or f"[resource {res.uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource {block.uri}]")
        else:
            parts.append(f"[{kind} {getattr(block, 'mime_type', '') or ''}]".replace(" ]", "]"))
    text = "\n".join(parts)
    if len(text) > limit:
        text = f"{text[:limit]}\n[cut: {len(text) - limit} more characters of {len(text)}]"
    return text


def _why(exc: BaseException) -> str:
    """One line for an exception, looking inside the exception groups anyio raises."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _default_name(command: str, args: list[str]) -> str:
    """A short name from the command line: 'uvx mcp-server-time' -> 'time', 'npx -y @x/server-everything' ->
    'everything'."""
    words = [w for w in [command, *args] if not w.startswith("-")]
    runners = {"uvx", "npx", "python", "python3", "node", "uv", "run", "pipx", "bunx", "-m"}
    main = next((w for w in words if Path(w).name not in runners), command)
    base = Path(main.rsplit("@", 1)[0] if main.count("@") > 1 else main).name
    for prefix in ("mcp-server-", "server-", "mcp_server_", "mcp-"):
        base = base.removeprefix(prefix)
    return _name(base.removesuffix(".py").removesuffix(".js")) or "mcp"
