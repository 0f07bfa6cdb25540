"""The one interface every LLM provider implements."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from orrery.messages import Message, ModelResponse, ToolSpec


@dataclass(frozen=True)
class ModelProfile:
    """What a provider declares about how to talk to it (after pydantic-ai's `ModelProfile`): the loop and the
    architectures read `model.profile` (through `profile_of`) instead of probing attributes or class names."""

    format: Literal["native", "react"] = "native"  # tool calls as the API's own fields, or as JSON in the text
    parallel_calls: bool = True  # may reply with several tool calls in one turn
    streams: bool = False  # has `stream()` yielding `Delta`s
    takes_catalogue: bool = False  # `complete`/`stream` accept `catalogue=` (every tool, for a stable prompt prefix)
    narrow_tools: bool = False  # does best when shown few tools on a guided path (a small model)
    output_mode: Literal["schema", "tool"] = "schema"  # structured output: a response schema, or a final tool


def profile_of(model: Any) -> ModelProfile:
    """`model.profile`, or for a provider written before profiles one derived from its attributes."""
    profile = getattr(model, "profile", None)
    if isinstance(profile, ModelProfile):
        return profile
    return ModelProfile(
        format=getattr(model, "preferred_format", "native"),
        streams=callable(getattr(model, "stream", None)),
        takes_catalogue=bool(getattr(model, "takes_catalogue", False)),
        output_mode=getattr(model, "output_mode", "schema"),
    )


@runtime_checkable
class Model(Protocol):
    """An LLM provider.

    `complete` answers one chat turn. With `tools`, the reply may hold tool calls; with
    `schema` (a JSON schema), the reply's `content` is a JSON document matching it.
    `tool_choice` is "auto", "required" or "none". `profile` says what else it takes (`ModelProfile`).
    """

    name: str
    profile: ModelProfile

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


def stream(
    model: Model,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec] = (),
    *,
    tool_choice: str = "auto",
    schema: dict[str, Any] | None = None,
    max_tokens: int | None = None,
    catalogue: Sequence[ToolSpec] | None = None,
) -> Iterator[Delta]:
    """Stream from any model: its own `stream` where it has one, else the whole reply as one delta.
    `catalogue` (every tool the agent may offer in this run) goes to models whose profile `takes_catalogue`: they
    keep it in a stable prompt prefix (a prompt cache hit each step) and constrain the reply to `tools`."""
    profile = profile_of(model)
    extra = {"catalogue": catalogue} if catalogue is not None and profile.takes_catalogue else {}
    if profile.streams:
        yield from model.stream(messages, tools, tool_choice=tool_choice, schema=schema, max_tokens=max_tokens, **extra)
        return
    resp = model.complete(messages, tools, tool_choice=tool_choice, schema=schema, max_tokens=max_tokens, **extra)
    yield Delta(text=resp.content or "", response=resp)
