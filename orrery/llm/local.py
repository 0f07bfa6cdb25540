"""The embedded model: llama.cpp in-process through `xllamacpp`, no server, no network.

Every reply with tools is constrained by a grammar (llama.cpp's llguidance), so a 0.5B model cannot
write a malformed call. Two reply layouts (`LAYOUTS`), chosen per model family by measurement
(bench/local_model.md):
- "native": the model's own format, for templates that know `<tool_call>` (Qwen2.5, Hermes): the tools
  in a `<tools>` system block, a call written `<tool_call>{"name": ..., "arguments": ...}</tool_call>`
  (or the bare JSON object, which Qwen2.5-Coder-0.5B writes), results as `<tool_response>` turns, and
  plain text for an answer.
- "json": `{"tool": <name>, "arguments": {...}}` or `{"answer": ...}`, one JSON schema over both.

The system prompt lists a stable catalogue of tools (`catalogue=`, default: the offered tools) and the
grammar admits only the tools offered now, so across the steps of a run the prompt prefix stays the
same and llama.cpp's prompt cache skips it. Replies stream token by token (`LocalModel.stream`).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import uuid
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from queue import SimpleQueue
from typing import Any

from orrery.errors import ModelError, ModelTimeout
from orrery.llm.base import Delta, ModelProfile
from orrery.messages import Message, ModelResponse, ToolCall, ToolSpec, Usage

# Keywords dropped before grammar building: length bounds make llama.cpp's grammar explode in
# size (length is bounded with max_tokens, and `bound_strings` for llguidance grammars); the rest only annotate.
UNSUPPORTED_KEYWORDS = frozenset(
    {
        "maxLength",
        "minLength",
        "maxItems",
        "minItems",
        "uniqueItems",
        "format",
        "pattern",
        "$schema",
        "$id",
        "title",
        "examples",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
    }
)
# Keywords whose value maps names to schemas (the names must be kept, the schemas cleaned).
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
# What the tool block follows when the caller gave no system prompt (measured: without it the
# model picked the wrong tool more often).
FALLBACK_SYSTEM = "You are a helpful assistant."
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


def bound_strings(schema: Any, limit: int) -> Any:
    """A copy of `schema` whose open strings hold at most `limit` characters and open arrays 4 items."""
    if isinstance(schema, list):
        return [bound_strings(s, limit) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: v if k in ("const", "enum") else bound_strings(v, limit) for k, v in schema.items()}
    types = out.get("type") if isinstance(out.get("type"), list) else [out.get("type")]
    if "string" in types and "enum" not in out and "const" not in out:
        out["maxLength"] = min(out.get("maxLength", limit), limit)
    if "array" in types:
        out["maxItems"] = min(out.get("maxItems", 4), 4)
    return out


def _string_slots(schema: Any) -> int:
    """How many strings of `bound_strings`'s limit a value of `schema` can hold at most."""
    if isinstance(schema, list):
        return sum(_string_slots(s) for s in schema)
    if not isinstance(schema, dict):
        return 0
    if "maxLength" in schema:
        return 1
    inner = sum(_string_slots(v) for k, v in schema.items() if k not in ("const", "enum"))
    return 4 * inner if "maxItems" in schema else inner


