"""End to end: a run's spans exported over OTLP/HTTP (protobuf) to a real receiver (oteltap, an embeddable OTLP
collector from PyPI) started in the test, and read back from it. Once switched on by OTEL_EXPORTER_OTLP_ENDPOINT
in a plain Python process, once by `orrery --otel URL`."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time

import pytest
from oteltap import OtelTapHttpProtobufReceiver, OtelTapHttpProtobufReceiverSettings

pytestmark = pytest.mark.integration

SCRIPT = """
from orrery import Agent, ScriptedModel, tool
from orrery.llm.scripted import call, turn

@tool
def add(a: int, b: int) -> int:
    '''Add two integers.'''
    return a + b

agent = Agent(ScriptedModel([turn(call("add", a=2, b=3)), "2 + 3 = 5"]), [add])
print(agent.run("What is 2 + 3?").output)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def received(
    command: list[str], env: dict[str, str], port: int, until: str
) -> tuple[subprocess.CompletedProcess, list]:
    """Run `command` while a receiver listens on `port`; the spans it got (waiting for one named `until`)."""

    async def main() -> tuple[subprocess.CompletedProcess, list]:
        spans: list = []
        async with OtelTapHttpProtobufReceiver(OtelTapHttpProtobufReceiverSettings(http_port=port)) as rx:

            async def collect() -> None:
                async for span in rx.stream_traces():
                    spans.append(span)

            task = asyncio.create_task(collect())
            await asyncio.sleep(0.2)  # subscribed before anything is sent
            proc = await asyncio.to_thread(
                subprocess.run, command, env=env, capture_output=True, text=True, timeout=120
            )
            deadline = time.monotonic() + 15
            while not any(s.name.startswith(until) for s in spans) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            task.cancel()
        return proc, spans

    return asyncio.run(main())


def attrs(span) -> dict:
    out = {}
    for kv in span.attributes:
        v = kv.value
        out[kv.key] = (
            v.string_value or v.int_value or v.bool_value or list(x.string_value for x in v.array_value.values)
        )
    return out


def test_spans_reach_an_otlp_collector_when_the_endpoint_is_set():
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")},
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
        "OTEL_SERVICE_NAME": "orrery-test",
    }
    proc, spans = received([sys.executable, "-c", SCRIPT], env, port, "invoke_agent")
    assert proc.returncode == 0 and proc.stdout.strip() == "2 + 3 = 5", proc.stderr
    by_name = {s.name: s for s in spans}
    assert {"invoke_agent agent", "step 1", "step 2", "chat scripted", "execute_tool add"} <= set(by_name)
    run, tool_span = by_name["invoke_agent agent"], by_name["execute_tool add"]
    assert len({s.trace_id for s in spans}) == 1
    assert tool_span.parent_span_id == by_name["step 1"].span_id and by_name["step 1"].parent_span_id == run.span_id
    assert attrs(tool_span)["gen_ai.tool.name"] == "add" and attrs(tool_span)["gen_ai.operation.name"] == "execute_tool"
    assert attrs(run)["orrery.status"] == "completed" and attrs(run)["gen_ai.usage.input_tokens"] == 20


def test_the_otel_flag_exports_a_cli_run(tmp_path):
    """`orrery --otel URL chat -m ...` against a model server that is not there: the failed run is exported."""
    port, dead = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    command = [
        sys.executable,
        "-m",
        "orrery",
        "--otel",
        f"http://127.0.0.1:{port}",
        "chat",
        "--model",
        f"http://127.0.0.1:{dead}/v1",
        "--trace",
        str(tmp_path / "t.jsonl"),
        "-m",
        "hello",
    ]
    proc, spans = received(command, env, port, "invoke_agent")
    assert proc.returncode == 1, proc.stderr
    run = next(s for s in spans if s.name == "invoke_agent chat")
    assert attrs(run)["orrery.status"] == "error" and run.status.code == 2  # STATUS_CODE_ERROR
    assert attrs(next(s for s in spans if s.name.startswith("chat ")))["gen_ai.request.model"] == "local"
