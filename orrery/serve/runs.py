"""One agent run on a worker thread, its events bridged to the server's event loop, and the files its result saves.

Today's agents emit events to handlers while `run()` blocks, so the run goes to a thread and each event
crosses to asyncio through a queue. A cancelled run (client gone, time limit) is stopped by raising
`Cancelled` from the handler at the agent's next event, i.e. at its next step, model call or tool call.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from orrery.agent.calls import consume
from orrery.errors import Cancelled, ConfigError
from orrery.events import HOOKS, Event
from orrery.files import remove
from orrery.results import Result
from orrery.serve.guard import inside


def attach(agent: Any, handler: Callable[[Event], None]) -> None:
    """Add an event handler to an app's agent (the Agent itself, or the Agent an app wraps)."""
    for obj in (agent, getattr(agent, "agent", None)):
        if isinstance(getattr(obj, "handlers", None), list):
            obj.handlers.append(handler)
            return
    raise TypeError(f"{type(agent).__name__} has no event handlers to stream from")


def resumable(agent: Any) -> Any:
    """The part of an app's agent that can pause for approvals (`snapshot`, `restore`, `resume_stream`: an orrery
    Agent, or the Agent an app wraps), or None."""
    for obj in (agent, getattr(agent, "agent", None)):
        if all(callable(getattr(obj, name, None)) for name in ("snapshot", "restore", "resume_stream")):
            return obj
    return None


def drive(
    agent: Any,
    task: str,
    inputs: dict[str, Any],
    handler: Callable[[Event], None],
    resume: tuple[dict[str, Any], dict[str, Any]] | None = None,
) -> Any:
    """Run an app's agent, passing each event to `handler`; returns its result. An agent with `stream()`
    is iterated (closing the stream when the handler raises stops the run at that event); others get the
    handler attached and run as they are. `resume`: (the paused agent's snapshot, the decisions) continues a
    run paused for approvals."""
    if resume is not None:
        target = resumable(agent)
        if target is None:
            raise ConfigError(f"{type(agent).__name__} cannot resume a run paused for approvals")
        snapshot, decisions = resume
        target.restore(snapshot)
        return _consume(target.resume_stream(decisions), handler)
    if callable(getattr(agent, "stream", None)):
        return _consume(agent.stream(task, **inputs), handler)
    attach(agent, handler)  # its run() passes each event to its handlers and the global hooks
    return invoke(agent, task, inputs)


def _consume(events: Iterator[Event], handler: Callable[[Event], None]) -> Any:
    """A stream's events to `handler` and the global hooks (`orrery.events.HOOKS`: OpenTelemetry), as `run()`
    passes them; the `Final` event's result."""

    def emit(event: Event) -> None:
        handler(event)
        for hook in HOOKS:
            hook(event)

    return consume(events, emit)


@contextmanager
def traced(headers: dict[str, str]) -> Iterator[None]:
    """The caller's trace (a W3C `traceparent` header) as the current OpenTelemetry context of the run's thread:
    the run's span (`orrery.otel.SpanRecorder` starts a top run in the current context) is its child. Without
    tracing hooks or the header nothing is imported."""
    if not HOOKS or "traceparent" not in headers:
        yield
        return
    from opentelemetry import context

    from orrery.otel import context_from

    token = context.attach(context_from(headers))
    try:
        yield
    finally:
        context.detach(token)


def invoke(agent: Any, task: str, inputs: dict[str, Any]) -> Any:
    """Start an app's agent that cannot stream on a task: `run(task, **inputs)`."""
    return agent.run(task, **inputs)


class Bridge:
    """Runs `work(handler)` on a daemon thread; `get()` awaits ("event", e), ("done", result) or ("error", exc)."""

    def __init__(self, work: Callable[[Callable[[Event], None]], Any]):
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.cancel = threading.Event()
        self.thread = threading.Thread(target=self._main, args=(work,), daemon=True)
        self.thread.start()

    def _put(self, item: tuple[str, Any]) -> None:
        if self.cancel.is_set() or self.loop.is_closed():  # the listener is gone (client left, time limit)
            return
        self.loop.call_soon_threadsafe(self.queue.put_nowait, item)

    def _handler(self, event: Event) -> None:
        if self.cancel.is_set():
            raise Cancelled()
        self._put(("event", event))

    def _main(self, work: Callable[[Callable[[Event], None]], Any]) -> None:
        try:
            self._put(("done", work(self._handler)))
        except Cancelled:
            self._put(("cancelled", None))
        except Exception as exc:  # noqa: BLE001 - reported to the client as RUN_ERROR, never lost
            self._put(("error", exc))

    async def get(self, timeout: float) -> tuple[str, Any]:
        return await asyncio.wait_for(self.queue.get(), timeout)


# -- what a result shows ---------------------------------------------------------------------------
FILE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}\.(json|png|csv|txt)")  # a file a result saves: never served as HTML


def safe_name(name: str) -> bool:
    return FILE_NAME.fullmatch(name) is not None


def write_artifacts(result: Result, data: Path, run_id: str) -> tuple[list[str], list[str]]:
    """The result's files (`Result.files()`: result.json, plot.png, ...) in the run's folder `data/runs/<run_id>`:
    (the names written, one line for each that failed). They are made in a new folder and renamed into place,
    so a run never writes through a link, outside `data` or over another run's folder."""
    files = result.files()
    written, failed = [], [f"{name[:80]!r}: not a file name a run may save" for name in files if not safe_name(name)]
    makers = [(name, make) for name, make in files.items() if safe_name(name)]
    if not makers:
        return [], failed
    try:
        (data / "runs").mkdir(exist_ok=True)
        tmp = inside(data, "runs", f".{run_id}.{uuid.uuid4().hex[:8]}.tmp")
        tmp.mkdir()
    except (OSError, ValueError) as exc:
        return [], failed + [f"{name}: {exc}" for name, _ in makers]
    for name, make in makers:
        try:
            make(tmp / name)
            written.append(name)
        except Exception as exc:  # noqa: BLE001 - one file that cannot be made never fails the run
            failed.append(f"{name}: {type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}")
    try:
        os.rename(tmp, inside(data, "runs", run_id))  # refused when the run's folder exists and holds files
    except (OSError, ValueError) as exc:
        remove(tmp)
        failed += [f"{name}: {exc}" for name in written]
        written = []
    return written, failed
