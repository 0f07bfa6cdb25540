"""`create_app()`: the FastAPI server. Every installed app's agent streams AG-UI events over SSE.

GET /agents, POST /agents/{name} (RunAgentInput -> text/event-stream), GET /threads, GET /threads/{id},
POST /uploads, GET /runs/{run_id}/{file}, and the web app at GET /.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic
from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from fastapi import Depends, FastAPI, HTTPException, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from orrery import apps as app_registry
from orrery.errors import OrreryError
from orrery.exposure import check_exposure
from orrery.serve.agui import Translator
from orrery.serve.runs import (
    Bridge,
    answer_of,
    drive,
    status_of,
    summary_of,
    views_of,
    write_artifacts,
)
from orrery.serve.threads import SessionConflict, Thread, ThreadStore
from orrery.sessions import data_dir

WEB = Path(__file__).parent / "web"
SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,120}$")
UPLOAD_TYPES = (".csv", ".parquet", ".pq")
ModelFactory = Callable[[str, RunAgentInput], Any]


@dataclass
class Settings:
    llm: Any = None  # a spec string, a Model (shared), or a factory (agent name, input) -> Model per run
    db: str | Path | None = None  # SQLite path or postgresql:// URL (default: <data dir>/sessions.db)
    data: Path | None = None  # uploads and run artifacts (default: the user's data dir)
    token: str | None = None
    cors: tuple[str, ...] = ()
    max_upload_bytes: int = 20 * 2**20
    run_timeout: float = 600.0
    apps: dict[str, app_registry.App] | None = None  # default: orrery.apps.discover()


class Server:
    """The state the routes share: apps, the thread store, folders, the model."""

    def __init__(self, s: Settings):
        self.s = s
        self.apps = s.apps if s.apps is not None else app_registry.discover()
        self.data = Path(s.data) if s.data else data_dir()
        self.store = ThreadStore(s.db or self.data / "sessions.db")
        self._model: Any = None
        self.encoder = EventEncoder()

    def model(self, name: str, body: RunAgentInput) -> Any:
        llm = self.s.llm
        if callable(llm) and not hasattr(llm, "complete"):
            return llm(name, body)
        if self._model is None:  # one model for all runs: the embedded one loads its weights once
            from orrery.llm import resolve_model
            self._model = resolve_model(llm)
        return self._model

    def app(self, name: str) -> app_registry.App:
        if name not in self.apps:
            raise HTTPException(404, f"no agent named {name!r}; GET /agents lists them: {', '.join(self.apps)}")
        return self.apps[name]


def create_app(settings: Settings | None = None, **kwargs: Any) -> FastAPI:
    server = Server(settings or Settings(**kwargs))
    api = FastAPI(title="orrery", docs_url=None, redoc_url=None, openapi_url=None,
                  dependencies=[Depends(_auth(server.s.token))])
    api.state.server = server
    if server.s.cors:
        from fastapi.middleware.cors import CORSMiddleware
        api.add_middleware(CORSMiddleware, allow_origins=list(server.s.cors), allow_methods=["GET", "POST"],
                           allow_headers=["authorization", "content-type"])
    _errors(api)
    api.add_middleware(BodyLimit, limit=server.s.max_upload_bytes)
    _routes(api, server)
    return api


class BodyLimit:
    """Refuses a body over the limit from its Content-Length, before anything reads or spools it. Pure ASGI:
    FastAPI's @middleware("http") would wrap streamed responses and hide a client's disconnect from the run."""

    def __init__(self, app: Any, limit: int):
        self.app, self.limit = app, limit + 64 * 2**10  # multipart framing around an upload of the limit

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "http" and scope["method"] in ("POST", "PUT", "PATCH"):
            length = dict(scope["headers"]).get(b"content-length")
            refusal = None
            if length is None:
                refusal = JSONResponse({"error": "send a Content-Length header (chunked bodies are not accepted)"}, 411)
            elif not length.isdigit() or int(length) > self.limit:
                refusal = JSONResponse({"error": f"the body is larger than the server's limit of "
                                                 f"{self.limit - 64 * 2**10} bytes"}, 413)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


# -- auth and errors -------------------------------------------------------------------------------
COOKIE = "orrery_token"


def _auth(token: str | None) -> Callable[[Request], None]:
    """Bearer auth on every route. A browser opens `/?token=...` once; the page sets a same-site cookie."""
    def check(request: Request) -> None:
        if token is None:
            return
        header = request.headers.get("authorization", "")
        given = header[7:] if header.lower().startswith("bearer ") else request.cookies.get(COOKIE, "")
        if request.url.path == "/" and not given:
            given = request.query_params.get("token", "")
        if not secrets.compare_digest(given.encode(), token.encode()):
            raise HTTPException(401, "missing or wrong token: send 'Authorization: Bearer <token>'",
                                headers={"WWW-Authenticate": "Bearer"})
    return check


def _errors(api: FastAPI) -> None:
    @api.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return JSONResponse({"error": f"bad request: {where}: {first.get('msg', 'invalid')}"}, 422)

    @api.exception_handler(OrreryError)
    async def orrery_error(request: Request, exc: OrreryError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, 400)

    @api.exception_handler(StarletteHTTPException)  # also the router's own 404/405
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": exc.detail}, exc.status_code, headers=exc.headers)


# -- routes ----------------------------------------------------------------------------------------
def _routes(api: FastAPI, server: Server) -> None:
    @api.get("/", include_in_schema=False)
    async def index(request: Request) -> FileResponse:
        response = FileResponse(WEB / "index.html")
        if server.s.token and (t := request.query_params.get("token")):
            response.set_cookie(COOKIE, t, httponly=True, samesite="strict")
        return response

    @api.get("/static/{name}", include_in_schema=False)
    async def static(name: str) -> FileResponse:  # a route, not a mount, so the token guards it too
        path = WEB / name
        if not SAFE_NAME.match(name) or not path.is_file():
            raise HTTPException(404, f"no file {name!r}")
        return FileResponse(path)

    @api.get("/agents")
    async def agents() -> list[dict[str, Any]]:
        return [{"name": a.name, "description": a.description, "inputs": a.inputs} for a in server.apps.values()]

    @api.post("/agents/{name}")
    async def run_agent(name: str, request: Request) -> StreamingResponse:
        app = server.app(name)
        body = await _run_input(request)
        session = await asyncio.to_thread(server.store.load, body.thread_id)
        if session is None:
            session = Thread(id=body.thread_id, agent=name)
        elif session.agent != name:
            raise HTTPException(409, f"thread {body.thread_id!r} belongs to agent {session.agent!r}; "
                                     "start a new thread for this agent")
        task, user_text = _task(session, body, keeps_session(app))
        inputs = _inputs(server, app, body)
        session.messages.append({"id": _message_id(body), "role": "user", "content": user_text})
        session.title = session.title or user_text[:80]
        return StreamingResponse(_stream(server, app, body, session, task, inputs),
                                 media_type=server.encoder.get_content_type(),
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    @api.get("/threads")
    async def threads(agent: str | None = None) -> list[dict[str, Any]]:
        found = await asyncio.to_thread(server.store.list, agent)
        return [{"id": s.id, "agent": s.agent, "title": s.title, "updated": s.updated,
                 "pending": s.pending is not None} for s in found]

    @api.get("/threads/{thread_id}")
    async def thread(thread_id: str) -> dict[str, Any]:
        s = await asyncio.to_thread(server.store.load, thread_id)
        if s is None:
            raise HTTPException(404, f"no thread {thread_id!r}; GET /threads lists them")
        return {"id": s.id, "agent": s.agent, "title": s.title, "messages": s.messages, "state": s.state,
                "pending": s.pending, "runs": s.runs, "version": s.version}

    @api.post("/uploads")
    async def upload(file: UploadFile) -> dict[str, Any]:
        return await _save_upload(server, file)

    @api.get("/runs/{run_id}/{name}")
    async def artifact(run_id: str, name: str) -> FileResponse:
        path = server.data / "runs" / run_id / name
        if not (SAFE_NAME.match(run_id) and SAFE_NAME.match(name)) or name.startswith(".") or not path.is_file():
            raise HTTPException(404, f"no file {name!r} for run {run_id!r}")
        return FileResponse(path)


async def _run_input(request: Request) -> RunAgentInput:
    try:
        return RunAgentInput.model_validate(await request.json())
    except ValueError as exc:  # bad JSON or a pydantic ValidationError (a ValueError)
        detail = exc.errors()[0] if isinstance(exc, pydantic.ValidationError) else {"msg": str(exc), "loc": ()}
        where = ".".join(str(p) for p in detail.get("loc", ()))
        raise HTTPException(400, f"the body is not an AG-UI RunAgentInput: {where} {detail['msg']}".strip()) from exc


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") or "" for part in content or ())


def _message_id(body: RunAgentInput) -> str:
    users = [m for m in body.messages if m.role == "user"]
    return users[-1].id if users else f"msg_{uuid.uuid4().hex[:12]}"


SESSION_PARAMS = ("session_id", "session")
MESSAGE_INPUTS = {"message", "question", "query"}  # what apps call the user's words (sent as the message)


def factory_params(app: app_registry.App) -> set[str]:
    return set(inspect.signature(app_registry.load_ref(app.agent)).parameters)


def keeps_session(app: app_registry.App) -> bool:
    """An agent that keeps its own conversation (PlanAgent-style: a `session_id` or `session` argument) gets
    a session per thread and the user's words as they are; the server composes context only for agents
    that start fresh each run."""
    return bool(factory_params(app) & set(SESSION_PARAMS))


def _agent_options(server: Server, app: app_registry.App, thread_id: str, inputs: dict[str, Any]
                   ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the factory's options, the run's inputs): an input the factory takes (BI's `db`) goes to the factory;
    a stateful agent's session is the thread's, kept in the threads' store where the factory takes one."""
    params = factory_params(app)
    options = {k: v for k, v in inputs.items() if k in params}
    for name in SESSION_PARAMS:
        if name in params:
            options[name] = f"{thread_id}#{app.name}"
            break
    if "store" in params and keeps_session(app):
        options["store"] = server.store.sessions
    return options, {k: v for k, v in inputs.items() if k not in params}


