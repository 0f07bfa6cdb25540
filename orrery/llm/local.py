"""The embedded model: llama.cpp in-process through `xllamacpp`, no server, no network.

Small models do not follow a chat template's tool-call format reliably, so every reply is
constrained by a JSON schema (llama.cpp turns it into a grammar): an `anyOf` over
`{"tool": <name>, "arguments": <that tool's parameters>}` objects, plus `{"answer": ...}`
when the model may also reply in prose. The tools are described in the system prompt and
earlier tool calls and results are written into the history as plain text in the same format.
"""

from __future__ import annotations

import json
import os
import re
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from orrery.errors import ModelError
from orrery.messages import Message, ModelResponse, ToolCall, ToolSpec, Usage

# Keywords dropped before grammar building: length bounds make llama.cpp's grammar explode in
# size (length is bounded with max_tokens instead); the rest only annotate.
UNSUPPORTED_KEYWORDS = frozenset({"maxLength", "minLength", "maxItems", "minItems", "uniqueItems",
                                  "format", "pattern", "$schema", "$id", "title", "examples", "default",
                                  "deprecated", "readOnly", "writeOnly", "$comment"})
# Keywords whose value maps names to schemas (the names must be kept, the schemas cleaned).
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
# What the tool block follows when the caller gave no system prompt (measured: without it the
# model picked the wrong tool more often).
DEFAULT_SYSTEM = "You are a helpful assistant."
_TOOL_START = re.compile(r'\s*\{\s*"tool"\s*:\s*"([^"]+)"')
_ANSWER_START = re.compile(r'\s*\{\s*"answer"\s*:\s*"')
_REF = re.compile(r"^#/(?:\$defs|definitions)/(.+)$")


