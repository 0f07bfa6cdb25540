"""The native `<tool_call>` layout, its grammar, the stable catalogue and the streaming reader, without a model."""

from __future__ import annotations

import json
import re

import pytest

from orrery.errors import ModelError
from orrery.llm.local import (
    LocalModel,
    ReplyReader,
    _decode_prefix,
    availability_note,
    describe_tools,
    json_reader,
    llama_error,
    native_grammar,
    native_reader,
    parse_native_reply,
    render_messages,
    tool_call_schema,
)
from orrery.messages import Message, ToolCall, ToolSpec, Usage

CALC = ToolSpec(
    "calculate",
    "Evaluate an arithmetic expression.",
    {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
)
WEATHER = ToolSpec(
    "get_weather",
    "Weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def _native_reader(tools=(CALC, WEATHER), answer_is_json=False) -> ReplyReader:
    return native_reader(tools, answer_is_json)


def _json_reader(tools=(CALC, WEATHER), answer_is_json=False) -> ReplyReader:
    return json_reader(tools, answer_is_json)


def _feed(reader: ReplyReader, pieces: list[str]) -> list:
    out = []
    for p in pieces:
        out += reader.feed(p)
    return out + reader.finish(Usage(5, len(pieces)))


def test_native_text_streams_piece_by_piece_and_ends_with_the_whole_reply():
    deltas = _feed(_native_reader(), ["Ham", "let was", " written by", " Shakespeare."])
    assert [d.text for d in deltas[:-1]] == ["Ham", "let was", " written by", " Shakespeare."]
    assert deltas[-1].response.content == "Hamlet was written by Shakespeare."
    assert deltas[-1].response.tool_calls == [] and deltas[-1].response.usage == Usage(5, 4)


def test_native_call_streams_name_then_arguments_that_add_up_to_the_call():
    pieces = [
        "<tool",
        "_call>\n",
        '{"name": "calc',
        'ulate", "arguments": {"expression": ',
        '"17*23"}',
        "}\n</tool_call>",
    ]
    deltas = _feed(_native_reader(), pieces)
    named = [d for d in deltas if d.name]
    assert len(named) == 1 and named[0].name == "calculate" and named[0].id and named[0].index == 0
    assert not any(d.text for d in deltas)
    call = deltas[-1].response.tool_calls[0]
    assert call.id == named[0].id and call.arguments == {"expression": "17*23"}
    assert json.loads("".join(d.arguments for d in deltas)) == call.arguments
    # the name arrives before the arguments are complete
    assert deltas.index(named[0]) < len(deltas) - 2


def test_a_bare_or_fenced_call_object_is_a_call_in_the_native_layout():
    content, calls = parse_native_reply('{"name": "get_weather", "arguments": {"city": "Oslo"}}', [CALC, WEATHER])
    assert content == "" and calls[0].name == "get_weather" and calls[0].arguments == {"city": "Oslo"}
    _, calls = parse_native_reply('```json\n{"name": "calculate", "arguments": {"expression": "1"}}\n```', [CALC])
    assert calls[0].name == "calculate"
    # text around a tagged call is its content
    content, calls = parse_native_reply(
        'Let me check.\n<tool_call>\n{"name": "calculate", "arguments": {}}\n</tool_call>', [CALC]
    )
    assert content == "Let me check." and calls[0].name == "calculate"


def test_native_parse_reports_cut_calls_and_unknown_tools():
    _, calls = parse_native_reply('<tool_call>\n{"name": "calculate", "arguments": {"expression": "1+1+', [CALC])
    assert calls[0].name == "calculate" and "cut at max_tokens" in calls[0].error
    with pytest.raises(ModelError, match="unknown tool"):
        parse_native_reply('<tool_call>{"name": "rm", "arguments": {}}</tool_call>', [CALC])
    assert parse_native_reply('{"n": 1}', [CALC], answer_is_json=True) == ('{"n": 1}', [])
    with pytest.raises(ModelError, match="not complete JSON"):
        parse_native_reply('{"name": "', [CALC])  # cut before the name ended: no call to hand back


def test_json_layout_streams_the_decoded_answer():
    pieces = ['{"answer": "', "caf\\u00", 'e9 \\"ok', '\\"', ' done"}']
    deltas = _feed(_json_reader(), pieces)
    assert "".join(d.text for d in deltas) == 'café "ok" done' == deltas[-1].response.content
    assert deltas[0].text == "caf"  # the half escape waits for the rest


def test_json_layout_call_deltas_match_the_call():
    deltas = _feed(_json_reader(), ['{"tool": "get_weather",', ' "arguments": {"city": "Os', 'lo"}}'])
    call = deltas[-1].response.tool_calls[0]
    assert [d.name for d in deltas if d.name] == ["get_weather"] and call.arguments == {"city": "Oslo"}
    assert json.loads("".join(d.arguments for d in deltas)) == {"city": "Oslo"}


def test_decode_prefix_never_emits_half_an_escape_or_surrogate():
    assert _decode_prefix("a\\") == "a"
    assert _decode_prefix("a\\u00") == "a"
    assert _decode_prefix("x\\ud83d") == "x"
    assert _decode_prefix("x\\ud83d\\ude00") == "x\U0001f600"
    assert _decode_prefix('done" ') == "done"


def test_native_grammar_offers_tagged_or_bare_calls_and_text():
    g = native_grammar([CALC], allow_answer=True, answer_schema=None)
    assert g.startswith("%llguidance {}\nstart: call | answer\n")
    assert 'call: "<tool_call>\\n" body "\\n</tool_call>" | body' in g
    body = json.loads(g.split("body: %json ", 1)[1].split("\n", 1)[0])
    assert body["anyOf"][0]["properties"]["name"] == {"const": "calculate"}
    assert "TEXT: /[^<{`\\s]" in g
    required = native_grammar([CALC], allow_answer=False, answer_schema=None)
    assert "start: call\n" in required and "TEXT" not in required
    only_answer = native_grammar([], allow_answer=True, answer_schema=None)
    assert "start: answer\n" in only_answer and "body" not in only_answer
    # with no tool offered, prose may not imitate a call anywhere (the demo's commentary once wrote calls as text)
    prose = re.compile(only_answer.split("TEXT: /", 1)[1].rsplit("/", 1)[0])
    assert prose.fullmatch("The trend is strong (strength 0.99); expect 453.0 in January.\n- seasonal")
    for imitation in ('>{"name": "analyze_features"}', "<tool_call>", 'Now: {"name": "x"}', " leading space"):
        assert not prose.fullmatch(imitation)
    # a JSON answer next to calls: only the tagged call form, so '{' starts the answer
    mixed = native_grammar([CALC], allow_answer=True, answer_schema={"type": "object"})
    assert '"\\n</tool_call>"\n' in mixed and "answer: %json" in mixed


def test_native_history_uses_the_models_own_tags():
    call = ToolCall("c1", "calculate", {"expression": "17*23"})
    msgs = [
        Message("user", "What is 17*23?"),
        Message("assistant", "", [call]),
        Message("tool", "391", tool_call_id="c1"),
    ]
    out = render_messages(msgs, "TOOLS", layout="native", note="(Tools available now: submit.)")
    assert out[2]["content"] == '<tool_call>\n{"name": "calculate", "arguments": {"expression": "17*23"}}\n</tool_call>'
    assert out[3] == {
        "role": "user",
        "content": "<tool_response>\n391\n</tool_response>\n\n(Tools available now: submit.)",
    }
    text = describe_tools([CALC], allow_answer=True, layout="native")
    assert "<tool_call></tool_call> XML tags" in text and "plain text" in text


def _prompt(model: LocalModel, tools, catalogue, messages, tool_choice="auto"):
    request, _ = model._prepare(messages, tools, tool_choice, None, None, catalogue)
    return request


@pytest.mark.parametrize("layout", ["native", "json"])
def test_with_a_catalogue_the_system_prompt_is_the_same_at_every_step(layout):
    model = LocalModel(layout=layout)
    first = [Message("system", "Be brief."), Message("user", "Weather in Oslo and 2*3?")]
    call = ToolCall("c1", "get_weather", {"city": "Oslo"})
    later = first + [Message("assistant", "", [call]), Message("tool", "sunny", tool_call_id="c1")]
    catalogue = [CALC, WEATHER]
    r1 = _prompt(model, [WEATHER], catalogue, first)
    r2 = _prompt(model, [CALC], catalogue, later, tool_choice="required")
    r3 = _prompt(model, [], catalogue, later)
    assert r1["messages"][0] == r2["messages"][0] == r3["messages"][0]
    assert '"calculate"' in r1["messages"][0]["content"]  # listed, though not callable at step 1
    # the earlier turns of step 1 are a prefix of step 2's
    assert r2["messages"][1]["content"].startswith(r1["messages"][1]["content"].split("\n\n(")[0])
    assert r1["messages"][-1]["content"].endswith("(Tools available now: get_weather.)")
    assert r2["messages"][-1]["content"].endswith("(Call one of: calculate.)")
    assert "available now" not in r3["messages"][-1]["content"]  # prose only: the model copied such a line
    # gating lives in the grammar: step 1 admits only get_weather
    constraint = json.dumps(r1.get("grammar") or r1["response_format"])
    assert "get_weather" in constraint and "calculate" not in constraint


def test_without_a_catalogue_there_is_no_note():
    r = _prompt(LocalModel(layout="native"), [CALC], None, [Message("user", "2*3?")])
    assert "available now" not in json.dumps(r["messages"])
    assert availability_note([CALC, WEATHER], [CALC, WEATHER], "auto") == ""


def test_unconstrained_native_requests_carry_no_grammar():
    model = LocalModel(layout="native", grammar=False)
    r = _prompt(model, [CALC], None, [Message("user", "2*3?")])
    assert "grammar" not in r and "response_format" not in r


def test_llama_errors_become_model_errors_with_status():
    err = llama_error(
        {
            "code": 400,
            "type": "exceed_context_size_error",
            "n_prompt_tokens": 9000,
            "n_ctx": 8192,
            "message": "request (9000 tokens) exceeds the available context size",
        }
    )
    assert err.status == 400 and "9000 tokens" in str(err) and "8192" in str(err)
    assert llama_error({"code": 500, "message": "boom"}).status == 500


def test_unknown_layout_is_refused():
    with pytest.raises(ValueError, match="layout"):
        LocalModel(layout="xml")


def test_a_copied_availability_note_is_dropped_from_the_answer():
    reader = native_reader([CALC])
    reader.note = "(Tools available now: calculate.)"
    deltas = _feed(reader, ["It is 6.", "\n\n(Tools available now: calculate.)"])
    assert deltas[-1].response.content == "It is 6."


def _replying(monkeypatch, layout, replies):
    """A LocalModel whose llama.cpp gives `replies` in turn (128 tokens each); returns it and the requests."""
    model = LocalModel(layout=layout)
    monkeypatch.setattr(model, "_load_locked", lambda: None)
    requests = []

    def chunks(request):
        requests.append(request)
        yield {
            "choices": [{"delta": {"content": replies[len(requests) - 1]}}],
            "timings": {"prompt_n": 10, "cache_n": 0, "predicted_n": 128},
        }

    monkeypatch.setattr(model, "chunks", chunks)
    return model, requests


def test_a_call_cut_at_max_tokens_is_asked_again_with_strings_that_fit(monkeypatch):
    model, requests = _replying(
        monkeypatch,
        "native",
        [
            '<tool_call>\n{"name": "calculate", "arguments": {"expression": "1+1+1+1+1+1',
            '<tool_call>\n{"name": "calculate", "arguments": {"expression": "1+1"}}\n</tool_call>',
        ],
    )
    deltas = list(model.stream([Message("user", "1+1?")], [CALC], max_tokens=128))
    (call,) = deltas[-1].response.tool_calls
    assert call.error is None and call.arguments == {"expression": "1+1"}
    assert "maxLength" not in requests[0]["grammar"]
    body = json.loads(requests[1]["grammar"].split("body: %json ", 1)[1].split("\n", 1)[0])
    assert body["anyOf"][0]["properties"]["arguments"]["properties"]["expression"]["maxLength"] == 128 - 64
    assert deltas[-1].response.usage.completion_tokens == 256  # both attempts are counted


def test_bounded_strings_fit_the_budget_together():
    tool = ToolSpec(
        "mail",
        "Send a mail.",
        {
            "type": "object",
            "properties": {
                "to": {"type": "string"},
                "subject": {"type": "string", "maxLength": 1000},
                "tags": {"type": "array", "items": {"type": "string"}},
                "kind": {"enum": ["a", "b"]},
            },
        },
    )
    args = tool_call_schema([tool], allow_answer=False, budget=120)["anyOf"][0]["properties"]["arguments"]
    props = args["properties"]
    # 6 strings at most (to, subject, 4 tags); a caller's own bound is dropped like every length keyword
    assert props["to"]["maxLength"] == props["subject"]["maxLength"] == 120 // 6
    assert (
        props["tags"]["maxItems"] == 4
        and props["tags"]["items"]["maxLength"] == 20
        and "maxLength" not in props["kind"]
    )


def test_the_json_layout_retries_a_cut_call_under_an_llguidance_grammar(monkeypatch):
    model, requests = _replying(
        monkeypatch,
        "json",
        [
            '{"tool": "calculate", "arguments": {"expression": "1+1+1+1+1+1',
            '{"tool": "calculate", "arguments": {"expression": "1+1"}}',
        ],
    )
    (call,) = model.complete([Message("user", "1+1?")], [CALC], max_tokens=128).tool_calls
    assert call.error is None and call.arguments == {"expression": "1+1"}
    assert "response_format" in requests[0] and "grammar" not in requests[0]
    assert (
        requests[1]["grammar"].startswith("%llguidance {}\nstart: %json ")
        and '"maxLength": 64' in requests[1]["grammar"]
    )


def test_a_typed_answer_schema_with_a_required_call_reads_a_bare_object_as_the_call():
    """`output_type=` sends a schema; while `tool_choice="required"` no answer is possible, so the bare call
    object the grammar admits is a call (it was read as the JSON answer)."""
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    messages = [Message("user", "2*3?")]
    _, reader = LocalModel(layout="native")._prepare(messages, [CALC], "required", schema, None, None)
    reply = '{"name": "calculate", "arguments": {"expression": "2*3"}}'
    deltas = reader.feed(reply) + reader.finish(Usage())
    [call] = deltas[-1].response.tool_calls
    assert call.name == "calculate" and call.arguments == {"expression": "2*3"}
    _, reader = LocalModel(layout="native")._prepare(messages, [CALC], "auto", schema, None, None)
    deltas = reader.feed('{"n": 6}') + reader.finish(Usage())
    assert deltas[-1].response.content == '{"n": 6}' and not deltas[-1].response.tool_calls


PARTS = {"type": "object", "properties": {"where": {"type": "array", "items": {"type": "string"}}}}


@pytest.mark.parametrize("layout", ["native", "json"])
def test_a_schema_reply_cut_at_max_tokens_is_asked_again_with_strings_that_fit(monkeypatch, layout):
    """A structured reply (no tools) that runs away inside a string is not JSON; the retry's strings, 4 list items
    of at most (128 - 64) // 4 characters, fit in max_tokens, so the reply ends as JSON."""
    model, requests = _replying(monkeypatch, layout, ['{"where": ["COUNT(COUNT(COUNT(COUNT(', '{"where": ["n > 1"]}'])
    reply = model.complete([Message("user", "which?")], (), tool_choice="none", schema=PARTS, max_tokens=128)
    assert json.loads(reply.content) == {"where": ["n > 1"]}
    assert "grammar" not in requests[0] and "maxLength" not in json.dumps(requests[0]["response_format"])
    assert requests[1]["grammar"].startswith("%llguidance {}\nstart: %json ") and "response_format" not in requests[1]
    bounded = json.loads(requests[1]["grammar"].split("%json ", 1)[1])
    assert bounded["properties"]["where"] == {
        "type": "array",
        "items": {"type": "string", "maxLength": 16},
        "maxItems": 4,
    }
    assert reply.usage.completion_tokens == 256  # both attempts are counted


def test_a_schema_reply_that_fits_is_asked_once_and_unbounded(monkeypatch):
    model, requests = _replying(monkeypatch, "native", ['{"where": ["n > 1"]}'])
    reply = model.complete([Message("user", "which?")], [CALC], tool_choice="none", schema=PARTS, max_tokens=128)
    assert json.loads(reply.content) == {"where": ["n > 1"]} and len(requests) == 1
    assert "grammar" not in requests[0] and "maxLength" not in json.dumps(requests[0]["response_format"])
