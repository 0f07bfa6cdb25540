"""Typed outputs: `agent.run(task, output_type=T)` -> a validated T, per kind of T, with the scripted model."""

import dataclasses
import json

import pydantic
import pytest
from typing_extensions import TypedDict

from orrery import Agent, AgentConfig, ScriptedModel, tool
from orrery import events as ev
from orrery.agent.output import FINAL_TOOL, OutputSpec
from orrery.errors import ConfigError
from orrery.llm.scripted import call, turn
from orrery.messages import ToolCall


class City(pydantic.BaseModel):
    name: str
    population: int = pydantic.Field(ge=0)


@dataclasses.dataclass
class Point:
    x: float
    y: float


class Pair(TypedDict):
    left: str
    right: int


@tool
def lookup(city: str) -> str:
    """Population of a city.

    Args:
        city: its name
    """
    return {"Oslo": "709000"}.get(city, "unknown")


def run(turns, output_type, **cfg):
    events = []
    a = Agent(ScriptedModel(turns), [lookup], AgentConfig(**cfg), on_event=[events.append])
    return a, a.run("Tell me about Oslo", output_type=output_type), events


def test_pydantic_model_after_a_tool_round_is_validated_and_the_schema_goes_with_every_call():
    a, r, events = run([turn(call("lookup", city="Oslo")), '{"name": "Oslo", "population": 709000}'], City)
    assert r.status == "completed" and r.output == City(name="Oslo", population=709000)
    assert all(req["schema"] == OutputSpec(City).schema for req in a.model.requests)
    assert a.model.requests[0]["schema"]["properties"]["population"]["minimum"] == 0
    final = events[-1]
    assert json.loads(final.output) == {"name": "Oslo", "population": 709000}  # traces keep the text
    assert str(r) == final.output


def test_dataclass_output():
    _, r, _ = run(['{"x": 1.5, "y": -2}'], Point)
    assert r.output == Point(1.5, -2.0)


def test_typeddict_output():
    _, r, _ = run(['{"left": "a", "right": 3}'], Pair)
    assert r.output == {"left": "a", "right": 3}


def test_a_non_object_type_is_wrapped_in_a_response_object():
    a, r, _ = run(['{"response": [1, 2, 3]}'], list[int])
    assert r.output == [1, 2, 3]
    schema = a.model.requests[0]["schema"]
    assert schema["type"] == "object" and schema["required"] == ["response"]


def test_union_with_str_takes_an_object_or_plain_text():
    _, r, _ = run(['{"response": {"name": "Oslo", "population": 1}}'], City | str)
    assert r.output == City(name="Oslo", population=1)
    _, r, _ = run(["I do not know that city."], City | str)
    assert r.output == "I do not know that city."
    _, r, _ = run(['{"response": "no idea"}'], City | str)
    assert r.output == "no idea"


def test_a_validation_error_is_sent_back_and_the_model_corrects_itself():
    a, r, events = run(['{"name": "Oslo", "population": -5}', '{"name": "Oslo", "population": 709000}'], City)
    assert r.status == "completed" and r.output.population == 709000 and r.retries == 1
    feedback = a.model.requests[1]["messages"][-1]
    assert feedback.role == "user" and "population" in feedback.content and "greater than or equal" in feedback.content
    assert "Reply again with only JSON matching" in feedback.content
    assert [e.kind for e in events].count("retry") == 1


def test_validation_errors_past_the_retry_budget_end_invalid_with_the_text():
    _, r, _ = run(["not json", '{"name": 3}'], City, max_retries=1)
    assert r.status == "invalid" and r.output == '{"name": 3}' and len(r.errors) == 2
    assert "not JSON" in r.errors[0]


