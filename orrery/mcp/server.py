"""Every installed app as an MCP tool (`orrery mcp`): forecast, research, markets, bi, chat, and any app a package
registers in `orrery.apps`, found by `orrery.apps.discover()` and never imported by name here.

Each app is one tool. Its input schema comes from the app's declared inputs (`App.inputs`), typed from the
annotations of its factory and its `stream()`: the user's words (`message`/`question`/`query`) are required,
`data` names a file inside the folder the operator allows (`--files DIR`) or comes inline as `data_csv` (an
upload, size-capped), every other input takes a name (never a path or a URL), and inputs that are paths by
nature (`*_dir`, `*_path`) are not offered. A call runs the app's agent on a worker thread (`aiterate`):
its `Progress` events become progress notifications, a cancellation closes the run, and the result comes back
as text (the answer) plus structured content (the app's `to_dict()`, or status and output).
"""

from __future__ import annotations

import asyncio
import hmac
import inspect
import json
import re
import sys
import tempfile
import typing
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
from pydantic_core import to_jsonable_python

from orrery.apps import App, discover, load_ref
from orrery.errors import ConfigError, DataError, OrreryError
from orrery.events import Final, Progress, aiterate
from orrery.files import input_file

MESSAGE_INPUTS = ("message", "question", "query")  # what apps call the user's words
PATH_INPUT = re.compile(r"(^|_)(dir|path|folder)$")
NAME_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.:,+-]{0,199}$")  # a name, a date, a number; never a path
DATA_SUFFIXES = (".csv", ".parquet", ".pq")
JSON_TYPES = {int: "integer", float: "number", bool: "boolean", str: "string"}


@dataclass
class Settings:
    llm: Any = None  # a model spec or a Model, shared by every call (the embedded model loads once)
    files: Path | None = None  # the folder whose files `data` may name; None: only inline uploads
    max_upload_bytes: int = 20 * 2**20
    run_timeout: float = 600.0
    dbs: tuple[str, ...] = ()  # database names the BI input `db` may take (empty: any name)
    apps: dict[str, App] | None = None  # default: every installed app
    only: str | None = None  # serve this app alone
    uploads: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="orrery-mcp-")))


