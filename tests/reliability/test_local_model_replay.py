"""With the real embedded model: a chat trace recorded by `orrery chat` replays only with tools the
user names, even when the trace has been edited to name `os:abort`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).parents[2]


def orrery(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OMP_WAIT_POLICY": "passive"}
    return subprocess.run(
        [sys.executable, "-m", "orrery", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env=env,
    )


def test_a_real_chat_trace_replays_only_with_the_users_tools(tmp_path: Path) -> None:
    trace = tmp_path / "chat.jsonl"
    chat = orrery("chat", "--model", "local", "--trace", trace, "-m", "What is 17*23? Use the calculator.")
    assert chat.returncode == 0, chat.stderr
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert any(e["kind"] == "tool_result" and e["call"]["name"] == "calculate" for e in events)
    events[0]["tools_ref"] = "os:abort"  # a downloaded, edited trace
    trace.write_text("".join(json.dumps(e) + "\n" for e in events))

    refused = orrery("replay", trace)
    assert refused.returncode == 2 and "never code named in a trace" in refused.stderr and "os:abort" in refused.stderr
    replayed = orrery("replay", trace, "--app", "chat")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "0 differences" in replayed.stdout
