"""Round 76 (bench/bi_r76.md): a reply constrained by a schema alone keeps its strings' `pattern` (the BI step's
SQL may name only the slice's columns); tools' parameters drop it, as before."""

from __future__ import annotations

import json

import pytest

from orrery.llm.local import LocalModel, clean_schema, tool_call_schema
from orrery.messages import Message, ToolSpec

SQL = {"type": "string", "pattern": "^(a|b|[ ,])*$"}
REPLY = {"type": "object", "properties": {"select": {"type": "array", "items": SQL}}, "required": ["select"]}


def test_patterns_are_kept_only_when_asked():
    assert clean_schema(REPLY, patterns=True)["properties"]["select"]["items"] == SQL
    assert clean_schema(REPLY)["properties"]["select"]["items"] == {"type": "string"}


def test_a_tools_pattern_is_still_dropped():
    tool = ToolSpec("pick", "pick one", {"type": "object", "properties": {"name": SQL}, "required": ["name"]})
    assert '"pattern"' not in json.dumps(tool_call_schema([tool]))


@pytest.mark.parametrize("layout", ["native", "json"])
def test_a_schema_reply_is_decoded_under_the_pattern(layout):
    model = LocalModel(layout=layout)
    messages = [Message("system", "s"), Message("user", "u")]
    request, _ = model._prepare(messages, (), "none", REPLY, None, None)
    # as llguidance's grammar: llama.cpp's own sampler tracks every parse of an ambiguous regex (minutes a reply)
    assert "response_format" not in request and request["grammar"].startswith("%llguidance")
    assert json.dumps(SQL["pattern"]) in request["grammar"]
    free, _ = model._prepare(messages, (), "none", {"type": "object", "properties": {}}, None, None)
    assert "response_format" in free  # a schema without a pattern: as before
    bounded, _ = model._prepare(messages, (), "none", REPLY, None, None, 200)  # the retry of a cut reply
    assert json.dumps(SQL["pattern"]) in bounded["grammar"]


def test_an_openai_compatible_server_gets_the_pattern_unenforced_strictly():
    """`strict: false`: a server that ignores `pattern` answers as before; orrery's own server accepts it."""
    from orrery.llm.openai import OpenAIModel
    from orrery.llm.server import check_schema

    body = OpenAIModel("m", base_url="http://127.0.0.1:9", api_key="k")._request([], (), "none", REPLY, None)
    assert body["response_format"]["json_schema"]["strict"] is False
    assert body["response_format"]["json_schema"]["schema"]["properties"]["select"]["items"] == SQL
    assert check_schema(REPLY) == REPLY
