"""Typed events for every step of every run: the console view, traces, the server and tests consume them.

An agent's `stream(task)` yields these; `run(task)` consumes the same stream and returns the result carried
by the last event, `Final`. The order of one run:

    RunStart
      StepStart(n)                          one model call and what it asked for
        ModelCall, Token*, PartialOutput*, ToolCallDelta*, ModelReply, Thought?
        (ToolCallEvent)*, Progress*, (ToolResultEvent)*   Progress: a long tool's work as it goes
        StateChanged*                       app state a viewer shows (plans, boards, tables)
      StepEnd(n)
      Retry?                                a validator asked for another attempt
      ... more steps ...
      Clarification? | ApprovalRequired?    the run pauses for the user's answer, or a person's approval
    (a resumed run: RunStart, then ApprovalDecision and ToolResultEvent per pending call, then steps)
      ErrorEvent?                           a limit or a failure ended it
    Final(status, output, result)
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Generator, Iterable, Iterator, Mapping
from contextlib import closing, nullcontext
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal, TypeVar

from orrery.messages import ModelResponse, ToolCall

Status = Literal[
    "completed", "invalid", "max_rounds", "max_tokens", "timeout", "paused", "cancelled", "error", "declined"
]
"""One vocabulary for how every run of every agent and app ends: completed; invalid (validators still
refuse after the retries); max_rounds / max_tokens / timeout (a limit); paused (waiting for a
clarification or an approval); cancelled (the user dropped the request); error (a model or tool failure ended it);
declined (the data or the question cannot be answered)."""


@dataclass
class Event:
    kind: str = field(init=False, default="event")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RunStart(Event):
    task: str
    tools: list[str]
    tools_ref: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    agent: str = "agent"  # the run's name: an app's (chat, forecast, markets, bi) or the architecture's
    architecture: str = ""  # agent (the loop), router or planner: what replay rebuilds ("" in older traces: `agent`)
    kind: str = field(init=False, default="run_start")


@dataclass
class StepStart(Event):
    step: int
    kind: str = field(init=False, default="step_start")


@dataclass
class StepEnd(Event):
    step: int
    kind: str = field(init=False, default="step_end")


@dataclass
class ModelCall(Event):
    round: int
    attempt: int
    messages: int
    tools: list[str]
    model: str = ""  # the model's name (gen_ai.request.model in traces)
    kind: str = field(init=False, default="model_call")


@dataclass
class ModelReply(Event):
    response: ModelResponse
    seconds: float
    kind: str = field(init=False, default="model_reply")


@dataclass
class Token(Event):
    """A piece of answer text as the model generates it."""

    text: str
    kind: str = field(init=False, default="token")


@dataclass
class PartialOutput(Event):
    """A typed answer (`output_type=`) as it streams: the JSON parsed so far (a dict while an object is open)."""

    value: Any
    kind: str = field(init=False, default="partial_output")


@dataclass
class ToolCallDelta(Event):
    """A piece of a tool call as the model generates it (partial JSON arguments)."""

    index: int
    id: str | None
    name: str | None
    arguments: str
    kind: str = field(init=False, default="tool_call_delta")


@dataclass
class Thought(Event):
    text: str
    kind: str = field(init=False, default="thought")


@dataclass
class ToolCallEvent(Event):
    call: ToolCall
    kind: str = field(init=False, default="tool_call")


@dataclass
class ToolResultEvent(Event):
    call: ToolCall
    ok: bool
    content: str
    seconds: float
    cached: bool = False
    kind: str = field(init=False, default="tool_result")


@dataclass
class Progress(Event):
    """A running tool's progress: `done` of `total` units of `label` (a tool reports it with
    `ctx.progress(label, done, total)`; the stream yields it while the tool runs)."""

    label: str
    done: int
    total: int
    kind: str = field(init=False, default="progress")


@dataclass
class StateChanged(Event):
    """App state a viewer shows, as a JSON-able snapshot under a name (`plan`, `board`, `forecast`, ...)."""

    name: str
    value: Any
    kind: str = field(init=False, default="state")


@dataclass
class Retry(Event):
    attempt: int
    message: str
    kind: str = field(init=False, default="retry")


@dataclass
class Clarification(Event):
    question: str
    kind: str = field(init=False, default="clarification")


@dataclass
class ApprovalRequired(Event):
    """The run pauses until a person decides on these calls: [{id, tool, arguments}] (`Agent.resume`)."""

    approvals: list[dict[str, Any]]
    kind: str = field(init=False, default="approval_required")


@dataclass
class ApprovalDecision(Event):
    """A person's decision on a pending call, as a resumed run applies it (before the call runs)."""

    call_id: str
    tool: str
    approved: bool
    arguments: dict[str, Any]
    kind: str = field(init=False, default="approval")


