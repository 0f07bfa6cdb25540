"""Typed outputs: `agent.run(task, output_type=T)` returns a validated `T` in `result.output`.

`T` is anything pydantic validates from JSON: a BaseModel, a dataclass, a `typing_extensions.TypedDict`, a list,
or a union of those with `str` (then a plain-text answer is accepted as the string). The model is asked for JSON
matching T's JSON schema, in one of two ways (`AgentConfig.output_mode`):

- "schema": the schema goes with every model call (`Model.complete(schema=...)`): the embedded model is
  grammar-constrained to it (a reply is a tool call or the JSON answer), OpenAI-compatible servers get
  `response_format: json_schema`, Ollama `format`.
- "tool": a `final_result` tool whose arguments are T, for servers that take tools but no response format.

While the answer streams (the text in "schema" mode, the `final_result` call's arguments in "tool" mode), the loop
yields `PartialOutput` events: the JSON parsed so far (a dict while the object is open; pydantic cannot validate
an object whose required fields have not arrived yet, so partials are not instances).

A schema whose root is not an object (a union, a list, a string) is wrapped as `{"response": ...}`, as the
providers' structured-output APIs want an object at the root; the wrapper is removed before validation.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from typing import Any

import pydantic
from pydantic_core import from_json

from orrery.errors import ConfigError
from orrery.messages import ToolSpec
from orrery.tools.core import render

FINAL_TOOL = "final_result"


class OutputInvalid(ValueError):
    """The model's answer does not validate against the output type: what is wrong with it."""


class OutputSpec:
    """An output type's schema, what the model is sent, and how its answer becomes a value."""

    def __init__(self, output_type: Any):
        self.type = output_type
        members = typing.get_args(output_type) if _is_union(output_type) else (output_type,)
        self.allows_text = str in members
        structured = [m for m in members if m is not str]
        try:
            self.adapter = pydantic.TypeAdapter(output_type)
            schema = pydantic.TypeAdapter(
                output_type if self.allows_text or not structured else _union(structured)
            ).json_schema()
        except pydantic.PydanticUserError as exc:
            raise ConfigError(f"output_type {output_type!r} cannot be validated: {exc.message}") from None
        except pydantic.errors.PydanticSchemaGenerationError as exc:
            raise ConfigError(
                f"output_type {output_type!r} has no JSON schema ({exc}); use a pydantic model, "
                "a dataclass or a TypedDict"
            ) from None
        self.wrapped = schema.get("type") != "object"
        if self.wrapped:
            defs = schema.pop("$defs", None)
            schema = {
                "type": "object",
                "properties": {"response": schema},
                "required": ["response"],
                **({"$defs": defs} if defs else {}),
            }
        self.schema = schema
        self.name = getattr(output_type, "__name__", None) or str(output_type)

    def tool_spec(self) -> ToolSpec:
        return ToolSpec(FINAL_TOOL, f"Give the final answer as a {self.name}; call it once you know it.", self.schema)

    def parse(self, text: str) -> Any:
        """The validated value of the model's answer; raises OutputInvalid with a message for the model."""
        try:
            data = from_json(text)
        except ValueError:
            if self.allows_text:
                return text
            raise OutputInvalid("Your answer is not JSON.") from None
        if self.wrapped:
            if not (isinstance(data, dict) and "response" in data):
                if self.allows_text and isinstance(data, str):
                    return data
                raise OutputInvalid('Your answer must be a JSON object {"response": ...}.')
            data = data["response"]
        try:
            return self.adapter.validate_python(data)
        except pydantic.ValidationError as exc:
            if self.allows_text and not isinstance(data, dict | list):
                return text
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']}" for e in exc.errors())
            raise OutputInvalid(f"Your answer does not match the {self.name} schema ({problems}).") from None

    def retry_message(self, problem: OutputInvalid, mode: str) -> str:
        """What the model reads after an invalid answer: the problem, then how to answer again."""
        how = (
            f"Call {FINAL_TOOL} again with arguments matching"
            if mode == "tool"
            else "Reply again with only JSON matching"
        )
        return f"{problem} {how}: {json.dumps(self.schema)}"

    def partial(self, text: str) -> Any:
        """The JSON parsed from an answer still being streamed (a dict while an object is open), or None."""
        try:
            data = from_json(text, allow_partial="trailing-strings")
        except ValueError:
            return None
        if self.wrapped and isinstance(data, dict):
            return data.get("response")
        return data

    @staticmethod
    def render(value: Any) -> str:
        """A validated value as the text a person (or a trace) reads: as a tool's value, a dataclass as its fields."""
        return render(dataclasses.asdict(value) if dataclasses.is_dataclass(value) else value)  # type: ignore[arg-type]


def _is_union(t: Any) -> bool:
    return typing.get_origin(t) in (typing.Union, types.UnionType)


def _union(members: list[Any]) -> Any:
    return members[0] if len(members) == 1 else typing.Union[tuple(members)]  # noqa: UP007 - built at run time