def test_tool_mode_offers_a_final_result_tool_and_validates_its_arguments():
    turns = [
        turn(call("lookup", city="Oslo")),
        turn(ToolCall("f1", FINAL_TOOL, {"name": "Oslo", "population": "lots"})),
        turn(ToolCall("f2", FINAL_TOOL, {"name": "Oslo", "population": 709000})),
    ]
    a, r, _ = run(turns, City, output_mode="tool")
    assert r.output == City(name="Oslo", population=709000) and r.retries == 1
    assert a.model.requests[0]["schema"] is None
    assert a.model.requests[0]["tools"] == ["lookup", FINAL_TOOL]
    assert a.model.requests[0]["specs"][-1].parameters == OutputSpec(City).schema
    feedback = a.model.requests[2]["messages"][-1].content  # the validation error, sent back
    assert "population" in feedback and f"Call {FINAL_TOOL} again" in feedback


def test_tool_mode_streams_the_final_tools_arguments_as_partial_outputs():
    from orrery.llm.base import Delta
    from orrery.messages import ModelResponse

    class Streaming(ScriptedModel):
        def stream(self, messages, tools=(), **kw):
            resp = self.complete(messages, tools, **kw)
            yield Delta(index=0, id="f1", name=FINAL_TOOL, arguments='{"name": "Os')
            yield Delta(index=0, arguments='lo", "population": 7')
            yield Delta(index=0, arguments="09000}")
            yield Delta(response=resp)

    events = []
    model = Streaming([ModelResponse(tool_calls=[ToolCall("f1", FINAL_TOOL, {"name": "Oslo", "population": 709000})])])
    r = Agent(model, [], AgentConfig(output_mode="tool"), on_event=[events.append]).run("q", output_type=City)
    assert r.output == City(name="Oslo", population=709000)
    assert [e.value for e in events if isinstance(e, ev.PartialOutput)] == [
        {"name": "Os"},
        {"name": "Oslo", "population": 7},
        {"name": "Oslo", "population": 709000},
    ]


def test_partial_outputs_stream_as_the_json_grows():
    _, r, events = run(['{"name": "Oslo", "population": 709000}'], City)
    partials = [e.value for e in events if isinstance(e, ev.PartialOutput)]
    assert partials[0] == {"name": "Oslo"}
    assert partials[-1] == {"name": "Oslo", "population": 709000}
    assert len(partials) >= 2 and r.output.name == "Oslo"


def test_validators_see_the_text_of_a_typed_answer():
    seen = []
    a = Agent(ScriptedModel(['{"x": 1, "y": 2}']), [], AgentConfig(validators=[lambda out, ctx: seen.append(out)]))
    assert a.run("p", output_type=Point).output == Point(1, 2) and seen == ['{"x": 1, "y": 2}']


def test_output_type_needs_the_native_format_and_a_schema():
    a = Agent(ScriptedModel([]), [], AgentConfig(format="react"))
    with pytest.raises(ConfigError, match="native"):
        a.run("q", output_type=City)
    with pytest.raises(ConfigError, match="output_type"):
        Agent(ScriptedModel([]), []).run("q", output_type=type("Plain", (), {}))


def test_a_follow_up_query_can_ask_for_another_type():
    a = Agent(ScriptedModel(["Hello.", '{"x": 0, "y": 0}']), [])
    assert a.run("hi").output == "Hello."
    assert a.query("origin?", output_type=Point).output == Point(0, 0)


def test_an_openai_compatible_server_gets_response_format_and_its_streamed_json_is_validated():
    from test_providers import fake_server

    from orrery.llm.openai import OpenAIModel

    def chunk(text):
        return {
            "id": "x",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}],
        }

    pieces = ['{"name": ', '"Oslo", ', '"population": 709000}']
    with fake_server([(200, {}, [chunk(p) for p in pieces])]) as (url, hits):
        events = []
        a = Agent(OpenAIModel("m", base_url=url + "/v1"), [lookup], on_event=[events.append])
        r = a.run("Oslo?", output_type=City)
    assert r.output == City(name="Oslo", population=709000)
    sent = hits[0][1]
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"] == OutputSpec(City).schema
    assert sent["tools"][0]["function"]["name"] == "lookup"
    partials = [e.value for e in events if isinstance(e, ev.PartialOutput)]
    assert partials == [{"name": "Oslo"}, {"name": "Oslo", "population": 709000}]  # the empty {} is not shown
