import json
import time

import pytest

from orrery import Agent, AgentConfig, RunContext, ScriptedModel, SlidingWindow, tool
from orrery import events as ev
from orrery.errors import ModelError
from orrery.llm.base import ModelProfile
from orrery.llm.scripted import call, turn
from orrery.messages import ModelResponse, ToolCall, Usage
from orrery.tools import NeedsClarification
from orrery.tools.builtin import DEFAULT_TOOLS


def agent(turns, tools=DEFAULT_TOOLS, **cfg):
    events = []
    a = Agent(ScriptedModel(turns), tools, AgentConfig(**cfg), on_event=[events.append])
    return a, events


def test_native_tool_round_then_answer():
    a, events = agent([turn(call("calculate", expression="25*4")), "25 * 4 is 100."])
    r = a.run("What is 25*4?")
    assert r.status == "completed" and r.output == "25 * 4 is 100."
    assert r.steps == 2 and [t.value for t in r.tool_calls] == ["100"]
    assert r.usage.total == 30
    sent = a.model.requests[1]["messages"]
    assert sent[-1].role == "tool" and sent[-1].content == "100"
    kinds = [e.kind for e in events]
    assert kinds == [
        "run_start",
        "step_start",
        "model_call",
        "tool_call_delta",
        "model_reply",
        "tool_call",
        "tool_result",
        "step_end",
        "step_start",
        "model_call",
        *["token"] * 5,
        "model_reply",
        "step_end",
        "final",
    ]
    assert events[-1].result is r


def test_react_json_format():
    a, events = agent(
        [
            {"thought": "multiply", "action": "tool", "tool_name": "calculate", "tool_input": {"expression": "6*7"}},
            {"thought": "done", "action": "respond", "response": "42"},
        ],
        format="react",
    )
    r = a.run("6*7?")
    assert r.output == "42" and r.tool_calls[0].value == "42"
    assert "tool_input" in a.model.requests[0]["messages"][0].content  # the format is in the system prompt
    assert a.model.requests[0]["schema"]["properties"]["tool_name"]["enum"] == ["calculate", "get_fact", "search"]
    assert any(isinstance(e, ev.Thought) and e.text == "multiply" for e in events)
    assert a.model.requests[1]["messages"][-1].content == "Observation from calculate: 42"


def test_react_malformed_json_is_reported_and_the_model_recovers():
    a, _ = agent(
        [
            '{"thought": "x", "action": "tool", "tool_name": "calculate", "tool_input": {',
            {"thought": "fix", "action": "respond", "response": "ok"},
        ],
        format="react",
    )
    r = a.run("q")
    assert r.output == "ok" and "not valid JSON" in r.tool_calls[0].content


def test_react_plain_text_is_a_final_answer():
    a, _ = agent(["Just an answer."], format="react")
    assert a.run("q").output == "Just an answer."


def test_unknown_tool_and_bad_arguments_are_fed_back_and_the_loop_continues():
    a, _ = agent(
        [turn(call("nope")), turn(call("calculate", expr="1")), turn(call("calculate", expression="1+1")), "2"]
    )
    r = a.run("q")
    assert r.status == "completed" and r.output == "2"
    assert "does not exist" in r.tool_calls[0].content and "Available tools" in r.tool_calls[0].content
    assert "invalid arguments" in r.tool_calls[1].content
    assert len(r.errors) == 2


def test_validator_injects_a_retry_and_is_bounded():
    seen = []

    def must_mention_100(output, ctx):
        seen.append(output)
        return None if "100" in output else "Your answer must state the number 100."

    a, events = agent(["It is big.", "It is 100."], validators=[must_mention_100])
    r = a.run("q")
    assert r.status == "completed" and r.retries == 1 and r.output == "It is 100."
    assert a.model.requests[1]["messages"][-1].content == "Your answer must state the number 100."
    assert [e.attempt for e in events if isinstance(e, ev.Retry)] == [1]

    a, _ = agent(["no", "no", "no"], validators=[must_mention_100], max_retries=2)
    r = a.run("q")
    assert r.status == "invalid" and r.retries == 2 and a.model.index == 3


