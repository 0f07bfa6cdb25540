"""Tool wrapping, argument validation, gating, caching and parallel execution.

Timeouts (`@tool(timeout=S)`) and how a timed-out tool is stopped:

* `@tool(timeout=S, process=True)`: the call runs in a worker process, killed at the timeout, so it
  can write nothing afterwards (a worker whose call finished in time serves the next one: the
  module is imported once, and later calls cost well under a millisecond). Its arguments and result must pickle, it cannot take a RunContext
  (its changes would be lost), and it must be defined at module level (the process imports it).
* `@tool(timeout=S)`: the call runs in a thread, which Python cannot kill. At the timeout the model
  is told and `cancelled()` turns True in that thread: a long tool checks it between units of work
  and stops before doing more. A tool that never checks it keeps running: give a tool with side
  effects `process=True` (or make it check `cancelled()` before each effect).

Stopping a tool that takes the RunContext: when the agent's stream is closed (or its consumer interrupted) while
such a tool runs, `ctx.cancelled` turns True (as it does at a timeout) and `ctx.progress` raises
`orrery.errors.Cancelled`, so a tool that reports progress stops at its next report and one that polls
`ctx.cancelled` stops when it looks. The agent waits for it briefly; one that does neither runs on unseen.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import contextvars
import copy
import importlib
import inspect
import json
import multiprocessing
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar, get_origin, get_type_hints, runtime_checkable

import pydantic

from orrery.errors import Cancelled, ConfigError, ToolError
from orrery.events import calling
from orrery.messages import Message, ToolCall, ToolSpec

DepsT = TypeVar("DepsT")


@dataclass
class RunContext(Generic[DepsT]):
    """What a tool can see of the run: the app's typed dependencies (`deps`, given to `agent.run(task, deps=...)`
    and checked against the agent's `deps_type`), run options (for example a date bound given to
    `agent.run(..., before=...)`), which tools have succeeded so far, and `state`, a JSON-able scratch dict of the
    conversation that `snapshot()` keeps. A tool declares `ctx: RunContext[MyDeps]` to read `ctx.deps` typed."""

    deps: DepsT = None  # type: ignore[assignment]  # None when the agent has no deps_type
    state: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    succeeded: list[str] = field(default_factory=list)
    final_output: str | None = None
    reporter: Callable[[str, int, int], None] | None = field(default=None, repr=False, compare=False)
    cancellation: threading.Event = field(default_factory=threading.Event, repr=False, compare=False)

    @property
    def cancelled(self) -> bool:
        """True once the run's consumer stopped the stream, or this tool call timed out: stop and return."""
        return self.cancellation.is_set() or cancelled()

    def progress(self, label: str, done: int, total: int) -> None:
        """Report a long tool's progress (`done` of `total` units of `label`); the agent's stream yields it as
        an `orrery.events.Progress` event while the tool runs. Raises `Cancelled` once `cancelled`, so the tool
        stops here; outside an agent run it does nothing else."""
        if self.cancelled:
            raise Cancelled(f"stopped at {label} {done}/{total}: the run was cancelled")
        if self.reporter is not None:
            self.reporter(label, done, total)

    def finish(self, output: str) -> None:
        """End the run after this step with `output` as the final answer (e.g. a `submit` tool)."""
        self.final_output = output


class NeedsClarification(Exception):  # noqa: N818 - a signal, not a failure
    """Raised by a tool to pause the run and ask the user; a later turn resumes it."""

    def __init__(self, question: str):
        super().__init__(question)
        self.question = question


Available = Callable[[RunContext], bool]
Refine = Callable[[RunContext, dict[str, Any]], dict[str, Any]]
Approval = Callable[[RunContext, dict[str, Any]], bool]
"""`requires_approval=` as a function of the run and the call's (unvalidated) arguments: True to ask a person."""
Prepare = Callable[[RunContext, ToolSpec], "ToolSpec | None"]
"""`prepare=`: the tool as the model sees it at this step (as pydantic-ai's `prepare`): the spec, a changed copy
(`dataclasses.replace(spec, description=...)`), or None to leave the tool out of this step (then calls to it fail
as for a tool not available). It runs after `available` and `refine`, and may read `ctx.deps`."""


