"""What the architectures share: the `EventSource` shape (stream -> run / astream, handlers) and model calls as
event generators — a schema-constrained JSON reply, and a tool-less answer streamed as tokens. Use them with
`value = yield from ask_json(...)`."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Sequence
from contextlib import closing, nullcontext
from typing import Any, TypeVar

import pydantic

from orrery.errors import ModelError
from orrery.events import HOOKS, Event, Final, ModelCall, ModelReply, Token, aiterate, env_hooks
from orrery.llm.base import Model
from orrery.llm.base import stream as llm_stream
from orrery.messages import Message, ModelResponse, Usage

T = TypeVar("T", bound=pydantic.BaseModel)
Emit = Callable[[Event], None]


def consume(events: Iterator[Event], emit: Emit = lambda _: None) -> Any:
    """Drive a stream to its end, passing each event to `emit`; returns the `Final` event's result. When `emit`
    raises (a handler stopping the run, Ctrl-C), the stream is closed, which stops the tools it is running."""
    result = None
    with closing(events) if hasattr(events, "close") else nullcontext():
        for event in events:
            emit(event)
            if isinstance(event, Final):
                result = event.result
    return result


class EventSource:
    """The one agent shape: a subclass defines `stream(task, **kwargs)`; `run` consumes it, passing every event
    to `handlers` (console view, trace), and returns what the `Final` event carries; `astream` is for asyncio."""

    handlers: list[Emit]

    def stream(self, task: str, **kwargs: Any) -> Iterator[Event]:
        raise NotImplementedError

    def run(self, task: str, **kwargs: Any) -> Any:
        env_hooks()
        return consume(self.stream(task, **kwargs), self.emit)

    def astream(self, task: str, **kwargs: Any) -> AsyncIterator[Event]:
        """`stream()` for asyncio: the run in a worker thread, closed when the consumer stops."""
        return aiterate(self.stream(task, **kwargs))

    def emit(self, event: Event) -> None:
        for h in self.handlers:
            h(event)
        for h in HOOKS:
            h(event)


def ask_json(
    model: Model,
    messages: Sequence[Message],
    schema: dict[str, Any],
    reply: type[T],
    *,
    usage: Usage,
    max_tokens: int | None = None,
) -> Generator[Event, None, T]:
    """One schema-constrained model call, parsed into `reply`; a reply that does not match is a ModelError."""
    yield ModelCall(0, 0, len(messages), [], getattr(model, "name", ""))
    t0 = time.monotonic()
    resp = model.complete(messages, (), tool_choice="none", schema=schema, max_tokens=max_tokens)
    yield ModelReply(resp, time.monotonic() - t0)
    usage += resp.usage  # Usage.__iadd__ updates the caller's object in place
    try:
        return reply.model_validate_json(resp.content)
    except pydantic.ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'reply'}: {e['msg']}" for e in exc.errors())
        raise ModelError(
            f"model {model.name!r} replied {resp.content[:200]!r}, which does not match the "
            f"{reply.__name__} schema ({problems})"
        ) from exc


def synthesize(
    model: Model, messages: Sequence[Message], *, usage: Usage, max_tokens: int | None = None
) -> Generator[Event, None, str]:
    """A final answer with tools disabled, streamed as `Token` events (one per chunk the model gives)."""
    yield ModelCall(0, 0, len(messages), [], getattr(model, "name", ""))
    t0 = time.monotonic()
    resp = ModelResponse()
    for d in llm_stream(model, messages, (), tool_choice="none", max_tokens=max_tokens):
        if d.text:
            yield Token(d.text)
        resp = d.response or resp
    yield ModelReply(resp, time.monotonic() - t0)
    usage += resp.usage
    return resp.content
