"""orrery.otel: the span tree and GenAI attributes of each architecture's run, with the SDK's in-memory exporter."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from orrery import Agent, ScriptedModel, tool
from orrery import events as ev
from orrery.agent import PlanAgent
from orrery.agent.router import RouterAgent
from orrery.llm.scripted import call, turn
from orrery.messages import ToolCall, Usage
from orrery.otel import SpanRecorder, context_from, instrument, uninstrument
from orrery.tools.core import RunContext

CLASSIFY = {"type": "price", "entities": ["NVDA"], "categories": ["price"]}


@tool
def price(symbol: str) -> str:
    """Latest price of a stock.

    Args:
        symbol: the ticker
    """
    if symbol == "BAD":
        raise ValueError("no such symbol")
    return f"{symbol} trades at 100"


@tool(requires_approval=True)
def buy(symbol: str) -> str:
    """Buy a stock.

    Args:
        symbol: the ticker
    """
    return f"bought {symbol}"


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    def recorder(**kw) -> SpanRecorder:
        return SpanRecorder(provider, **kw)

    recorder.finished = exporter.get_finished_spans  # type: ignore[attr-defined]
    return recorder


def tree(finished) -> list[tuple[int, str]]:
    """(depth, name) in start order: the span tree as a list."""
    by_id = {s.context.span_id: s for s in finished}

    def depth(s) -> int:
        return 0 if s.parent is None else 1 + depth(by_id[s.parent.span_id])

    return [(depth(s), s.name) for s in sorted(finished, key=lambda s: s.start_time)]


def named(finished, name):
    return [s for s in finished if s.name == name]


def test_plain_loop_run_step_model_and_tool_spans_with_genai_attributes(spans):
    model = ScriptedModel(
        [turn(call("price", symbol="NVDA"), call("price", symbol="BAD")), "NVDA is at 100."],
        usage_per_call=Usage(12, 7),
    )
    Agent(model, [price], on_event=[spans()]).run("What is NVDA at?")
    finished = spans.finished()
    assert tree(finished) == [
        (0, "invoke_agent agent"),
        (1, "step 1"),
        (2, "chat scripted"),
        (2, "execute_tool price"),
        (2, "execute_tool price"),
        (1, "step 2"),
        (2, "chat scripted"),
    ]
    assert len({s.context.trace_id for s in finished}) == 1
    run = named(finished, "invoke_agent agent")[0]
    assert run.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert run.attributes["gen_ai.usage.input_tokens"] == 24 and run.attributes["gen_ai.usage.output_tokens"] == 14
    assert run.attributes["orrery.status"] == "completed"
    chat = named(finished, "chat scripted")[0]
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.request.model"] == "scripted"
    assert (chat.attributes["gen_ai.usage.input_tokens"], chat.attributes["gen_ai.usage.output_tokens"]) == (12, 7)
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("tool_calls",)
    ok, bad = named(finished, "execute_tool price")
    assert ok.attributes["gen_ai.tool.name"] == "price" and ok.attributes["gen_ai.tool.call.id"].startswith(
        "call_price"
    )
    assert ok.status.status_code == StatusCode.UNSET
    assert bad.status.status_code == StatusCode.ERROR and bad.attributes["error.type"] == "tool_error"
    # content is off by default: no prompt, answer, argument or result anywhere
    everything = json.dumps([dict(s.attributes) for s in finished])
    assert "NVDA" not in everything and "trades at" not in everything


def test_content_is_recorded_only_when_asked(spans):
    model = ScriptedModel([turn(call("price", symbol="NVDA")), "NVDA is at 100."])
    Agent(model, [price], on_event=[spans(capture_content=True)]).run("What is NVDA at?")
    finished = spans.finished()
    tool_span = named(finished, "execute_tool price")[0]
    assert json.loads(tool_span.attributes["gen_ai.tool.call.arguments"]) == {"symbol": "NVDA"}
    assert tool_span.attributes["gen_ai.tool.call.result"] == "NVDA trades at 100"
    run = named(finished, "invoke_agent agent")[0]
    assert "What is NVDA at?" in run.attributes["gen_ai.input.messages"]
    assert "NVDA is at 100." in run.attributes["gen_ai.output.messages"]


def test_router_run_is_one_tree_with_its_decisions_as_span_events(spans):
    model = ScriptedModel(
        [
            CLASSIFY,
            {"selected_tools": ["price"], "complexity": "SIMPLE", "strategy": "ITERATIVE", "max_turns": 2},
            turn(call("price", symbol="NVDA")),
            "NVDA is at 100.",
        ]
    )
    RouterAgent(model, [price], on_event=[spans()]).run("What is NVDA at?")
    finished = spans.finished()
    assert tree(finished) == [
        (0, "invoke_agent router"),
        (1, "step 1"),
        (2, "chat scripted"),
        (2, "chat scripted"),
        (1, "step 2"),
        (2, "chat scripted"),
        (2, "execute_tool price"),
        (1, "step 3"),
        (2, "chat scripted"),
    ]
    step1 = named(finished, "step 1")[0]
    kinds = [e.name for e in named(finished, "chat scripted")[0].events] + [e.name for e in step1.events]
    assert "classified" in kinds and "routed" in kinds
    routed = next(e for s in finished for e in s.events if e.name == "routed")
    assert routed.attributes["orrery.strategy"] == "ITERATIVE"


def test_planner_turn_spans_each_todo_as_a_step_with_its_tool(spans, tmp_path):
    plan = {
        "request": "price of NVDA",
        "todos": [{"key": "p", "description": "price", "tool": "price", "arguments": {"symbol": "NVDA"}}],
    }
    agent = PlanAgent(
        ScriptedModel([plan, "NVDA trades at 100."]), [price], tmp_path / "s.db", "t1", on_event=[spans()]
    )
    assert agent.run("NVDA price?").ok
    finished = spans.finished()
    assert tree(finished) == [
        (0, "invoke_agent planner"),
        (1, "chat scripted"),
        (1, "step 1"),
        (2, "execute_tool price"),
        (1, "step 2"),
        (2, "chat scripted"),
    ]
    run = named(finished, "invoke_agent planner")[0]
    assert {"intent", "planned", "todo", "state"} <= {e.name for e in run.events}
    assert named(finished, "execute_tool price")[0].attributes["gen_ai.tool.call.id"] == "p-1"


def test_a_paused_and_resumed_approval_spans_both_runs(spans):
    recorder = spans()
    a = Agent(ScriptedModel([turn(ToolCall("b1", "buy", {"symbol": "NVDA"})), "Bought."]), [buy], on_event=[recorder])
    assert a.run("buy NVDA").status == "paused"
    a.resume({"b1": True})
    finished = spans.finished()
    runs = named(finished, "invoke_agent agent")
    assert [r.attributes["orrery.status"] for r in runs] == ["paused", "completed"]
    assert "approval_required" in [e.name for e in runs[0].events]
    executed = [s for s in finished if s.name == "execute_tool buy" and s.parent.span_id == runs[1].context.span_id]
    assert len(executed) == 1 and executed[0].status.status_code == StatusCode.UNSET


def test_instrument_records_every_agent_and_an_error_run_is_marked():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    recorder = instrument(provider)
    try:
        Agent(ScriptedModel([]), [price]).run("q")  # no handler of its own; the script has no turns: an error
    finally:
        uninstrument(recorder)
    Agent(ScriptedModel(["hi"]), [price]).run("q")  # after uninstrument: not recorded
    [run, step, chat] = sorted(exporter.get_finished_spans(), key=lambda s: s.start_time)
    assert run.name == "invoke_agent agent" and recorder not in ev.HOOKS
    assert run.status.status_code == StatusCode.ERROR and run.attributes["orrery.status"] == "error"


@pytest.mark.integration  # a real subprocess
def test_off_nothing_of_opentelemetry_is_imported():
    code = (
        "import sys; from orrery import Agent, ScriptedModel; from orrery.cli import app; "
        "Agent(ScriptedModel(['hi']), []).run('q'); "
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_run_continues_the_trace_a_traceparent_header_names(spans):
    header = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    recorder = spans(parent=context_from({"Traceparent": header}))
    Agent(ScriptedModel(["hi"]), [], on_event=[recorder]).run("q")
    run = named(spans.finished(), "invoke_agent agent")[0]
    assert format(run.context.trace_id, "032x") == "0af7651916cd43dd8448eb211c80319c"
    assert format(run.parent.span_id, "016x") == "b7ad6b7169203331"
    garbage = spans(parent=context_from({"traceparent": "not-a-header"}))
    Agent(ScriptedModel(["hi"]), [], on_event=[garbage]).run("q")
    assert named(spans.finished(), "invoke_agent agent")[1].parent is None


def test_a_run_stopped_before_its_end_is_closed_and_the_next_run_is_a_new_trace(spans):
    recorder = spans()
    a = Agent(ScriptedModel(["one", "two"]), [price])
    stream = a.stream("first")
    for e in stream:
        recorder(e)
        if e.kind == "model_call":
            break
    stream.close()  # a consumer gone (a handler raised): no Final event
    for e in a.stream("second"):
        recorder(e)
    runs = named(spans.finished(), "invoke_agent agent")
    assert [r.attributes["orrery.status"] for r in runs] == ["cancelled", "completed"]
    assert runs[1].parent is None and runs[0].context.trace_id != runs[1].context.trace_id


def test_a_run_inside_a_tool_is_a_child_of_the_tool_span(spans):
    recorder = spans()

    @tool
    def research(topic: str) -> str:
        """Ask a sub-agent.

        Args:
            topic: what to look up
        """
        return Agent(ScriptedModel([f"{topic}: fine"]), [], on_event=[recorder]).run(topic).output

    Agent(ScriptedModel([turn(call("research", topic="NVDA")), "done"]), [research], on_event=[recorder]).run("q")
    finished = spans.finished()
    outer_tool = named(finished, "execute_tool research")[0]
    inner, outer = sorted(named(finished, "invoke_agent agent"), key=lambda s: s.start_time, reverse=True)
    assert inner.parent.span_id == outer_tool.context.span_id and outer.parent is None
    assert {s.context.trace_id for s in finished} == {outer.context.trace_id}
    assert outer.attributes["orrery.status"] == "completed" and len(named(finished, "step 2")) == 1


def test_a_run_inside_a_span_your_code_opened_is_its_child(spans):
    recorder = spans()
    with recorder.tracer.start_as_current_span("request") as request:
        Agent(ScriptedModel(["hi"]), [], on_event=[recorder]).run("q")
    run = named(spans.finished(), "invoke_agent agent")[0]
    assert run.parent.span_id == request.get_span_context().span_id


@tool(timeout=30)
def lookup(ctx: RunContext, symbol: str) -> str:
    """Look a symbol up in two stages.

    Args:
        symbol: the ticker
    """
    with ev.stage("fetch", symbol=symbol, **{"db.system.name": "sqlite"}, content={"orrery.query": symbol}) as s:
        s.set(rows=3, ok=True)
    if symbol == "BAD":
        with ev.stage("parse", symbol=symbol):
            raise ValueError("unparseable")
    return f"{symbol} found ({len(ctx.succeeded)} before)"


def test_stages_are_child_spans_of_their_own_tool_call(spans):
    model = ScriptedModel(
        [turn(call("lookup", symbol="NVDA"), call("lookup", symbol="AAPL"), call("lookup", symbol="BAD")), "done"]
    )
    Agent(model, [lookup], on_event=[spans()]).run("q")  # three calls at once: pool threads, timeout threads
    finished = spans.finished()
    tools = {s.context.span_id: s for s in named(finished, "execute_tool lookup")}
    order = [s.context.span_id for s in sorted(tools.values(), key=lambda s: s.start_time)]  # the calls' order
    fetches = named(finished, "fetch")
    assert {(order.index(f.parent.span_id), f.attributes["orrery.symbol"]) for f in fetches} == {
        (0, "NVDA"),
        (1, "AAPL"),
        (2, "BAD"),
    }
    for f in fetches:
        assert f.attributes["orrery.stage"] == "fetch" and f.attributes["db.system.name"] == "sqlite"
        assert f.attributes["orrery.rows"] == 3 and f.attributes["orrery.ok"] is True
        assert "orrery.query" not in f.attributes  # content only when asked
    [parse] = named(finished, "parse")
    assert parse.status.status_code == StatusCode.ERROR and parse.events[0].name == "exception"
    assert tools[parse.parent.span_id].status.status_code == StatusCode.ERROR
    assert ev.STAGE_OPENERS == {}  # nothing left watching once the calls ended


def test_stage_content_is_recorded_only_when_asked(spans):
    model = ScriptedModel([turn(call("lookup", symbol="NVDA")), "done"])
    Agent(model, [lookup], on_event=[spans(capture_content=True)]).run("q")
    assert named(spans.finished(), "fetch")[0].attributes["orrery.query"] == "NVDA"


def test_two_recorders_each_get_the_stage_and_off_it_records_nothing(spans):
    first, second = spans(), spans()
    Agent(ScriptedModel([turn(call("lookup", symbol="NVDA")), "done"]), [lookup], on_event=[first, second]).run("q")
    assert len(named(spans.finished(), "fetch")) == 2
    before = len(spans.finished())
    result = Agent(ScriptedModel([turn(call("lookup", symbol="NVDA")), "done"]), [lookup]).run("q")
    with ev.stage("outside", a=1) as s:  # no tool call: a no-op
        s.set(b=2)
    assert result.ok and len(spans.finished()) == before and ev.STAGE_OPENERS == {}
