"""The embedded model for real: in-process tool calls, the same through `orrery serve-model`'s
HTTP server and the OpenAI SDK, and schema-constrained content."""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from orrery.llm.local import LocalModel  # noqa: E402
from orrery.llm.openai import OpenAIModel  # noqa: E402
from orrery.llm.server import running_server  # noqa: E402
from orrery.messages import Message, ToolSpec  # noqa: E402

pytestmark = pytest.mark.integration

TOOLS = [
    ToolSpec("calculate", "Evaluate an arithmetic expression and return the number.",
             {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}),
    ToolSpec("get_weather", "Current weather for a city.",
             {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
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
            model="local", messages=[{"role": "user", "content": "Say hello."}], max_tokens=16, stream=True)
        chunks = list(stream)
        assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices).strip()
        assert chunks[-1].choices[0].finish_reason == "stop"
        assert "".join(client.stream([Message("user", "Say hello.")], max_tokens=16)).strip()


def test_schema_constrained_content(model):
    schema = {"type": "object",
              "properties": {"name": {"type": "string", "maxLength": 40}, "age": {"type": "integer"}},
              "required": ["name", "age"]}
    resp = model.complete([Message("user", "Describe a person called Ann who is 31 years old.")], schema=schema)
    data = json.loads(resp.content)
    assert set(data) == {"name", "age"} and isinstance(data["name"], str) and isinstance(data["age"], int)


def test_generic_agent_end_to_end_through_the_http_server(model, tmp_path):
    """The real path of the core: Agent -> OpenAI provider -> serve-model -> llama.cpp, traced and replayed."""
    from orrery import Agent, AgentConfig
    from orrery.tools.builtin import DEFAULT_TOOLS
    from orrery.trace import replay

    with running_server(model) as url:
        llm = OpenAIModel(model="local", base_url=url, max_retries=0, timeout=120)
        agent = Agent(llm, DEFAULT_TOOLS, AgentConfig(max_rounds=6, trace=tmp_path / "run.jsonl"),
                      tools_ref="orrery.tools.builtin:DEFAULT_TOOLS")
        result = agent.run("What is 17*23?")
    assert result.status == "completed", result.errors
    assert any(t.call.name == "calculate" and t.ok for t in result.tool_calls)
    assert "391" in result.output
    assert replay(tmp_path / "run.jsonl", DEFAULT_TOOLS).identical
