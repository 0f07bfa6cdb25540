"""The JSON reasoning (ReAct) format: {thought, action, tool_name, tool_input} in the content."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from orrery.messages import Message, ModelResponse, ToolCall, ToolSpec

INSTRUCTIONS = """Reply with one JSON object and nothing else:
{"thought": "<your reasoning>", "action": "tool" | "respond", "tool_name": "<tool, when action is tool>",
 "tool_input": {<arguments, when action is tool>}, "response": "<final answer, when action is respond>"}
Tools:
"""


def system_prompt(base: str, tools: Sequence[ToolSpec]) -> str:
    lines = [
        f"- {t.name}: {t.description} Arguments schema: {json.dumps(t.parameters.get('properties', {}))}" for t in tools
    ]
    return f"{base}\n\n{INSTRUCTIONS}" + ("\n".join(lines) or "(none)")


def schema(tools: Sequence[ToolSpec]) -> dict[str, Any]:
    names = [t.name for t in tools]
    if not names:  # no tool on offer this step: the reply must be the answer
        return {
            "type": "object",
            "required": ["thought", "action", "response"],
            "additionalProperties": False,
            "properties": {
                "thought": {"type": "string"},
                "action": {"enum": ["respond"]},
                "response": {"type": "string"},
            },
        }
    return {
        "type": "object",
        "required": ["thought", "action"],
        "properties": {
            "thought": {"type": "string"},
            "action": {"enum": ["tool", "respond"]},
            "tool_name": {"enum": names} if names else {"type": "string"},
            "tool_input": {"type": "object"},
            "response": {"type": "string"},
        },
    }


_FENCE = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.S)


def parse(resp: ModelResponse, step_id: str) -> tuple[str, ModelResponse]:
    """Turn a ReAct reply into (thought, native response). Text that is not JSON at all is a
    final answer; JSON that does not parse becomes a malformed tool call
    the loop reports back, so the model can correct it."""
    text = resp.content.strip()
    m = _FENCE.search(text)
    if m:
        text = m.group(1)
    if "{" not in text:
        return "", ModelResponse(resp.content, [], resp.usage)
    try:
        data = json.loads(text[text.index("{") : text.rfind("}") + 1 or len(text)], strict=False)
    except json.JSONDecodeError as exc:
        bad = ToolCall(step_id, "?", {}, error=f"reply is not valid JSON ({exc.msg}); reply with one JSON object")
        return "", ModelResponse("", [bad], resp.usage)
    thought = str(data.get("thought", ""))
    if data.get("action") == "tool":
        name = str(data.get("tool_name", ""))
        args = data.get("tool_input") or {}
        call = ToolCall.from_json(step_id, name, args if isinstance(args, dict) else json.dumps(args))
        return thought, ModelResponse("", [call], resp.usage)
    return thought, ModelResponse(str(data.get("response", "")), [], resp.usage)


def as_messages(raw_reply: str, results: Sequence[tuple[str, str]]) -> list[Message]:
    """History for the ReAct format: the raw JSON reply, then each observation as a user turn."""
    return [Message("assistant", raw_reply)] + [
        Message("user", f"Observation from {name}: {content}") for name, content in results
    ]