def after(*names: str) -> Available:
    """Available once every named tool has succeeded at least once."""
    return lambda ctx: all(n in ctx.succeeded for n in names)


_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Google-style docstring -> (description, {param: description})."""
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    desc, params, current, in_args = [], {}, None, False
    for line in lines:
        if line.strip() in ("Args:", "Arguments:", "Parameters:"):
            in_args = True
            continue
        if in_args and line.strip().endswith(":") and not line.startswith(" "):
            in_args = False  # Returns:, Raises: ...
        if in_args:
            m = _ARG_LINE.match(line)
            if m and line.startswith("    ") and not line.startswith("        "):
                current = m.group(1).lstrip("*")
                params[current] = m.group(2).strip()
            elif current and line.strip():
                params[current] += " " + line.strip()
        elif not params:
            desc.append(line)
    return " ".join(s.strip() for s in desc if s.strip()), params


@dataclass
class ToolResult:
    call: ToolCall
    ok: bool
    content: str  # what the model sees
    value: Any = None
    error: str | None = None
    duration: float = 0.0
    cached: bool = False
    clarification: str | None = None

    def to_message(self) -> Message:
        return Message("tool", self.content, tool_call_id=self.call.id, name=self.call.name)


class Tool:
    """A typed function plus its schema. Build with `@tool`."""

    prepare: Prepare | None = None

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        timeout: float | None = None,
        cache_ttl: float | None = None,
        available: Available | None = None,
        refine: Refine | None = None,
        process: bool = False,
        requires_approval: bool | Approval = False,
        prepare: Prepare | None = None,
    ):
        self.fn = fn
        self.prepare = prepare
        self.requires_approval = requires_approval
        self.process = process
        self.name = name or fn.__name__
        doc_desc, doc_params = _parse_docstring(fn.__doc__ or "")
        self.description = description or doc_desc or self.name
        self.timeout = timeout
        self.cache_ttl = cache_ttl
        self.available = available
        self.refine = refine
        self.wants_context, self.args_model = self._build_model(doc_params)
        if process and (self.wants_context or "<locals>" in fn.__qualname__):
            raise ConfigError(
                f"tool {self.name!r}: a process tool must be defined at module level and take "
                "no RunContext (the process imports it, and its changes to the context would be lost)"
            )
        self.parameters = self._schema()
        self._cache: dict[str, tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def _build_model(self, doc_params: dict[str, str]) -> tuple[bool, type[pydantic.BaseModel]]:
        sig = inspect.signature(self.fn)
        hints = get_type_hints(self.fn)
        fields: dict[str, Any] = {}
        wants_context = False
        for pname, p in sig.parameters.items():
            ann = hints.get(pname, Any)
            if ann is RunContext or get_origin(ann) is RunContext:  # RunContext or RunContext[Deps]
                wants_context = True
                continue
            default = ... if p.default is inspect.Parameter.empty else p.default
            fields[pname] = (ann, pydantic.Field(default, description=doc_params.get(pname)))
        model = pydantic.create_model(f"{self.name}_args", __config__=pydantic.ConfigDict(extra="forbid"), **fields)
        return wants_context, model

    def _schema(self) -> dict[str, Any]:
        schema = self.args_model.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        schema.setdefault("properties", {})
        return schema

    def gated(self, available: Available | None, refine: Refine | None = None) -> Tool:
        """A copy with its own gate, schema refinement and cache; this tool is left as it is."""
        g = copy.copy(self)
        g.available, g.refine = available, refine
        g._cache, g._lock = {}, threading.Lock()
        return g

    def spec(self, ctx: RunContext | None = None) -> ToolSpec:
        params = self.parameters
        if self.refine is not None and ctx is not None:
            params = self.refine(ctx, json.loads(json.dumps(params)))
        return ToolSpec(self.name, self.description, params)

    def offer(self, ctx: RunContext) -> ToolSpec | None:
        """The tool as the model sees it now, or None when it is not offered: `available`, `refine`, `prepare`."""
        if self.available is not None and not self.available(ctx):
            return None
        spec = self.spec(ctx)
        return self.prepare(ctx, spec) if self.prepare is not None else spec

    def offered(self, ctx: RunContext) -> bool:
        """Whether the model may call it now (the schema is built only when a `prepare` hook must see it)."""
        if self.available is not None and not self.available(ctx):
            return False
        return self.prepare is None or self.prepare(ctx, self.spec(ctx)) is not None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def asks(self, ctx: RunContext, arguments: dict[str, Any]) -> bool:
        """Whether this call waits for a person's approval (a predicate that raises: it does)."""
        rule = self.requires_approval
        if not callable(rule):
            return bool(rule)
        try:
            return bool(rule(ctx, arguments))
        except Exception:
            return True

    def invoke(self, arguments: dict[str, Any], ctx: RunContext) -> tuple[Any, bool]:
        """Validate `arguments`, run (cached when `cache_ttl` is set). Returns (value, from_cache)."""
        args = self.args_model.model_validate(arguments)
        kwargs = {k: getattr(args, k) for k in type(args).model_fields}
        key, deps = None, ctx.deps if self.wants_context else None
        if self.cache_ttl is not None:
            # Kept under the run's deps too, so a run with other deps (another store) never reads it: equal deps
            # share results, an unhashable deps object only its own (by identity).
            by_id = not _hashable(deps)
            key = (id(deps) if by_id else deps, json.dumps(args.model_dump(mode="json"), sort_keys=True))
            with self._lock:
                hit = self._cache.get(key)
            if hit and time.monotonic() - hit[0] < self.cache_ttl and (hit[2] is deps or not by_id):
                return hit[1], True
        if self.process:
            value = _in_process(self.fn, kwargs, self.timeout)
        else:
            value = self.fn(ctx, **kwargs) if self.wants_context else self.fn(**kwargs)
        if key is not None:
            with self._lock:
                self._cache[key] = (time.monotonic(), value, deps)
        return value, False


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