@dataclass
class ErrorEvent(Event):
    message: str
    kind: str = field(init=False, default="error")


@dataclass
class Final(Event):
    """The end of a run. `result` is what `run()` returns (not serialized: traces keep status and output)."""

    status: Status
    output: str
    result: Any = field(default=None, repr=False, compare=False)
    kind: str = field(init=False, default="final")

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "result"}


# -- the router's and the planner's decisions -------------------------------------------------------------------
@dataclass
class Classified(Event):
    type: str
    entities: list[str]
    categories: list[str]
    kind: str = field(init=False, default="classified")


@dataclass
class Routed(Event):
    selected_tools: list[str]
    complexity: str
    strategy: str
    max_turns: int
    dropped: list[str] = field(default_factory=list)
    source: str = "model"  # model | rules (the app's rules decided; no model call)
    kind: str = field(init=False, default="routed")


@dataclass
class IntentClassified(Event):
    intent: str
    allowed: list[str]
    kind: str = field(init=False, default="intent")


@dataclass
class Planned(Event):
    request: str
    todos: list[dict[str, Any]]
    kind: str = field(init=False, default="planned")


@dataclass
class TodoUpdate(Event):
    key: str
    status: str
    kind: str = field(init=False, default="todo")


# -- relaying an inner run ----------------------------------------------------------------------------------------
def relay(
    events: Iterable[Event], *, drop: tuple[type[Event], ...] = (), tap: Callable[[Event], None] | None = None
) -> Generator[Event, None, Any]:
    """`result = yield from relay(inner.stream(...))`: an inner run's events passed on but its `Final` (and those of
    the `drop` types), returning the result its Final carried (None when it ended without one). `tap` sees every
    event, the held-back ones too. Closing the outer stream closes the inner one (which stops its tools)."""
    result = None
    with closing(events) if isinstance(events, Generator) else nullcontext():
        for event in events:
            if tap is not None:
                tap(event)
            if isinstance(event, Final):
                result = event.result
            elif not isinstance(event, drop):
                yield event
    return result


# -- process-wide consumers -------------------------------------------------------------------------------------
HOOKS: list[Callable[[Event], None]] = []
"""Consumers of every agent's events besides its own handlers (OpenTelemetry: `orrery.otel.instrument()`)."""

_env_checked = False


def env_hooks() -> None:
    """On the first run: with OTEL_EXPORTER_OTLP_ENDPOINT set, export spans (`orrery.otel.setup()`). Only then is
    OpenTelemetry imported; later runs pay one flag check."""
    global _env_checked
    if _env_checked:
        return
    _env_checked = True
    if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") and not HOOKS and os.environ.get("OTEL_SDK_DISABLED") != "true":
        from orrery.otel import setup

        setup()


# -- stages: named parts of a tool's work (an app's cross-validation, SQL execution, search) --------------------
class Stage:
    """What `stage` yields: `set(**attributes)` adds attributes once their values are known."""

    __slots__ = ()

    def set(self, **attributes: Any) -> None:
        """Nothing to record: no recorder watches this tool call."""


_NO_STAGE = contextlib.nullcontext(Stage())
_CALL: contextvars.ContextVar[ToolCall | None] = contextvars.ContextVar("orrery_tool_call", default=None)
StageOpener = Callable[[str, dict[str, Any], Mapping[str, Any] | None], contextlib.AbstractContextManager[Stage]]
STAGE_OPENERS: dict[int, list[StageOpener]] = {}
"""Per running tool call (by the identity of its `ToolCall`), how each span recorder opens a stage under it."""


class calling:  # noqa: N801 - used like a function: `with calling(call):`
    """Marks the tool call the code inside runs for (the tool runner wraps each call), so `stage` finds it."""

    __slots__ = ("call", "token")

    def __init__(self, call: ToolCall):
        self.call = call

    def __enter__(self) -> None:
        self.token = _CALL.set(self.call)

    def __exit__(self, *_exc: object) -> None:
        _CALL.reset(self.token)


