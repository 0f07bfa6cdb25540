"""RouterAgent (seed 002): classify -> route -> DIRECT / PARALLEL / ITERATIVE execution."""

from __future__ import annotations

import threading

import pytest

from orrery.agent.router import Classified, Routed, RouterAgent, RouterConfig
from orrery.events import Event, Token
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.tools.core import NeedsClarification, RunContext, ToolCall, Toolset, tool

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
    assert (result.route.selected_tools, result.route.strategy, result.route.complexity) == (
        ["price"],
        "DIRECT",
        "SIMPLE",
    )
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
    model = ScriptedModel(
        [
            CLASSIFY,
            route("price", "news", strategy=strategy),
            turn(call("price", symbol="NVDA"), call("news", symbol="NVDA")),
            "Up on earnings.",
        ]
    )
    result = RouterAgent(model, tools).run("How is NVDA doing?")

    assert result.ok, result.errors
    assert sorted(ran) == ["news", "price"]
    assert [r.ok for r in result.tool_calls] == [True, True]
    assert len(model.requests) == 4  # classify, route, one tool round, synthesis
    assert model.requests[2]["tool_choice"] == "required"
    assert result.output == "Up on earnings."


def test_iterative_is_the_agent_loop_bounded_by_max_turns():
    tools, ran = make_tools()
    model = ScriptedModel(
        [
            CLASSIFY,
            route("screener", "price", strategy="ITERATIVE", complexity="COMPLEX", max_turns=2),
            turn(call("screener", exchange="NASDAQ")),
            turn(call("price", symbol="NVDA")),
            "Forced: NVDA at 100.",  # the loop is out of turns: a synthesis without tools
        ]
    )
    result = RouterAgent(model, tools).run("Find cheap NASDAQ stocks")

    assert ran == ["screener", "price"]
    assert model.index == len(model.turns)
    assert [r["tools"] for r in model.requests[2:]] == [["screener", "price"], ["screener", "price"], []]
    assert result.ok and result.output == "Forced: NVDA at 100."
    assert any("2 tool rounds" in e for e in result.errors)


def test_iterative_answer_within_turns_and_max_turns_capped_by_config():
    tools, ran = make_tools()
    model = ScriptedModel(
        [
            CLASSIFY,
            route("price", strategy="ITERATIVE", max_turns=50),
            turn(call("price", symbol="NVDA")),
            "NVDA at 100.",
        ]
    )
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


# -- the app's rules decide: `decide` skips the router's model call, `fan_out` plans the calls --------------------
def test_fan_out_runs_one_call_per_entity_in_one_parallel_step_then_one_synthesis():
    from orrery.agent.router import Route, expand
    from orrery.events import ModelCall, StepEnd, StepStart, ToolCallEvent, ToolResultEvent

    symbols = ["NVDA", "AMD", "INTC", "TSM"]
    barrier = threading.Barrier(4, timeout=5)  # passes only if all four calls run at once
    ran: list[str] = []

    @tool
    def price(symbol: str) -> str:
        """Latest price of a stock."""
        barrier.wait()
        ran.append(symbol)
        return f"{symbol} trades at {100 + len(ran)}"

    # the classification, then the synthesis: the hooks decide the route and the calls
    model = ScriptedModel([{"type": "comparison", "entities": symbols, "categories": ["price"]}, "NVDA leads."])
    events: list[Event] = []
    agent = RouterAgent(
        model,
        Toolset([price], max_workers=4),
        on_event=[events.append],
        decide=lambda q, c: Route(selected_tools=["price"], complexity="SIMPLE", strategy="PARALLEL"),
        fan_out=lambda q, c, r, done: [] if done else expand("price", {}, "symbol", symbols),
    )
    result = agent.run("Which is highest: NVDA, AMD, INTC or TSM?")

    assert result.ok and result.output == "NVDA leads." and sorted(ran) == sorted(symbols)
    assert [r.call.arguments["symbol"] for r in result.tool_calls] == symbols  # in the order planned
    routed = next(e for e in events if isinstance(e, Routed))
    assert routed.source == "rules" and routed.selected_tools == ["price"]
    assert sum(isinstance(e, ModelCall) for e in events) == 2  # classification and synthesis; no router call
    # the four runs happen inside one step, and the synthesis reads them as one observation
    step = [i for i, e in enumerate(events) if isinstance(e, StepStart) and e.step == 2][0]
    end = next(i for i, e in enumerate(events) if isinstance(e, StepEnd) and e.step == 2)
    inside = events[step:end]
    assert sum(isinstance(e, ToolCallEvent) for e in inside) == 4
    assert sum(isinstance(e, ToolResultEvent) for e in inside) == 4
    last = model.requests[-1]["messages"]
    assert len(last) == 2 and all(f"{s} trades at" in last[1].content for s in symbols)