class ToolTimedOut(Exception):  # noqa: N818 - not TimeoutError: a tool's own TimeoutError is just an exception
    """The call ran past the tool's timeout."""


_call = threading.local()


def cancelled() -> bool:
    """True once the tool call running in this thread has timed out: check it between units of work."""
    event = getattr(_call, "cancel", None)
    return event is not None and event.is_set()


def _with_timeout(fn: Callable[..., Any], seconds: float, *args: Any) -> Any:
    """Run fn in a daemon thread; at the timeout set its `cancelled()` flag and return (Python cannot
    kill a thread); a hung call cannot block the pool or the interpreter's exit."""
    box: dict[str, Any] = {}
    cancel = threading.Event()

    def target() -> None:
        _call.cancel = cancel
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller below
            box["error"] = exc

    th = threading.Thread(
        target=contextvars.copy_context().run, args=(target,), daemon=True, name="orrery-tool-timeout"
    )
    th.start()
    th.join(seconds)
    if th.is_alive():
        cancel.set()
        raise ToolTimedOut
    if "error" in box:
        raise box["error"]
    return box["value"]


def _serve(conn: Any, module: str, qualname: str) -> None:
    """A tool's worker process: import the tool once, then run calls until the pipe closes."""
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        conn.send(("error", ToolError(f"the tool's process cannot import {module}.{qualname}: {exc}")))
        return
    fn = obj.fn if isinstance(obj, Tool) else obj
    conn.send(("ready", None))
    while True:
        try:
            kwargs = conn.recv()
        except EOFError:
            return
        try:
            conn.send(("value", fn(**kwargs)))
        except BaseException as exc:  # a result or exception that does not pickle becomes a ToolError
            try:
                conn.send(("error", exc))
            except Exception:
                conn.send(("error", ToolError(f"{type(exc).__name__}: {exc}")))