def _task(session: Thread, body: RunAgentInput, stateful: bool = False) -> tuple[str, str]:
    """(the task the agent gets, the user's words). A resume answers the thread's pending clarification;
    a plain message while one is pending answers it too. Earlier turns reach the agent as context."""
    users = [m for m in body.messages if m.role == "user"]
    said = _text(users[-1].content).strip() if users else ""
    pending = session.pending
    if body.resume:
        entry = body.resume[0]
        if pending is None or entry.interrupt_id != pending["id"]:
            raise HTTPException(409, f"interrupt {entry.interrupt_id!r} is not pending on thread {session.id!r}; "
                                     "reload the thread")
        session.pending = None
        if entry.status == "resolved":
            payload = entry.payload
            said = str(payload.get("answer", "")) if isinstance(payload, dict) else str(payload or said)
            return (said if stateful else _resumed(pending, said)), said
    elif pending is not None and said:
        session.pending = None
        return (said if stateful else _resumed(pending, said)), said
    if not said:
        raise HTTPException(400, "no user message: add a message with role 'user' and some text")
    earlier = [f"{m['role']}: {m['content']}" for m in session.messages[-10:]]
    if not earlier or stateful:
        return said, said
    return "Earlier in this conversation:\n" + "\n".join(earlier) + f"\n\nNow: {said}", said


