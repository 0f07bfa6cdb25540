"""The embedded model for real: in-process tool calls, the same through `orrery serve-model`'s
HTTP server and the OpenAI SDK, and schema-constrained content."""

from __future__ import annotations

import json
import os
import time
import uuid

import httpx
import pytest

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from orrery.errors import ModelTimeout  # noqa: E402
from orrery.llm.local import LocalModel  # noqa: E402
from orrery.llm.openai import OpenAIModel  # noqa: E402
from orrery.llm.server import running_server  # noqa: E402
from orrery.messages import Message, ToolSpec  # noqa: E402

pytestmark = pytest.mark.integration

TOOLS = [
    ToolSpec(
        "calculate",
        "Evaluate an arithmetic expression and return the number.",
        {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
    ),
    ToolSpec(
        "get_weather",
        "Current weather for a city.",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    ),
]
QUESTION = [Message("user", "What is 17*23?")]


@pytest.fixture(scope="module")
def model() -> LocalModel:
    m = LocalModel(max_tokens=128)
    m.load()
    return m


def _check_calculate(resp) -> None:
    assert resp.tool_calls, f"expected a tool call, got content {resp.content!r}"
    call = resp.tool_calls[0]
    assert call.name == "calculate" and call.error is None
    expression = call.arguments["expression"]
    assert "17" in expression and "23" in expression
    assert resp.usage.prompt_tokens > 0 and resp.usage.completion_tokens > 0


def test_in_process_tool_call(model):
    _check_calculate(model.complete(QUESTION, TOOLS))


def test_tool_call_through_the_openai_sdk(model):
    with running_server(model) as url:
        client = OpenAIModel(model="local", base_url=url, max_retries=0, timeout=60)
        _check_calculate(client.complete(QUESTION, TOOLS))
        models = client.client.models.list()
        assert [m.id for m in models.data] == ["local"]
        stream = client.client.chat.completions.create(
            model="local", messages=[{"role": "user", "content": "Say hello."}], max_tokens=16, stream=True
        )
        chunks = list(stream)
        assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices).strip()
        assert chunks[-1].choices[0].finish_reason == "stop"
        assert "".join(d.text for d in client.stream([Message("user", "Say hello.")], max_tokens=16)).strip()


def test_schema_constrained_content(model):
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string", "maxLength": 40}, "age": {"type": "integer"}},
        "required": ["name", "age"],
    }
    resp = model.complete([Message("user", "Describe a person called Ann who is 31 years old.")], schema=schema)
    data = json.loads(resp.content)
    assert set(data) == {"name", "age"} and isinstance(data["name"], str) and isinstance(data["age"], int)


def test_generic_agent_end_to_end_through_the_http_server(model, tmp_path):
    """The real path of the core: Agent -> OpenAI provider -> serve-model -> llama.cpp, traced and replayed."""
    from orrery import Agent, AgentConfig
    from orrery.replay import replay
    from orrery.tools.builtin import DEFAULT_TOOLS

    with running_server(model) as url:
        llm = OpenAIModel(model="local", base_url=url, max_retries=0, timeout=120)
        agent = Agent(
            llm,
            DEFAULT_TOOLS,
            AgentConfig(max_rounds=6, trace=tmp_path / "run.jsonl"),
            tools_ref="orrery.tools.builtin:DEFAULT_TOOLS",
        )
        result = agent.run("What is 17*23?")
    assert result.status == "completed", result.errors
    assert any(t.call.name == "calculate" and t.ok for t in result.tool_calls)
    assert "391" in result.output
    assert replay(tmp_path / "run.jsonl", DEFAULT_TOOLS).identical


# --- streaming, the prompt cache, limits (issue 13, issue 12 servers) ------------------------------------


def test_streamed_tokens_arrive_before_the_reply_ends(model):
    arrivals = []
    for delta in model.stream([Message("user", "Name three colours of the rainbow, in one sentence.")], TOOLS):
        arrivals.append((time.monotonic(), delta))
    texts = [(t, d.text) for t, d in arrivals if d.text]
    final_t, final = arrivals[-1]
    assert final.response is not None and not final.response.tool_calls
    assert len(texts) >= 3, "the answer came in one piece"
    assert texts[0][0] < final_t  # the first words were there before the reply ended
    assert "".join(t for _, t in texts).strip() == final.response.content.strip()