def _fit(args: dict[str, Any], defs: dict[str, Any], budget: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Arguments whose strings together fit in `budget` characters, so in `budget` tokens (a token holds at
    least one character): a call can no longer be cut at max_tokens inside a string the model keeps repeating."""
    probe = bound_strings({"args": args, "defs": defs}, 1)
    limit = max(8, budget // max(1, _string_slots(probe)))
    return bound_strings(args, limit), bound_strings(defs, limit)


def tool_call_schema(
    tools: Sequence[ToolSpec],
    *,
    allow_answer: bool = True,
    answer_schema: dict[str, Any] | None = None,
    key: str = "tool",
    budget: int | None = None,
) -> dict[str, Any]:
    """The reply schema: one `{<key>: <tool name>, "arguments": ...}` alternative per tool and, when
    `allow_answer`, `{"answer": <answer_schema or string>}` for a final reply. `budget`: the characters the
    arguments' strings may take in all (see `_fit`)."""
    alternatives: list[dict[str, Any]] = []
    all_defs: dict[str, Any] = {}
    for tool in tools:
        args, defs = _arguments_schema(tool.parameters, f"{tool.name}__")
        if budget is not None:
            args, defs = _fit(args, defs, budget)
        all_defs.update(defs)
        alternatives.append(
            {
                "type": "object",
                "properties": {key: {"const": tool.name}, "arguments": args},
                "required": [key, "arguments"],
                "additionalProperties": False,
            }
        )
    if allow_answer:
        answer: dict[str, Any] = {"type": "string"}
        if answer_schema is not None:
            answer = clean_schema(answer_schema, "answer__")
            all_defs.update(answer.pop("$defs", {}))
        alternatives.append(
            {"type": "object", "properties": {"answer": answer}, "required": ["answer"], "additionalProperties": False}
        )
    if not alternatives:
        raise ValueError("a reply schema needs at least one tool or the answer alternative")
    schema: dict[str, Any] = {"anyOf": alternatives}
    if all_defs:
        schema["$defs"] = all_defs
    return schema


# --- prompts ---------------------------------------------------------------------------------------------

LAYOUTS = ("native", "json")
_TOOLS_BLOCK = [
    "# Tools",
    "",
    "You may call one or more functions to assist with the user query.",
    "",
    "You are provided with function signatures within <tools></tools> XML tags:",
    "<tools>",
]


def describe_tools(
    tools: Sequence[ToolSpec], *, allow_answer: bool, answer_is_json: bool = False, layout: str = "json"
) -> str:
    """The system-prompt block that tells the model which tools exist and how to reply. Both layouts
    follow Qwen2.5's own tool prompt (`<tools>` of OpenAI function specs), which the model follows far
    better than a terse listing (bench/local_model.md)."""
    specs = "\n".join(
        json.dumps(ToolSpec(t.name, t.description, clean_schema(t.parameters or {})).to_openai(), ensure_ascii=False)
        for t in tools
    )
    lines = [*_TOOLS_BLOCK, specs, "</tools>", ""]
    if layout == "native":
        lines += [
            "For each function call, return a json object with function name and arguments within "
            "<tool_call></tool_call> XML tags:",
            "<tool_call>",
            '{"name": <function-name>, "arguments": <args-json-object>}',
            "</tool_call>",
        ]
        if allow_answer:
            what = "with JSON in the requested format" if answer_is_json else "in plain text"
            lines.append(f"If none of the functions fits the request, answer {what} instead.")
        return "\n".join(lines)
    lines.append(
        'To call a function, reply with a JSON object: {"tool": <function-name>, "arguments": <args-json-object>}'
    )
    if allow_answer:
        what = "your reply as JSON in the requested format" if answer_is_json else "your reply as text"
        lines.append(f'If none of the functions fits the request, reply with {{"answer": <{what}>}} instead.')
    else:
        lines.append("You must call one of the functions now.")
    return "\n".join(lines)


def call_text(call: ToolCall, layout: str = "json") -> str:
    """An earlier tool call written back in the format the model itself replies in."""
    if layout == "native":
        body = json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)
        return f"<tool_call>\n{body}\n</tool_call>"
    return json.dumps({"tool": call.name, "arguments": call.arguments}, ensure_ascii=False)


def result_text(name: str, content: str, layout: str = "json") -> str:
    return f"<tool_response>\n{content}\n</tool_response>" if layout == "native" else f"Result of {name}:\n{content}"


def render_messages(
    messages: Sequence[Message], system_extra: str = "", layout: str = "json", note: str = ""
) -> list[dict[str, str]]:
    """Chat-template-safe OpenAI messages: only system/user/assistant roles with text content.
    Assistant tool calls become their text in `layout`, tool results become user turns; consecutive
    turns of one role are merged (some templates require alternation). `note` goes last, after the
    history, so the prefix before it stays cacheable."""
    names = {c.id: c.name for m in messages for c in m.tool_calls}
    out: list[dict[str, str]] = []

    def add(role: str, text: str) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["content"] += "\n\n" + text
        else:
            out.append({"role": role, "content": text})

    for m in messages:
        if m.role == "tool":
            add("user", result_text(m.name or names.get(m.tool_call_id or "", "tool"), m.content, layout))
        elif m.role == "assistant" and m.tool_calls:
            add("assistant", "\n".join([m.content] * bool(m.content) + [call_text(c, layout) for c in m.tool_calls]))
        else:
            add(m.role, m.content)
    if system_extra:
        if out and out[0]["role"] == "system":
            out[0]["content"] = f"{out[0]['content']}\n\n{system_extra}"
        else:
            out.insert(0, {"role": "system", "content": f"{FALLBACK_SYSTEM}\n\n{system_extra}"})
    if note:
        add("user", note)
    return out


