"""RouterAgent (seed 002): classify -> route -> DIRECT / PARALLEL / ITERATIVE execution."""

from __future__ import annotations

import threading

import pytest

from orrery.agent.router import Classified, Routed, RouterAgent, RouterConfig
from orrery.events import Event, Token
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.tools.core import NeedsClarification, Toolset, tool

CLASSIFY = {"type": "stock_specific", "entities": ["NVDA"], "categories": ["price", "news"]}


def route(*tools: str, strategy: str = "DIRECT", complexity: str = "SIMPLE", max_turns: int = 2) -> dict:
    return {"selected_tools": list(tools), "complexity": complexity, "strategy": strategy, "max_turns": max_turns}


def make_tools(barrier: threading.Barrier | None = None) -> tuple[Toolset, list[str]]:
    ran: list[str] = []

    @tool
    def price(symbol: str) -> str:
        """Latest price of a stock."""
        if barrier is not None:
            barrier.wait()  # returns only once the other tool is running at the same time
        ran.append("price")
        return f"{symbol} trades at 100"

    @tool
    def news(symbol: str) -> str:
        """Latest headlines about a stock."""
        if barrier is not None:
            barrier.wait()
        ran.append("news")
        return f"{symbol} beat estimates"

    @tool
    def screener(exchange: str) -> list[str]:
        """Stocks listed on an exchange."""
        ran.append("screener")
        return ["NVDA", "AMD"]

    return Toolset([price, news, screener]), ran


def test_router_picks_tools_and_strategy():
    tools, ran = make_tools()
    model = ScriptedModel([CLASSIFY, route("price"), turn(call("price", symbol="NVDA")), "NVDA is at 100."])
    events: list[Event] = []
    result = RouterAgent(model, tools, on_event=[events.append]).run("What is NVDA trading at?")

    assert result.ok and result.output == "NVDA is at 100."
    assert result.classification is not None and result.classification.entities == ["NVDA"]
    assert result.route is not None
    assert (result.route.selected_tools, result.route.strategy, result.route.complexity) == (["price"], "DIRECT", "SIMPLE")
    classify, router, act, synth = model.requests
    assert classify["schema"]["required"] == ["type", "entities", "categories"]
    assert router["schema"]["properties"]["selected_tools"]["items"]["enum"] == ["price", "news", "screener"]
    assert act["tools"] == ["price"]  # only the selected tools are offered
    assert synth["tools"] == [] and synth["tool_choice"] == "none"
    assert ran == ["price"]
    routed = next(e for e in events if isinstance(e, Routed))
    assert routed.strategy == "DIRECT" and any(isinstance(e, Classified) for e in events)
    assert "".join(e.text for e in events if isinstance(e, Token)) == "NVDA is at 100."
    assert [e.kind for e in events][0] == "run_start" and events[-1].kind == "final"


@pytest.mark.parametrize("strategy", ["DIRECT", "PARALLEL"])
def test_one_round_strategies_run_the_chosen_tools_in_parallel(strategy):
    tools, ran = make_tools(threading.Barrier(2, timeout=2))
    model = ScriptedModel([CLASSIFY, route("price", "news", strategy=strategy),
                           turn(call("price", symbol="NVDA"), call("news", symbol="NVDA")), "Up on earnings."])
    result = RouterAgent(model, tools).run("How is NVDA doing?")

    assert result.ok, result.errors
    assert sorted(ran) == ["news", "price"]
    assert [r.ok for r in result.tool_calls] == [True, True]
    assert len(model.requests) == 4  # classify, route, one tool round, synthesis
    assert model.requests[2]["tool_choice"] == "required"
    assert result.output == "Up on earnings."


def test_iterative_is_the_agent_loop_bounded_by_max_turns():
    tools, ran = make_tools()
    model = ScriptedModel([
        CLASSIFY, route("screener", "price", strategy="ITERATIVE", complexity="COMPLEX", max_turns=2),
        turn(call("screener", exchange="NASDAQ")),
        turn(call("price", symbol="NVDA")),
        "Forced: NVDA at 100.",  # the loop is out of turns: a synthesis without tools
    ])
    result = RouterAgent(model, tools).run("Find cheap NASDAQ stocks")

    assert ran == ["screener", "price"]
    assert model.index == len(model.turns)
    assert [r["tools"] for r in model.requests[2:]] == [["screener", "price"], ["screener", "price"], []]
    assert result.ok and result.output == "Forced: NVDA at 100."
    assert any("2 tool rounds" in e for e in result.errors)


def test_iterative_answer_within_turns_and_max_turns_capped_by_config():
    tools, ran = make_tools()
    model = ScriptedModel([CLASSIFY, route("price", strategy="ITERATIVE", max_turns=50),
                           turn(call("price", symbol="NVDA")), "NVDA at 100."])
    events: list[Event] = []
    result = RouterAgent(model, tools, RouterConfig(max_turns=3), on_event=[events.append]).run("NVDA?")

    assert result.route is not None and result.route.max_turns == 3
    assert result.ok and result.output == "NVDA at 100." and ran == ["price"]
    assert "".join(e.text for e in events if isinstance(e, Token)) == "NVDA at 100."
    assert [e.kind for e in events].count("run_start") == 1 and [e.kind for e in events].count("final") == 1


def test_unknown_tool_from_router_is_recorded_not_crashed():
    tools, ran = make_tools()
    model = ScriptedModel([CLASSIFY, route("price", "telepathy"), turn(call("price", symbol="NVDA")), "100."])
    result = RouterAgent(model, tools).run("NVDA?")

    assert result.ok and ran == ["price"]
    assert result.route is not None and result.route.selected_tools == ["price"]
    assert result.route.dropped == ["telepathy"]
    assert any("telepathy" in e for e in result.errors)


def test_empty_selection_answers_directly():
    tools, ran = make_tools()
    model = ScriptedModel([CLASSIFY, route("telepathy"), "Hello!"])
    result = RouterAgent(model, tools).run("Hi")

    assert result.ok and result.output == "Hello!" and ran == []
    assert model.requests[2]["tools"] == [] and len(model.requests) == 3


def test_synthesis_streams_tokens_when_the_model_can():
    tools, _ = make_tools()
    model = ScriptedModel([CLASSIFY, route("price"), turn(call("price", symbol="NVDA")), "NVDA is at 100."])
    events: list[Event] = []
    result = RouterAgent(model, tools, on_event=[events.append]).run("NVDA?")

    assert [e.text for e in events if isinstance(e, Token)] == ["NVDA ", "is ", "at ", "100."]
    assert result.output == "NVDA is at 100."


def test_clarification_in_a_direct_round_pauses():
    @tool
    def resolve(company: str) -> str:
        """Resolve a company name."""
        raise NeedsClarification("Which Apple: AAPL or APLE?")

    model = ScriptedModel([CLASSIFY, route("resolve"), turn(call("resolve", company="Apple"))])
    result = RouterAgent(model, [resolve]).run("Apple price")
    assert result.status == "paused" and result.output == "Which Apple: AAPL or APLE?"


def test_a_reply_that_does_not_match_the_schema_is_an_error_result():
    tools, _ = make_tools()
    result = RouterAgent(ScriptedModel(["not json"]), tools).run("NVDA?")
    assert result.status == "error" and "Classification" in result.output
