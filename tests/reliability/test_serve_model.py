"""Issue 12, servers: `orrery serve-model` under clients that give up, overflow, send garbage, or come
from the network. Each test reproduces a failure found on main and asserts the behaviour now."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from orrery.errors import ConfigError, ModelError
from orrery.exposure import check_exposure
from orrery.llm.base import Delta
from orrery.llm.openai import OpenAIModel
from orrery.llm.scripted import ScriptedModel
from orrery.llm.server import running_server
from orrery.messages import Message, ModelResponse, Usage

pytestmark = pytest.mark.integration  # a real uvicorn server per test (`running_server`)

HELLO = {"model": "scripted", "messages": [{"role": "user", "content": "hi"}]}


class SlowStreamingModel:
    """Streams one token every 20 ms for as long as it is read; records how far it got and when it stopped."""

    name = "slow"

    def __init__(self) -> None:
        self.tokens_sent = 0
        self.closed = threading.Event()
        self.busy = threading.Lock()

    def complete(self, messages, tools=(), **kw) -> ModelResponse:
        *_, last = self.stream(messages, tools, **kw)
        return last.response

    def stream(
        self,
        messages,
        tools=(),
        *,
        tool_choice="auto",
        schema=None,  # noqa: ARG002 - a Model's signature
        max_tokens=None,
    ) -> Iterator[Delta]:
        with self.busy:  # one slot, as llama.cpp has
            try:
                for _ in range(max_tokens or 10_000):
                    time.sleep(0.02)
                    self.tokens_sent += 1
                    yield Delta(text="x")
                yield Delta(response=ModelResponse("x" * (max_tokens or 10_000), [], Usage(1, max_tokens or 0)))
            finally:
                self.closed.set()


def test_a_client_that_gives_up_stops_the_generation_and_frees_the_slot():
    """Was: the abandoned request kept the only slot; the next tiny request waited 139 s."""
    model = SlowStreamingModel()
    with running_server(model) as url:
        body = {"model": "slow", "messages": [{"role": "user", "content": "long"}], "max_tokens": 5000}
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{url}/chat/completions", json=body, timeout=0.3)
        assert model.closed.wait(5), "the generation went on after the client left"
        assert model.tokens_sent < 1000
        r = httpx.post(f"{url}/chat/completions", json={**body, "max_tokens": 3}, timeout=10)
        assert r.status_code == 200 and r.json()["choices"][0]["message"]["content"] == "xxx"


def test_a_streaming_client_that_gives_up_stops_the_generation():
    model = SlowStreamingModel()
    with running_server(model) as url:
        body = {"model": "slow", "messages": [{"role": "user", "content": "long"}], "max_tokens": 5000, "stream": True}
        with httpx.stream("POST", f"{url}/chat/completions", json=body, timeout=10) as r:
            for i, _ in enumerate(r.iter_lines()):
                if i > 5:
                    break
        assert model.closed.wait(5), "the generation went on after the client left"
        assert model.tokens_sent < 1000


class OverflowModel:
    name = "local"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, _messages, _tools=(), **_kw) -> ModelResponse:
        self.calls += 1
        raise ModelError(
            "the prompt has 9000 tokens but the model's context holds 8192: shorten the conversation or raise n_ctx",
            status=400,
        )


def test_an_overflowing_prompt_is_a_400_with_token_counts_and_is_not_retried():
    """Was: 500, which the OpenAI provider retried 4 times."""
    model = OverflowModel()
    with running_server(model) as url:
        r = httpx.post(f"{url}/chat/completions", json={**HELLO, "model": "local"})
        assert r.status_code == 400 and "9000 tokens" in r.json()["error"]["message"]
        client = OpenAIModel("local", base_url=url, max_retries=3, timeout=10)
        with pytest.raises(ModelError, match="HTTP 400.*9000 tokens") as info:
            client.complete([Message("user", "hi")])
        assert info.value.status == 400 and not info.value.retryable
    assert model.calls == 2  # one per request: no retry


def test_request_size_is_bounded():
    with running_server(ScriptedModel(["never"])) as url:
        r = httpx.post(
            f"{url}/chat/completions",
            json={**HELLO, "messages": [{"role": "user", "content": "x" * (5 * 1024 * 1024)}]},
            timeout=30,
        )
    assert r.status_code == 413 and "at most" in r.json()["error"]["message"]


@pytest.mark.parametrize(
    "change, field",
    [
        ({"messages": [{"content": "no role"}]}, "role"),
        ({"messages": [{"role": "user", "content": 5}]}, "content"),
        ({"tools": [{"type": "function"}]}, "function"),
        ({"tool_choice": {"type": "function"}}, "tool_choice"),
        ({"tools": [{"type": "function", "function": {"name": "f", "parameters": "string"}}]}, "parameters"),
        ({"response_format": {"type": "json_schema"}}, "json_schema"),
        ({"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "strnig"}}}]}, "strnig"),
        (
            {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"schema": {"type": "object", "properties": {"n": {"type": "int"}}}},
                }
            },
            "'int'",
        ),
        ({"response_format": {"type": "xml"}}, "response_format"),
        ({"max_tokens": -5}, "max_tokens"),
        ({"messages": []}, "messages"),
    ],
)
def test_malformed_requests_are_400_with_the_field_named(change, field):
    """Was: 500 for each of these, and 200 for empty messages."""
    model = ScriptedModel(["never used"])
    with running_server(model) as url:
        r = httpx.post(f"{url}/chat/completions", json={**HELLO, **change})
    assert r.status_code == 400, r.text
    assert field in r.json()["error"]["message"]
    assert model.requests == []  # refused before the model was called


def test_an_unknown_model_is_404():
    with running_server(ScriptedModel(["never used"])) as url:
        r = httpx.post(f"{url}/chat/completions", json={**HELLO, "model": "gpt-9"})
    assert r.status_code == 404 and "gpt-9" in r.json()["error"]["message"]


def test_off_loopback_needs_a_token(monkeypatch):
    """Was: `--host 0.0.0.0` served anyone, with no warning."""
    monkeypatch.delenv("ORRERY_TOKEN", raising=False)
    with pytest.raises(ConfigError, match="--token"):
        check_exposure("0.0.0.0", None)
    assert check_exposure("127.0.0.1", None) is None and check_exposure("::1", None) is None
    assert check_exposure("0.0.0.0", "s3cret") == "s3cret"
    monkeypatch.setenv("ORRERY_TOKEN", "from-env")
    assert check_exposure("192.168.1.5", None) == "from-env"


def test_with_a_token_requests_must_carry_it():
    with running_server(ScriptedModel(["hello"]), token="s3cret") as url:
        assert httpx.post(f"{url}/chat/completions", json=HELLO).status_code == 401
        wrong = httpx.post(f"{url}/chat/completions", json=HELLO, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        assert httpx.get(f"{url}/models").status_code == 401
        ok = httpx.post(f"{url}/chat/completions", json=HELLO, headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200 and ok.json()["choices"][0]["message"]["content"] == "hello"
        client = OpenAIModel("scripted", base_url=url, api_key="s3cret", max_retries=0)
        assert [m.id for m in client.client.models.list().data] == ["scripted"]


def test_the_command_refuses_to_serve_the_network_without_a_token():
    env = {k: v for k, v in os.environ.items() if k != "ORRERY_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-m", "orrery", "serve-model", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "--token" in done.stderr and "Traceback" not in done.stderr
