"""Typed run dependencies: `Agent(deps_type=)`, `run/stream/query(deps=)`, `ctx.deps` in every tool and hook, the
per-tool `prepare` hook, and `events.relay`."""

import threading
from dataclasses import dataclass, field, replace

import pytest

from orrery import Agent, AgentConfig
from orrery import events as ev
from orrery.errors import ConfigError
from orrery.llm import ScriptedModel
from orrery.llm.scripted import call, turn
from orrery.messages import ToolCall
from orrery.tools import RunContext, Toolset, tool


@dataclass
class Shop:
    name: str
    stock: dict[str, int]
    sold: list[str] = field(default_factory=list)


@tool
def in_stock(ctx: RunContext[Shop], item: str) -> str:
    """How many of an item the shop has.

    Args:
        item: the item's name
    """
    return f"{ctx.deps.name}: {ctx.deps.stock.get(item, 0)} {item}"


def only_when_stocked(ctx: RunContext[Shop], spec):
    return replace(spec, description=f"Sell an item of {ctx.deps.name}") if ctx.deps.stock else None


@tool(prepare=only_when_stocked)
def sell(ctx: RunContext[Shop], item: str) -> str:
    """Sell one item."""
    ctx.deps.sold.append(item)
    ctx.deps.stock[item] -= 1
    return f"sold {item}"


def shop_agent(script, **config):
    return Agent(ScriptedModel(script), [in_stock, sell], AgentConfig(**config), deps_type=Shop)


def test_a_typed_context_is_not_an_argument_the_model_fills():
    assert in_stock.wants_context and list(in_stock.parameters["properties"]) == ["item"]


def test_every_tool_and_hook_of_the_run_reads_the_deps_it_was_given():
    shop = Shop("corner", {"tea": 2})
    seen = []
    agent = shop_agent(
        [turn(call("in_stock", item="tea")), turn(call("sell", item="tea")), "done"],
        board=lambda ctx: f"board of {ctx.deps.name}",
        validators=[lambda out, ctx: seen.append((out, ctx.deps.name))],
    )
    result = agent.run("sell me tea", deps=shop)
    assert [r.content for r in result.tool_calls] == ["corner: 2 tea", "sold tea"]
    assert shop.sold == ["tea"] and shop.stock == {"tea": 1} and seen == [("done", "corner")]
    assert agent.current_run.ctx.deps is shop
    # the prepare hook rewrote the tool's description from the deps
    assert [s.description for s in agent.model.requests[0]["specs"] if s.name == "sell"] == ["Sell an item of corner"]


def test_deps_of_the_wrong_type_or_missing_stop_the_run_before_it_starts():
    agent = shop_agent(["never"])
    with pytest.raises(ConfigError, match="deps must be a Shop .*not a dict"):
        agent.stream("hi", deps={"name": "corner"})
    with pytest.raises(ConfigError, match="needs deps: pass deps=<a Shop>"):
        agent.run("hi")
    assert agent.model.requests == []  # no model call was made
    untyped = Agent(ScriptedModel(["ok"]), [])
    assert untyped.run("hi", deps=[1]).output == "ok" and untyped.current_run.ctx.deps == [1]
    generic = Agent(ScriptedModel(["ok"]), [], deps_type=dict[str, int])
    assert generic.run("hi", deps={"a": 1}).output == "ok"
    with pytest.raises(ConfigError, match="deps must be a dict"):
        generic.stream("hi", deps=[("a", 1)])


def test_a_follow_up_keeps_the_conversations_deps_unless_given_new_ones():
    agent = shop_agent(
        [
            turn(call("in_stock", item="tea")),
            "two",
            turn(call("in_stock", item="tea")),
            "still",
            turn(call("in_stock", item="tea")),
            "other",
        ]
    )
    agent.run("tea?", deps=Shop("corner", {"tea": 2}))
    assert agent.query("and now?").tool_calls[0].content == "corner: 2 tea"
    assert agent.query("over there?", deps=Shop("market", {"tea": 9})).tool_calls[0].content == "market: 9 tea"
    with pytest.raises(ConfigError):
        agent.query("again", deps="market")


def test_prepare_hides_a_tool_from_the_model_and_refuses_its_calls():
    empty = Shop("bare", {})
    agent = shop_agent([turn(call("sell", item="tea")), "nothing to sell"])
    result = agent.run("sell tea", deps=empty)
    assert agent.model.requests[0]["tools"] == ["in_stock"]
    assert "tool 'sell' is not available yet. Available tools: in_stock." in result.tool_calls[0].content
    assert empty.sold == []
    ts, ctx = Toolset([in_stock, sell]), RunContext(Shop("corner", {"tea": 1}))
    assert [s.name for s in ts.specs(ctx)] == ["in_stock", "sell"]
    assert ts.specs(ctx)[1].description == "Sell an item of corner"
    assert sell.spec().description == "Sell one item."  # the declared tool is left as it is
    assert ts.run([ToolCall("1", "sell", {"item": "tea"})], ctx)[0].ok and ctx.deps.sold == ["tea"]


