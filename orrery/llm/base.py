"""The one interface every LLM provider implements."""

from __future__ import annotations

from collections.abc import Sequence
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
