"""OpenTelemetry traces of every run: an event consumer that turns a run's events into spans.

    invoke_agent {agent}            RunStart .. Final        (agent: the run's name: an app's or an architecture's)
      step {n}                      StepStart .. StepEnd
        chat {model}                ModelCall .. ModelReply  (gen_ai.usage.input_tokens / output_tokens)
        execute_tool {name}         ToolCallEvent .. ToolResultEvent (gen_ai.tool.name, gen_ai.tool.call.id)
          {stage}                   an app's `orrery.events.stage(...)` inside the tool (cv, SQL, search)

Attributes follow the OpenTelemetry GenAI semantic conventions (`gen_ai.operation.name`, `gen_ai.request.model`,
`gen_ai.agent.name`, `gen_ai.usage.*`, `gen_ai.tool.*`). The other events (classification, route, plan, TODOs,
retries, clarifications, approvals, state snapshots, errors) become span events on the innermost open span.
Prompts, answers, tool arguments and results are recorded only when asked (`capture_content=True`, or
`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`).

Turn it on with `orrery --otel ...`, with `OTEL_EXPORTER_OTLP_ENDPOINT` set (any agent's `run()` then exports
over OTLP/HTTP), or in code: `orrery.otel.setup("http://127.0.0.1:4318")`, or `instrument()` to use a tracer
provider you configured. Off, nothing here is imported: `opentelemetry` is loaded only by this module (extra `otel`).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import numbers
import os
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from orrery import events as ev
from orrery.errors import ConfigError
from orrery.messages import ToolCall

try:
    from opentelemetry import trace
    from opentelemetry.trace import Span, SpanKind, StatusCode
except ImportError as exc:  # pragma: no cover - the extra is missing
    raise ConfigError("OpenTelemetry tracing needs the otel extra: pip install 'orrery[otel]'") from exc

CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
MAX_ATTRIBUTE = 4096  # characters of captured content kept per attribute
_QUIET = {"token", "tool_call_delta", "partial_output", "progress"}  # too many to record one by one


@dataclass
class _Frame:
    """The open spans of one run."""

    run: Span
    step: Span | None = None
    model: Span | None = None
    tools: dict[str, Span] = field(default_factory=dict)
    watched: dict[str, tuple[int, ev.StageOpener]] = field(default_factory=dict)  # call id -> its stage opener

    def innermost(self) -> Span:
        return self.model or self.step or self.run


def _attribute(value: Any) -> Any:
    """A value OpenTelemetry takes: a bool, number, string or a list of them; anything else as text."""
    if isinstance(value, bool | str):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, list | tuple) and all(isinstance(v, bool | str | int | float) for v in value):
        return list(value)
    return str(value)[:MAX_ATTRIBUTE]


def _attributes(values: Mapping[str, Any]) -> dict[str, Any]:
    return {(k if "." in k else f"orrery.{k}"): _attribute(v) for k, v in values.items()}


class _SpanStage(ev.Stage):
    __slots__ = ("span",)

    def __init__(self, span: Span):
        self.span = span

    def set(self, **attributes: Any) -> None:
        self.span.set_attributes(_attributes(attributes))


class SpanRecorder:
    """An event handler (`on_event=[SpanRecorder()]`, or process-wide through `instrument()`) writing spans.
    State is per thread, so one recorder serves runs in several threads. A run started while a tool runs (in
    the tool's thread) is a child of that tool's span; a run whose stream was closed before its `Final` is ended
    with `orrery.status = cancelled` when the next run starts."""

    def __init__(self, tracer_provider: Any = None, *, capture_content: bool | None = None, parent: Any = None):
        """`parent`: an OpenTelemetry context the top run's span continues (`context_from(headers)` reads a
        request's `traceparent`); by default the current one (a span your code has open), else a new trace."""
        self.tracer = trace.get_tracer("orrery", tracer_provider=tracer_provider)
        self.parent = parent
        if capture_content is None:
            capture_content = os.environ.get(CAPTURE_ENV, "").lower() in ("1", "true", "yes")
        self.capture = capture_content
        self._local = threading.local()

    @property
    def _frames(self) -> list[_Frame]:
        frames = getattr(self._local, "frames", None)
        if frames is None:
            frames = self._local.frames = []
        return frames

    def _start(
        self, name: str, parent: Span | None, attributes: dict[str, Any], kind: SpanKind = SpanKind.INTERNAL
    ) -> Span:
        context = trace.set_span_in_context(parent) if parent is not None else None
        return self.tracer.start_span(name, context=context, kind=kind, attributes=attributes)

    def _text(self, value: Any) -> str:
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        return text[:MAX_ATTRIBUTE]

    def __call__(self, event: ev.Event) -> None:
        kind = event.kind
        if kind in _QUIET:
            return
        handler = getattr(self, f"_on_{kind}", None)
        frames = self._frames
        if handler is not None:
            if kind == "run_start" or frames:
                handler(event)
        elif frames:
            self._note(frames[-1], event)

    # -- spans --------------------------------------------------------------------------------------
    def _on_run_start(self, e: ev.RunStart) -> None:
        frames = self._frames
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": e.agent,
            "orrery.tools": list(e.tools),
        }
        if self.capture:
            attrs["gen_ai.input.messages"] = self._text(
                [{"role": "user", "parts": [{"type": "text", "content": e.task}]}]
            )
        while frames and not frames[-1].tools:  # a run whose stream was closed before its Final (Ctrl-C)
            self._close(frames.pop(), "cancelled")
        if frames:  # a run inside a running tool (in the tool's thread)
            tools = frames[-1].tools
            span = self._start(f"invoke_agent {e.agent}", tools[next(reversed(tools))], attrs)
        else:
            span = self.tracer.start_span(f"invoke_agent {e.agent}", context=self.parent, attributes=attrs)
        frames.append(_Frame(span))

    def _on_step_start(self, e: ev.StepStart) -> None:
        f = self._frames[-1]
        if f.step is not None:
            f.step.end()
        f.step = self._start(f"step {e.step}", f.run, {"orrery.step": e.step})

    def _on_step_end(self, _e: ev.StepEnd) -> None:
        f = self._frames[-1]
        self._end_tools(f)  # a call whose result never came (a paused or stopped step)
        if f.step is not None:
            f.step.end()
            f.step = None

    def _on_model_call(self, e: ev.ModelCall) -> None:
        f = self._frames[-1]
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": e.model or "unknown",
            "orrery.messages": e.messages,
            "orrery.tools_offered": len(e.tools),
        }
        f.model = self._start(f"chat {e.model or 'unknown'}", f.step or f.run, attrs, SpanKind.CLIENT)

    def _on_model_reply(self, e: ev.ModelReply) -> None:
        f = self._frames[-1]
        span, f.model = f.model, None
        if span is None:
            return
        r = e.response
        span.set_attribute("gen_ai.usage.input_tokens", r.usage.prompt_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", r.usage.completion_tokens)
        span.set_attribute("gen_ai.response.finish_reasons", ["tool_calls" if r.tool_calls else "stop"])
        if self.capture:
            parts = ([{"type": "text", "content": r.content}] if r.content else []) + [
                {"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments} for c in r.tool_calls
            ]
            span.set_attribute("gen_ai.output.messages", self._text([{"role": "assistant", "parts": parts}]))
        span.end()

    def _on_tool_call(self, e: ev.ToolCallEvent) -> None:
        f = self._frames[-1]
        c = e.call
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": c.name,
            "gen_ai.tool.call.id": c.id,
            "gen_ai.tool.type": "function",
        }
        if self.capture:
            attrs["gen_ai.tool.call.arguments"] = self._text(c.arguments)
        span = f.tools[c.id] = self._start(f"execute_tool {c.name}", f.step or f.run, attrs)
        opener = partial(self._stage, span)
        ev.STAGE_OPENERS.setdefault(id(c), []).append(opener)
        f.watched[c.id] = (id(c), opener)

    @contextlib.contextmanager
    def _stage(
        self, parent: Span, name: str, attributes: dict[str, Any], content: Mapping[str, Any] | None
    ) -> Iterator[ev.Stage]:
        """A stage of a running tool call as a child of its span (an exception marks it as an error)."""
        attrs = {"orrery.stage": name, **_attributes(attributes)}
        if self.capture and content:
            attrs |= {k: self._text(v) for k, v in content.items()}
        with self.tracer.start_as_current_span(
            name, context=trace.set_span_in_context(parent), attributes=attrs
        ) as span:
            yield _SpanStage(span)

    def _unwatch(self, f: _Frame, call_id: str) -> None:
        key, opener = f.watched.pop(call_id, (0, None))
        openers = ev.STAGE_OPENERS.get(key, [])
        if opener in openers:
            openers.remove(opener)
        if not openers:
            ev.STAGE_OPENERS.pop(key, None)

    def _end_tools(self, f: _Frame) -> None:
        for call_id, span in f.tools.items():
            self._unwatch(f, call_id)
            span.end()
        f.tools.clear()

    def _on_tool_result(self, e: ev.ToolResultEvent) -> None:
        f = self._frames[-1]
        span = f.tools.pop(e.call.id, None)
        if span is None:  # a denied call (its ToolCallEvent was in the paused run): a span for its outcome
            self._on_tool_call(ev.ToolCallEvent(e.call))
            span = f.tools.pop(e.call.id)
        self._unwatch(f, e.call.id)
        span.set_attribute("orrery.tool.cached", e.cached)
        if self.capture:
            span.set_attribute("gen_ai.tool.call.result", self._text(e.content))
        if not e.ok:
            span.set_attribute("error.type", "tool_error")
            span.set_status(StatusCode.ERROR, e.content[:200] if self.capture else "the tool call failed")
        span.end()

    def _on_approval(self, e: ev.ApprovalDecision) -> None:
        """A resumed run's decision: an approved call's span starts here, and ends at its result."""
        f = self._frames[-1]
        self._note(f, e)
        if e.approved:
            self._on_tool_call(ev.ToolCallEvent(ToolCall(e.call_id, e.tool, e.arguments)))

    def _close(self, f: _Frame, status: str) -> None:
        self._end_tools(f)
        for span in [f.model, f.step]:
            if span is not None:
                span.end()
        f.run.set_attribute("orrery.status", status)
        if status == "cancelled":
            f.run.end()

    def _on_final(self, e: ev.Final) -> None:
        f = self._frames.pop()
        self._close(f, e.status)
        run = f.run
        usage = getattr(e.result, "usage", None)
        if usage is not None:
            run.set_attribute("gen_ai.usage.input_tokens", usage.prompt_tokens)
            run.set_attribute("gen_ai.usage.output_tokens", usage.completion_tokens)
        if self.capture:
            run.set_attribute(
                "gen_ai.output.messages",
                self._text([{"role": "assistant", "parts": [{"type": "text", "content": e.output}]}]),
            )
        if e.status == "error":
            run.set_attribute("error.type", "run_error")
            run.set_status(StatusCode.ERROR, e.output[:200] if self.capture else "the run failed")
        run.end()

    # -- everything else: span events ---------------------------------------------------------------
    def _note(self, f: _Frame, e: ev.Event) -> None:
        describe = _NOTES.get(type(e))
        attrs: dict[str, Any] = describe(e) if describe is not None else {}
        if isinstance(e, ev.ErrorEvent):
            f.run.set_attribute("error.type", "run_error")
        if self.capture:
            for name in ("question", "message", "text"):
                if isinstance(value := getattr(e, name, None), str):
                    attrs[f"orrery.{name}"] = value[:MAX_ATTRIBUTE]
        f.innermost().add_event(e.kind, attrs)


# The attributes of the events recorded as span events (others carry none).
_NOTES: dict[type, Any] = {
    ev.Classified: lambda e: {"orrery.type": e.type, "orrery.categories": list(e.categories)},
    ev.Routed: lambda e: {
        "orrery.selected_tools": list(e.selected_tools),
        "orrery.strategy": e.strategy,
        "orrery.complexity": e.complexity,
    },
    ev.IntentClassified: lambda e: {"orrery.intent": e.intent},
    ev.Planned: lambda e: {"orrery.todos": [t.get("key", "") for t in e.todos]},
    ev.TodoUpdate: lambda e: {"orrery.todo": e.key, "orrery.todo_status": e.status},
    ev.StateChanged: lambda e: {"orrery.state": e.name},
    ev.Retry: lambda e: {"orrery.attempt": e.attempt},
    ev.ApprovalRequired: lambda e: {
        "gen_ai.tool.call.id": [a["id"] for a in e.approvals],
        "gen_ai.tool.name": [a["tool"] for a in e.approvals],
    },
    ev.ApprovalDecision: lambda e: {
        "gen_ai.tool.call.id": e.call_id,
        "gen_ai.tool.name": e.tool,
        "orrery.approved": e.approved,
    },
}


def context_from(headers: Any) -> Any:
    """The context a request's W3C `traceparent` (and `tracestate`) header names, for `SpanRecorder(parent=...)`;
    an absent or malformed header gives a context with no parent (a new trace)."""
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    return TraceContextTextMapPropagator().extract({k.lower(): v for k, v in dict(headers).items()})


# -- turning it on -------------------------------------------------------------------------------------------
def instrument(tracer_provider: Any = None, *, capture_content: bool | None = None) -> SpanRecorder:
    """Record every agent's runs (their `run()`/`query()`/`resume()`) with `tracer_provider` (default: the
    global one you configured). Returns the recorder; `uninstrument(recorder)` stops it."""
    recorder = SpanRecorder(tracer_provider, capture_content=capture_content)
    ev.HOOKS.append(recorder)
    return recorder


def uninstrument(recorder: SpanRecorder) -> None:
    if recorder in ev.HOOKS:
        ev.HOOKS.remove(recorder)


def setup(
    endpoint: str | None = None, *, capture_content: bool | None = None, service_name: str | None = None
) -> SpanRecorder:
    """Export every run's spans over OTLP/HTTP to `endpoint` (a collector's base URL, e.g.
    http://127.0.0.1:4318; default: OTEL_EXPORTER_OTLP_ENDPOINT, else that URL). Spans are flushed at exit."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    base = endpoint or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or "http://127.0.0.1:4318"
    if not base.startswith(("http://", "https://")):
        raise ConfigError(f"OTLP endpoint {base!r} is not an http(s) URL; give e.g. http://127.0.0.1:4318")
    traces = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") if endpoint is None else None
    name = service_name or os.environ.get("OTEL_SERVICE_NAME") or "orrery"
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=traces or f"{base.rstrip('/')}/v1/traces"))
    )
    atexit.register(provider.shutdown)
    recorder = instrument(provider, capture_content=capture_content)
    recorder.provider = provider  # type: ignore[attr-defined]  # flush() / shutdown() for callers
    return recorder
