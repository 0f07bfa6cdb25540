"""Served runs as OpenTelemetry spans: the global hooks get each event, and a request's `traceparent` is the
run span's parent (the in-memory exporter, over real HTTP)."""

import httpx
import pytest
from scripted import post_run, run_input

pytestmark = pytest.mark.integration
TRACE_ID, PARENT_ID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"


def by_name(exporter):
    return {s.name: s for s in exporter.get_finished_spans()}


def test_a_served_run_continues_the_callers_trace(live, traced):
    with httpx.Client(base_url=live.url, timeout=30) as http:
        post_run(http, "chat", run_input(text="what is 6*7"), headers={"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"})
    spans = by_name(traced)
    run = spans["invoke_agent chat"]
    assert format(run.context.trace_id, "032x") == TRACE_ID and format(run.parent.span_id, "016x") == PARENT_ID
    tool = spans["execute_tool calculate"]
    assert tool.context.trace_id == run.context.trace_id and tool.attributes["gen_ai.tool.name"] == "calculate"
    assert {"step 1", "step 2"} <= set(spans)


def test_without_a_traceparent_a_served_run_starts_its_own_trace(live, traced):
    with httpx.Client(base_url=live.url, timeout=30) as http:
        post_run(http, "chat", run_input(text="what is 6*7"))
        post_run(
            http,
            "chat",
            run_input(thread="t2", text="what is 1+1"),
            headers={"traceparent": "00-not-a-valid-header-01"},
        )
    runs = [s for s in traced.get_finished_spans() if s.name == "invoke_agent chat"]
    assert len(runs) == 2 and all(s.parent is None for s in runs)
    assert runs[0].context.trace_id != runs[1].context.trace_id


def test_an_approval_and_its_resume_are_spans_of_the_callers_trace(live, traced):
    header = {"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"}
    with httpx.Client(base_url=live.url, timeout=30) as http:
        first = post_run(http, "approve", run_input(text="hello"), headers=header)
        interrupt = first[-1]["outcome"]["interrupts"][0]
        post_run(
            http,
            "approve",
            run_input(
                run="r2",
                text="",
                resume=[{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}],
            ),
            headers=header,
        )
    runs = [s for s in traced.get_finished_spans() if s.name == "invoke_agent agent"]
    assert [s.attributes["orrery.status"] for s in runs] == ["paused", "completed"]
    assert {format(s.context.trace_id, "032x") for s in runs} == {TRACE_ID}
    tool = by_name(traced)["execute_tool write_note"]
    assert tool.context.trace_id == runs[1].context.trace_id and tool.attributes["gen_ai.tool.call.id"]


CLIENT = """
import sys, tempfile
from pathlib import Path
sys.path.insert(0, "tests/serve")
import httpx, scripted
server = scripted.ServerProcess(Path(tempfile.mkdtemp()))
try:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        scripted.post_run(http, "chat", scripted.run_input(), headers={"traceparent": sys.argv[1]})
finally:
    server.stop()  # SIGTERM: uvicorn exits and the spans are flushed
"""


def test_a_server_started_with_the_otlp_endpoint_exports_its_runs_in_the_callers_trace():
    """`orrery serve`'s app in its own process, OTEL_EXPORTER_OTLP_ENDPOINT set, a real OTLP receiver (oteltap)."""
    import os
    import sys
    from pathlib import Path

    from scripted import free_port

    sys.path.insert(0, str(Path(__file__).parents[1] / "otel"))
    from test_otlp_export import received  # the receiver started around a command

    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
    }
    proc, spans = received([sys.executable, "-c", CLIENT, f"00-{TRACE_ID}-{PARENT_ID}-01"], env, port, "invoke_agent")
    assert proc.returncode == 0, proc.stderr
    run = next(s for s in spans if s.name == "invoke_agent chat")
    assert run.trace_id.hex() == TRACE_ID and run.parent_span_id.hex() == PARENT_ID
    assert "execute_tool calculate" in {s.name for s in spans}
