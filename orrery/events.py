"""Typed events for every step of a run: the console view, traces and the server consume them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from orrery.messages import ModelResponse, ToolCall

Status = Literal["completed", "invalid", "max_rounds", "max_tokens", "timeout", "paused", "cancelled", "error"]
"""One vocabulary for how every run of every agent and app ends: completed; invalid (validators still
refuse after the retries); max_rounds / max_tokens / timeout (a limit); paused (waiting for a
clarification); cancelled (the caller stopped it); error (a model or tool failure ended it)."""


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
    kind: str = field(init=False, default="run_start")


@dataclass
class ModelCall(Event):
    round: int
    attempt: int
    messages: int
    tools: list[str]
    kind: str = field(init=False, default="model_call")


@dataclass
class ModelReply(Event):
    response: ModelResponse
    seconds: float
    kind: str = field(init=False, default="model_reply")


@dataclass
class Token(Event):
    text: str
    kind: str = field(init=False, default="token")


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
class Retry(Event):
    attempt: int
    message: str
    kind: str = field(init=False, default="retry")


@dataclass
class Clarification(Event):
    question: str
    kind: str = field(init=False, default="clarification")


@dataclass
class ErrorEvent(Event):
    message: str
    kind: str = field(init=False, default="error")


@dataclass
class Final(Event):
    status: str
    output: str
    kind: str = field(init=False, default="final")
