"""A deterministic model that replays assistant turns: for tests and trace replay."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from orrery.errors import ModelError
from orrery.llm.base import Delta, ModelProfile
from orrery.messages import Message, ModelResponse, ToolCall, ToolSpec, Usage

Turn = ModelResponse | str | dict[str, Any] | Callable[[Sequence[Message]], ModelResponse | str]


def call(name: str, **arguments: Any) -> ToolCall:
    """Shorthand for a tool call in a script: `call("calculate", expression="2+2")`."""
    return ToolCall(
        id=f"call_{name}_{abs(hash(json.dumps(arguments, sort_keys=True, default=str))) % 10**8}",
        name=name,
        arguments=arguments,
    )


def turn(*calls: ToolCall, content: str = "") -> ModelResponse:
    """One assistant turn with zero or more tool calls."""
    return ModelResponse(content=content, tool_calls=list(calls))


class ScriptedModel:
    """Replays `turns` in order. A turn is a ModelResponse, a text answer, a JSON-able dict
    (sent as content, for the ReAct format) or a function of the messages seen so far.
    Records every request in `requests` so tests can assert what the model was shown."""

    name = "scripted"
    profile = ModelProfile(streams=True)  # a test may give another one: `ScriptedModel(turns, profile=...)`

    def __init__(
        self, turns: Iterable[Turn], *, usage_per_call: Usage | None = None, profile: ModelProfile | None = None
    ):
        self.turns = list(turns)
        self.index = 0
        self.requests: list[dict[str, Any]] = []
        self.usage_per_call = usage_per_call or Usage(10, 5)
        if profile is not None:
            self.profile = profile

    @property
    def seen(self) -> list[list[Message]]:
        """The messages of every call so far, in order."""
        return [r["messages"] for r in self.requests]

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        tool_choice: str = "auto",
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> ModelResponse:
        self.requests.append(
            {
                "messages": list(messages),
                "tools": [t.name for t in tools],
                "specs": list(tools),
                "schema": schema,
                "tool_choice": tool_choice,
                "max_tokens": max_tokens,
            }
        )
        if self.index >= len(self.turns):
            raise ModelError(f"scripted model ran out of turns after {len(self.turns)}; add more turns to the script")
        t = self.turns[self.index]
        self.index += 1
        if callable(t):
            t = t(messages)
        if isinstance(t, str):
            t = ModelResponse(content=t)
        elif isinstance(t, dict):
            t = ModelResponse(content=json.dumps(t))
        return ModelResponse(
            t.content,
            [ToolCall(c.id, c.name, dict(c.arguments), c.error) for c in t.tool_calls],
            Usage(self.usage_per_call.prompt_tokens, self.usage_per_call.completion_tokens),
        )

    def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        tool_choice: str = "auto",
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Iterator[Delta]:
        """The next turn as a provider streams it: the text word by word, each tool call's arguments as
        one piece, then the whole reply."""
        resp = self.complete(messages, tools, tool_choice=tool_choice, schema=schema, max_tokens=max_tokens)
        for word in re.findall(r"\S+\s*|\s+", resp.content):
            yield Delta(text=word)
        for i, c in enumerate(resp.tool_calls):
            yield Delta(index=i, id=c.id, name=c.name, arguments=json.dumps(c.arguments))
        yield Delta(response=resp)