def availability_note(tools: Sequence[ToolSpec], catalogue: Sequence[ToolSpec], tool_choice: str) -> str:
    """A short line after the history naming the tools callable now, when some but not all of the catalogue
    (the grammar enforces it; the line tells the model why). None on prose-only turns: the model copied it
    into its answer."""
    names = [t.name for t in tools]
    if not names or names == [t.name for t in catalogue]:  # no tools: the grammar admits only prose anyway
        return ""
    return f"({'Call one of' if tool_choice == 'required' else 'Tools available now'}: {', '.join(names)}.)"


# --- grammars --------------------------------------------------------------------------------------------

# A text answer may not open like a call (`<tool_call>`, a JSON object, a fenced block) or with blank space.
_TEXT_RULE = r"TEXT: /[^<{`\s](?s:.)*/"
# With no tool offered after tool traffic, the 0.5B model writes calls as text (`>{"name": "analyze_features"...`
# for the demo's commentary, to max_tokens): prose then opens with a word and holds no braces or angle brackets.
_PROSE_RULE = r"TEXT: /[A-Za-z0-9\"'(*#-][^{}<>]*/"


def native_grammar(
    tools: Sequence[ToolSpec], *, allow_answer: bool, answer_schema: dict[str, Any] | None, budget: int | None = None
) -> str:
    """An llguidance grammar over the native layout: a `<tool_call>` (or the bare JSON object) naming one of
    `tools` with arguments matching its schema, or (when `allow_answer`) text or JSON matching `answer_schema`."""
    rules, alternatives = [], []
    if tools:
        body = tool_call_schema(tools, allow_answer=False, key="name", budget=budget)
        # A bare object would be ambiguous with a JSON answer: then only the tagged form is a call.
        bare = "" if answer_schema is not None and allow_answer else " | body"
        rules += [f'call: "<tool_call>\\n" body "\\n</tool_call>"{bare}', f"body: %json {json.dumps(body)}"]
        alternatives.append("call")
    if allow_answer or not tools:
        alternatives.append("answer")
        if answer_schema is None:
            rules += ["answer: TEXT", _TEXT_RULE if tools else _PROSE_RULE]
        else:
            rules.append(f"answer: %json {json.dumps(clean_schema(answer_schema))}")
    return "\n".join(["%llguidance {}", f"start: {' | '.join(alternatives)}", *rules]) + "\n"


# --- parsing ---------------------------------------------------------------------------------------------

_TOOL_START = re.compile(r'\s*\{\s*"tool"\s*:\s*"((?:[^"\\]|\\.)*)"')
_NAME_START = re.compile(r'\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"')
_ARGUMENTS = re.compile(r'\s*,\s*"arguments"\s*:\s*')
_ANSWER_START = re.compile(r'\s*\{\s*"answer"\s*:\s*"')
_ANSWER_VALUE = re.compile(r'\s*\{\s*"answer"\s*:\s*')
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)
_FENCED = re.compile(r"^```(?:json)?\s*(\{.*\})\s*```$", re.S)
_CUT = "the call was cut at max_tokens before its arguments ended; send shorter arguments"


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:16]}"


def _known(name: str, tools: Sequence[ToolSpec]) -> str:
    known = {t.name for t in tools}
    if name not in known:  # only possible if the grammar was not applied
        raise ModelError(f"the local model called unknown tool {name!r}; offered: {sorted(known)}")
    return name


def parse_tool_reply(
    text: str, tools: Sequence[ToolSpec], *, answer_is_json: bool = False, call_id: str | None = None
) -> tuple[str, list[ToolCall]]:
    """(content, tool calls) from a reply in the json layout (`tool_call_schema`).
    `strict=False`: the grammar lets raw control characters into strings."""
    start = _ANSWER_START.match(text)
    if start and not answer_is_json and not _is_json(text):
        # A text answer cut at max_tokens is kept, as OpenAI keeps truncated content: close the
        # string after dropping a half-written escape.
        return _decode_prefix(text[start.end() :]), []
    if tools and (cut := _TOOL_START.match(text)) and not _is_json(text):
        # A call cut at max_tokens (small models sometimes repeat inside a string): hand it to the
        # loop as a malformed call, so the model sees why and the run goes on.
        return "", [ToolCall(call_id or new_call_id(), cut.group(1), {}, error=_CUT)]
    data = normalize_json(text, parse=True)
    if "tool" in data:
        return "", [ToolCall(call_id or new_call_id(), _known(data["tool"], tools), data.get("arguments") or {})]
    answer = data["answer"]
    return (json.dumps(answer, ensure_ascii=False) if answer_is_json else str(answer)), []


