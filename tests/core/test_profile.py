"""`ModelProfile`: every provider declares one; the loop reads it (no attribute probing, no class names)."""

import dataclasses

import pytest

from orrery import Agent
from orrery.agent.output import FINAL_TOOL
from orrery.llm import ModelProfile, ScriptedModel, profile_of
from orrery.llm.local import LocalModel
from orrery.llm.ollama import OllamaModel
from orrery.llm.openai import OpenAIModel
from orrery.llm.scripted import call, turn
from orrery.messages import ModelResponse
from orrery.tools import tool


@dataclasses.dataclass
class Count:
    n: int


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def test_every_provider_declares_a_frozen_profile():
    profiles = {
        "scripted": ScriptedModel([]).profile,
        "local": LocalModel().profile,
        "openai": OpenAIModel("m", base_url="http://127.0.0.1:9/v1").profile,
        "ollama": OllamaModel("m", host="http://127.0.0.1:9").profile,
    }
    assert all(isinstance(p, ModelProfile) for p in profiles.values())
    assert all(p.streams for p in profiles.values())
    local = profiles["local"]
    assert (local.parallel_calls, local.takes_catalogue, local.narrow_tools) == (False, True, True)
    assert profiles["openai"].parallel_calls and not profiles["openai"].narrow_tools
    with pytest.raises(dataclasses.FrozenInstanceError):
        local.streams = False  # type: ignore[misc]


def test_a_providers_format_argument_is_its_profiles_format():
    model = OpenAIModel("m", base_url="http://127.0.0.1:9/v1", preferred_format="react")
    assert model.profile.format == "react" and LocalModel().profile.takes_catalogue is True
    assert ScriptedModel([]).profile.format == "native"


def test_the_loop_takes_format_and_output_mode_from_the_profile():
    react = ScriptedModel(
        [{"thought": "t", "action": "respond", "response": "hi"}], profile=ModelProfile(format="react", streams=True)
    )
    agent = Agent(react, [echo])
    assert agent.config.format == "react" and agent.run("q").output == "hi"
    tool_mode = ScriptedModel([turn(call(FINAL_TOOL, n=3))], profile=ModelProfile(streams=True, output_mode="tool"))
    result = Agent(tool_mode).run("q", output_type=Count)
    assert result.output == Count(3) and tool_mode.requests[0]["tools"] == [FINAL_TOOL]


def test_a_model_that_does_not_stream_is_called_whole():
    class Whole:  # a provider written before profiles: no `profile`, no `stream`
        name = "whole"

        def __init__(self):
            self.calls = 0

        def complete(self, _messages, _tools=(), **_kw):
            self.calls += 1
            return ModelResponse("plain answer")

    model = Whole()
    assert profile_of(model) == ModelProfile()
    assert Agent(model).run("q").output == "plain answer" and model.calls == 1


def test_a_provider_without_a_profile_gets_one_from_its_attributes():
    class Legacy:
        name, preferred_format, takes_catalogue, output_mode = "legacy", "react", True, "tool"

        def stream(self, *_a, **_kw):
            yield from ()

    assert profile_of(Legacy()) == ModelProfile(format="react", streams=True, takes_catalogue=True, output_mode="tool")