PROCESS_START_SECONDS = 60.0  # importing the tool's module; the tool's own timeout starts after it
_IDLE: dict[tuple[str, str], list[tuple[Any, Any]]] = {}  # (module, qualname) -> idle (process, pipe)
_IDLE_LOCK = threading.Lock()


def _receive(conn: Any, proc: Any, seconds: float | None) -> tuple[str, Any]:
    if not conn.poll(seconds):
        proc.kill()
        proc.join()
        raise ToolTimedOut
    try:
        return conn.recv()
    except EOFError:
        proc.join()
        raise ToolError(f"the tool's process died (exit code {proc.exitcode})") from None


def _worker(key: tuple[str, str]) -> tuple[Any, Any]:
    """An idle worker for this tool, or a new one (forkserver: safe to start beside threads)."""
    with _IDLE_LOCK:
        if _IDLE.get(key):
            return _IDLE[key].pop()
    mp = multiprocessing.get_context(
        "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    )
    conn, child = mp.Pipe()
    proc = mp.Process(target=_serve, args=(child, *key), daemon=True, name=f"orrery-tool-{key[1]}")
    proc.start()
    child.close()
    kind, payload = _receive(conn, proc, PROCESS_START_SECONDS)
    if kind == "error":
        proc.join()
        raise payload
    return proc, conn


def _in_process(fn: Callable[..., Any], kwargs: dict[str, Any], seconds: float | None) -> Any:
    """Run a module-level tool function in a worker process that is killed at the timeout, so a
    timed-out tool can do nothing more; a worker that finished in time serves the next call."""
    key = (fn.__module__, fn.__qualname__)
    proc, conn = _worker(key)
    conn.send(kwargs)
    kind, payload = _receive(conn, proc, seconds)  # kills the worker on timeout
    with _IDLE_LOCK:
        _IDLE.setdefault(key, []).append((proc, conn))
    if kind == "error":
        raise payload
    return payload


def tool(fn: Callable[..., Any] | None = None, **options: Any) -> Any:
    """Decorator: `@tool` or `@tool(timeout=5, cache_ttl=60, available=after("search"))`;
    `process=True` runs each call in a process killed at the timeout (see the module docstring);
    `requires_approval=True` (or a function `(ctx, arguments) -> bool`) pauses the run until a person decides;
    `prepare=(ctx, spec) -> spec | None` changes or hides the tool at each step (see `Prepare`)."""
    if fn is None:
        return lambda f: Tool(f, **options)
    return Tool(fn, **options)


def render(value: Any) -> str:
    """A tool's return value as the text the model reads."""
    if isinstance(value, str):
        return value
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump_json()
    return json.dumps(value, default=str)


def _validation_message(exc: pydantic.ValidationError) -> str:
    parts = []
    for e in exc.errors():
        loc = ".".join(str(x) for x in e["loc"]) or "arguments"
        parts.append(f"{loc}: {e['msg']}" + (f" (got {e['input']!r})" if e["type"] != "missing" else ""))
    return "; ".join(parts)


@runtime_checkable
class ToolProvider(Protocol):
    """Tools listed when a run starts, from elsewhere (an MCP server, `orrery.mcp`): `open()` connects and
    returns them, `close()` ends what that `open()` started."""

    def open(self) -> list[Tool]: ...

    def close(self) -> None: ...


class Toolset:
    """Holds tools, shows the model those available now, runs calls in a bounded thread pool and
    turns every failure (unknown tool, bad JSON, bad arguments, exception, timeout) into an
    observation the model can correct. A `ToolProvider` among the tools (an MCP server) adds its
    tools between `open()` and `close()` (the agent does both around each run)."""

    def __init__(self, tools: Iterable[Tool | Callable[..., Any] | ToolProvider] = (), *, max_workers: int = 4):
        self.tools: dict[str, Tool] = {}
        self.providers: list[ToolProvider] = []
        self._provided: dict[str, Tool] = {}
        for t in tools:
            if isinstance(t, ToolProvider):
                self.providers.append(t)
            else:
                self.add(t)
        self.max_workers = max_workers
        self._pool: cf.ThreadPoolExecutor | None = None

    def open(self) -> None:
        """Open each provider and add the tools it lists; a provider that fails closes those opened before."""
        opened: list[ToolProvider] = []
        try:
            for p in self.providers:
                listed = p.open()
                opened.append(p)
                for t in listed:
                    if t.name in self.tools and t.name not in self._provided:
                        raise ConfigError(
                            f"tool {t.name!r} from {p!r} has the name of a local tool; give the server another prefix"
                        )
                    self.tools[t.name] = self._provided[t.name] = t
        except BaseException:
            self._drop()
            for p in opened:
                p.close()
            raise

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        """The providers open for the `with` block (how an architecture other than the loop holds them for a run)."""
        if not self.providers:
            yield
            return
        self.open()
        try:
            yield
        finally:
            self.close()

    def close(self) -> None:
        """Close the providers opened by `open()` and drop their tools."""
        self._drop()
        for p in self.providers:
            p.close()

    def _drop(self) -> None:
        for name in self._provided:
            self.tools.pop(name, None)
        self._provided.clear()

    def add(self, t: Tool | Callable[..., Any]) -> Tool:
        t = t if isinstance(t, Tool) else Tool(t)
        self.tools[t.name] = t
        return t

    @property
    def asks(self) -> bool:
        """Whether any tool may wait for approval (when none does, the loop checks nothing)."""
        return any(t.requires_approval for t in self.tools.values())

    def held(self, calls: Sequence[ToolCall], ctx: RunContext) -> list[ToolCall]:
        """The calls that wait for a person's approval (well-formed calls of available tools that ask)."""
        return [
            c
            for c in calls
            if not c.error
            and c.name in self.tools
            and self.tools[c.name].asks(ctx, c.arguments)
            and self.tools[c.name].offered(ctx)
        ]

    def __contains__(self, name: str) -> bool:
        return name in self.tools

    def available(self, ctx: RunContext) -> list[Tool]:
        return [t for t in self.tools.values() if t.offered(ctx)]

    def specs(self, ctx: RunContext) -> list[ToolSpec]:
        return [s for t in self.tools.values() if (s := t.offer(ctx)) is not None]

    def _pool_get(self) -> cf.ThreadPoolExecutor:
        if self._pool is None:
            self._pool = cf.ThreadPoolExecutor(self.max_workers, thread_name_prefix="orrery-tool")
        return self._pool

    def run(self, calls: Sequence[ToolCall], ctx: RunContext, *, approved: bool = False) -> list[ToolResult]:
        """Run calls (in parallel when there are several); results keep the calls' order. A call that needs
        approval fails unless `approved` (a person approved these calls): only the agent loop can ask."""
        if not calls:
            return []
        if len(calls) == 1:
            results = [self.run_one(calls[0], ctx, approved=approved)]
        else:
            results = list(self._pool_get().map(lambda c: self.run_one(c, ctx, approved=approved), calls))
        for r in results:
            if r.ok:
                ctx.succeeded.append(r.call.name)
        return results

    def run_one(self, call: ToolCall, ctx: RunContext, *, approved: bool = False) -> ToolResult:
        start = time.perf_counter()
        why = self._refusal(call, ctx, approved)
        if why is None:
            t = self.tools[call.name]
            try:
                with calling(call):  # what `orrery.events.stage` inside the tool is part of
                    if t.timeout is None or t.process:
                        value, cached = t.invoke(call.arguments, ctx)
                    else:
                        value, cached = _with_timeout(t.invoke, t.timeout, call.arguments, ctx)
            except NeedsClarification as exc:
                return ToolResult(
                    call,
                    False,
                    f"Paused: asked the user: {exc.question}",
                    error="needs clarification",
                    duration=time.perf_counter() - start,
                    clarification=exc.question,
                )
            except Exception as exc:  # a tool's failure (or bug) becomes an observation; the loop keeps going
                why = _failure(t, call, exc)
            else:
                return ToolResult(call, True, render(value), value, duration=time.perf_counter() - start, cached=cached)
        return ToolResult(call, False, f"Error: {why}", error=why, duration=time.perf_counter() - start)

    def _refusal(self, call: ToolCall, ctx: RunContext, approved: bool) -> str | None:
        """Why the call cannot run (malformed, not offered now, waiting for an approval), or None."""
        if call.error:
            return f"tool call to {call.name!r} was malformed: {call.error}. Send the arguments as a JSON object."
        if call.name not in self.tools or not self.tools[call.name].offered(ctx):
            why = "is not available yet" if call.name in self.tools else "does not exist"
            names = ", ".join(sorted(t.name for t in self.available(ctx))) or "none"
            return f"tool {call.name!r} {why}. Available tools: {names}."
        t = self.tools[call.name]
        if t.requires_approval and not approved and t.asks(ctx, call.arguments):
            return (
                f"tool {call.name!r} needs a person's approval, which this agent cannot ask for; "
                "run it from an Agent, whose run pauses for the approval"
            )
        return None


def _failure(t: Tool, call: ToolCall, exc: Exception) -> str:
    """What the model reads about a call that failed."""
    if isinstance(exc, ToolTimedOut):
        how = "and was stopped" if t.process else "and was asked to stop"
        return f"tool {call.name!r} timed out after {t.timeout}s {how}. Try simpler arguments."
    if isinstance(exc, pydantic.ValidationError):
        return (
            f"invalid arguments for {call.name!r}: {_validation_message(exc)}. "
            f"Expected schema: {json.dumps(t.parameters)}"
        )
    if isinstance(exc, ToolError):
        return str(exc)
    return f"tool {call.name!r} raised {type(exc).__name__}: {exc}"


_KEY = re.compile(r"^[A-Za-z0-9_.:-]{1,120}$")


class CallLedger:
    """Done-markers of approved tool calls, by key (the pause's id and the call id): what makes a resume sent
    twice, or after a crash, read the first result instead of running the call again.

    Without a store the markers live in memory and in the agent's snapshot (durable once the session is saved);
    with a session store (`orrery.sessions.open_store(...)`, SQLite or PostgreSQL) each marker is saved as its
    own session before the run goes on, so a process killed after the call ran still finds it."""

    def __init__(self, store: Any = None, *, keep: int = 200):
        from orrery.sessions import open_store

        self.store = open_store(store) if store is not None else None
        self.memory: dict[str, dict[str, Any]] = {}
        self.keep = keep

    @staticmethod
    def _id(key: str) -> str:
        """A session id from a key a model partly chose: kept when it is plain, else hashed."""
        import hashlib

        return f"tool-call-{key if _KEY.match(key) else hashlib.sha256(key.encode()).hexdigest()}"

    def get(self, key: str) -> dict[str, Any] | None:
        if key in self.memory:
            return self.memory[key]
        if self.store is not None and (saved := self.store.load(self._id(key))) is not None:
            return saved.data.get("result")
        return None

    def put(self, key: str, record: dict[str, Any]) -> None:
        from orrery.sessions import Session, SessionConflict

        self.memory[key] = record
        while len(self.memory) > self.keep:
            self.memory.pop(next(iter(self.memory)))
        if self.store is not None:
            with contextlib.suppress(SessionConflict):  # another resume of the same pause recorded it first
                self.store.save(Session(self._id(key), "tool-call", {"kind": "tool_call", "result": record}))