def parse_native_reply(
    text: str, tools: Sequence[ToolSpec], *, answer_is_json: bool = False, call_id: str | None = None
) -> tuple[str, list[ToolCall]]:
    """(content, tool calls) from a reply in the native layout: `<tool_call>` blocks (text around them is
    content), a bare or fenced call object, or an answer."""
    body = text.strip()
    blocks = _TAGGED.findall(body) if tools else []
    if not blocks and tools and not answer_is_json:
        bare = _FENCED.match(body)
        if bare or body.startswith("{"):  # under the grammar only a call opens with "{"
            blocks = [bare.group(1) if bare else body]
    if not blocks and tools and body.startswith("<tool_call>"):
        blocks = [body.removeprefix("<tool_call>")]
    if not blocks:
        return (normalize_json(body) if answer_is_json else body), []
    calls = []
    for i, block in enumerate(blocks):
        cid = call_id if i == 0 and call_id else new_call_id()
        if not _is_json(block):
            name = _NAME_START.match(block)
            if name is None:
                raise ModelError(f"the local model's tool call is not complete JSON: {block[:200]!r}")
            calls.append(ToolCall(cid, _known(name.group(1), tools), {}, error=_CUT))
            continue
        data = json.loads(block, strict=False)
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ModelError(f"the local model's tool call names no function: {block[:200]!r}")
        args = data.get("arguments") or {}
        calls.append(
            ToolCall(
                cid,
                _known(data["name"], tools),
                args if isinstance(args, dict) else {},
                error=None if isinstance(args, dict) else "the arguments were not a JSON object",
            )
        )
    content = _TAGGED.sub("", body).strip() if _TAGGED.search(body) else ""
    return content, calls


def _decode_prefix(body: str) -> str:
    """The decoded text of a JSON string body that may be cut anywhere (no closing quote, a half escape)."""
    end = re.search(r'(?<!\\)(?:\\\\)*"', body)
    if end:
        body = body[: end.end() - 1]
    body = re.sub(r"\\u[0-9a-fA-F]{0,3}$", "", body)
    body = re.sub(r"\\u[dD][89abAB][0-9a-fA-F]{2}$", "", body)  # half a surrogate pair: wait for the rest
    if (len(body) - len(body.rstrip("\\"))) % 2:
        body = body[:-1]
    return json.loads(f'"{body}"', strict=False)


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
        raise ModelError(
            f"the local model's reply is not complete JSON ({exc.msg}); it was probably cut at "
            f"max_tokens: raise max_tokens. Reply: {text[:200]!r}"
        ) from exc


# --- streaming -------------------------------------------------------------------------------------------