def clean_schema(schema: Any, ref_prefix: str = "") -> Any:
    """A copy of `schema` ready for grammar building: unsupported keywords dropped, objects closed
    (a 0.5B model otherwise invents extra keys), local `$ref`s renamed with `ref_prefix`.
    `$defs` are left in place; `tool_call_schema` hoists them to the top."""
    if isinstance(schema, list):
        return [clean_schema(s, ref_prefix) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in UNSUPPORTED_KEYWORDS:
            continue
        if key in ("const", "enum"):  # literal values, not schemas
            out[key] = value
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            names = {f"{ref_prefix}{n}": v for n, v in value.items()} if key in ("$defs", "definitions") else value
            out["$defs" if key == "definitions" else key] = {n: clean_schema(v, ref_prefix) for n, v in names.items()}
        elif key == "$ref" and isinstance(value, str) and (m := _REF.match(value)):
            out[key] = f"#/$defs/{ref_prefix}{m.group(1)}"
        else:
            out[key] = clean_schema(value, ref_prefix)
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def _arguments_schema(parameters: dict[str, Any], ref_prefix: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(arguments schema, its hoisted $defs)."""
    args = clean_schema(parameters or {}, ref_prefix)
    defs = args.pop("$defs", {})
    if args.get("type") in (None, "object") and "properties" not in args and "anyOf" not in args:
        args = {"type": "object", "properties": {}, "additionalProperties": False}
    args.setdefault("type", "object")
    return args, defs


def tool_call_schema(tools: Sequence[ToolSpec], *, allow_answer: bool = True,
                     answer_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The reply schema: one `{"tool", "arguments"}` alternative per tool and, when `allow_answer`,
    `{"answer": <answer_schema or string>}` for a final reply."""
    alternatives: list[dict[str, Any]] = []
    all_defs: dict[str, Any] = {}
    for tool in tools:
        args, defs = _arguments_schema(tool.parameters, f"{tool.name}__")
        all_defs.update(defs)
        alternatives.append({"type": "object",
                             "properties": {"tool": {"const": tool.name}, "arguments": args},
                             "required": ["tool", "arguments"], "additionalProperties": False})
    if allow_answer:
        answer: dict[str, Any] = {"type": "string"}
        if answer_schema is not None:
            answer = clean_schema(answer_schema, "answer__")
            all_defs.update(answer.pop("$defs", {}))
        alternatives.append({"type": "object", "properties": {"answer": answer},
                             "required": ["answer"], "additionalProperties": False})
    if not alternatives:
        raise ValueError("a reply schema needs at least one tool or the answer alternative")
    schema: dict[str, Any] = {"anyOf": alternatives}
    if all_defs:
        schema["$defs"] = all_defs
    return schema


def describe_tools(tools: Sequence[ToolSpec], *, allow_answer: bool, answer_is_json: bool = False) -> str:
    """The system-prompt block that tells the model which tools exist and how to reply.
    It follows Qwen2.5's own tool prompt (`<tools>` of OpenAI function specs), which the model
    follows far better than a terse listing (5 of 6 right calls against 2 of 6, measured)."""
    specs = "\n".join(json.dumps(ToolSpec(t.name, t.description, clean_schema(t.parameters or {})).to_openai(),
                                 ensure_ascii=False) for t in tools)
    lines = ["# Tools", "", "You may call one or more functions to assist with the user query.", "",
             "You are provided with function signatures within <tools></tools> XML tags:",
             "<tools>", specs, "</tools>", "",
             'To call a function, reply with a JSON object: {"tool": <function-name>, "arguments": <args-json-object>}']
    if allow_answer:
        what = "your reply as JSON in the requested format" if answer_is_json else "your reply as text"
        lines.append(f'If none of the functions fits the request, reply with {{"answer": <{what}>}} instead.')
    else:
        lines.append("You must call one of the functions now.")
    return "\n".join(lines)


def call_text(call: ToolCall) -> str:
    """An earlier tool call written back in the format the model itself replies in."""
    return json.dumps({"tool": call.name, "arguments": call.arguments}, ensure_ascii=False)


def render_messages(messages: Sequence[Message], system_extra: str = "") -> list[dict[str, str]]:
    """Chat-template-safe OpenAI messages: only system/user/assistant roles with text content.
    Assistant tool calls become their JSON text, tool results become user turns; consecutive
    turns of one role are merged (some templates require alternation)."""
    names = {c.id: c.name for m in messages for c in m.tool_calls}
    out: list[dict[str, str]] = []
    for m in messages:
        if m.role == "tool":
            name = m.name or names.get(m.tool_call_id or "", "tool")
            role, text = "user", f"Result of {name}:\n{m.content}"
        elif m.role == "assistant" and m.tool_calls:
            role, text = "assistant", "\n".join([m.content] * bool(m.content) + [call_text(c) for c in m.tool_calls])
        else:
            role, text = m.role, m.content
        if out and out[-1]["role"] == role:
            out[-1]["content"] += "\n\n" + text
        else:
            out.append({"role": role, "content": text})
    if system_extra:
        if out and out[0]["role"] == "system":
            out[0]["content"] = f"{out[0]['content']}\n\n{system_extra}"
        else:
            out.insert(0, {"role": "system", "content": f"{DEFAULT_SYSTEM}\n\n{system_extra}"})
    return out


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:16]}"


def parse_tool_reply(text: str, tools: Sequence[ToolSpec], *, answer_is_json: bool = False
                     ) -> tuple[str, list[ToolCall]]:
    """(content, tool calls) from a reply constrained by `tool_call_schema`.
    `strict=False`: the grammar lets raw control characters into strings."""
    start = _ANSWER_START.match(text)
    if start and not answer_is_json and not _is_json(text):
        # A text answer cut at max_tokens is kept, as OpenAI keeps truncated content: close the
        # string after dropping a half-written escape.
        body = re.sub(r"\\u[0-9a-fA-F]{0,3}$", "", text[start.end():])
        if (len(body) - len(body.rstrip("\\"))) % 2:
            body = body[:-1]
        return json.loads(f'"{body}"', strict=False), []
    if tools and (cut := _TOOL_START.match(text)) and not _is_json(text):
        # A call cut at max_tokens (small models sometimes repeat inside a string): hand it to the
        # loop as a malformed call, so the model sees why and the run goes on.
        return "", [ToolCall(new_call_id(), cut.group(1), {}, error="the call was cut at max_tokens before its "
                             "arguments ended; send shorter arguments")]
    data = normalize_json(text, parse=True)
    if "tool" in data:
        known = {t.name for t in tools}
        if data["tool"] not in known:  # only possible if the grammar was not applied
            raise ModelError(f"the local model called unknown tool {data['tool']!r}; offered: {sorted(known)}")
        return "", [ToolCall(new_call_id(), data["tool"], data.get("arguments") or {})]
    answer = data["answer"]
    return (json.dumps(answer, ensure_ascii=False) if answer_is_json else str(answer)), []


