"""One agent run on a worker thread, its events bridged to the server's event loop, and what its result shows.

Today's agents emit events to handlers while `run()` blocks, so the run goes to a thread and each event
crosses to asyncio through a queue. A cancelled run (client gone, time limit) is stopped by raising
`Cancelled` from the handler at the agent's next event, i.e. at its next step, model call or tool call.
"""

from __future__ import annotations

import asyncio
import math
import os
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from orrery.errors import Cancelled, ConfigError
from orrery.events import HOOKS, Event, Final
from orrery.files import remove
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


def drive(agent: Any, task: str, inputs: dict[str, Any], handler: Callable[[Event], None],
          resume: tuple[dict[str, Any], dict[str, Any]] | None = None) -> Any:
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
    result = None
    with closing(events):
        for event in events:
            handler(event)
            for hook in HOOKS:
                hook(event)
            if isinstance(event, Final):
                result = event.result
    return result


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
PROTOCOL_STATUSES = {"paused", "cancelled", "error"}


def status_of(result: Any) -> str:
    status = str(getattr(result, "status", "completed"))
    return status if status in PROTOCOL_STATUSES else "completed"


def summary_of(result: Any) -> dict[str, Any]:
    """RUN_FINISHED.result: the app's own status word and the artifact names."""
    return {"status": str(getattr(result, "status", "completed"))}


def write_artifacts(result: Any, data: Path, run_id: str) -> tuple[list[str], list[str]]:
    """result.json (an app result's to_json) and plot.png (its plot) in the run's folder `data/runs/<run_id>`:
    (the names written, one line for each that failed). They are made in a new folder and renamed into place,
    so a run never writes through a link, outside `data` or over another run's folder."""
    makers: list[tuple[str, Callable[[Path], Any]]] = []
    if callable(getattr(result, "to_json", None)):
        makers.append(("result.json", lambda p: p.write_text(result.to_json())))
    if callable(getattr(result, "plot", None)) and len(getattr(result, "history", ())):
        makers.append(("plot.png", result.plot))
    if not makers:
        return [], []
    written, failed = [], []
    try:
        (data / "runs").mkdir(exist_ok=True)
        tmp = inside(data, "runs", f".{run_id}.{uuid.uuid4().hex[:8]}.tmp")
        tmp.mkdir()
    except (OSError, ValueError) as exc:
        return [], [f"{name}: {exc}" for name, _ in makers]
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


def views_of(result: Any) -> list[tuple[str, Any]]:
    """CUSTOM events and state snapshots for the web app: ("custom:NAME", value) or ("state", snapshot)."""
    out: list[tuple[str, Any]] = []
    if hasattr(result, "forecasts") and hasattr(result, "history"):
        out.append(("custom:orrery.forecast", _forecast_view(result)))
        if result.accuracy:
            rows = [{"model": m, "mean MASE": _num(a["mean"]), **{f"window {i + 1}": _num(w)
                     for i, w in enumerate(a["windows"])}} for m, a in result.accuracy.items()]
            out.append(("custom:orrery.table", {"title": "Cross-validation (MASE, lower is better)", "rows": rows}))
    if hasattr(result, "sources") and hasattr(result, "probability"):
        board = [s.to_dict() if hasattr(s, "to_dict") else dict(vars(s)) for s in result.sources]
        out.append(("state", {"board": {"sources": _plain(board), "notes": _plain(getattr(result, "notes", [])),
                                        "probability": result.probability}}))
    return out


def _forecast_view(result: Any) -> dict[str, Any]:
    d = result.to_dict()
    history = [{"unique_id": str(r["unique_id"]), "ds": str(r["ds"])[:10], "y": _num(r["y"])}
               for r in result.history.to_dict("records")]
    return {"best_model": d["best_model"], "beats_baseline": d["beats_baseline"], "history": history,
            "forecasts": _plain(d["forecasts"]), "anomalies": _plain(d["anomalies"])}


def _num(x: Any) -> float | None:
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else round(x, 6)


def _plain(value: Any) -> Any:
    """JSON-ready: NaN/inf become null (JSON has neither), dates and other objects become strings."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if value is None or isinstance(value, str | int | bool):
        return value
    if hasattr(value, "item"):  # numpy scalars
        return _plain(value.item())
    return str(value)