class ReplyReader:
    """The raw reply as it grows -> `Delta`s (text as it comes, a call's name then its arguments as partial
    JSON); `finish` parses the whole reply into the last delta's `ModelResponse`.

    `mode` says what the reply is once its opening is seen: "text" (streamed as is), "string" (a JSON string
    answer, streamed decoded), "value" (a JSON answer inside `{"answer": ...}`) or "call"."""

    def __init__(self, classify: Any, parse: Any, name_re: re.Pattern[str] | None):
        self.classify, self.parse, self.name_re = classify, parse, name_re
        self.note = ""
        self.raw = ""
        self.mode: str | None = None
        self.start = 0
        self.sent = 0
        self.call_id = new_call_id()
        self.named = False
        self.name_end = 0
        self.args_at: int | None = None

    def feed(self, piece: str) -> list[Delta]:
        self.raw += piece
        if self.mode is None:
            self.mode, self.start = self.classify(self.raw)
        if self.mode in ("text", "string"):
            body = self.raw[self.start :]
            text = _decode_prefix(body) if self.mode == "string" else body
            new, self.sent = text[self.sent :], len(text)
            return [Delta(text=new)] if new else []
        if self.mode == "value":
            return [Delta(text=t) for t in [self._upto_brace(self.start)] if t]
        if self.mode == "call":
            return self._call_deltas()
        return []

    def _upto_brace(self, at: int, end: int | None = None) -> str:
        """raw[at:] up to its last `}` so far (the outer object's closing brace may be among them): what is
        sent stays a prefix of the final value."""
        q = self.raw.rfind("}", at) if end is None else end
        if q <= at + self.sent:
            return ""
        piece, self.sent = self.raw[at + self.sent : q], q - at
        return piece

    def _call_deltas(self) -> list[Delta]:
        out = []
        if not self.named and self.name_re is not None and (m := self.name_re.match(self.raw, self.start)):
            self.named, self.name_end = True, m.end()
            out.append(Delta(index=0, id=self.call_id, name=json.loads(f'"{m.group(1)}"', strict=False)))
        if self.named and self.args_at is None and (a := _ARGUMENTS.match(self.raw, self.name_end)):
            self.args_at = a.end()
        if self.args_at is not None and (piece := self._upto_brace(self.args_at)):
            out.append(Delta(index=0, arguments=piece))
        return out

    def finish(self, usage: Usage) -> list[Delta]:
        content, calls = self.parse(self.raw, self.call_id)
        if self.note and content.endswith(self.note):  # small models sometimes copy the last line
            content = content[: -len(self.note)].rstrip()
        out: list[Delta] = []
        if self.mode in ("text", "string") and content.startswith(self._sent_text()):
            rest = content[len(self._sent_text()) :]
            out += [Delta(text=rest)] if rest else []
        elif self.mode is None and content:
            out.append(Delta(text=content))
        for i, call in enumerate(calls):
            if i == 0 and self.named and call.id == self.call_id:
                if self.args_at is not None and (piece := self._upto_brace(self.args_at, self.raw.rfind("}"))):
                    out.append(Delta(index=0, arguments=piece))
            else:
                out.append(Delta(index=i, id=call.id, name=call.name, arguments=json.dumps(call.arguments)))
        out.append(Delta(response=ModelResponse(content, calls, usage)))
        return out

    def _sent_text(self) -> str:
        body = self.raw[self.start :]
        return (_decode_prefix(body) if self.mode == "string" else body)[: self.sent]


def _classify_json(answer_is_json: bool) -> Any:
    def classify(raw: str) -> tuple[str | None, int]:
        if _TOOL_START.match(raw):
            return "call", 0
        if not answer_is_json and (m := _ANSWER_START.match(raw)):
            return "string", m.end()
        if answer_is_json and (m := _ANSWER_VALUE.match(raw)) and m.end() < len(raw):
            return "value", m.end()
        return None, 0

    return classify


def _classify_native(has_tools: bool, answer_is_json: bool) -> Any:
    def classify(raw: str) -> tuple[str | None, int]:
        body = raw.lstrip()
        at = len(raw) - len(body)
        if not body or (has_tools and "<tool_call>".startswith(body)):
            return None, 0
        if has_tools and body.startswith("<tool_call>"):
            return "call", at + len("<tool_call>")
        if has_tools and body.startswith("{") and not answer_is_json:
            return "call", at
        return "text", at

    return classify


def _plain(_raw: str) -> tuple[str | None, int]:
    return "text", 0


def _prose(raw: str, _cid: str) -> tuple[str, list[ToolCall]]:
    return raw, []


def _json_answer(raw: str, _cid: str) -> tuple[str, list[ToolCall]]:
    return normalize_json(raw), []


def _noted(reader: ReplyReader, note: str) -> ReplyReader:
    reader.note = note
    return reader


def native_reader(tools: Sequence[ToolSpec], answer_is_json: bool = False) -> ReplyReader:
    return ReplyReader(
        _classify_native(bool(tools), answer_is_json),
        lambda raw, cid: parse_native_reply(raw, tools, answer_is_json=answer_is_json, call_id=cid),
        _NAME_START,
    )


def json_reader(tools: Sequence[ToolSpec], answer_is_json: bool = False, lenient: bool = False) -> ReplyReader:
    """`lenient`: for unconstrained replies (measurement only), prose is an answer rather than an error."""

    def parse(raw: str, cid: str) -> tuple[str, list[ToolCall]]:
        if lenient and not raw.lstrip().startswith("{"):
            return raw.strip(), []
        return parse_tool_reply(raw, tools, answer_is_json=answer_is_json, call_id=cid)

    return ReplyReader(_classify_json(answer_is_json), parse, _TOOL_START)


