"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in tests/mcp/npm): its server
scenarios against `orrery mcp --transport http`, and its client scenarios driving orrery's client
(tests/mcp/conformance_client.py). The scenarios left out do not apply; orrery/mcp/README.md says why."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
SUITE = HERE / "npm" / "node_modules" / ".bin" / "conformance"
SERVER_SCENARIOS = [
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-error",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
]
CLIENT_SCENARIOS = ["initialize", "tools_call", "sse-retry"]

pytestmark = pytest.mark.integration


def suite(*args: str) -> subprocess.CompletedProcess:
    if not SUITE.exists():
        pytest.fail("run `npm ci` in tests/mcp/npm (.ci/run does) to install the conformance suite")
    return subprocess.run(
        [str(SUITE), *args],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=HERE / "npm",
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.fixture(scope="module")
def orrery_mcp_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "orrery", "mcp", "--transport", "http", "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.2)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(10)


@pytest.mark.parametrize("scenario", SERVER_SCENARIOS)
def test_server_scenario(orrery_mcp_url, scenario):
    done = suite("server", "--url", orrery_mcp_url, "--scenario", scenario)
    assert done.returncode == 0 and " 0 failed" in done.stdout, done.stdout[-3000:] + done.stderr[-2000:]


@pytest.mark.parametrize("scenario", CLIENT_SCENARIOS)
def test_client_scenario(scenario):
    done = suite("client", "--command", f"{sys.executable} {HERE / 'conformance_client.py'}", "--scenario", scenario)
    report = done.stdout + done.stderr
    assert done.returncode == 0 and " 0 failed" in report and "OVERALL: PASSED" in report, report[-4000:]
