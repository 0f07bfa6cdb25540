"""Typed messages, tool calls and model responses shared by every layer."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(slots=True)
class ToolCall:
    """One call the model asked for. `error` is set when its arguments did not parse."""

    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @classmethod
    def from_json(cls, id: str, name: str, raw: str | dict | None) -> ToolCall:
        """Parse provider-side JSON arguments; malformed JSON is kept as an error, not raised."""
        if isinstance(raw, dict):
            return cls(id, name, raw)
        if not raw:
            return cls(id, name, {})
        try:
            args = json.loads(raw, strict=False)
        except json.JSONDecodeError as exc:
            return cls(id, name, {}, error=f"arguments are not valid JSON ({exc.msg} at char {exc.pos}): {raw[:200]!r}")
        if not isinstance(args, dict):
            return cls(id, name, {}, error=f"arguments must be a JSON object, got {type(args).__name__}")
        return cls(id, name, args)

    def to_openai(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments)},
        }


@dataclass(slots=True)
class Message:
    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    pinned: bool = False  # a board message re-injected each step (never stored in history)

    def to_openai(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [c.to_openai() for c in self.tool_calls]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        return out

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Message:
        calls = [ToolCall(**c) for c in d.get("tool_calls", [])]
        return cls(**{**d, "tool_calls": calls})


@dataclass(slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __iadd__(self, other: Usage) -> Usage:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        return self


@dataclass(slots=True)
class ToolSpec:
    """What the model is shown of a tool: a name, a description and a JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]

    def to_openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


@dataclass(slots=True)
class ModelResponse:
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)

    def to_message(self) -> Message:
        return Message("assistant", self.content, list(self.tool_calls))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ModelResponse:
        return cls(d.get("content", ""), [ToolCall(**c) for c in d.get("tool_calls", [])], Usage(**d.get("usage", {})))
