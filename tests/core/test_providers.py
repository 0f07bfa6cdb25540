"""Providers against a local fake HTTP server: retries, Retry-After, typed errors, tool calls."""

import json

import fake_http
import pytest

from orrery.errors import ConfigError, ModelError, ModelTimeout, RateLimited
from orrery.llm import resolve_model
from orrery.llm.ollama import OllamaModel
from orrery.llm.openai import OpenAIModel
from orrery.messages import Message, ToolSpec

OK_CHAT = {
    "id": "x",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "calculate", "arguments": '{"expression": "2+2"}'},
                    }
                ],
            },
        }
    ],
    "usage": {"prompt_tokens": 11, "completion_tokens": 4, "total_tokens": 15},
}


def _encode(payload):
    if isinstance(payload, list):  # a list of chunks is sent as a server-sent event stream
        return "text/event-stream", (
            "".join(f"data: {json.dumps(c)}\n\n" for c in payload) + "data: [DONE]\n\n"
        ).encode()
    if isinstance(payload, str):  # sent as is (Ollama's JSON lines)
        return "application/x-ndjson", payload.encode()
    return "application/json", json.dumps(payload).encode()


def fake_server(script):
    """`script` is a list of (status, headers, body or None=hang) answered in order; then the last repeats.
    Each hit keeps the request's JSON body."""
    return fake_http.fake_server(
        script, _encode, lambda req: json.loads(req.rfile.read(int(req.headers["Content-Length"])))
    )


TOOLS = [ToolSpec("calculate", "math", {"type": "object", "properties": {"expression": {"type": "string"}}})]
ERR = {"error": {"message": "busy", "type": "x"}}


def test_openai_retries_429_honouring_retry_after_then_succeeds():
    with fake_server([(429, {"Retry-After": "0.4"}, ERR), (200, {}, OK_CHAT)]) as (url, hits):
        r = OpenAIModel("m", base_url=url + "/v1", max_retries=2).complete([Message("user", "2+2")], TOOLS)
    assert r.tool_calls[0].name == "calculate" and r.tool_calls[0].arguments == {"expression": "2+2"}
    assert r.usage.total == 15 and len(hits) == 2
    assert hits[1][0] - hits[0][0] >= 0.35  # waited as told
    assert hits[0][1]["tools"][0]["function"]["name"] == "calculate"


def test_openai_typed_errors_after_the_last_try(no_retry_wait):
    with fake_server([(429, {"Retry-After": "0"}, ERR)]) as (url, hits), pytest.raises(RateLimited):
        OpenAIModel("m", base_url=url + "/v1", max_retries=2).complete([Message("user", "x")])
    assert len(hits) == 3
    with fake_server([(500, {"Retry-After": "0"}, ERR)]) as (url, hits), pytest.raises(ModelError) as e:
        OpenAIModel("m", base_url=url + "/v1", max_retries=1).complete([Message("user", "x")])
    assert e.value.status == 500 and len(hits) == 2
    with fake_server([(400, {}, ERR)]) as (url, hits), pytest.raises(ModelError) as e:
        OpenAIModel("m", base_url=url + "/v1", max_retries=3).complete([Message("user", "x")])
    assert e.value.status == 400 and len(hits) == 1  # a client error is not retried


def test_openai_timeout(no_retry_wait):
    with fake_server([(200, {}, None)]) as (url, hits), pytest.raises(ModelTimeout, match="did not answer"):
        OpenAIModel("m", base_url=url + "/v1", max_retries=1, timeout=0.3).complete([Message("user", "x")])
    assert len(hits) == 2