class Catalogue:
    """The apps as MCP tools: schemas, argument checks, and running one call."""

    def __init__(self, s: Settings):
        self.s = s
        found = s.apps if s.apps is not None else discover()
        if s.only is not None and s.only not in found:
            raise ConfigError(f"no app named {s.only!r}; installed: {', '.join(found) or 'none'}")
        self.apps: dict[str, App] = {}
        self.schemas: dict[str, dict[str, Any]] = {}
        self.params: dict[str, set[str]] = {}
        for name, app in found.items():
            if s.only not in (None, name):
                continue
            try:
                factory_params, hints = _hints(app)
            except ImportError as exc:  # an app whose extra is missing is left out, said once
                print(f"orrery mcp: app {name!r} left out: {exc}; pip install 'orrery[{app.extra or name}]'",
                      file=sys.stderr)
                continue
            self.apps[name], self.params[name] = app, factory_params
            self.schemas[name] = self._schema(app, hints)
        self._model: Any = None

    def _schema(self, app: App, hints: Mapping[str, Any]) -> dict[str, Any]:
        props: dict[str, Any] = {}
        said = next((k for k in MESSAGE_INPUTS if k in app.inputs), None)
        props[said or "message"] = {"type": "string", "description": app.inputs.get(said or "", "what to ask")}
        for key, what in app.inputs.items():
            if key in MESSAGE_INPUTS or PATH_INPUT.search(key):
                continue
            if key == "data":
                where = f"a file name in the server's data folder ({', '.join(DATA_SUFFIXES)})" if self.s.files \
                    else "not available: the server allows no folder; send data_csv"
                props["data"] = {"type": "string", "description": f"{what}: {where}"}
                props["data_csv"] = {"type": "string", "description": "the data as CSV text (an upload, at most "
                                     f"{self.s.max_upload_bytes} bytes), instead of data"}
                continue
            prop: dict[str, Any] = {"type": _json_type(hints.get(key)), "description": what}
            if key == "db" and self.s.dbs:
                prop["enum"] = list(self.s.dbs)
            props[key] = prop
        return {"type": "object", "properties": props, "required": [said] if said else [],
                "additionalProperties": False}

    # -- one call ------------------------------------------------------------------------------------
    def check(self, name: str, arguments: Mapping[str, Any] | None) -> tuple[App, str, dict[str, Any], dict[str, Any]]:
        """(app, task, factory options, run inputs) for a call, or a DataError saying what to fix."""
        if name not in self.apps:
            raise DataError(f"no tool {name!r}; the tools are {', '.join(self.apps)}")
        app, args = self.apps[name], dict(arguments or {})
        errors = sorted(jsonschema.Draft202012Validator(self.schemas[name]).iter_errors(args), key=str)
        if errors:
            e = errors[0]
            raise DataError(f"{'.'.join(map(str, e.absolute_path)) or 'arguments'}: {e.message}")
        said = next((k for k in MESSAGE_INPUTS if k in self.schemas[name]["properties"]), "message")
        task = str(args.pop(said, "") or "").strip()
        for key, value in args.items():  # a client names things; files and databases are the operator's choice
            if isinstance(value, str) and key not in ("data", "data_csv") and not NAME_VALUE.match(value):
                raise DataError(f"input {key!r} takes a name (letters, digits, spaces, _.:,+-), not {value[:60]!r}")
        if "data_csv" in args:
            args["data"] = str(self._upload(args.pop("data_csv")))
        elif "data" in args:
            args["data"] = str(self._allowed_file(args["data"]))
        options = {k: v for k, v in args.items() if k in self.params[name]}
        if "session_id" in self.params[name]:  # each call is a conversation of its own (BI keeps one per id)
            options["session_id"] = f"mcp-{uuid.uuid4().hex}"
        if not task and "data" not in args:
            raise DataError(f"say what to ask in {said!r}")
        return app, task, options, {k: v for k, v in args.items() if k not in options}

    def _allowed_file(self, name: str) -> Path:
        root = self.s.files
        if root is None:
            raise DataError("this server allows no data folder (orrery mcp --files DIR); send the data as data_csv")
        base = root.resolve()
        path = (base / name).resolve()
        if Path(name).is_absolute() or base not in path.parents or path.suffix.lower() not in DATA_SUFFIXES:
            raise DataError(f"data {name!r} is not a {'/'.join(DATA_SUFFIXES)} file inside the server's data "
                            "folder; name one of its files")
        return input_file(path, what="data", max_bytes=self.s.max_upload_bytes)

    def _upload(self, text: str) -> Path:
        if len(text.encode()) > self.s.max_upload_bytes:
            raise DataError(f"data_csv is over the server's limit of {self.s.max_upload_bytes} bytes")
        folder = self.s.uploads / uuid.uuid4().hex
        folder.mkdir(parents=True)
        path = folder / "upload.csv"
        path.write_text(text, encoding="utf-8")
        return path

    def model(self) -> Any:
        if self._model is None:  # one model for all calls: the embedded one loads its weights once
            from orrery.llm import resolve_model

            self._model = self.s.llm if hasattr(self.s.llm, "complete") else resolve_model(self.s.llm)
        return self._model

    async def run(self, name: str, arguments: Mapping[str, Any] | None, progress: Any) -> tuple[str, dict, bool]:
        """(text, structured content, is_error) of one call; `progress(done, total, label)` is awaited for each
        Progress event. Cancelling the awaiting task closes the run (its tools see `ctx.cancelled`)."""
        try:
            app, task, options, inputs = self.check(name, arguments)
            model = await asyncio.to_thread(self.model)
            agent = await asyncio.to_thread(app.make_agent, model, **options)
        except OrreryError as exc:
            return str(exc), {"status": "error", "error": str(exc)}, True
        result = None
        try:
            async with asyncio.timeout(self.s.run_timeout):
                async for event in aiterate(agent.stream(task, **inputs)):
                    if isinstance(event, Progress):
                        await progress(event.done, event.total or None, event.label)
                    elif isinstance(event, Final):
                        result = event.result
        except TimeoutError:
            msg = f"the run took longer than the server's limit of {self.s.run_timeout:g}s"
            return msg, {"status": "timeout", "error": msg}, True
        except OrreryError as exc:
            return str(exc), {"status": "error", "error": str(exc)}, True
        return _outcome(result)