def test_two_runs_of_one_agent_at_once_each_see_their_own_deps():
    def script(messages):
        task = next(m.content for m in messages if m.role == "user")
        done = [m.content for m in messages if m.role == "tool"]
        return f"answer {done[-1]}" if done else turn(call("in_stock", item=task))

    agent = shop_agent([script] * 40)
    shops = {w: Shop(f"shop-{w}", {w: len(w)}) for w in ("tea", "milk", "bread", "jam")}
    streams = {w: agent.stream(w, deps=shops[w]) for w in ("tea", "milk")}  # interleaved, one thread
    finals = {}
    while len(finals) < 2:
        for w, s in streams.items():
            if w not in finals and isinstance(e := next(s), ev.Final):
                finals[w] = e.result.output
    results, go = {}, threading.Barrier(2)

    def work(word):
        go.wait()
        results[word] = agent.run(word, deps=shops[word]).output

    threads = [threading.Thread(target=work, args=(w,)) for w in ("bread", "jam")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert {**finals, **results} == {w: f"answer shop-{w}: {len(w)} {w}" for w in shops}


def test_relay_passes_an_inner_run_on_and_returns_its_result():
    agent = Agent(ScriptedModel(["inner answer"]), [])
    seen = []

    def outer():
        result = yield from ev.relay(agent.stream("q"), drop=(ev.RunStart,), tap=seen.append)
        yield ev.Final("completed", f"outer got {result.output}", result)

    events = list(outer())
    assert not any(isinstance(e, ev.RunStart) for e in events)
    assert [e.output for e in events if isinstance(e, ev.Final)] == ["outer got inner answer"]
    assert isinstance(seen[0], ev.RunStart) and isinstance(seen[-1], ev.Final)  # the tap saw what was kept back


def test_closing_the_outer_stream_closes_the_inner_one():
    closed = []

    def inner():
        try:
            yield ev.StepStart(1)
            yield ev.StepStart(2)
        finally:
            closed.append(True)

    outer = ev.relay(inner())
    assert next(outer) == ev.StepStart(1)
    outer.close()
    assert closed == [True]


def test_a_cached_result_is_only_read_by_runs_with_the_same_deps():
    calls = []

    @dataclass(frozen=True)
    class Source:
        name: str

    @tool(cache_ttl=60)
    def fetch(ctx: RunContext[Source], key: str) -> str:
        """Fetch a key."""
        calls.append((ctx.deps, key))
        return f"{ctx.deps.name}:{key}"

    a, b = RunContext(Source("a")), RunContext(Source("b"))
    assert fetch.invoke({"key": "k"}, a) == ("a:k", False)
    assert fetch.invoke({"key": "k"}, b) == ("b:k", False)  # other deps: not the first run's result
    assert fetch.invoke({"key": "k"}, RunContext(Source("a"))) == ("a:k", True)  # equal deps share it
    shop, other = Shop("x", {}), Shop("x", {})  # unhashable: only the same object reads its results

    @tool(cache_ttl=60)
    def name(ctx: RunContext[Shop]) -> str:
        """The shop's name."""
        return ctx.deps.name + str(len(calls))

    first = name.invoke({}, RunContext(shop))
    calls.append("between")
    assert name.invoke({}, RunContext(shop)) == (first[0], True)
    assert first == ("x2", False) and name.invoke({}, RunContext(other)) == ("x3", False)


def test_a_follow_up_given_new_deps_leaves_the_run_it_continues_with_its_own():
    agent = shop_agent([turn(call("in_stock", item="tea")), "two", "nine"])
    corner, market = Shop("corner", {"tea": 2}), Shop("market", {"tea": 9})
    first = agent.stream("tea?", deps=corner)
    run = agent.current_run
    follow = agent.query_stream("and at the market?", deps=market, where="market")
    assert run.ctx.deps is corner and "where" not in run.ctx.options  # the first run's context is its own
    assert agent.current_run.ctx.deps is market and agent.current_run.ctx.state is run.ctx.state
    assert [e.result.output for e in first if isinstance(e, ev.Final)] == ["two"]
    assert run.ctx.succeeded == ["in_stock"] and [e for e in follow if isinstance(e, ev.Final)][0].output == "nine"