def stage(
    name: str, /, *, content: Mapping[str, Any] | None = None, **attributes: Any
) -> contextlib.AbstractContextManager[Stage]:
    """A named part of a tool's work, traced as a child span of the tool call's span:

        with stage("execute_sql", **{"db.system.name": "duckdb"}, content={"db.query.text": sql}) as s:
            rows = run(sql)
            s.set(rows=len(rows))

    Attribute names with a dot are kept (semantic conventions), others get the `orrery.` prefix; `content` (a
    query, SQL text) is recorded only where content capture is on. With no recorder watching the current tool
    call (tracing off, or code running outside a tool), it costs one context-variable read and does nothing."""
    call = _CALL.get()
    if call is None or not (found := STAGE_OPENERS.get(id(call))):
        return _NO_STAGE
    openers = tuple(found)  # a copy: a timed-out call's recorder may let go of it meanwhile
    if not openers:
        return _NO_STAGE
    if len(openers) == 1:
        return openers[0](name, attributes, content)
    return _stages(openers, name, attributes, content)


class _Stages(Stage):
    __slots__ = ("parts",)

    def __init__(self, parts: list[Stage]):
        self.parts = parts

    def set(self, **attributes: Any) -> None:
        for part in self.parts:
            part.set(**attributes)


@contextlib.contextmanager
def _stages(
    openers: tuple[StageOpener, ...], name: str, attributes: dict[str, Any], content: Mapping[str, Any] | None
) -> Iterator[Stage]:
    """The same stage for every recorder watching the call."""
    with contextlib.ExitStack() as stack:
        yield _Stages([stack.enter_context(o(name, attributes, content)) for o in openers])


# -- async consumers ---------------------------------------------------------------------------------------------
class _Raised:
    def __init__(self, exc: BaseException):
        self.exc = exc


T = TypeVar("T")
_END = object()
_WAITING = object()
DISCONNECT_POLL_S = 0.25  # how often a consumer's `disconnected()` is asked while items flow or wait


class _Relay:
    """The worker side of `aiterate`: pulls one item per request in its thread and hands it to the loop."""

    def __init__(self, items: Iterable[Any], loop: asyncio.AbstractEventLoop):
        self.items, self.loop = items, loop
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.wanted = threading.Semaphore(0)
        self.stop = threading.Event()
        self.checked = time.monotonic()

    def put(self, item: Any) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)

    def work(self) -> None:
        it = iter(self.items)
        try:
            while self.wanted.acquire() and not self.stop.is_set():
                item = next(it, _END)
                if item is _END:
                    break
                self.put(item)
        except BaseException as exc:  # handed to the consumer, which re-raises it
            self.put(_Raised(exc))
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                close()
            self.put(_END)

    async def next(self, disconnected: Callable[[], Awaitable[bool]] | None) -> Any:
        """The next item, or _END once `disconnected()` says the consumer went away."""
        if disconnected is None:
            return await self.queue.get()
        while True:
            try:
                item = await asyncio.wait_for(self.queue.get(), DISCONNECT_POLL_S)
            except TimeoutError:
                item = _WAITING
            if time.monotonic() - self.checked >= DISCONNECT_POLL_S:
                self.checked = time.monotonic()
                if await disconnected():
                    return _END
            if item is not _WAITING:
                return item


async def aiterate(items: Iterable[T], disconnected: Callable[[], Awaitable[bool]] | None = None) -> AsyncIterator[T]:
    """A blocking stream (a run's events, a model's deltas) for asyncio (a server): it goes on in a worker
    thread, one item ahead at most, as a sync consumer would pull it. When the consumer stops early (a client
    disconnected: the task is cancelled, or `disconnected()` says so), the stream is closed before its next
    item, so the model is not called again and its generation stops."""
    relay = _Relay(items, asyncio.get_running_loop())
    threading.Thread(target=relay.work, name="orrery-run", daemon=True).start()
    try:
        while True:
            relay.wanted.release()
            item = await relay.next(disconnected)
            if item is _END:
                return
            if isinstance(item, _Raised):
                raise item.exc
            yield item
    finally:
        relay.stop.set()
        relay.wanted.release()
