"""Typed outputs with the embedded model: the answer is grammar-constrained to the output type's schema."""

from __future__ import annotations

import json
import os

import pydantic
import pytest

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from orrery import Agent, AgentConfig, events, tool  # noqa: E402
from orrery.llm.local import LocalModel  # noqa: E402
from orrery.messages import Message  # noqa: E402

pytestmark = pytest.mark.integration


class City(pydantic.BaseModel):
    city: str
    country: str
    population: int


class Population(pydantic.BaseModel):
    city: str
    population: int


@tool
def population(city: str) -> str:
    """Population of a city.

    Args:
        city: the city's name
    """
    return {"oslo": "709000"}.get(city.lower(), "unknown")


@pytest.fixture(scope="module")
def model() -> LocalModel:
    m = LocalModel(max_tokens=128)
    m.load()
    return m


def test_the_embedded_model_fills_a_small_schema(model):
    seen = []
    agent = Agent(model, [], on_event=[seen.append])
    r = agent.run("Oslo is the capital of Norway and has 709000 inhabitants. Describe the city.", output_type=City)
    assert r.status == "completed" and r.retries == 0
    assert r.output == City(city="Oslo", country="Norway", population=709000)
    assert model.name and any(isinstance(e, events.PartialOutput) for e in seen)


def test_the_embedded_model_calls_a_tool_then_answers_in_the_schema(model):
    config = AgentConfig(tool_choice=lambda ctx: "auto" if ctx.succeeded else "required")
    r = Agent(model, [population], config).run("What is the population of Oslo?", output_type=Population)
    assert [c.content for c in r.tool_calls] == ["709000"]
    assert r.status == "completed" and r.output == Population(city="Oslo", population=709000)


def test_a_structured_reply_cut_at_max_tokens_comes_back_as_json_with_the_real_grammar(model):
    """The retry of a cut schema reply runs under an llguidance grammar with length bounds (bench/bi.md "Round 30"): the
    real llama.cpp accepts it and the reply ends as JSON within max_tokens."""
    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    long = " ".join(f"row {i} of the counties table;" for i in range(40))
    reply = model.complete(
        [Message("user", f"Copy this into the field text: {long}")], (), schema=schema, max_tokens=70
    )
    assert reply.usage.completion_tokens > 70  # the first reply was cut, the second counted too
    assert len(json.loads(reply.content)["text"]) <= 8  # _fit's floor: (70 - 64) characters is under it