def _outcome(result: Any) -> tuple[str, dict[str, Any], bool]:
    status = str(getattr(result, "status", "completed"))
    text = _answer(result)
    data = result.to_dict() if callable(getattr(result, "to_dict", None)) else {"status": status, "output": text}
    data = _plain(data)
    data.setdefault("status", status)
    return text or status, data, status == "error"


def _answer(result: Any) -> str:
    for attr in ("narrative", "output"):
        if isinstance(text := getattr(result, attr, None), str) and text:
            return text
    if (p := getattr(result, "probability", None)) is not None:
        return f"Probability: {p:.2f}. {getattr(result, 'rationale', '')}".strip()
    return str(result) if isinstance(result, str) else ""


def _plain(value: Any) -> Any:
    """JSON-ready (numpy scalars as numbers, dates and other objects as strings); NaN stays a float, which the SDK's
    pydantic serializer writes as null."""
    return to_jsonable_python(value, fallback=lambda v: v.item() if hasattr(v, "item") else str(v))


def _hints(app: App) -> tuple[set[str], dict[str, Any]]:
    """(the factory's parameter names, the annotations of the factory and of its agent's `stream`)."""
    factory = load_ref(app.agent)
    hints: dict[str, Any] = {}
    agent_cls = factory if inspect.isclass(factory) else _safe_hints(factory).get("return")
    for fn in (getattr(agent_cls, "stream", None), factory.__init__ if inspect.isclass(factory) else factory):
        if fn is not None:
            hints.update({k: v for k, v in _safe_hints(fn).items() if k != "return"})
    return set(inspect.signature(factory).parameters), hints


def _safe_hints(fn: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve is read as a string input
        return {}


def _json_type(annotation: Any) -> str:
    args = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    return JSON_TYPES.get(args[0], "string") if len(args) == 1 else "string"


# -- the MCP server ---------------------------------------------------------------------------------
def build(settings: Settings | None = None) -> Any:
    """The `mcp` SDK's low-level `Server` with one tool per app."""
    import mcp.types as types
    from mcp.server import Server

    cat = Catalogue(settings or Settings())

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=name, description=app.description, input_schema=cat.schemas[name])
            for name, app in cat.apps.items()])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        async def progress(done: float, total: float | None, label: str) -> None:
            await ctx.session.report_progress(done, total, label)

        text, data, failed = await cat.run(params.name, params.arguments, progress)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=data,
                                    is_error=failed)

    server = Server("orrery", version=_version(), instructions="orrery's apps as tools: "
                    + "; ".join(f"{n}: {a.description}" for n, a in cat.apps.items()),
                    on_list_tools=list_tools, on_call_tool=call_tool)
    server.catalogue = cat  # type: ignore[attr-defined]
    return server


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("orrery")
    except PackageNotFoundError:
        return "0"


def run_stdio(settings: Settings) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    server = build(settings)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def http_app(settings: Settings, *, host: str = "127.0.0.1", token: str | None = None) -> Any:
    """The streamable-HTTP app at /mcp; with a token, every request needs `Authorization: Bearer TOKEN`."""
    app = build(settings).streamable_http_app(host=host)
    return BearerGuard(app, token) if token else app


class BearerGuard:
    """Hand-written: the SDK's own auth is OAuth (an issuer, scopes); a shared bearer token is what `orrery serve`
    and `serve-model` take, so the MCP server takes the same."""

    def __init__(self, app: Any, token: str):
        self.app, self.expected = app, f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = json.dumps({"error": "send Authorization: Bearer <the server's token>"}).encode()
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def run_http(settings: Settings, host: str, port: int, token: str | None) -> None:
    import uvicorn

    from orrery.exposure import check_exposure

    token = check_exposure(host, token, "orrery's apps over MCP")
    uvicorn.run(http_app(settings, host=host, token=token), host=host, port=port, log_level="warning")