def test_fan_out_asked_again_with_the_results_until_it_returns_nothing():
    from orrery.agent.router import Route
    from orrery.messages import ToolCall

    tools, ran = make_tools()
    rounds: list[int] = []

    def plan(q, c, r, done):
        rounds.append(len(done))
        if not done:
            return [ToolCall("a", "price", {"symbol": "NVDA"})]
        return [ToolCall("b", "news", {"symbol": "NVDA"})] if len(done) == 1 else []

    model = ScriptedModel([CLASSIFY, "done"])
    agent = RouterAgent(
        model,
        tools,
        decide=lambda q, c: Route(selected_tools=["price", "news"], complexity="SIMPLE", strategy="DIRECT"),
        fan_out=plan,
    )
    result = agent.run("NVDA price, then news")
    assert rounds == [0, 1, 2] and ran == ["price", "news"] and result.output == "done"


def test_fan_out_that_returns_none_hands_the_execution_to_the_model():
    tools, ran = make_tools()
    model = ScriptedModel([CLASSIFY, route("price"), turn(call("price", symbol="NVDA")), "NVDA at 100."])
    agent = RouterAgent(model, tools, fan_out=lambda q, c, r, done: None)
    events: list[Event] = []
    agent.handlers.append(events.append)
    result = agent.run("NVDA price?")
    assert result.output == "NVDA at 100." and ran == ["price"] and model.index == 4
    assert next(e for e in events if isinstance(e, Routed)).source == "model"


def test_decide_names_that_are_not_tools_are_dropped():
    from orrery.agent.router import Route

    tools, _ = make_tools()
    model = ScriptedModel([CLASSIFY, turn(call("price", symbol="NVDA")), "ok"])
    agent = RouterAgent(
        model,
        tools,
        decide=lambda q, c: Route(selected_tools=["price", "nope"], complexity="SIMPLE", strategy="DIRECT"),
    )
    result = agent.run("NVDA?")
    assert result.route.selected_tools == ["price"] and result.route.dropped == ["nope"]
    assert any("unknown tool 'nope'" in e for e in result.errors)


def test_expand_gives_each_call_its_own_id():
    from orrery.agent.router import expand

    calls = expand("quote", {"date": "2012-01-03"}, "symbol", ["AAPL", "MSFT"])
    assert [c.arguments for c in calls] == [
        {"date": "2012-01-03", "symbol": "AAPL"},
        {"date": "2012-01-03", "symbol": "MSFT"},
    ]
    assert len({c.id for c in calls}) == 2


def test_fan_out_rounds_and_calls_are_bounded():
    from orrery.agent.router import MAX_FAN_OUT_CALLS, MAX_FAN_OUT_ROUNDS, Route, expand

    tools, ran = make_tools()
    model = ScriptedModel([CLASSIFY, "done"])
    agent = RouterAgent(
        model,
        tools,
        decide=lambda q, c: Route(selected_tools=["price"], complexity="SIMPLE", strategy="DIRECT"),
        fan_out=lambda q, c, r, done: expand("price", {}, "symbol", [f"S{i}" for i in range(100)]),
    )
    result = agent.run("every symbol, forever")
    assert len(result.tool_calls) == MAX_FAN_OUT_ROUNDS * MAX_FAN_OUT_CALLS and result.output == "done"


# -- approvals inside a routed run ------------------------------------------------------------------------------
def approval_tools() -> tuple[list, list[str]]:
    ran: list[str] = []

    @tool(requires_approval=True)
    def buy(symbol: str) -> str:
        """Buy a stock."""
        ran.append(symbol)
        return f"bought {symbol}"

    return [buy], ran


