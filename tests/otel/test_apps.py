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
    model = ScriptedModel(
        [
            {"type": "stock_specific", "entities": ["Apple"], "categories": ["technical"]},
            {"selected_tools": ["technical_indicators"], "complexity": "SIMPLE", "strategy": "DIRECT", "max_turns": 2},
            turn(call("technical_indicators", symbol="AAPL", indicators=["RSI"])),
            "Apple's RSI is 32.78.",
        ]
    )
    result = MarketsAgent(model, store, on_event=[SpanRecorder(provider)]).run("What is Apple's RSI?")
    assert result.ok
    spans = {s.name: s for s in exporter.get_finished_spans()}
    run, tool_span = spans["invoke_agent markets"], spans["execute_tool technical_indicators"]
    assert run.attributes["gen_ai.agent.name"] == "markets" and run.attributes["orrery.status"] == "completed"
    assert tool_span.attributes["gen_ai.tool.name"] == "technical_indicators"
    assert tool_span.parent.span_id == spans["step 2"].context.span_id
    assert {"classified", "routed"} <= {e.name for s in spans.values() for e in s.events}


def _tree(exporter):
    spans = exporter.get_finished_spans()
    by_id = {s.context.span_id: s for s in spans}
    return spans, {s.name: s for s in spans}, lambda s: by_id.get(s.parent.span_id) if s.parent else None


def test_chat_run_spans_model_calls_and_builtin_tools(traced):
    from orrery.chat import chat_agent

    model = ScriptedModel([turn(call("calculate", expression="6*7")), "6*7 is 42."])
    assert chat_agent(model).run("What is 6*7?").ok
    spans, named, parent = _tree(traced)
    run, tool_span = named["invoke_agent chat"], named["execute_tool calculate"]
    assert parent(run) is None and run.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert "calculate" in run.attributes["orrery.tools"] and run.attributes["orrery.status"] == "completed"
    assert parent(tool_span) is named["step 1"] and parent(named["step 1"]) is run
    assert tool_span.attributes["gen_ai.tool.name"] == "calculate" and tool_span.attributes["gen_ai.tool.call.id"]
    chats = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert len(chats) == 2 and {parent(c).name for c in chats} == {"step 1", "step 2"}
    assert all("gen_ai.usage.input_tokens" in c.attributes for c in chats)
    assert "gen_ai.tool.call.arguments" not in tool_span.attributes  # content only when asked


def test_forecast_run_spans_each_gated_workflow_tool(traced):
    from orrery.forecast.agent import ForecastAgent
    from orrery.forecast.data import load

    frame = load("orrery/forecast/samples/air_passengers.csv")
    best = lambda msgs: turn(call("generate_forecast", model=_cv_best(msgs)))  # noqa: E731
    model = ScriptedModel(
        [
            turn(call("analyze_features")),
            turn(call("cross_validate", models=["AutoETS"], n_windows=2)),
            best,
            turn(call("detect_anomalies", level=99)),
            "A commentary.",
        ]
    )
    ForecastAgent(model).analyze(frame, h=6)
    spans, named, parent = _tree(traced)
    run = next(s for s in spans if s.name.startswith("invoke_agent"))
    tools = [s for s in spans if s.name.startswith("execute_tool")]
    assert [s.attributes["gen_ai.tool.name"] for s in sorted(tools, key=lambda s: s.start_time)] == [
        "analyze_features",
        "cross_validate",
        "generate_forecast",
        "detect_anomalies",
    ]
    assert all(parent(parent(s)) is run and parent(s).name.startswith("step") for s in tools)
    assert all(s.status.is_ok for s in tools) and run.attributes["gen_ai.agent.name"] == "forecast"
    [cv] = [s for s in spans if s.attributes.get("orrery.stage") == "cross_validate"]
    assert parent(cv) is named["execute_tool cross_validate"]
    assert (
        set(cv.attributes["orrery.models"]) == {"AutoETS", "SeasonalNaive"} and cv.attributes["orrery.n_windows"] == 2
    )
    assert cv.attributes["orrery.h"] == frame.h and cv.attributes["orrery.best"] in {"AutoETS", "SeasonalNaive"}


def _cv_best(messages):
    import json

    calls = {c.id: c.name for m in messages for c in m.tool_calls}
    return json.loads(
        next(m.content for m in reversed(messages) if m.role == "tool" and calls[m.tool_call_id] == "cross_validate")
    )["best"]