def _resumed(pending: dict[str, Any], answer: str) -> str:
    return f"{pending['task']}\n\nYou asked: {pending['question']}\nThe user answered: {answer}"


def _inputs(server: Server, app: app_registry.App, body: RunAgentInput) -> dict[str, Any]:
    props = body.forwarded_props if isinstance(body.forwarded_props, dict) else {}
    given = props.get("inputs") or {}
    if not isinstance(given, dict):
        raise HTTPException(400, "forwardedProps.inputs must be an object of the agent's inputs")
    allowed = set(app.inputs) - MESSAGE_INPUTS
    if unknown := sorted(set(given) - allowed):
        raise HTTPException(400, f"agent {app.name!r} takes no input {unknown[0]!r}; it takes: "
                                 f"{', '.join(sorted(allowed)) or 'only the message'}")
    inputs = {k: v for k, v in given.items() if v not in (None, "") and k not in SESSION_PARAMS}
    for key, value in inputs.items():  # a client names things; files and databases are the operator's choice
        if key != "data" and isinstance(value, str) and re.search(r"[/\\]|://", value):
            raise HTTPException(400, f"input {key!r} takes a name, not a path or URL; files come through "
                                     "POST /uploads, databases are set when the server starts")
    if "data" in inputs:  # only an uploaded file, never a path on the server
        inputs["data"] = _upload_path(server, str(inputs["data"]))
    return inputs