def test_openai_malformed_tool_arguments_become_a_call_error():
    bad = json.loads(json.dumps(OK_CHAT))
    bad["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = '{"expression": 2+'
    with fake_server([(200, {}, bad)]) as (url, _):
        r = OpenAIModel("m", base_url=url + "/v1").complete([Message("user", "x")], TOOLS)
    assert r.tool_calls[0].error and "not valid JSON" in r.tool_calls[0].error


OLLAMA_OK = {
    "message": {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": "calculate", "arguments": {"expression": "1+1"}}}],
    },
    "prompt_eval_count": 5,
    "eval_count": 2,
}


def test_ollama_native_retries_and_parses_tool_calls():
    with fake_server([(503, {"Retry-After": "0"}, ERR), (429, {"Retry-After": "0"}, ERR), (200, {}, OLLAMA_OK)]) as (
        url,
        hits,
    ):
        r = OllamaModel("llama3.1", host=url, max_retries=3).complete([Message("user", "1+1")], TOOLS)
    assert r.tool_calls[0].arguments == {"expression": "1+1"} and r.usage.total == 7 and len(hits) == 3
    assert hits[0][1]["tools"][0]["function"]["name"] == "calculate" and hits[0][1]["stream"] is False


def test_ollama_gives_up_with_typed_errors():
    with fake_server([(429, {"Retry-After": "0"}, ERR)]) as (url, hits), pytest.raises(RateLimited):
        OllamaModel("m", host=url, max_retries=1).complete([Message("user", "x")])
    assert len(hits) == 2
    with fake_server([(200, {}, None)]) as (url, _), pytest.raises(ModelTimeout):
        OllamaModel("m", host=url, max_retries=0, timeout=0.3).complete([Message("user", "x")])


def test_resolve_model_specs(monkeypatch):
    monkeypatch.delenv("ORRERY_LLM", raising=False)
    assert isinstance(resolve_model("openai:gpt-4o"), OpenAIModel)
    m = resolve_model("http://127.0.0.1:9/v1#qwen")
    assert isinstance(m, OpenAIModel) and m.name == "qwen" and "127.0.0.1:9" in str(m.client.base_url)
    assert isinstance(resolve_model("ollama:llama3.1"), OllamaModel)
    monkeypatch.setenv("ORRERY_LLM", "ollama:phi")
    assert resolve_model().name == "phi"
    with pytest.raises(ConfigError, match="unknown model spec"):
        resolve_model("bogus")


def test_openai_stream_yields_text_chunks_and_maps_errors():
    chunks = [
        {
            "id": "x",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": part}, "finish_reason": None}],
        }
        for part in ["Hel", "lo", " there"]
    ]
    with fake_server([(200, {}, chunks)]) as (url, hits):
        out = list(OpenAIModel("m", base_url=url + "/v1").stream([Message("user", "hi")], max_tokens=8))
    assert [d.text for d in out[:-1]] == ["Hel", "lo", " there"] and out[-1].response.content == "Hello there"
    assert hits[0][1]["stream"] is True and hits[0][1]["max_tokens"] == 8
    with fake_server([(429, {"Retry-After": "0"}, ERR)]) as (url, _), pytest.raises(RateLimited):
        list(OpenAIModel("m", base_url=url + "/v1", max_retries=0).stream([Message("user", "hi")]))


def test_openai_stream_assembles_tool_call_argument_deltas():
    def chunk(delta):
        return {
            "id": "x",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        }

    first = {
        "tool_calls": [
            {"index": 0, "id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, '}}
        ]
    }
    rest = {"tool_calls": [{"index": 0, "function": {"arguments": '"b": 3}'}}]}
    usage = {**chunk({}), "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 4, "total_tokens": 11}}
    with fake_server([(200, {}, [chunk(first), chunk(rest), usage])]) as (url, hits):
        tool = ToolSpec("add", "Add.", {"type": "object", "properties": {}})
        out = list(OpenAIModel("m", base_url=url + "/v1").stream([Message("user", "2+3")], [tool]))
    assert [(d.index, d.name, d.arguments) for d in out[:-1]] == [(0, "add", '{"a": 2, '), (0, None, '"b": 3}')]
    final = out[-1].response
    assert final.tool_calls[0].name == "add" and final.tool_calls[0].arguments == {"a": 2, "b": 3}
    assert final.usage.total == 11 and hits[0][1]["tools"][0]["function"]["name"] == "add"


def test_ollama_stream_yields_pieces_then_the_whole_reply():
    lines = [
        {"message": {"content": "Hel"}, "done": False},
        {"message": {"content": "lo"}, "done": False},
        {
            "message": {"content": "", "tool_calls": [{"function": {"name": "add", "arguments": {"a": 1}}}]},
            "done": False,
        },
        {"message": {"content": ""}, "done": True, "prompt_eval_count": 5, "eval_count": 2},
    ]
    with fake_server([(200, {}, "".join(json.dumps(x) + "\n" for x in lines))]) as (url, hits):
        out = list(OllamaModel("m", host=url).stream([Message("user", "hi")]))
    assert [d.text for d in out if d.text] == ["Hel", "lo"] and hits[0][1]["stream"] is True
    final = out[-1].response
    assert final.content == "Hello" and final.tool_calls[0].arguments == {"a": 1} and final.usage.total == 7
