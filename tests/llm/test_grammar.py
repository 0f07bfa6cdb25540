"""The local model's reply schemas, prompts and parsing, without loading a model."""

from __future__ import annotations

import hashlib
import json

import pytest

from orrery.errors import ConfigError, ModelError
from orrery.llm import weights
from orrery.llm.local import (
    clean_schema,
    describe_tools,
    normalize_json,
    parse_tool_reply,
    render_messages,
    tool_call_schema,
)
from orrery.messages import Message, ToolCall, ToolSpec

CALC = ToolSpec(
    "calculate",
    "Evaluate an arithmetic expression.",
    {"type": "object", "properties": {"expression": {"type": "string", "maxLength": 200}}, "required": ["expression"]},
)
WEATHER = ToolSpec(
    "get_weather",
    "Weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def test_clean_schema_drops_length_bounds_but_keeps_property_names():
    schema = {
        "type": "object",
        "title": "T",
        "properties": {
            "title": {"type": "string", "maxLength": 5, "minLength": 1},
            "tags": {"type": "array", "items": {"type": "string", "format": "x"}, "maxItems": 3},
        },
        "required": ["title"],
    }
    out = clean_schema(schema)
    assert out == {
        "type": "object",
        "properties": {"title": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["title"],
        "additionalProperties": False,
    }
    assert "maxLength" in schema["properties"]["title"]  # the input is not mutated


def test_clean_schema_keeps_literal_values_and_explicit_additional_properties():
    out = clean_schema(
        {"type": "object", "properties": {"u": {"enum": ["title", "default"]}}, "additionalProperties": True}
    )
    assert out["properties"]["u"] == {"enum": ["title", "default"]}
    assert out["additionalProperties"] is True


def test_tool_call_schema_is_anyof_of_closed_tool_objects_plus_answer():
    schema = tool_call_schema([CALC, WEATHER])
    alts = schema["anyOf"]
    assert [a["properties"].get("tool", {}).get("const") for a in alts] == ["calculate", "get_weather", None]
    for alt in alts:
        assert alt["additionalProperties"] is False
    assert alts[0]["properties"]["arguments"]["properties"]["expression"] == {"type": "string"}
    assert alts[0]["required"] == ["tool", "arguments"]
    assert alts[2] == {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": False,
    }


def test_required_tool_choice_drops_the_answer_alternative():
    schema = tool_call_schema([CALC], allow_answer=False)
    assert len(schema["anyOf"]) == 1
    assert "answer" not in json.dumps(schema)


def test_answer_schema_constrains_the_answer():
    schema = tool_call_schema([CALC], answer_schema={"type": "object", "properties": {"n": {"type": "integer"}}})
    assert schema["anyOf"][1]["properties"]["answer"]["properties"]["n"] == {"type": "integer"}


def test_defs_are_hoisted_and_refs_renamed_per_tool():
    tool = ToolSpec(
        "plan",
        "Make a plan.",
        {
            "type": "object",
            "properties": {"step": {"$ref": "#/$defs/Step"}},
            "$defs": {"Step": {"type": "object", "properties": {"what": {"type": "string"}}}},
        },
    )
    schema = tool_call_schema([tool])
    assert schema["$defs"]["plan__Step"]["additionalProperties"] is False
    assert schema["anyOf"][0]["properties"]["arguments"]["properties"]["step"] == {"$ref": "#/$defs/plan__Step"}
    assert "$defs" not in schema["anyOf"][0]["properties"]["arguments"]


def test_tool_without_parameters_gets_an_empty_closed_object():
    schema = tool_call_schema([ToolSpec("now", "The time.", {})], allow_answer=False)
    assert schema["anyOf"][0]["properties"]["arguments"] == {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
    }


def test_describe_tools_lists_every_tool_and_the_reply_format():
    text = describe_tools([CALC, WEATHER], allow_answer=True)
    assert '"name": "calculate"' in text and '"name": "get_weather"' in text
    assert "Weather for a city." in text and '"answer"' in text
    assert "maxLength" not in text
    assert '"answer"' not in describe_tools([CALC], allow_answer=False)


def test_render_messages_turns_tool_traffic_into_plain_turns():
    call = ToolCall("c1", "calculate", {"expression": "17*23"})
    msgs = [
        Message("user", "What is 17*23?"),
        Message("assistant", "", [call]),
        Message("tool", "391", tool_call_id="c1"),
        Message("user", "thanks"),
    ]
    out = render_messages(msgs, "TOOLS")
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user"]
    assert out[0]["content"].endswith("TOOLS")
    assert json.loads(out[2]["content"]) == {"tool": "calculate", "arguments": {"expression": "17*23"}}
    assert out[3]["content"] == "Result of calculate:\n391\n\nthanks"
    assert all(set(m) == {"role", "content"} for m in out)


def test_render_messages_appends_tools_to_an_existing_system_prompt():
    out = render_messages([Message("system", "Be brief."), Message("user", "hi")], "TOOLS")
    assert out[0] == {"role": "system", "content": "Be brief.\n\nTOOLS"}


def test_parse_tool_reply_gives_a_tool_call_or_an_answer():
    content, calls = parse_tool_reply('{"tool": "calculate", "arguments": {"expression": "1+\n1"}}', [CALC])
    assert content == "" and calls[0].name == "calculate" and calls[0].arguments == {"expression": "1+\n1"}
    assert calls[0].id.startswith("call_")
    assert parse_tool_reply('{"answer": "hello"}', [CALC]) == ("hello", [])
    assert parse_tool_reply('{"answer": {"n": 1}}', [CALC], answer_is_json=True) == ('{"n": 1}', [])


def test_parse_tool_reply_reports_truncation_and_unknown_tools():
    content, calls = parse_tool_reply('{"tool": "calculate", "arguments": {"expression": "1+1+1+1+', [CALC])
    assert content == "" and calls[0].name == "calculate" and "cut at max_tokens" in calls[0].error
    with pytest.raises(ModelError, match="max_tokens"):
        parse_tool_reply('{"ans', [CALC])
    with pytest.raises(ModelError, match="unknown tool"):
        parse_tool_reply('{"tool": "rm", "arguments": {}}', [CALC])


def test_a_text_answer_cut_at_max_tokens_is_kept():
    assert parse_tool_reply('{"answer": "France won. The te', [CALC]) == ("France won. The te", [])
    assert parse_tool_reply('{\n  "answer": "a\\"b\\', [CALC]) == ('a"b', [])
    assert parse_tool_reply('{"answer": "caf\\u00', [CALC]) == ("caf", [])


def test_normalize_json_escapes_raw_newlines():
    out = normalize_json('{"a": "x\ny"}')
    assert json.loads(out) == {"a": "x\ny"}


def test_join_parts_is_atomic_and_checks_the_hash(tmp_path):
    parts = []
    for i, data in enumerate([b"GGUF", b"rest"]):
        p = tmp_path / f"part{i}.bin"
        p.write_bytes(data)
        parts.append(p)
    target = tmp_path / "cache" / "m.gguf"
    with pytest.raises(ConfigError, match="SHA-256"):
        weights.join_parts(parts, target, expected_sha256="0" * 64)
    assert not target.exists() and list(target.parent.iterdir()) == []
    weights.join_parts(parts, target, expected_sha256=hashlib.sha256(b"GGUFrest").hexdigest())
    assert target.read_bytes() == b"GGUFrest"


def test_model_path_override(tmp_path, monkeypatch):
    gguf = tmp_path / "x.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setenv("ORRERY_MODEL_PATH", str(gguf))
    assert weights.default_model_path() == gguf
    monkeypatch.setenv("ORRERY_MODEL_PATH", str(tmp_path / "missing.gguf"))
    with pytest.raises(ConfigError, match="ORRERY_MODEL_PATH"):
        weights.default_model_path()
