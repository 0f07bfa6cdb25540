import json

import pytest

from orrery import Agent, AgentConfig, ScriptedModel, tool
from orrery.errors import DataError
from orrery.llm.scripted import call, turn
from orrery.replay import replay
from orrery.tools.builtin import DEFAULT_TOOLS
from orrery.trace import read_trace


def test_every_event_is_written_and_replay_reproduces_tool_results(tmp_path):
    path = tmp_path / "run.jsonl"
    a = Agent(
        ScriptedModel([turn(call("calculate", expression="6*7")), "42"]),
        DEFAULT_TOOLS,
        AgentConfig(trace=path),
        tools_ref="orrery.tools.builtin:DEFAULT_TOOLS",
    )
    a.run("6*7?")
    kinds = [e["kind"] for e in read_trace(path)]
    assert kinds[0] == "run_start" and kinds[-1] == "final" and "tool_result" in kinds
    report = replay(path, DEFAULT_TOOLS)
    assert report.identical and report.tool_results == 1


def test_a_chat_run_is_named_chat_and_replays_with_the_callers_tools(tmp_path):
    from orrery.chat import chat_agent

    path = tmp_path / "run.jsonl"
    chat_agent(ScriptedModel([turn(call("calculate", expression="6*7")), "42"]), trace=path).run("6*7?")
    start = read_trace(path)[0]
    assert (start["agent"], start["architecture"]) == ("chat", "agent")
    report = replay(path, DEFAULT_TOOLS)
    assert report.identical and report.tool_results == 1


@pytest.mark.parametrize(("name", "older"), [("forecast", False), ("agent", False), ("agent", True)])
def test_a_named_loop_replays_as_the_loop_with_the_callers_tools(tmp_path, name, older):
    """A forecast run's trace is its inner loop's (the task is the workflow's prompt): the loop replays it, not
    the forecast app (which would read the prompt as data); an older trace without `architecture` too."""
    path = tmp_path / "run.jsonl"
    state = {"v": 1}

    @tool
    def counter() -> int:
        """Returns a changing value."""
        return state["v"]

    Agent(ScriptedModel([turn(call("counter")), "done"]), [counter], AgentConfig(trace=path), name=name).run("q")
    if older:
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        lines[0].pop("architecture")
        path.write_text("".join(json.dumps(e) + "\n" for e in lines))
    assert replay(path, [counter]).identical
    state["v"] = 2
    assert replay(path, [counter]).differences[0]["replayed"] == "2"


def test_replay_reports_a_tool_whose_result_changed(tmp_path):
    path = tmp_path / "run.jsonl"
    state = {"v": 1}

    @tool
    def counter() -> int:
        """Returns a changing value."""
        return state["v"]

    Agent(ScriptedModel([turn(call("counter")), "done"]), [counter], AgentConfig(trace=path)).run("q")
    state["v"] = 2
    report = replay(path, [counter])
    assert not report.identical
    assert report.differences[0]["recorded"] == "1" and report.differences[0]["replayed"] == "2"


def _price_tool(prices):
    @tool
    def price(symbol: str = "NVDA") -> float:
        """Latest price of a stock."""
        return prices[symbol]

    return price


def test_router_and_planner_traces_replay_like_plain_runs(tmp_path):
    from orrery.agent import PlanAgent, RouterAgent
    from orrery.trace import TraceWriter

    prices = {"NVDA": 100.0}
    route = {"selected_tools": ["price"], "complexity": "SIMPLE", "strategy": "DIRECT", "max_turns": 2}
    routed = tmp_path / "router.jsonl"
    RouterAgent(
        ScriptedModel(
            [
                {"type": "stock", "entities": ["NVDA"], "categories": []},
                route,
                turn(call("price", symbol="NVDA")),
                "NVDA is at 100.",
            ]
        ),
        [_price_tool(prices)],
        on_event=[TraceWriter(routed)],
    ).run("NVDA?")
    planned = tmp_path / "planner.jsonl"
    plan = {
        "request": "NVDA price",
        "todos": [{"key": "p", "description": "price", "tool": "price", "arguments": {"symbol": "NVDA"}}],
    }
    PlanAgent(
        ScriptedModel([plan, "NVDA is at 100."]),
        [_price_tool(prices)],
        tmp_path / "p.db",
        "s",
        on_event=[TraceWriter(planned)],
    ).run("NVDA price?")
    for path in (routed, planned):
        assert read_trace(path)[0]["agent"] in ("router", "planner")
        report = replay(path, [_price_tool(prices)])
        assert report.identical and report.tool_results == 1, path
        changed = replay(path, [_price_tool({"NVDA": 101.0})])
        assert changed.differences[0]["replayed"] == "101.0", path


def test_a_trace_from_an_unknown_architecture_names_what_to_install(tmp_path):
    from orrery.trace import TraceWriter

    path = tmp_path / "t.jsonl"
    Agent(ScriptedModel(["done"]), [_price_tool({})], on_event=[TraceWriter(path)]).run("q")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["agent"], rows[0]["architecture"] = "no-such-app", "router"  # an app's own router
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(DataError, match="install the app that recorded it"):
        replay(path, [_price_tool({})])


def test_replay_lives_beside_the_cli_and_not_in_the_trace_writer():
    import orrery.replay
    import orrery.trace

    assert callable(orrery.replay.replay)
    for name in ("replay", "app_tools", "load_tools", "ReplayReport", "tool_names"):
        assert not hasattr(orrery.trace, name)
