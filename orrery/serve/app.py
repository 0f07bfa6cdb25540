"""`create_app()`: the FastAPI server. Every installed app's agent streams AG-UI events over SSE.

GET /agents, POST /agents/{name} (RunAgentInput -> text/event-stream), GET /threads, GET /threads/{id},
POST /uploads, GET /runs/{run_id}/{file}, POST /login, and the web app at GET /. What a request may be before it
reaches a route (Host, Origin, Content-Type, size) is `guard.py`; every id and path a client names is checked here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import secrets
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import Any

import pydantic
from ag_ui.core import BaseEvent, RunAgentInput
from ag_ui.encoder import EventEncoder
from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from orrery import apps as app_registry
from orrery.errors import ConfigError, OrreryError
from orrery.events import HOOKS, Event, env_hooks
from orrery.exposure import check_exposure
from orrery.files import input_file, remove, write_atomic
from orrery.results import Result, ending, text_of
from orrery.serve import feedback
from orrery.serve.agui import APPROVAL, CLARIFICATION, Translator
from orrery.serve.guard import Guard, Hosts, RedactTokens, check_id, inside, parse_json
from orrery.serve.runs import Bridge, drive, resumable, safe_name, traced, write_artifacts
from orrery.serve.threads import SessionConflict, Thread, ThreadStore
from orrery.sessions import data_dir
from orrery.tools.core import CallLedger

WEB = Path(__file__).parent / "web"
WEB_FILES = frozenset(p.name for p in WEB.iterdir() if p.is_file())
UPLOAD_TYPES = (".csv", ".parquet", ".pq")
LEASE_S = 30.0  # a thread's lease: renewed while its run goes on, so a server that died frees it within this
TRACE_HEADERS = ("traceparent", "tracestate")


@dataclass
class Settings:
    model: Any = None  # a spec string, a Model (shared), or a factory (agent name, input) -> Model per run
    db: str | Path | None = None  # SQLite path or postgresql:// URL (default: <data dir>/sessions.db)
    data: Path | None = None  # uploads and run artifacts (default: the user's data dir)
    token: str | None = None
    cors: tuple[str, ...] = ()
    host: str = "127.0.0.1"  # the address it is bound to: the Host header must name it (or an allowed host)
    allowed_hosts: tuple[str, ...] = ()
    max_upload_bytes: int = 20 * 2**20
    max_body_bytes: int = 2**20  # a JSON request body
    run_timeout: float = 600.0
    thread_wait: float = 30.0  # how long a run waits for another run on its thread to end (then 409)
    lease: float = LEASE_S  # a thread's lease while its run goes on (a server that died frees it after this)
    apps: dict[str, app_registry.App] | None = None  # default: orrery.apps.discover()
    llm: InitVar[Any] = None  # the deprecated name of `model`

    def __post_init__(self, llm: Any) -> None:
        from orrery.llm import model_argument

        self.model = model_argument(self.model, llm)


class Server:
    """The state the routes share: apps, the thread store, folders, the model."""

    def __init__(self, s: Settings):
        self.s = s
        self.apps = s.apps if s.apps is not None else app_registry.discover()
        self.data = _writable(Path(s.data) if s.data else data_dir())
        self.store = ThreadStore(s.db or self.data / "sessions.db")
        self._model: Any = None
        self._memory: Any = None
        self.encoder = EventEncoder()

    def model(self, name: str, body: RunAgentInput) -> Any:
        given = self.s.model
        if callable(given) and not hasattr(given, "complete"):
            return given(name, body)
        if self._model is None:  # one model for all runs: the embedded one loads its weights once
            from orrery.llm import resolve_model

            self._model = resolve_model(given)
        return self._model

    def memory(self) -> Any:
        """The long-term memory's store (orrery.recall) in the threads' database, opened (its schema set up) once
        for every run, on the first run that records into it."""
        if self._memory is None:
            from orrery.recall.store import open_memory

            self._memory = open_memory(self.s.db or self.data / "sessions.db")
        return self._memory

    def app(self, name: str) -> app_registry.App:
        if name not in self.apps:
            raise HTTPException(404, f"no agent named {name!r}; GET /agents lists them: {', '.join(self.apps)}")
        return self.apps[name]


def _writable(folder: Path) -> Path:
    """The data folder, made if missing; a one-line error when it cannot be written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cannot create the data folder {folder} ({exc.strerror}); set ORRERY_DATA_DIR to a folder you can write"
        ) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"the data folder {folder} is not writable; set ORRERY_DATA_DIR to a folder you can write")
    return folder.resolve()


