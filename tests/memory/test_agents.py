"""The memory as agents use it: every tool call of the plain loop, the router and the planner becomes an
observation (through the event handler, beside a trace); the `recall` tool; the context hook; memory_state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orrery.agent import Agent, AgentConfig, PlanAgent, RouterAgent
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.memory import SlidingWindow
from orrery.messages import Message
from orrery.recall import LongTermMemory, RecallContext, attach, memory_state, recall, recall_tool
from orrery.tools.core import Toolset, tool
from orrery.trace import TraceWriter, read_trace


@tool
def price(symbol: str) -> str:
    """Latest price of a stock."""
    return f"{symbol} trades at 100"


@tool
def news(symbol: str) -> str:
    """Latest headlines about a stock."""
    return f"{symbol} beat estimates"


@tool
def port(name: str) -> str:
    """Resolve a port."""
    return f"PORT:{name}"


def memory(tmp_path: Path, thread: str = "t1", user: str = "alice", app: str = "chat") -> LongTermMemory:
    return LongTermMemory.open(tmp_path / "sessions.db", user=user, app=app, thread=thread)


def observations(mem: LongTermMemory) -> list[tuple[str, dict, str]]:
    return sorted(((i.tool, i.input, i.content) for i in mem.items(kinds=["observation"])), key=json.dumps)


def traced_results(path: Path) -> list[tuple[str, dict, str]]:
    return sorted(
        (
            (e["call"]["name"], e["call"]["arguments"], e["content"])
            for e in read_trace(path)
            if e["kind"] == "tool_result"
        ),
        key=json.dumps,
    )


def test_every_tool_call_of_the_plain_loop_is_an_observation_as_in_the_trace(tmp_path):
    mem = memory(tmp_path)
    model = ScriptedModel(
        [
            turn(call("price", symbol="NVDA"), call("news", symbol="NVDA")),
            turn(call("price", symbol="AMD")),
            "NVDA is at 100.",
        ]
    )
    agent = attach(Agent(model, [price, news], AgentConfig(trace=tmp_path / "t.jsonl")), mem)
    assert agent.run("How is NVDA doing?").ok

    assert (
        observations(mem)
        == traced_results(tmp_path / "t.jsonl")
        == [
            ("news", {"symbol": "NVDA"}, "NVDA beat estimates"),
            ("price", {"symbol": "AMD"}, "AMD trades at 100"),
            ("price", {"symbol": "NVDA"}, "NVDA trades at 100"),
        ]
    )
    turns = [(i.tool, i.content) for i in reversed(mem.items(kinds=["turn"]))]
    assert turns == [("user", "How is NVDA doing?"), ("assistant", "NVDA is at 100.")]
    assert len({i.run_id for i in mem.items()}) == 1 and all(i.scope == mem.scope for i in mem.items())


@pytest.mark.parametrize("strategy", ["DIRECT", "ITERATIVE"])
def test_every_tool_call_of_the_router_is_an_observation(tmp_path, strategy):
    mem = memory(tmp_path)
    classify = {"type": "stock_specific", "entities": ["NVDA"], "categories": ["price"]}
    route = {"selected_tools": ["price", "news"], "complexity": "SIMPLE", "strategy": strategy, "max_turns": 2}
    model = ScriptedModel(
        [
            classify,
            route,
            turn(call("price", symbol="NVDA"), call("news", symbol="NVDA")),
            "NVDA is at 100 and beat estimates.",
        ]
    )
    agent = RouterAgent(model, [price, news], on_event=[TraceWriter(tmp_path / "t.jsonl")])
    attach(agent, mem).run("How is NVDA doing?")
    assert observations(mem) == traced_results(tmp_path / "t.jsonl")
    assert {o[0] for o in observations(mem)} == {"price", "news"}


def test_every_tool_call_of_the_planner_is_an_observation_and_memory_state_has_both(tmp_path):
    mem = memory(tmp_path, app="bi")
    plan = {
        "request": "ports",
        "todos": [
            {"key": "a", "description": "resolve", "tool": "port", "arguments": {"name": "Miami"}},
            {"key": "b", "description": "resolve", "tool": "port", "arguments": {"name": "Oslo"}},
        ],
    }
    agent = PlanAgent(
        ScriptedModel([plan, "Two ports."]),
        [port],
        tmp_path / "s.db",
        "s1",
        on_event=[TraceWriter(tmp_path / "t.jsonl")],
    )
    attach(agent, mem).run("resolve Miami and Oslo")
    assert (
        observations(mem)
        == traced_results(tmp_path / "t.jsonl")
        == [("port", {"name": "Miami"}, "PORT:Miami"), ("port", {"name": "Oslo"}, "PORT:Oslo")]
    )
    state = memory_state(agent, mem)
    assert agent.memory_state() == state  # attach gives the planner the method too
    assert [e["todo_key"] for e in state["short_term"]] == ["a", "b"]  # the planner's bounded memory
    assert {i["content"] for i in state["long_term"]} >= {"PORT:Miami", "PORT:Oslo", "resolve Miami and Oslo"}


def test_a_later_run_recalls_an_earlier_runs_observation_through_the_tool(tmp_path):
    first = attach(Agent(ScriptedModel([turn(call("price", symbol="NVDA")), "100."]), [price]), memory(tmp_path))
    first.run("NVDA price?")

    seen = {}
    later = Agent(ScriptedModel([turn(call("recall", query="NVDA price")), "It was 100."]), [recall])
    attach(later, memory(tmp_path))  # a new process would open the same database
    assert later.tools.tools["recall"].spec() == recall.spec()  # bound to the memory, as the model saw it
    r = later.run("What was NVDA's price earlier?")
    seen["recall"] = r.tool_calls[0].content
    assert r.tool_calls[0].ok and 'price({"symbol": "NVDA"}) -> NVDA trades at 100' in seen["recall"]
    # another thread of the same user recalls nothing of it
    other = attach(
        Agent(ScriptedModel([turn(call("recall", query="NVDA price")), "?"]), [recall]), memory(tmp_path, thread="t2")
    )
    assert "NVDA trades" not in other.run("NVDA?").tool_calls[0].content


def test_recall_without_a_memory_tells_the_model_and_the_bound_tool_works_in_the_router(tmp_path):
    r = Agent(ScriptedModel([turn(call("recall", query="x")), "ok"]), [recall]).run("x")
    assert not r.tool_calls[0].ok and "no long-term memory is attached" in r.tool_calls[0].content

    mem = memory(tmp_path)
    attach(Agent(ScriptedModel([turn(call("news", symbol="AMD")), "ok"]), [news]), mem).run("AMD news")
    classify = {"type": "t", "entities": [], "categories": []}
    route = {"selected_tools": ["recall"], "complexity": "SIMPLE", "strategy": "DIRECT", "max_turns": 1}
    router = RouterAgent(
        ScriptedModel([classify, route, turn(call("recall", query="AMD estimates")), "beat."]),
        Toolset([recall_tool(mem)]),
    )
    out = router.run("what did AMD do?")
    assert "AMD beat estimates" in out.tool_calls[0].content


def test_the_context_hook_puts_relevant_memories_before_the_task_once_per_task(tmp_path):
    mem = memory(tmp_path)
    attach(Agent(ScriptedModel([turn(call("price", symbol="NVDA")), "NVDA is at 100."]), [price]), mem).run("NVDA?")
    hook = RecallContext(mem, k=3, inner=SlidingWindow())
    model = ScriptedModel(["Earlier it was 100."])
    agent = attach(Agent(model, [price], AgentConfig(context=hook)), mem)
    agent.run("What was the NVDA price?")
    shown = agent.context_messages()  # what the model was sent, the answer since appended
    assert shown[1].role == "user" and shown[1].content.startswith("Memories from earlier runs")
    assert "NVDA trades at 100" in shown[1].content and shown[2].content == "What was the NVDA price?"
    assert "What was the NVDA price?" not in shown[1].content  # the task's own turn is not recalled
    assert hook([Message("system", "s")]) == [Message("system", "s")]  # nothing to search for


def test_memory_state_of_the_plain_loop(tmp_path):
    mem = memory(tmp_path)
    agent = attach(Agent(ScriptedModel([turn(call("price", symbol="X")), "done"]), [price]), mem)
    agent.run("X?")
    state = memory_state(agent)  # the memory attached to the agent
    assert agent.memory_state() == state
    assert [m["role"] for m in state["short_term"]] == ["system", "user", "assistant", "tool", "assistant"]
    assert {(i["kind"], i["content"]) for i in state["long_term"]} == {
        ("turn", "X?"),
        ("observation", "X trades at 100"),
        ("turn", "done"),
    }