def test_a_streamed_tool_call_names_its_tool_and_arguments(model):
    deltas = list(model.stream(QUESTION, TOOLS))
    named = [d for d in deltas if d.name]
    call = deltas[-1].response.tool_calls[0]
    assert [d.name for d in named] == ["calculate"] and named[0].id == call.id
    assert json.loads("".join(d.arguments for d in deltas)) == call.arguments


@pytest.mark.parametrize("layout", ["native", "json"])
def test_a_call_too_long_for_max_tokens_still_arrives_well_formed(model, layout, monkeypatch):
    """max_tokens cuts the first reply inside the text argument; the model is asked again with strings that fit."""
    model.load()  # its family's layout is set on load: monkeypatch restores that one
    monkeypatch.setattr(model, "layout", layout)
    translate = ToolSpec(
        "translate",
        "Translate text into English.",
        {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    )
    long = " ".join(["Der schnelle braune Fuchs springt über den faulen Hund und läuft in den Wald."] * 6)
    response = model.complete(
        [Message("user", f"Translate into English: {long}")], [translate], tool_choice="required", max_tokens=90
    )
    (call,) = response.tool_calls
    assert call.name == "translate" and call.error is None
    assert 0 < len(call.arguments["text"]) <= 90 - 64
    assert response.usage.completion_tokens > 90  # the cut first reply and the bounded second one


def test_serve_model_streams_tokens_as_they_are_generated(model):
    with running_server(model) as url:
        client = OpenAIModel(model="local", base_url=url, max_retries=0, timeout=120)
        stream = client.client.chat.completions.create(
            model="local",
            messages=[{"role": "user", "content": "Count from one to ten in words."}],
            max_tokens=48,
            stream=True,
        )
        arrivals = [(time.monotonic(), c) for c in stream]
    pieces = [(t, c.choices[0].delta.content) for t, c in arrivals if c.choices and c.choices[0].delta.content]
    assert len(pieces) >= 5 and pieces[0][0] < arrivals[-1][0]
    assert arrivals[-1][1].choices[0].finish_reason == "stop"


def test_a_second_step_reuses_the_cached_prompt_prefix(model):
    """The catalogue keeps the system prompt fixed while gating changes the callable tools, so llama.cpp
    processes only the new turns at step 2 (its timings: prompt_n processed, cache_n reused)."""
    system = Message("system", f"You help with sums and weather. Session {uuid.uuid4().hex}.")  # a cold cache
    step1 = [system, Message("user", "What is 17*23? Then tell me the weather in Oslo.")]
    first = model.complete(step1, TOOLS[:1], catalogue=TOOLS)
    t1 = dict(model.last_timings)
    call = first.tool_calls[0]
    step2 = step1 + [Message("assistant", "", [call]), Message("tool", "391", tool_call_id=call.id)]
    model.complete(step2, TOOLS[1:], catalogue=TOOLS)
    t2 = model.last_timings
    assert t1["cache_n"] < 5 and t1["prompt_n"] > 150  # step 1 is processed in full
    assert t2["cache_n"] >= t1["prompt_n"] - 30  # step 2 reuses (nearly) all of step 1's prompt ...
    assert t2["prompt_n"] < t1["prompt_n"] / 2  # ... and processes only its new turns


def test_closing_a_stream_stops_the_generation(model):
    counted = []
    server = model._server

    class Counting:
        def handle_chat_completions(self, request, callback=None):
            def counting(chunk):
                counted.append(chunk)
                return callback(chunk)

            return server.handle_chat_completions(request, counting)

    model._server = Counting()
    try:
        stream = model.stream([Message("user", "Write a long story about a lighthouse keeper.")], max_tokens=400)
        for i, _ in enumerate(stream):
            if i == 3:
                break
        stream.close()
        assert model._lock.acquire(timeout=60), "the generation kept the model"
        model._lock.release()
    finally:
        model._server = server
    assert len(counted) < 40  # stopped at the next token, not after 400


def test_an_overflowing_prompt_is_a_400_with_token_counts(model):
    with running_server(model) as url:
        r = httpx.post(
            f"{url}/chat/completions",
            json={"model": "local", "messages": [{"role": "user", "content": "word " * 9000}], "max_tokens": 4},
            timeout=120,
        )
    assert r.status_code == 400
    message = r.json()["error"]["message"]
    assert "tokens but the model's context holds 8192" in message


def test_a_generation_past_the_time_limit_stops_with_a_clear_error(model):
    model.timeout_s = 0.5
    try:
        with pytest.raises(ModelTimeout, match="still generating after 0.5 s"):
            model.complete([Message("user", "Write a long story about a lighthouse keeper.")], max_tokens=400)
    finally:
        model.timeout_s = None