def create_app(settings: Settings | None = None, **kwargs: Any) -> FastAPI:
    server = Server(settings or Settings(**kwargs))
    s = server.s
    env_hooks()  # OTEL_EXPORTER_OTLP_ENDPOINT: every served run exports its spans
    api = FastAPI(title="orrery", docs_url=None, redoc_url=None, openapi_url=None, lifespan=_lifespan)
    api.state.server = server
    if s.cors:
        from fastapi.middleware.cors import CORSMiddleware

        api.add_middleware(
            CORSMiddleware,
            allow_origins=list(s.cors),
            allow_methods=["GET", "POST"],
            allow_headers=["authorization", "content-type"],
        )
    _errors(api)
    api.add_middleware(
        Guard,
        hosts=Hosts(s.host, s.allowed_hosts),
        origins=s.cors,
        body_limit=s.max_body_bytes,
        upload_limit=s.max_upload_bytes,
    )  # added last: the outermost, before CORS
    _public_routes(api, server)
    guarded = APIRouter(dependencies=[Depends(_auth(s.token))])
    _routes(guarded, server)
    feedback.routes(guarded, server)  # approve / reject a BI answer (serve/feedback.py)
    api.include_router(guarded)
    return api


@contextlib.asynccontextmanager
async def _lifespan(_api: FastAPI) -> AsyncIterator[None]:
    yield
    # Spans still buffered go out at shutdown: uvicorn ends a SIGTERM by re-raising it, so atexit never runs.
    for hook in list(HOOKS):
        if callable(flush := getattr(getattr(hook, "provider", None), "force_flush", None)):
            await asyncio.to_thread(flush)


# -- auth and errors -------------------------------------------------------------------------------
COOKIE = "orrery_token"


def _auth(token: str | None) -> Callable[[Request], None]:
    """Bearer auth on every route but the web app's files and /login: the token in an `Authorization` header or
    the cookie /login sets, never in a URL (the guard refuses `?token=`)."""

    def check(request: Request) -> None:
        if token is None:
            return
        header = request.headers.get("authorization", "")
        given = header[7:] if header.lower().startswith("bearer ") else request.cookies.get(COOKIE, "")
        if not secrets.compare_digest(given.encode(), token.encode()):
            raise HTTPException(
                401,
                "missing or wrong token: send 'Authorization: Bearer <token>'",
                headers={"WWW-Authenticate": "Bearer"},
            )

    return check


def _errors(api: FastAPI) -> None:
    @api.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return JSONResponse({"error": f"bad request: {where}: {first.get('msg', 'invalid')}"}, 422)

    @api.exception_handler(OrreryError)
    async def orrery_error(_request: Request, exc: OrreryError) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, 400)

    @api.exception_handler(StarletteHTTPException)  # also the router's own 404/405
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": exc.detail}, exc.status_code, headers=exc.headers)