@pytest.mark.parametrize("strategy", ["DIRECT", "ITERATIVE"])
def test_a_call_needing_approval_pauses_the_routed_run_and_resume_goes_on(strategy):
    from orrery.errors import ConfigError
    from orrery.events import ApprovalDecision, ApprovalRequired

    tools, ran = approval_tools()
    model = ScriptedModel([CLASSIFY, route("buy", strategy=strategy), turn(call("buy", symbol="NVDA")), "Bought NVDA."])
    events: list[Event] = []
    agent = RouterAgent(model, tools, on_event=[events.append])
    r = agent.run("Buy NVDA")
    assert r.status == "paused" and not ran and [a.tool for a in r.approvals] == ["buy"]
    assert any(isinstance(e, ApprovalRequired) for e in events)

    events.clear()
    r = agent.resume({r.approvals[0].id: True})
    assert r.status == "completed" and r.output == "Bought NVDA." and ran == ["NVDA"]
    assert [e.approved for e in events if isinstance(e, ApprovalDecision)] == [True]
    assert [e.kind for e in events].count("run_start") == 1 and events[-1].kind == "final"
    assert "bought NVDA" in model.requests[-1]["messages"][-1].content  # the answer reads the call's result
    with pytest.raises(ConfigError, match="no routed run is waiting"):
        agent.resume({"x": True})
    assert ran == ["NVDA"]


def test_a_denied_call_in_a_routed_run_is_an_observation():
    tools, ran = approval_tools()
    model = ScriptedModel([CLASSIFY, route("buy"), turn(call("buy", symbol="NVDA")), "I did not buy it."])
    agent = RouterAgent(model, tools)
    r = agent.resume({agent.run("Buy NVDA").approvals[0].id: False})
    assert r.status == "completed" and r.output == "I did not buy it." and not ran
    assert model.requests[-1]["messages"][-1].content.startswith("Denied:")


def test_a_fan_out_round_that_needs_approval_is_handed_to_the_loop_which_pauses():
    from orrery.agent.router import Route, expand

    tools, ran = approval_tools()
    model = ScriptedModel([CLASSIFY, turn(call("buy", symbol="NVDA")), "Bought."])
    agent = RouterAgent(
        model,
        tools,
        decide=lambda q, c: Route(selected_tools=["buy"], complexity="SIMPLE", strategy="DIRECT"),
        fan_out=lambda q, c, r, done: [] if done else expand("buy", {}, "symbol", ["NVDA"]),
    )
    r = agent.run("Buy NVDA")
    assert r.status == "paused" and not ran
    assert agent.resume({r.approvals[0].id: True}).output == "Bought." and ran == ["NVDA"]


def test_hooks_replace_the_phases_and_a_hook_may_answer_alone():
    from orrery.agent.router import Classification, Route

    tools, ran = make_tools()
    seen: list[str] = []

    def classify(run):
        yield from ()
        if "weather" in run.query:
            run.answer("I only know stocks.")
        return Classification(type="stock_specific", entities=["NVDA"])

    def choose(run, c):
        yield from ()
        run.source = "rules"
        return Route(selected_tools=["price"], complexity="SIMPLE", strategy="DIRECT")

    def execute(run, c, r):
        run.options["currency"] = "USD"
        yield from run.agent.execute(run, c, r)

    def check(run, c):
        seen.append(run.result.output)
        run.result.output += " (checked)"
        yield from ()

    events: list[Event] = []
    agent = RouterAgent(
        ScriptedModel([turn(call("price", symbol="NVDA")), "NVDA at 100."]),
        tools,
        classify=classify,
        route=choose,
        execute=execute,
        check=check,
        name="toy",
        on_event=[events.append],
    )
    r = agent.run("NVDA?")
    assert r.output == "NVDA at 100. (checked)" and seen == ["NVDA at 100."] and ran == ["price"]
    assert next(e for e in events if isinstance(e, Routed)).source == "rules" and events[0].agent == "toy"
    r = agent.run("weather in Paris?")
    assert r.output == "I only know stocks." and r.route is None and ran == ["price"]


