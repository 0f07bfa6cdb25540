"""An app's run as spans: the markets analyst (a router with its own classification, narrowed tools and grounding)."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.otel import SpanRecorder


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from orrery.markets.store import Store

    return Store(tmp_path_factory.mktemp("markets"))


def test_markets_run_spans_its_tools_under_its_own_agent_name(store):
    from orrery.markets.agent import MarketsAgent

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    model = ScriptedModel([{"type": "stock_specific", "entities": ["Apple"], "categories": ["technical"]},
                           {"selected_tools": ["technical_indicators"], "complexity": "SIMPLE",
                            "strategy": "DIRECT", "max_turns": 2},
                           turn(call("technical_indicators", symbol="AAPL", indicators=["RSI"])),
                           "Apple's RSI is 32.78."])
    result = MarketsAgent(model, store, on_event=[SpanRecorder(provider)]).run("What is Apple's RSI?")
    assert result.ok
    spans = {s.name: s for s in exporter.get_finished_spans()}
    run, tool_span = spans["invoke_agent markets"], spans["execute_tool technical_indicators"]
    assert run.attributes["gen_ai.agent.name"] == "markets" and run.attributes["orrery.status"] == "completed"
    assert tool_span.attributes["gen_ai.tool.name"] == "technical_indicators"
    assert tool_span.parent.span_id == spans["step 2"].context.span_id
    assert {"classified", "routed"} <= {e.name for s in spans.values() for e in s.events}