def test_follow_up_query_keeps_history_and_reset_clears_it():
    a, _ = agent(["first answer", "second answer"])
    a.run("first question")
    r = a.query("and then?")
    assert r.output == "second answer"
    contents = [m.content for m in a.model.requests[1]["messages"]]
    assert contents[1:] == ["first question", "first answer", "and then?"]
    a.reset()
    assert a.current_run.memory.messages == []


def test_max_rounds_limit():
    a, _ = agent([turn(call("calculate", expression="1"))] * 5, max_rounds=3, max_retries=0)
    r = a.run("loop forever")
    assert r.status == "max_rounds" and r.steps == 3


def test_token_budget():
    a, _ = agent([turn(call("calculate", expression="1"))] * 5, max_tokens=40)
    r = a.run("q")
    assert r.status == "max_tokens" and r.usage.total >= 40 and r.steps == 3


def test_wall_time_limit():
    @tool
    def slow() -> str:
        """Sleeps."""
        time.sleep(0.2)
        return "z"

    a, _ = agent([turn(call("slow"))] * 10, tools=[slow], wall_time=0.3)
    r = a.run("q")
    assert r.status == "timeout" and r.steps < 10


def test_model_error_ends_the_run_with_status_error():
    a, _ = agent([])
    r = a.run("q")
    assert r.status == "error" and "ran out of turns" in r.errors[0]


def test_one_action_per_step_refuses_extra_calls():
    a, _ = agent(
        [turn(call("calculate", expression="1"), call("calculate", expression="2")), "done"], max_calls_per_step=1
    )
    r = a.run("q")
    assert [t.ok for t in r.tool_calls] == [True, False]
    assert "only 1 tool call per step" in r.tool_calls[1].content
    # every call in the assistant turn still has a result message
    sent = a.model.requests[1]["messages"]
    assert [m.role for m in sent[-3:]] == ["assistant", "tool", "tool"]


def test_workflow_finish_hook_and_tool_finish():
    a, _ = agent(
        [turn(call("calculate", expression="2*3"))],
        finish=lambda ctx: "finished by workflow" if "calculate" in ctx.succeeded else None,
    )
    assert a.run("q").output == "finished by workflow"

    @tool
    def submit(ctx: RunContext, answer: str) -> str:
        """Submit."""
        ctx.finish(answer)
        return "ok"

    a, _ = agent([turn(call("submit", answer="0.7"))], tools=[submit])
    r = a.run("q")
    assert r.output == "0.7" and a.model.index == 1


def test_a_tool_can_pause_the_run_for_a_clarification():
    @tool
    def need_city(city: str = "") -> str:
        """Needs a city."""
        if not city:
            raise NeedsClarification("Which city?")
        return city

    a, events = agent([turn(call("need_city")), turn(call("need_city", city="Oslo")), "Oslo it is"], tools=[need_city])
    r = a.run("weather?")
    assert r.status == "paused" and r.output == "Which city?"
    assert any(isinstance(e, ev.Clarification) for e in events)
    r = a.query("Oslo")
    assert r.status == "completed" and r.output == "Oslo it is"


def test_board_is_pinned_at_index_2_every_step_and_never_stored():
    board_calls = []

    def board(ctx):
        board_calls.append(1)
        return f"BOARD v{len(board_calls)}"

    a, _ = agent(
        [turn(call("calculate", expression="1")), turn(call("calculate", expression="2")), "done"],
        board=board,
        context=SlidingWindow(max_tokens=10_000),
    )
    a.run("q")
    for i, req in enumerate(a.model.requests):
        msgs = req["messages"]
        assert msgs[2].content == f"BOARD v{i + 1}"
        assert sum(m.pinned for m in msgs) == 1
    assert not any(m.pinned for m in a.current_run.memory.messages)


def test_a_board_after_the_history_keeps_the_earlier_prompt_a_stable_prefix():
    a, events = agent(
        [turn(call("calculate", expression="1")), turn(call("calculate", expression="2")), "done"],
        board=lambda ctx: f"BOARD after {len(ctx.succeeded)}",
        board_at=None,
    )
    a.run("q")
    first, second = (r["messages"] for r in a.model.requests[:2])
    assert first[-1].content == "BOARD after 0" and second[-1].content == "BOARD after 1"
    assert [m.content for m in second[: len(first) - 1]] == [m.content for m in first[:-1]]  # the prefix holds
    assert [e.value for e in events if isinstance(e, ev.StateChanged)][:2] == ["BOARD after 0", "BOARD after 1"]