def test_the_paused_result_is_left_as_it_was_given():
    tools, ran = approval_tools()
    agent = RouterAgent(ScriptedModel([CLASSIFY, route("buy"), turn(call("buy", symbol="NVDA")), "Bought."]), tools)
    paused = agent.run("Buy NVDA")
    done = agent.resume({paused.approvals[0].id: True})
    assert paused.status == "paused" and paused.approvals and paused.tool_calls == []  # the held call did not run
    assert done is not paused and done.status == "completed" and [t.ok for t in done.tool_calls] == [True]
    assert done.classification == paused.classification and done.route == paused.route


@pytest.mark.parametrize("strategy", ["fan_out", "DIRECT", "ITERATIVE"])
def test_the_runs_deps_reach_every_execution_as_ctx_deps(strategy):
    from orrery.agent.router import Route
    from orrery.events import RunStart

    seen: list[object] = []

    @tool
    def price(ctx: RunContext[dict], symbol: str) -> str:
        """Latest price of a stock."""
        seen.append(ctx.deps)
        return f"{symbol} trades at {ctx.deps['price']}"

    fan_out = (
        (lambda q, c, r, done: [] if done else [ToolCall("a", "price", {"symbol": "NVDA"})])
        if strategy == "fan_out"
        else None
    )
    chosen = "DIRECT" if strategy == "fan_out" else strategy
    calls = [] if fan_out else [turn(call("price", symbol="NVDA"))]  # else the fan-out calls, not the model
    model = ScriptedModel([CLASSIFY, *calls, "NVDA at 7."])
    agent = RouterAgent(
        model,
        [price],
        decide=lambda q, c: Route(selected_tools=["price"], complexity="SIMPLE", strategy=chosen, max_turns=2),
        fan_out=fan_out,
    )
    events: list[Event] = []
    agent.handlers.append(events.append)
    deps = {"price": 7}
    result = agent.run("NVDA price?", deps=deps)
    assert seen == [deps] and result.output == "NVDA at 7."
    start = next(e for e in events if isinstance(e, RunStart))
    assert "deps" not in start.options  # deps are the tools', not a run option traced as JSON


@pytest.mark.parametrize("strategy", ["DIRECT", "ITERATIVE"])
def test_a_paused_routed_run_resumes_in_a_fresh_agent_from_its_json_snapshot(strategy, tmp_path):
    import json

    from orrery.tools.core import CallLedger

    tools, ran = approval_tools()
    first = RouterAgent(
        ScriptedModel([CLASSIFY, route("buy", strategy=strategy), turn(call("buy", symbol="NVDA"))]), tools
    )
    paused = first.run("Buy NVDA")
    snapshot = json.loads(json.dumps(first.snapshot()))  # what a server keeps: JSON only
    assert snapshot["query"] == "Buy NVDA" and snapshot["route"]["selected_tools"] == ["buy"]

    def fresh(answer: str) -> RouterAgent:
        agent = RouterAgent(ScriptedModel([answer]), tools)
        agent.ledger = CallLedger(tmp_path / "calls.db")  # done-markers kept across processes
        agent.restore(snapshot)
        return agent

    again = fresh("Bought NVDA.")
    assert [a.id for a in again.paused.result.approvals] == [a.id for a in paused.approvals]
    r = again.resume({paused.approvals[0].id: True})
    assert r.status == "completed" and r.output == "Bought NVDA." and ran == ["NVDA"]
    assert r.classification == paused.classification and r.route == paused.route
    r = fresh("Bought it.").resume({paused.approvals[0].id: True})  # the same resume again: read, not rerun
    assert r.status == "completed" and ran == ["NVDA"] and r.tool_calls[0].cached


def test_a_router_restores_only_a_paused_run_of_its_own_tools():
    from orrery.errors import ConfigError

    tools, _ = approval_tools()
    agent = RouterAgent(ScriptedModel([]), tools)
    assert agent.snapshot() == {}
    with pytest.raises(ConfigError, match="no routed run"):
        agent.restore({})
    with pytest.raises(ConfigError, match="not this router's"):
        agent.restore({"query": "q", "loop": {"tools": ["sell"], "system_prompt": "", "max_rounds": 1, "state": {}}})