# -- routes ----------------------------------------------------------------------------------------
def _public_routes(api: FastAPI, server: Server) -> None:
    """The web app's own files (no secret in them) and the sign-in that turns a token into a cookie."""

    @api.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(WEB / "index.html")

    @api.get("/static/{name}", include_in_schema=False)
    async def static(name: str) -> FileResponse:
        if name not in WEB_FILES:
            raise HTTPException(404, f"no file {name[:80]!r}")
        return FileResponse(WEB / name)

    @api.post("/login", include_in_schema=False)
    async def login(request: Request) -> JSONResponse:
        body = await _json_body(request)
        given = body.get("token") if isinstance(body, dict) else None
        token = server.s.token
        if token is not None and not (
            isinstance(given, str) and secrets.compare_digest(given.encode(), token.encode())
        ):
            raise HTTPException(401, "wrong token: use the one the server was started with (--token or ORRERY_TOKEN)")
        response = JSONResponse({"ok": True})
        if token is not None:
            response.set_cookie(COOKIE, token, httponly=True, samesite="strict")
        return response


def _routes(api: APIRouter, server: Server) -> None:
    @api.get("/agents")
    async def agents() -> list[dict[str, Any]]:
        return [a.describe() for a in server.apps.values()]

    @api.post("/agents/{name}")
    async def run_agent(name: str, request: Request) -> StreamingResponse:
        run = await _start_run(server, server.app(name), request)
        return StreamingResponse(
            _stream(run),
            media_type=server.encoder.get_content_type(),
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    @api.get("/threads")
    async def threads(agent: str | None = None) -> list[dict[str, Any]]:
        found = await asyncio.to_thread(server.store.list, agent)
        return [
            {"id": s.id, "agent": s.agent, "title": s.title, "updated": s.updated, "pending": s.pending is not None}
            for s in found
        ]

    @api.get("/threads/{thread_id}")
    async def thread(thread_id: str) -> dict[str, Any]:
        s = await asyncio.to_thread(server.store.load, check_id("thread id", thread_id))
        if s is None:
            raise HTTPException(404, f"no thread {thread_id!r}; GET /threads lists them")
        return {
            "id": s.id,
            "agent": s.agent,
            "title": s.title,
            "messages": s.messages,
            "state": s.state,
            "pending": s.pending,
            "runs": s.runs,
            "version": s.version,
        }

    @api.post("/uploads")
    async def upload(file: UploadFile) -> dict[str, Any]:
        return await _save_upload(server, file)

    @api.get("/runs/{run_id}/{name}")
    async def artifact(run_id: str, name: str) -> FileResponse:
        check_id("run id", run_id)
        try:
            path = inside(server.data, "runs", run_id, name) if safe_name(name) else None
        except ValueError:
            path = None
        if path is None or not path.is_file():
            raise HTTPException(404, f"no file {name[:80]!r} for run {run_id!r}")
        return FileResponse(path)


async def _start_run(server: Server, app: app_registry.App, request: Request) -> Run:
    """A run of `app` on the request's thread, holding the thread's lease: its task, inputs and the decisions a
    resume gives (409 when the thread is busy, belongs to another agent or the run id is taken)."""
    body = await _run_input(request)
    inputs = _inputs(server, app, body)
    owner = uuid.uuid4().hex
    if not await _acquire(server, body.thread_id, owner):
        raise HTTPException(
            409,
            f"thread {body.thread_id!r} is busy with another run for over "
            f"{server.s.thread_wait:g}s; send again when it has finished",
        )
    try:
        session = await asyncio.to_thread(server.store.load, body.thread_id)
        if session is None:
            session = Thread(id=body.thread_id, agent=app.name)
        elif session.agent != app.name:
            raise HTTPException(
                409, f"thread {body.thread_id!r} belongs to agent {session.agent!r}; start a new thread for this agent"
            )
        if any(r["run_id"] == body.run_id for r in session.runs) or (server.data / "runs" / body.run_id).exists():
            raise HTTPException(409, f"run id {body.run_id!r} is taken; send a new runId")
        decisions, said = _decisions(session, body)
        task, user_text = (
            (session.pending["task"], said) if decisions is not None else _task(session, body, keeps_session(app))
        )
    except BaseException:
        await asyncio.to_thread(server.store.release, body.thread_id, owner)
        raise
    since = len(session.messages)
    session.messages.append({"id": _message_id(body), "role": "user", "content": user_text})
    session.title = session.title or user_text[:80]
    paused = session.paused or {}  # a resume runs with the inputs of the run it continues (its database)
    return Run(
        server,
        app,
        body,
        session,
        task,
        paused.get("inputs", inputs) if decisions is not None else inputs,
        owner,
        since,
        (paused.get("snapshot", {}), decisions) if decisions is not None else None,
        {k: v for k, v in request.headers.items() if k in TRACE_HEADERS},
    )


async def _json_body(request: Request) -> Any:
    try:
        return parse_json(await request.body())
    except ValueError as exc:
        raise HTTPException(400, f"the body is not JSON: {str(exc).splitlines()[0]}") from None


async def _run_input(request: Request) -> RunAgentInput:
    raw = await _json_body(request)
    try:
        body = RunAgentInput.model_validate(raw)
    except pydantic.ValidationError as exc:
        detail = exc.errors()[0]
        where = ".".join(str(p) for p in detail.get("loc", ()))
        raise HTTPException(400, f"the body is not an AG-UI RunAgentInput: {where} {detail['msg']}".strip()) from None
    check_id("threadId", body.thread_id)
    check_id("runId", body.run_id)
    return body


async def _acquire(server: Server, thread_id: str, owner: str) -> bool:
    """Wait for the thread's lease (held across processes in the session store) up to `thread_wait`."""
    deadline, pause = time.monotonic() + server.s.thread_wait, 0.02
    while not await asyncio.to_thread(server.store.acquire, thread_id, owner, server.s.lease):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(pause)
        pause = min(pause * 1.5, 0.25)
    return True


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") or "" for part in content or ())


def _message_id(body: RunAgentInput) -> str:
    users = [m for m in body.messages if m.role == "user"]
    return users[-1].id if users else f"msg_{uuid.uuid4().hex[:12]}"


SESSION_PARAMS = ("session_id", "session")


def keeps_session(app: app_registry.App) -> bool:
    """An agent that keeps its own conversation (PlanAgent-style: a `session_id` or `session` argument) gets
    a session per thread and the user's words as they are; the server composes context only for agents
    that start fresh each run."""
    return bool(app.factory_params() & set(SESSION_PARAMS))


def _agent_options(
    server: Server, app: app_registry.App, thread_id: str, inputs: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the factory's options, the run's inputs) (`App.split`); a stateful agent's session is the thread's, kept
    in the threads' store where the factory takes one."""
    options, run_inputs = app.split(inputs)
    params = app.factory_params()
    for name in SESSION_PARAMS:
        if name in params:
            options[name] = f"{thread_id}#{app.name}"
            break
    if "store" in params and keeps_session(app):
        options["store"] = server.store.sessions
    return options, run_inputs


def _task(session: Thread, body: RunAgentInput, stateful: bool = False) -> tuple[str, str]:
    """(the task the agent gets, the user's words). A resume answers the thread's pending clarification;
    a plain message while one is pending answers it too. Earlier turns reach the agent as context."""
    users = [m for m in body.messages if m.role == "user"]
    said = _text(users[-1].content).strip() if users else ""
    pending = session.pending
    if body.resume:
        entry = body.resume[0]
        if pending is None or entry.interrupt_id != pending["id"]:
            raise HTTPException(
                409, f"interrupt {entry.interrupt_id!r} is not pending on thread {session.id!r}; reload the thread"
            )
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


def _decisions(session: Thread, body: RunAgentInput) -> tuple[dict[str, Any] | None, str]:
    """The decisions a resume gives on the thread's pending approvals, `{call id: True | False | {arguments}}`, and
    the user's words for them; (None, "") when no approval is pending. A plain message instead drops the paused
    call. The resume must decide exactly the pending interrupts (400 otherwise)."""
    pending = session.pending
    if pending is None or pending.get("kind") != APPROVAL:
        return None, ""
    if not body.resume:
        session.pending = session.paused = None  # a new request instead of a decision: the call never runs
        return None, ""
    waiting = {a["interrupt"]: a for a in pending["approvals"]}
    given = [e.interrupt_id for e in body.resume]
    if sorted(given) != sorted(waiting):
        raise HTTPException(
            400,
            f"decide exactly the pending approvals {', '.join(waiting)} (one resume entry each); "
            f"got {', '.join(given)[:300]}",
        )
    decisions: dict[str, Any] = {}
    words = []
    for entry in body.resume:
        call = waiting[entry.interrupt_id]
        decision = _decision(entry)
        decisions[call["id"]] = decision
        words.append(
            f"{'denied' if decision is False else 'approved'} {call['tool']}"
            + (" with edited arguments" if isinstance(decision, dict) else "")
        )
    return decisions, "; ".join(words).capitalize()


def _decision(entry: Any) -> bool | dict[str, Any]:
    """A resume entry as a decision: `cancelled` denies; `resolved` with `{approved, arguments?}`."""
    if entry.status == "cancelled":
        return False
    payload = entry.payload
    if (
        not isinstance(payload, dict)
        or not isinstance(payload.get("approved"), bool)
        or not isinstance(payload.get("arguments", {}), dict)
    ):
        raise HTTPException(
            400,
            f'resume {entry.interrupt_id!r}: give payload {{"approved": true|false}}, with '
            '"arguments": {...} to run the call with edited arguments',
        )
    if payload["approved"] and payload.get("arguments"):
        return payload["arguments"]
    return payload["approved"]


def _resumed(pending: dict[str, Any], answer: str) -> str:
    return f"{pending['task']}\n\nYou asked: {pending['question']}\nThe user answered: {answer}"


def _inputs(server: Server, app: app_registry.App, body: RunAgentInput) -> dict[str, Any]:
    """The app's declared inputs, validated (400 naming the field); an upload id becomes its file's path."""
    props = body.forwarded_props if isinstance(body.forwarded_props, dict) else {}
    given = props.get("inputs") or {}
    if not isinstance(given, dict):
        raise HTTPException(400, "forwardedProps.inputs must be an object of the agent's inputs")
    model = app.input_model()
    try:
        values = model.model_validate({k: v for k, v in given.items() if v not in (None, "")})
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "inputs"
        if first.get("type") == "extra_forbidden":
            takes = ", ".join(model.model_fields) or "only the message"
            raise HTTPException(
                400,
                f"agent {app.name!r} takes no input {where!r}; it takes: {takes} (the user's words go in the messages)",
            ) from None
        if where in app_registry.upload_fields(model):
            said = f"is not an upload id ({str(given[where])[:80]!r})" if where in given else "is required"
            raise HTTPException(
                400,
                f"input {where!r} takes an upload id and {said}: upload the file (the web app's "
                "file field, or POST /uploads) and pass the id it returns",
            ) from None
        raise HTTPException(400, f"input {where!r}: {first.get('msg', 'invalid')}") from None
    inputs = values.model_dump(mode="json", exclude_none=True)
    for name in app_registry.upload_fields(model):
        if name in inputs:
            inputs[name] = _upload_path(server, inputs[name])
    return inputs


# -- a run's stream --------------------------------------------------------------------------------
@dataclass
class Run:
    """One request's run: what it needs from the request, its thread (loaded under the thread's lease) and the
    lease's owner id; `since` is how many messages the thread had before this run's."""

    server: Server
    app: app_registry.App
    body: RunAgentInput
    session: Thread
    task: str
    inputs: dict[str, Any]
    owner: str
    since: int
    resume: tuple[dict[str, Any], dict[str, Any]] | None = None  # (the paused agent's snapshot, the decisions)
    trace: dict[str, str] | None = None  # the request's traceparent / tracestate
    agent: Any = None  # the app's agent, once made


@dataclass
class Outbox:
    """What a run has sent: its AG-UI events (kept with the thread), and whether the thread is saved."""

    run: Run
    tr: Translator
    record: list[dict[str, Any]] = field(default_factory=list)
    saved: bool = False

    def send(self, events: list[BaseEvent]) -> str:
        self.record.extend(e.model_dump(mode="json", by_alias=True, exclude_none=True) for e in events)
        return "".join(self.run.server.encoder.encode(e) for e in events)

    async def close(self, status: str, events: list[BaseEvent]) -> str:
        """Saved before the last event goes out, off the event loop: a client that answers a clarification at once
        finds it pending, and the next request does not wait on this write."""
        run = self.run
        last = self.send(events)
        run.session.runs.append({"run_id": run.body.run_id, "status": status, "events": self.record})
        self.saved = True
        try:
            await asyncio.to_thread(_save_and_release, run)
        except Exception as exc:  # the store failed: the client must not take the run as kept
            logging.getLogger(__name__).exception("thread %s could not be saved", run.body.thread_id)
            return self.send(self.tr.error(f"the run ended but its thread could not be saved: {_one_line(exc)}"))
        return last


async def _stream(run: Run) -> AsyncIterator[str]:
    out = Outbox(run, Translator(run.body.thread_id, run.body.run_id))
    bridge = None
    try:
        yield out.send(out.tr.started())
        bridge = _start(run)
        async for chunk in _relay(run, out, bridge):
            yield chunk
    except Exception as exc:  # the server's own failure mid-run: the run failed (it was not cancelled)
        if out.saved:
            raise
        logging.getLogger(__name__).exception("run %s on thread %s failed", run.body.run_id, run.body.thread_id)
        yield await out.close("error", out.tr.error(f"the server failed this run: {_one_line(exc)}"))
    finally:
        if bridge is not None:
            bridge.cancel.set()  # the client left or the run ended: stop the agent at its next event
        if not out.saved:  # the client left: nothing can be awaited any more
            run.session.runs.append({"run_id": run.body.run_id, "status": "cancelled", "events": out.record})
            _save_and_release(run)


def _start(run: Run) -> Bridge:
    """The app's agent made and driven on a worker thread."""
    server, app = run.server, run.app
    model = server.model(app.name, run.body)
    options, run_inputs = _agent_options(server, app, run.body.thread_id, run.inputs)

    def work(handler: Callable) -> Any:
        with traced(run.trace or {}):
            run.agent = app.make_agent(model, **options)
            if (target := resumable(run.agent)) is not None:  # approved calls' done-markers, kept durably
                target.ledger = CallLedger(server.store.sessions)
            return drive(
                run.agent, run.task, run_inputs, _remembered(server, app.name, run.body.thread_id, handler), run.resume
            )

    return Bridge(work)


def _remembered(server: Server, app: str, thread_id: str, handler: Callable[[Event], None]) -> Callable[[Event], None]:
    """`handler`, then the long-term memory's recorder (orrery.recall) on the same events, in the threads' database,
    scoped to the app and the thread (the server knows one user: its token's). A thread id that is no memory
    scope id (a leading '_' or '-') is not recorded."""
    from orrery.recall import LongTermMemory
    from orrery.recall.store import SCOPE_ID, Scope

    if not SCOPE_ID.match(thread_id):
        return handler
    recorder = LongTermMemory(server.memory(), Scope("local", app, thread_id)).recorder()

    def both(event: Event) -> None:
        handler(event)  # first: a cancelled run stops here, unrecorded
        recorder(event)

    return both


async def _relay(run: Run, out: Outbox, bridge: Bridge) -> AsyncIterator[str]:
    """The run's events as they come, keeping the thread's lease, until it ends or passes the time limit."""
    s = run.server.s
    deadline = renewed = time.monotonic()
    deadline += s.run_timeout
    while True:
        if time.monotonic() - renewed > s.lease / 3:  # still running: keep the thread's lease
            await asyncio.to_thread(run.server.store.acquire, run.body.thread_id, run.owner, s.lease)
            renewed = time.monotonic()
        try:
            kind, item = await bridge.get(min(s.lease / 3, max(0.0, deadline - time.monotonic())))
        except TimeoutError:
            if time.monotonic() < deadline:
                continue
            bridge.cancel.set()
            yield await out.close(
                "timeout", out.tr.error(f"the run took longer than the server's limit of {s.run_timeout:g}s", "timeout")
            )
            return
        if kind == "event":
            if chunk := out.send(out.tr.event(item)):
                yield chunk
            continue
        status, events = _finish(run, out.tr, kind, item)
        yield await out.close(status, events)
        return


def _one_line(exc: BaseException) -> str:
    message = str(exc) if isinstance(exc, OrreryError) else f"{type(exc).__name__}: {exc}"
    return message.strip().splitlines()[0] if message.strip() else type(exc).__name__


def _finish(run: Run, tr: Translator, kind: str, item: Any) -> tuple[str, list[BaseEvent]]:
    if kind == "error":
        return "error", tr.error(_one_line(item))
    if kind == "cancelled":
        return "cancelled", tr.finished("cancelled")
    if not isinstance(item, Result):
        raise ConfigError(
            f"agent {run.app.name!r} ended without an orrery result (status, output, data, views, "
            f"files: orrery.results.Result); it gave {type(item).__name__}"
        )
    return _ended(run, tr, item)


def _ended(run: Run, tr: Translator, result: Result) -> tuple[str, list[BaseEvent]]:
    """The result's views, files and answer, and how the run ends."""
    session, run_id, status = run.session, run.body.run_id, ending(result)
    events = _views(tr, result)
    session.state.update(tr.state or {})
    artifacts, failed = write_artifacts(result, run.server.data, run_id)
    if artifacts:
        events += tr.custom("orrery.artifacts", [f"runs/{run_id}/{n}" for n in artifacts])
    for failure in failed:  # the run's answer stands; the file that could not be made is said so
        events += tr.custom("orrery.error", f"not written: {failure}")
    answer = text_of(result)
    if status == "paused" and tr.interrupts:
        _pause(run, tr)
    else:
        events += tr.answer(answer)
        if run.resume is not None and status != "error":  # decided: the approvals are spent
            session.pending = session.paused = None
    if answer:
        session.messages.append({"id": f"msg_{run_id}", "role": "assistant", "content": answer})
    summary = {"status": result.status} | ({"error": answer} if status == "error" else {})
    summary |= {"artifact_errors": failed} if failed else {}
    return status, events + tr.finished(status, summary)


def _views(tr: Translator, result: Result) -> list[BaseEvent]:
    """Each view as CUSTOM `orrery.<view>`, or, for a view with a slot, in the run's state under that key."""
    events: list[BaseEvent] = []
    for view in result.views():
        if view.slot:
            events += tr.snapshot({**(tr.state or {}), view.slot: view.payload()})
        else:
            events += tr.custom(f"orrery.{view.view}", view.payload())
    return events


def _pause(run: Run, tr: Translator) -> None:
    """The thread's pending interrupt: a clarification, or approvals with the paused agent's snapshot."""
    first = tr.interrupts[0]
    if first.reason == CLARIFICATION:
        run.session.pending = {"id": first.id, "question": first.message, "task": run.task}
        return
    target = resumable(run.agent)
    if target is None:  # an app whose inner run paused: nothing the server could resume
        raise ConfigError(
            f"agent {run.app.name!r} paused for a tool approval the server cannot resume (it has no "
            "snapshot/restore/resume_stream); serve an orrery Agent, or an app exposing it as .agent"
        )
    run.session.pending = {
        "kind": APPROVAL,
        "id": first.id,
        "task": run.task,
        "approvals": [{"interrupt": i.id, **(i.metadata or {})} for i in tr.interrupts],
    }
    run.session.paused = {"snapshot": target.snapshot(), "inputs": run.inputs}


def _save_and_release(run: Run) -> None:
    try:
        _save(run.server, run.session, run.since)
    finally:
        run.server.store.release(run.session.id, run.owner)


def _save(server: Server, session: Thread, since: int | None = None, tries: int = 5) -> None:
    """Save a run's thread. Runs on one thread hold its lease, so another writer is rare (a lease that expired);
    then what the other saved is kept and this run's messages (from index `since`), state, question and record
    are added to it, again if a third writer got in between."""
    run = session.runs[-1]
    added = session.messages[len(session.messages) if since is None else since :]
    state, pending, paused = dict(session.state), session.pending, session.paused
    for _ in range(tries - 1):
        try:
            server.store.save(session)
            return
        except SessionConflict:
            fresh = server.store.load(session.id) or Thread(id=session.id, agent=session.agent, title=session.title)
            fresh.messages += added
            fresh.state.update(state)
            if pending is not None:
                fresh.pending, fresh.paused = pending, paused
            fresh.runs.append(run)
            session = fresh
    server.store.save(session)


# -- uploads ---------------------------------------------------------------------------------------
async def _save_upload(server: Server, file: UploadFile) -> dict[str, Any]:
    name = Path(file.filename or "").name
    if not name.lower().endswith(UPLOAD_TYPES):
        raise HTTPException(415, f"upload a .csv or .parquet file, not {name[:80] or 'a file without a name'!r}")
    data = await file.read(server.s.max_upload_bytes + 1)
    if len(data) > server.s.max_upload_bytes:
        raise HTTPException(413, f"the file is larger than the server's limit of {server.s.max_upload_bytes} bytes")
    upload_id = uuid.uuid4().hex
    folder = _uploads(server) / upload_id
    folder.mkdir(parents=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[-100:].lstrip(".") or "upload.csv"
    path = folder / safe
    try:
        write_atomic(path, data)
        frame = await asyncio.to_thread(_read_table, path)
    except BaseException:
        remove(folder)  # a refused upload leaves nothing behind
        raise
    return {"id": upload_id, "name": safe, "rows": len(frame), "columns": [str(c) for c in frame.columns]}


def _uploads(server: Server) -> Path:
    try:
        return inside(server.data, "uploads")
    except ValueError as exc:
        raise HTTPException(500, f"the server's uploads folder is misplaced: {exc}") from None


def _read_table(path: Path) -> Any:
    import pandas as pd

    try:
        frame = pd.read_parquet(path) if path.suffix.lower() in (".parquet", ".pq") else pd.read_csv(path)
    except Exception as exc:  # noqa: BLE001 - any file a client sends: pandas and pyarrow raise many kinds
        raise HTTPException(400, f"{path.name} cannot be read as a table: {_one_line(exc)[:300]}") from None
    if frame.shape[1] < 2 or len(frame) < 2:
        raise HTTPException(400, f"{path.name} needs a date column and a value column with at least 2 rows")
    return frame


def _upload_path(server: Server, upload_id: str) -> str:
    """The uploaded file of `upload_id` (an id by the input's schema): a regular file inside the uploads folder."""
    with contextlib.suppress(ValueError, OrreryError):
        folder = inside(_uploads(server), check_id("upload id", upload_id))
        files = sorted(p for p in folder.iterdir() if not p.name.startswith(".")) if folder.is_dir() else []
        if files:
            return str(input_file(inside(folder, files[0].name), what="upload"))
    raise HTTPException(400, f"no upload {upload_id!r}: POST the file to /uploads and pass the id it returns")


# -- the `orrery serve` command --------------------------------------------------------------------
def serve(host: str = "127.0.0.1", port: int = 8000, **settings: Any) -> None:
    """Run the server with uvicorn. Off loopback a token is required (the server refuses to start without)."""
    import uvicorn

    s = Settings(host=host, **settings)
    s.token = check_exposure(host, s.token, "every agent")
    api = create_app(s)
    logging.getLogger("uvicorn.access").addFilter(RedactTokens())
    uvicorn.run(api, host=host, port=port, log_level="info")