def test_context_manager_runs_before_the_board_is_inserted():
    turns = [turn(call("search", query=f"q{i}")) for i in range(12)] + ["done"]
    a, _ = agent(turns, board=lambda ctx: "BOARD", context=SlidingWindow(max_tokens=10_000, max_messages=6))
    a.run("q")
    last = a.model.requests[-1]["messages"]
    assert last[2].content == "BOARD" and "Context truncated" in last[3].content
    assert 'search({"query": "q0"})' in last[3].content


def test_parallel_calls_in_one_turn_all_get_results_in_order():
    a, _ = agent([turn(*(call("calculate", expression=f"{i}*2") for i in range(4))), "done"])
    r = a.run("q")
    assert [t.value for t in r.tool_calls] == ["0", "2", "4", "6"]


def test_malformed_native_tool_call_is_fed_back():
    bad = ModelResponse("", [ToolCall.from_json("c1", "calculate", '{"expression": ')])
    a, _ = agent([bad, "recovered"])
    r = a.run("q")
    assert r.output == "recovered" and "malformed" in r.tool_calls[0].content


def test_events_serialise_to_json():
    a, events = agent([turn(call("calculate", expression="1")), "x"])
    a.run("q")
    for e in events:
        json.dumps(e.to_dict(), default=str)


def test_scripted_model_reports_usage():
    m = ScriptedModel(["a"], usage_per_call=Usage(7, 3))
    assert m.complete([]).usage.total == 10
    with pytest.raises(ModelError):
        m.complete([])


def test_repeating_a_successful_call_leads_to_a_tool_less_turn():
    a, _ = agent(
        [turn(call("calculate", expression="17*23")), turn(call("calculate", expression="17*23")), "17*23 = 391"]
    )
    r = a.run("17*23?")
    assert r.output == "17*23 = 391"
    assert a.model.requests[1]["tools"] and a.model.requests[2]["tools"] == []
    assert a.model.requests[2]["tool_choice"] == "none"
    assert a.model.requests[2]["messages"][-1].content.startswith("You repeated a call")
    assert not any(m.content.startswith("You repeated") for m in a.current_run.memory.messages)


def test_react_forced_answer_turn_allows_only_respond():
    a, _ = agent(
        [
            {"thought": "t", "action": "tool", "tool_name": "calculate", "tool_input": {"expression": "1"}},
            {"thought": "t", "action": "tool", "tool_name": "calculate", "tool_input": {"expression": "1"}},
            {"thought": "done", "action": "respond", "response": "1"},
        ],
        format="react",
    )
    assert a.run("q").output == "1"
    assert a.model.requests[2]["schema"]["properties"]["action"] == {"enum": ["respond"]}


def test_format_is_chosen_per_model():
    react_model = ScriptedModel(
        [{"thought": "t", "action": "respond", "response": "hi"}], profile=ModelProfile(format="react")
    )
    a = Agent(react_model, DEFAULT_TOOLS)
    assert a.config.format == "react" and a.run("q").output == "hi"
    assert Agent(ScriptedModel(["x"]), DEFAULT_TOOLS).config.format == "native"


def test_the_run_is_named_by_the_agent_in_run_start():
    events: list[ev.Event] = []
    Agent(ScriptedModel(["hi"]), name="forecast", on_event=[events.append]).run("q")
    Agent(ScriptedModel(["hi"]), on_event=[events.append]).run("q")
    starts = [e for e in events if isinstance(e, ev.RunStart)]
    assert [(s.agent, s.architecture) for s in starts] == [("forecast", "agent"), ("agent", "agent")]


def test_run_start_options_are_json_ready_whatever_a_caller_passed():
    import datetime

    import numpy as np

    events: list[ev.Event] = []
    Agent(ScriptedModel(["hi"]), on_event=[events.append]).run(
        "q", before=datetime.date(2024, 1, 31), ids=["a", "b"], n=np.int64(3), xs=np.arange(3), bad=float("nan")
    )
    start = next(e for e in events if isinstance(e, ev.RunStart))
    assert start.options == {"before": "2024-01-31", "ids": ["a", "b"], "n": 3, "xs": "[0 1 2]", "bad": None}
    json.dumps(start.to_dict(), allow_nan=False)