# --- the model -------------------------------------------------------------------------------------------


def family_layout(path: Path) -> str:
    """The layout measured best for this model's family (bench/local_model.md): native where the chat
    template knows `<tool_call>` (Qwen2.5, Hermes), json otherwise (SmolLM2, Gemma, Llama 3.2 small)."""
    from orrery.llm.weights import gguf_metadata

    return "native" if "<tool_call>" in (gguf_metadata(path).get("tokenizer.chat_template") or "") else "json"


DRY = {"dry_multiplier": 0.8, "dry_base": 1.75, "dry_allowed_length": 2, "dry_penalty_last_n": 512}


def llama_error(err: Any) -> ModelError:
    """llama.cpp's error object as a ModelError: an overflowing prompt is the caller's (400, with counts)."""
    if not isinstance(err, dict):
        return ModelError(f"the local model failed: {err}")
    if err.get("type") == "exceed_context_size_error":
        return ModelError(
            f"the prompt has {err.get('n_prompt_tokens')} tokens but the model's context holds "
            f"{err.get('n_ctx')}: shorten the conversation or raise n_ctx",
            status=400,
        )
    return ModelError(f"the local model failed: {err.get('message', err)}", status=err.get("code"))


class LocalModel:
    """A `Model` backed by a GGUF file run in this process (default: the embedded Qwen2.5-Coder-0.5B).

    Loads on first use; calls are serialized by a lock (one llama.cpp slot). `layout` is "native" or
    "json" (default: by model family); `grammar=False` leaves replies unconstrained (for measurement
    only); `timeout_s` stops a generation that runs longer; `cache_prompt=False` processes every prompt in full
    (for timing comparisons); `cache_ram_mib` bounds the prompt states llama.cpp keeps in memory to restore for a later
    prompt (None: llama.cpp's default; 0: none, so a reply depends only on its prompt and the slot's last one).
    `last_timings` holds llama.cpp's timings of
    the last call (`cache_n`: prompt tokens reused from the cache, `prompt_n`: processed anew)."""

    # One tool call a turn (the grammar's); the agent loop may pass `catalogue=` (every tool of the agent) to keep
    # the prompt prefix stable; a 0.5B model does best shown few tools on a guided path.
    profile = ModelProfile(parallel_calls=False, streams=True, takes_catalogue=True, narrow_tools=True)

    def __init__(
        self,
        path: str | Path | None = None,
        n_ctx: int = 8192,
        n_threads: int = 2,
        max_tokens: int = 512,
        *,
        layout: str | None = None,
        grammar: bool = True,
        timeout_s: float | None = None,
        cache_prompt: bool = True,
        cache_ram_mib: int | None = None,
    ):
        if layout is not None and layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
        self.name = "local"
        self.path = Path(path) if path is not None else None
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.max_tokens = max_tokens
        self.layout = layout
        self.grammar = grammar
        self.timeout_s = timeout_s
        self.cache_prompt = cache_prompt
        self.cache_ram_mib = cache_ram_mib
        self.last_timings: dict[str, Any] = {}
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
            if self.layout is None:
                self.layout = family_layout(self.path)
            params = xllamacpp.CommonParams()
            params.model.path = str(self.path)
            params.n_ctx = self.n_ctx
            params.n_parallel = 1
            params.cpuparams.n_threads = self.n_threads
            params.cpuparams_batch.n_threads = self.n_threads
            params.sampling.temp = 0.0
            params.use_jinja = True
            if self.cache_ram_mib is not None:
                params.cache_ram_mib = self.cache_ram_mib
            params.verbosity = -1
            self._server = xllamacpp.Server(params)
        return self._server

    def chat(self, request: dict[str, Any]) -> dict[str, Any]:
        """One raw llama.cpp chat completion (OpenAI request/response dicts)."""
        with self._lock:
            result = self._load_locked().handle_chat_completions(request)
        if "error" in result:
            raise llama_error(result["error"])
        return result

    def chunks(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """llama.cpp's streamed chunks of one chat completion, as they are generated. Closing the iterator
        early stops the generation at its next token (and frees the model for the next call)."""
        done = object()
        queue: SimpleQueue[Any] = SimpleQueue()
        stop = threading.Event()
        deadline = time.monotonic() + self.timeout_s if self.timeout_s else None

        def on_chunk(chunk: dict[str, Any]) -> bool:  # True stops the generation
            queue.put(chunk)
            if deadline is not None and time.monotonic() > deadline:
                queue.put(
                    ModelTimeout(
                        f"the local model was still generating after {self.timeout_s:g} s and was "
                        "stopped: ask for a shorter reply (max_tokens) or raise the time limit",
                        status=504,
                    )
                )
                return True
            return stop.is_set()

        def work() -> None:
            try:
                with self._lock:
                    self._load_locked().handle_chat_completions({**request, "stream": True}, on_chunk)
            except Exception as exc:  # raised again in the caller's thread
                queue.put(exc)
            finally:
                queue.put(done)

        threading.Thread(target=work, name="orrery-local-model", daemon=True).start()
        try:
            while (item := queue.get()) is not done:
                if isinstance(item, Exception):
                    raise item
                if "error" in item:
                    raise llama_error(item["error"])
                yield item
        finally:
            stop.set()

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        tool_choice: str = "auto",
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        catalogue: Sequence[ToolSpec] | None = None,
    ) -> ModelResponse:
        """One reply (see `stream`, whose last delta this is)."""
        (last,) = deque(
            self.stream(
                messages, tools, tool_choice=tool_choice, schema=schema, max_tokens=max_tokens, catalogue=catalogue
            ),
            maxlen=1,
        )
        assert last.response is not None
        return last.response

    def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        tool_choice: str = "auto",
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        catalogue: Sequence[ToolSpec] | None = None,
    ) -> Iterator[Delta]:
        """The reply as `Delta`s while it is generated; the last one carries the whole `ModelResponse`.

        `catalogue`: every tool the caller may ever offer in this conversation. The system prompt lists
        it, so it stays the same from step to step and llama.cpp reuses its cached prefix; the grammar
        admits only `tools`, and a short line after the history names them."""
        with self._lock:
            self._load_locked()
        request, reader = self._prepare(messages, tools, tool_choice, schema, max_tokens, catalogue)
        budget = request["max_tokens"] - 64
        usage = yield from self._generate(request, reader)
        if self.grammar and _schema_reply(tools, tool_choice, schema) and not _is_json(reader.raw):
            # A schema reply cut at max_tokens (a string the model keeps repeating: `"where": ["COUNT(` ... in
            # bench/bi.md "Round 29") is not JSON; asked again once with every string bounded, as a cut call is.
            request, reader = self._prepare(messages, tools, tool_choice, schema, max_tokens, catalogue, budget)
            usage += yield from self._generate(request, reader)
        last = yield from _finish(reader, usage)
        response = last.response
        assert response is not None
        if self.grammar and tools and any(c.error == _CUT for c in response.tool_calls):
            # Once cut inside a call, ask again with every string bounded so that the call fits: the prompt is
            # cached, so this costs only the new reply; well-formed calls are what the grammar promises.
            # (As an llguidance grammar in both layouts: llama.cpp's JSON-schema converter unrolls length bounds.)
            request, reader = self._prepare(messages, tools, tool_choice, schema, max_tokens, catalogue, budget)
            usage += yield from self._generate(request, reader)
            last = yield from _finish(reader, usage)
        yield last

    def _generate(self, request: dict[str, Any], reader: ReplyReader) -> Generator[Delta, None, Usage]:
        """Feeds the reply to `reader`, yielding its deltas as they come; returns the usage."""
        timings: dict[str, Any] = {}
        for chunk in self.chunks(request):
            timings = chunk.get("timings") or timings
            for choice in chunk.get("choices") or ():
                if piece := (choice.get("delta") or {}).get("content"):
                    yield from reader.feed(piece)
        self.last_timings = timings
        return Usage(timings.get("cache_n", 0) + timings.get("prompt_n", 0), timings.get("predicted_n", 0))

    def _prepare(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        tool_choice: str,
        schema: dict[str, Any] | None,
        max_tokens: int | None,
        catalogue: Sequence[ToolSpec] | None,
        budget: int | None = None,
    ) -> tuple[dict[str, Any], ReplyReader]:
        """The llama.cpp request and the reader of its reply; `budget` bounds a call's strings (`_fit`)."""
        layout = self.layout or "json"
        if tool_choice == "none":
            tools = ()
        listed = list(catalogue) if catalogue else list(tools)
        allow_answer = tool_choice != "required" or not tools
        answer_is_json = schema is not None and allow_answer  # a reply that must call: a bare "{" opens a call
        tool_traffic = any(m.tool_calls or m.role == "tool" for m in messages)
        request: dict[str, Any] = {
            "max_tokens": max_tokens or self.max_tokens,
            "temperature": 0.0,
            "cache_prompt": self.cache_prompt,
        }
        system_extra = note = ""
        if listed:
            # With a catalogue the block must not vary between steps: the grammar alone says what is allowed.
            system_extra = describe_tools(
                listed, allow_answer=allow_answer or bool(catalogue), answer_is_json=answer_is_json, layout=layout
            )
            note = availability_note(tools, listed, tool_choice) if catalogue else ""
        request["messages"] = render_messages(messages, system_extra, layout, note)
        if not tools and schema is None:
            # Greedy decoding of prose loops ("... a strong trend, and the model has a strong trend, and ..." to
            # max_tokens, seen in the demo's commentary): llama.cpp's DRY sampler penalizes repeating a sequence.
            # Only for prose: a call's JSON repeats its keys and quotes by design.
            request.update(DRY)
        if not (tools or schema is not None or tool_traffic or catalogue):
            return request, ReplyReader(_plain, _prose, None)
        return request, self._constrain(request, layout, tools, schema, allow_answer, answer_is_json, note, budget)

    def _constrain(
        self,
        request: dict[str, Any],
        layout: str,
        tools: Sequence[ToolSpec],
        schema: dict[str, Any] | None,
        allow_answer: bool,
        answer_is_json: bool,
        note: str,
        budget: int | None,
    ) -> ReplyReader:
        """The grammar (or response format) of a reply that must be a call or JSON, and its reader."""
        if layout == "native":
            if self.grammar and (tools or schema is None):
                request["grammar"] = native_grammar(
                    tools, allow_answer=allow_answer, answer_schema=schema, budget=budget
                )
            elif self.grammar:
                _constrain_to_schema(request, schema, budget)
            return _noted(native_reader(tools, answer_is_json), note)
        if tools or not schema:
            # After tool traffic, a tool-less turn imitates the earlier JSON calls: constrain it to an answer.
            if self.grammar:  # with `budget`, the retry of a cut call: llguidance takes length bounds
                call = tool_call_schema(tools, allow_answer=allow_answer, answer_schema=schema, budget=budget)
                _constrain_json(request, call, bounded=budget is not None)
            return _noted(json_reader(tools, answer_is_json, lenient=not self.grammar), note)
        if self.grammar:
            _constrain_to_schema(request, schema, budget)
        return ReplyReader(_plain, _json_answer, None)


