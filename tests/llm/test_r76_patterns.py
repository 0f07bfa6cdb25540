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
    sent = request["response_format"]["json_schema"]["schema"]
    assert sent["properties"]["select"]["items"]["pattern"] == SQL["pattern"]
    bounded, _ = model._prepare(messages, (), "none", REPLY, None, None, 200)  # the retry of a cut reply
    assert json.dumps(SQL["pattern"]) in bounded["grammar"]