def test_research_run_spans_search_add_source_and_submit(traced, tmp_path):
    from datetime import UTC, datetime

    from orrery.research.agent import ResearchAgent
    from orrery.research.search import SqliteIndex
    from orrery.research.types import Document

    index = SqliteIndex.create(
        tmp_path / "index.sqlite",
        [
            Document(
                "poll-march",
                "Election poll: Alice leads",
                "Alice leads Bob by 8 points in the election poll.",
                datetime(2024, 3, 1, tzinfo=UTC),
            )
        ],
    )
    model = ScriptedModel(
        [
            turn(call("search", query="election poll")),
            turn(call("add_source", id="poll-march", why="Alice leads by 8")),
            turn(call("submit", probability=0.7, rationale="Alice leads the poll [1].")),
        ]
    )
    result = ResearchAgent(model, index, trials=1).run("Will Alice win?", before="2024-06-01", question_id="q1")
    assert result.probability == 0.7
    spans, named, parent = _tree(traced)
    run = next(s for s in spans if s.name.startswith("invoke_agent"))
    tools = sorted((s for s in spans if s.name.startswith("execute_tool")), key=lambda s: s.start_time)
    assert [s.attributes["gen_ai.tool.name"] for s in tools] == ["search", "add_source", "submit"]
    assert [parent(s).name for s in tools] == ["step 1", "step 2", "step 3"]
    [search] = [s for s in spans if s.attributes.get("orrery.stage") == "search"]
    assert parent(search) is tools[0] and search.attributes["orrery.results"] == 1
    assert search.attributes["orrery.k"] > 0 and "orrery.search.query" not in search.attributes
    assert all(parent(parent(s)) is run for s in tools) and run.attributes["orrery.status"] == "completed"
    chats = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert len(chats) == 3 and sum(c.attributes["gen_ai.usage.input_tokens"] for c in chats) > 0


def test_bi_run_spans_its_plan_and_sql_tools(traced, tmp_path, monkeypatch):
    import sqlite3

    from orrery.bi.agent import BIAgent
    from orrery.bi.data import open_engine

    monkeypatch.setenv("ORRERY_BI_HOME", str(tmp_path))
    monkeypatch.setenv("ORRERY_DATA_DIR", str(tmp_path))
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE sales (region TEXT, amount INTEGER)")
        con.executemany("INSERT INTO sales VALUES (?, ?)", [("north", 3), ("south", 4), ("north", 5)])
    engine = open_engine(str(path))
    model = ScriptedModel(
        [
            {"request": "Total sales amount", "kind": "query", "values": [], "fields": ["amount"]},
            {"sql": "SELECT sum(amount) AS total FROM sales"},
            "Total sales are 12.",
        ]
    )
    agent = BIAgent(
        model,
        engine,
        store=tmp_path / "s.db",
        session_id="s",
        clarify=False,
        sql_mode="sql",
        chart_dir=tmp_path / "charts",
    )
    r = agent.ask("What are total sales?")
    engine.close()
    assert r.status == "completed" and r.rows == [[12]]
    spans, named, parent = _tree(traced)
    run = next(s for s in spans if s.name.startswith("invoke_agent") and parent(s) is None)
    tools = sorted((s for s in spans if s.name.startswith("execute_tool")), key=lambda s: s.start_time)
    assert [(s.attributes["gen_ai.tool.name"], parent(s).name) for s in tools] == [
        ("field_mapping", "step 1"),
        ("query_builder", "step 2"),
        ("sql_executor", "step 3"),
    ]
    assert all(parent(parent(s)) is run for s in tools) and run.attributes["gen_ai.agent.name"] == "bi"
    assert run.attributes["orrery.status"] == "completed"
    assert {"planned", "todo", "intent", "reiterated"} <= {e.name for e in run.events}
    assert [s.name for s in spans if s.attributes.get("gen_ai.operation.name") == "chat"] == ["chat scripted"] * 2
    sql = [s for s in spans if s.attributes.get("orrery.stage") == "execute_sql"]
    assert [parent(s) for s in sorted(sql, key=lambda s: s.start_time)] == tools[1:]  # query_builder tries it
    assert sql[-1].attributes["db.system.name"] == "sqlite" and sql[-1].attributes["orrery.rows"] == 1
    assert "db.query.text" not in sql[-1].attributes
