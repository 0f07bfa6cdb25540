"""Every installed app as an MCP tool (`orrery mcp`): forecast, research, markets, bi, chat, and any app a package
registers in `orrery.apps`, found by `orrery.apps.discover()` and never imported by name here.

Each app is one tool. Its input schema is the app's declared input model (`App.input_model()`, the one
`orrery serve` validates) plus `message`, the user's words. An input that is an upload (`UploadId`) names a file
inside the folder the operator allows (`--files DIR`) or comes inline as `<input>_csv` (size-capped); every
other input is checked by the app's model (names, never paths). A call runs the app's agent on a worker thread
(`aiterate`): its `Progress` events become progress notifications, a cancellation closes the run, and the
result comes back as text (the answer) plus structured content (the app's `to_dict()`, or status and output).
"""

from __future__ import annotations

import asyncio
import hmac
import inspect
import json
import sys
import tempfile
import uuid
from collections.abc import Mapping
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import pydantic

from orrery.apps import App, discover, load_ref, upload_fields
from orrery.errors import ConfigError, DataError, OrreryError
from orrery.events import Final, Progress, aiterate
from orrery.files import input_file
from orrery.results import Result, jsonable, text_of

DATA_SUFFIXES = (".csv", ".parquet", ".pq")
INLINE = "_csv"  # `<upload input>_csv`: the file's content sent inline


@dataclass
class Settings:
    model: Any = None  # a model spec or a Model, shared by every call (the embedded model loads once)
    files: Path | None = None  # the folder whose files an upload input may name; None: only inline data
    max_upload_bytes: int = 20 * 2**20
    run_timeout: float = 600.0
    dbs: tuple[str, ...] = ()  # database names the BI input `db` may take (empty: what the app's model allows)
    apps: dict[str, App] | None = None  # default: every installed app
    only: str | None = None  # serve this app alone
    uploads: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="orrery-mcp-")))
    llm: InitVar[Any] = None  # the deprecated name of `model`

    def __post_init__(self, llm: Any) -> None:
        from orrery.llm import model_argument

        self.model = model_argument(self.model, llm)


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
                factory = load_ref(app.agent)
            except ImportError as exc:  # an app whose extra is missing is left out, said once
                print(
                    f"orrery mcp: app {name!r} left out: {exc}; pip install 'orrery[{app.extra or name}]'",
                    file=sys.stderr,
                )
                continue
            self.apps[name], self.params[name] = app, set(inspect.signature(factory).parameters)
            self.schemas[name] = self._schema(app)
        self._model: Any = None

    def _schema(self, app: App) -> dict[str, Any]:
        declared = app.input_model().model_json_schema()
        uploads = upload_fields(app.input_model())
        props: dict[str, Any] = {"message": {"type": "string", "description": app.message}}
        for key, prop in declared.get("properties", {}).items():
            if prop.get("approval"):  # it pauses the run for a person: an MCP call runs to its end, nothing resumes it
                continue
            if key in uploads:
                where = (
                    "a file name in the server's data folder"
                    if self.s.files
                    else f"not available (the server allows no folder): send {key}{INLINE}"
                )
                props[key] = {"type": "string", "description": f"{prop.get('description', key)}: {where}"}
                props[key + INLINE] = {
                    "type": "string",
                    "description": f"or the data of {key} as CSV text (at most {self.s.max_upload_bytes} bytes)",
                }
                continue
            props[key] = dict(prop)
            if key == "db" and self.s.dbs:
                props[key] = {**prop, "enum": list(self.s.dbs)}
        required = [k for k in declared.get("required", []) if k not in uploads]
        schema = {
            "type": "object",
            "properties": props,
            "required": ["message", *required] if not uploads else required,
            "additionalProperties": False,
        }
        return schema | ({"$defs": declared["$defs"]} if "$defs" in declared else {})

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
        task = str(args.pop("message", "") or "").strip()
        files: dict[str, str] = {}
        for key in upload_fields(app.input_model()):
            if key + INLINE in args:
                files[key] = str(self._upload(args.pop(key + INLINE)))
            elif key in args:
                files[key] = str(self._allowed_file(args.pop(key)))
        try:  # the app's own model: the same checks as `orrery serve` (an upload stands in by a valid id)
            checked = app.input_model().model_validate({**args, **{k: "mcp-file" for k in files}})
        except pydantic.ValidationError as exc:
            e = exc.errors()[0]
            field_name = ".".join(map(str, e["loc"])) or "arguments"
            hint = (
                f" (send {field_name} or {field_name}{INLINE})"
                if e["type"] == "missing" and field_name in upload_fields(app.input_model())
                else ""
            )
            raise DataError(f"{field_name}: {e['msg']}{hint}") from None
        inputs = {**checked.model_dump(exclude_none=True), **files}
        if not task and not files:
            raise DataError("say what to ask in 'message'")
        options = {k: v for k, v in inputs.items() if k in self.params[name]}
        if "session_id" in self.params[name]:  # each call is a conversation of its own (BI keeps one per id)
            options["session_id"] = f"mcp-{uuid.uuid4().hex}"
        return app, task, options, {k: v for k, v in inputs.items() if k not in options}

    def _allowed_file(self, name: str) -> Path:
        root = self.s.files
        if root is None:
            raise DataError("this server allows no data folder (orrery mcp --files DIR); send the data as data_csv")
        base = root.resolve()
        path = (base / name).resolve()
        if Path(name).is_absolute() or base not in path.parents or path.suffix.lower() not in DATA_SUFFIXES:
            raise DataError(
                f"data {name!r} is not a {'/'.join(DATA_SUFFIXES)} file inside the server's data "
                "folder; name one of its files"
            )
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

            self._model = resolve_model(self.s.model)
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
    if not isinstance(result, Result):
        msg = f"the app ended without an orrery result (it gave {type(result).__name__})"
        return msg, {"status": "error", "error": msg}, True
    text = text_of(result)
    data = {"status": result.status, **jsonable(result.data)}
    return text or result.status, data, result.status == "error"


# -- the MCP server ---------------------------------------------------------------------------------
def build(settings: Settings | None = None) -> Any:
    """The `mcp` SDK's low-level `Server` with one tool per app."""
    import mcp.types as types
    from mcp.server import Server

    cat = Catalogue(settings or Settings())

    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=name, description=app.description, input_schema=cat.schemas[name])
                for name, app in cat.apps.items()
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        async def progress(done: float, total: float | None, label: str) -> None:
            await ctx.session.report_progress(done, total, label)

        text, data, failed = await cat.run(params.name, params.arguments, progress)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], structured_content=data, is_error=failed
        )

    server = Server(
        "orrery",
        version=_version(),
        instructions="orrery's apps as tools: " + "; ".join(f"{n}: {a.description}" for n, a in cat.apps.items()),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
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
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def run_http(settings: Settings, host: str, port: int, token: str | None) -> None:
    import uvicorn

    from orrery.exposure import check_exposure

    token = check_exposure(host, token, "orrery's apps over MCP")
    uvicorn.run(http_app(settings, host=host, token=token), host=host, port=port, log_level="warning")