def _schema_reply(tools: Sequence[ToolSpec], tool_choice: str, schema: dict[str, Any] | None) -> bool:
    """Whether the reply is constrained by `schema` alone (no call possible)."""
    return schema is not None and (not tools or tool_choice == "none")


def _constrain_to_schema(request: dict[str, Any], schema: dict[str, Any], budget: int | None) -> None:
    """A reply of `schema` alone; with `budget` (the retry of a cut reply), its strings together fit in `budget`
    characters (`_fit`), as an llguidance grammar: llama.cpp's JSON-schema converter unrolls length bounds."""
    cleaned = clean_schema(schema)
    _constrain_json(request, cleaned if budget is None else _fit(cleaned, {}, budget)[0], bounded=budget is not None)


def _constrain_json(request: dict[str, Any], schema: dict[str, Any], bounded: bool) -> None:
    """The reply is JSON of `schema`: a response format, or, when `schema` holds length bounds, an llguidance
    grammar (llama.cpp's JSON-schema converter unrolls them)."""
    if bounded:
        request["grammar"] = f"%llguidance {{}}\nstart: %json {json.dumps(schema)}\n"
    else:
        request["response_format"] = _json_format(schema)


def _finish(reader: ReplyReader, usage: Usage) -> Generator[Delta, None, Delta]:
    """Yields the reader's last deltas but the one carrying the response: returned."""
    *rest, last = reader.finish(usage)
    yield from rest
    return last


def _json_format(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": "reply", "schema": schema}}
