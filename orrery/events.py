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
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

from orrery.messages import ModelResponse, ToolCall

Status = Literal["completed", "invalid", "max_rounds", "max_tokens", "timeout", "paused", "cancelled", "error",
                 "declined"]
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
    agent: str = "agent"  # the architecture: agent, router, planner (replay rebuilds the same one)
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


# -- async consumers ---------------------------------------------------------------------------------------------
class _Raised:
    def __init__(self, exc: BaseException):
        self.exc = exc


async def aiterate(events: Iterator[Event]) -> AsyncIterator[Event]:
    """An event stream for asyncio (a server): the run goes on in a worker thread, one event ahead at most, as a
    sync consumer would pull it. When the consumer stops early (a client disconnected), the run is closed
    before its next event, so the model is not called again."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    wanted = threading.Semaphore(0)
    stop = threading.Event()
    done = object()

    def put(item: Any) -> None:
        if not loop.is_closed():
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def work() -> None:
        it = iter(events)
        try:
            while wanted.acquire() and not stop.is_set():
                try:
                    event = next(it)
                except StopIteration:
                    break
                put(event)
        except BaseException as exc:  # handed to the consumer, which re-raises it
            put(_Raised(exc))
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                close()
            put(done)

    threading.Thread(target=work, name="orrery-run", daemon=True).start()
    try:
        while True:
            wanted.release()
            item = await queue.get()
            if item is done:
                return
            if isinstance(item, _Raised):
                raise item.exc
            yield item
    finally:
        stop.set()
        wanted.release()