def _is_json(text: str) -> bool:
    try:
        json.loads(text, strict=False)
    except json.JSONDecodeError:
        return False
    return True


def normalize_json(text: str, parse: bool = False) -> Any:
    """Re-serialize a constrained JSON reply so strict parsers accept it (no raw newlines in strings);
    with `parse`, return the parsed value instead."""
    try:
        value = json.loads(text, strict=False)
        return value if parse else json.dumps(value, ensure_ascii=False)
    except json.JSONDecodeError as exc:
        raise ModelError(f"the local model's reply is not complete JSON ({exc.msg}); it was probably cut at "
                         f"max_tokens: raise max_tokens. Reply: {text[:200]!r}") from exc


class LocalModel:
    """A `Model` backed by a GGUF file run in this process (default: the embedded Qwen2.5-Coder-0.5B).

    Loads on first use; calls are serialized by a lock (one llama.cpp slot)."""

    def __init__(self, path: str | Path | None = None, n_ctx: int = 8192, n_threads: int = 2,
                 max_tokens: int = 512):
        self.name = "local"
        self.path = Path(path) if path is not None else None
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.max_tokens = max_tokens
        self._server: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Load the weights now (otherwise done by the first call)."""
        with self._lock:
            self._load_locked()

    def _load_locked(self) -> Any:
        if self._server is None:
            # OpenMP busy-waits by default, which collapses throughput on a loaded 2-core machine;
            # this only takes effect if set before llama.cpp's OpenMP runtime starts.
            os.environ.setdefault("OMP_WAIT_POLICY", "passive")
            import xllamacpp

            from orrery.llm.weights import default_model_path

            if self.path is None:
                self.path = default_model_path()
            params = xllamacpp.CommonParams()
            params.model.path = str(self.path)
            params.n_ctx = self.n_ctx
            params.n_parallel = 1
            params.cpuparams.n_threads = self.n_threads
            params.cpuparams_batch.n_threads = self.n_threads
            params.sampling.temp = 0.0
            params.use_jinja = True
            params.verbosity = -1
            self._server = xllamacpp.Server(params)
        return self._server

    def chat(self, request: dict[str, Any]) -> dict[str, Any]:
        """One raw llama.cpp chat completion (OpenAI request/response dicts)."""
        with self._lock:
            server = self._load_locked()
            result = server.handle_chat_completions(request)
        if "error" in result:
            err = result["error"]
            raise ModelError(f"the local model failed: {err.get('message', err) if isinstance(err, dict) else err}")
        return result

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), *,
                 tool_choice: str = "auto", schema: dict[str, Any] | None = None,
                 max_tokens: int | None = None) -> ModelResponse:
        if tool_choice == "none":
            tools = ()
        request: dict[str, Any] = {"max_tokens": max_tokens or self.max_tokens, "temperature": 0.0}
        reply_schema: dict[str, Any] | None = None
        system_extra = ""
        if tools:
            allow_answer = tool_choice != "required"
            reply_schema = tool_call_schema(tools, allow_answer=allow_answer, answer_schema=schema)
            system_extra = describe_tools(tools, allow_answer=allow_answer, answer_is_json=schema is not None)
        elif schema is not None:
            reply_schema = clean_schema(schema)
        elif any(m.tool_calls or m.role == "tool" for m in messages):
            # After tool traffic, a tool-less turn imitates the earlier JSON calls: constrain it to an answer.
            reply_schema = {"type": "object", "properties": {"answer": {"type": "string"}},
                            "required": ["answer"], "additionalProperties": False}
        if reply_schema is not None:
            request["response_format"] = {"type": "json_schema",
                                          "json_schema": {"name": "reply", "schema": reply_schema}}
        request["messages"] = render_messages(messages, system_extra)
        result = self.chat(request)
        text = result["choices"][0]["message"].get("content") or ""
        usage = Usage(result["usage"]["prompt_tokens"], result["usage"]["completion_tokens"])
        if tools:
            content, calls = parse_tool_reply(text, tools, answer_is_json=schema is not None)
            return ModelResponse(content, calls, usage)
        if schema is not None:
            return ModelResponse(normalize_json(text), [], usage)
        if reply_schema is not None:  # the answer-only schema: parsed like an answer to a tool-call schema
            return ModelResponse(parse_tool_reply(text, ())[0], [], usage)
        return ModelResponse(text, [], usage)
