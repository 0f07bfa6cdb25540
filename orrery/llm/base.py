"""The one interface every LLM provider implements."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from orrery.messages import Message, ModelResponse, ToolSpec


@runtime_checkable
class Model(Protocol):
    """An LLM provider.

    `complete` answers one chat turn. With `tools`, the reply may hold tool calls; with
    `schema` (a JSON schema), the reply's `content` is a JSON document matching it.
    `tool_choice` is "auto", "required" or "none".
    """

    name: str

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        tool_choice: str = "auto",
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ModelResponse: ...


@dataclass
class Delta:
    """One piece of a streamed reply. Text arrives in `text`; a tool call's arguments arrive as partial JSON
    in `arguments` for the call at `index` (its `id` and `name` on its first piece). The last delta of a
    stream carries the whole reply in `response` (content, tool calls, usage), as `complete` would return it."""

    text: str = ""
    index: int | None = None
    id: str | None = None
    name: str | None = None
    arguments: str = ""
    response: ModelResponse | None = None


@runtime_checkable
class StreamingModel(Protocol):
    """A provider that streams: same arguments as `Model.complete`, yields `Delta`s, the last one complete."""

    def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        tool_choice: str = "auto",
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Iterator[Delta]: ...


def stream(model: Model, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *, tool_choice: str = "auto",
           schema: dict[str, Any] | None = None, max_tokens: int | None = None,
           catalogue: Sequence[ToolSpec] | None = None) -> Iterator[Delta]:
    """Stream from any model: its own `stream` where it has one, else the whole reply as one delta.
    `catalogue` (every tool the agent may offer in this run) goes to models that declare `takes_catalogue`: they
    keep it in a stable prompt prefix (a prompt cache hit each step) and constrain the reply to `tools`."""
    extra = {"catalogue": catalogue} if catalogue is not None and getattr(model, "takes_catalogue", False) else {}
    own = getattr(model, "stream", None)  # not isinstance(model, StreamingModel): a protocol check costs ~10 us
    if own is not None:
        yield from own(messages, tools, tool_choice=tool_choice, schema=schema, max_tokens=max_tokens, **extra)
        return
    resp = model.complete(messages, tools, tool_choice=tool_choice, schema=schema, max_tokens=max_tokens, **extra)
    yield Delta(text=resp.content or "", response=resp)