# -- a run's stream --------------------------------------------------------------------------------
async def _stream(server: Server, app: app_registry.App, body: RunAgentInput, session: Thread, task: str,
                  inputs: dict[str, Any]) -> AsyncIterator[str]:
    tr = Translator(body.thread_id, body.run_id)
    record: list[dict[str, Any]] = []

    def send(events: list[BaseEvent]) -> str:
        record.extend(e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events)
        return "".join(server.encoder.encode(e) for e in events)

    yield send(tr.started())
    model = server.model(app.name, body)

    options, run_inputs = _agent_options(server, app, body.thread_id, inputs)

    def work(handler: Callable) -> Any:
        return drive(app.make_agent(model, **options), task, run_inputs, handler)

    bridge = Bridge(work)
    saved = False

    async def save(status: str) -> None:
        # Saved before the last event goes out, off the event loop: a client that answers a clarification
        # at once finds it pending, and the next request does not wait on this write.
        nonlocal saved
        session.runs.append({"run_id": body.run_id, "status": status, "events": record})
        await asyncio.to_thread(_save, server, session)
        saved = True

    deadline = time.monotonic() + server.s.run_timeout
    try:
        while True:
            try:
                kind, item = await bridge.get(max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                bridge.cancel.set()
                last = send(tr.error(f"the run took longer than the server's limit of {server.s.run_timeout:g}s",
                                     "timeout"))
                await save("timeout")
                yield last
                return
            if kind == "event":
                if chunk := send(tr.event(item)):
                    yield chunk
                continue
            status, events = _finish(server, tr, session, body.run_id, kind, item, task)
            last = send(events)
            await save(status)
            yield last
            return
    finally:
        bridge.cancel.set()  # the client left or the run ended: stop the agent at its next event
        if not saved:  # the client left: nothing can be awaited any more
            session.runs.append({"run_id": body.run_id, "status": "cancelled", "events": record})
            _save(server, session)


def _finish(server: Server, tr: Translator, session: Thread, run_id: str, kind: str, item: Any,
            task: str) -> tuple[str, list[BaseEvent]]:
    if kind == "error":
        message = str(item) if isinstance(item, OrreryError) else f"{type(item).__name__}: {item}"
        return "error", tr.error(message.splitlines()[0] if message else type(item).__name__)
    if kind == "cancelled":
        return "cancelled", tr.finished("cancelled")
    result, status = item, status_of(item)
    events: list[BaseEvent] = []
    for what, value in views_of(result):
        if what == "state":
            events += tr.snapshot({**(tr.state or {}), **value})
        else:
            events += tr.custom(what.removeprefix("custom:"), value)
    session.state.update(tr.state or {})
    artifacts = write_artifacts(result, server.data / "runs" / run_id)
    if artifacts:
        events += tr.custom("orrery.artifacts", [f"runs/{run_id}/{n}" for n in artifacts])
    answer = answer_of(result)
    if status == "paused" and tr.interrupt is not None:
        session.pending = {"id": tr.interrupt.id, "question": tr.interrupt.message, "task": task}
    else:
        events += tr.answer(answer)
    if answer:
        session.messages.append({"id": f"msg_{run_id}", "role": "assistant", "content": answer})
    summary = summary_of(result) | ({"error": answer} if status == "error" else {})
    return status, events + tr.finished(status, summary)


def _save(server: Server, session: Thread, tries: int = 5) -> None:
    """Two runs on one thread at once: keep what the other run saved and add this run's record to it (again if
    a third writer got in between)."""
    run = session.runs[-1]
    for _ in range(tries - 1):
        try:
            server.store.save(session)
            return
        except SessionConflict:
            fresh = server.store.load(session.id)
            if fresh is None:
                return
            session = fresh
            session.runs.append(run)
    server.store.save(session)


# -- uploads ---------------------------------------------------------------------------------------
async def _save_upload(server: Server, file: UploadFile) -> dict[str, Any]:
    name = Path(file.filename or "").name
    if not name.lower().endswith(UPLOAD_TYPES):
        raise HTTPException(415, f"upload a .csv or .parquet file, not {name or 'a file without a name'!r}")
    data = await file.read(server.s.max_upload_bytes + 1)
    if len(data) > server.s.max_upload_bytes:
        raise HTTPException(413, f"the file is larger than the server's limit of {server.s.max_upload_bytes} bytes")
    upload_id = uuid.uuid4().hex
    folder = server.data / "uploads" / upload_id
    folder.mkdir(parents=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    path = folder / safe
    tmp = folder / f".{safe}.tmp"
    tmp.write_bytes(data)
    tmp.replace(path)
    frame = await asyncio.to_thread(_read_table, path)
    return {"id": upload_id, "name": safe, "rows": len(frame), "columns": [str(c) for c in frame.columns]}


def _read_table(path: Path) -> Any:
    import pandas as pd

    try:
        frame = pd.read_parquet(path) if path.suffix.lower() in (".parquet", ".pq") else pd.read_csv(path)
    except (ValueError, OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise HTTPException(400, f"{path.name} cannot be read as a table: {str(exc).splitlines()[0]}") from exc
    if frame.shape[1] < 2 or len(frame) < 2:
        raise HTTPException(400, f"{path.name} needs a date column and a value column with at least 2 rows")
    return frame


def _upload_path(server: Server, upload_id: str) -> str:
    folder = server.data / "uploads" / upload_id
    files = [p for p in folder.iterdir() if not p.name.startswith(".")] if SAFE_NAME.match(upload_id) and \
        folder.is_dir() else []
    if not files:
        raise HTTPException(400, f"no upload {upload_id!r}: POST the file to /uploads and pass the id it returns")
    return str(files[0])


# -- the `orrery serve` command --------------------------------------------------------------------
def serve(host: str = "127.0.0.1", port: int = 8000, **settings: Any) -> None:
    """Run the server with uvicorn. Off loopback a token is required (the server refuses to start without)."""
    import uvicorn

    s = Settings(**settings)
    s.token = check_exposure(host, s.token, "every agent")
    uvicorn.run(create_app(s), host=host, port=port, log_level="info")
