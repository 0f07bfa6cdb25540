"""Issue 12, code execution: `orrery replay` never imports or calls code named in a trace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from orrery import Agent, AgentConfig, ScriptedModel
from orrery.errors import ConfigError, DataError
from orrery.llm.scripted import call, turn
from orrery.replay import replay
from orrery.tools.builtin import DEFAULT_TOOLS
from orrery.trace import read_trace

BUILTIN = "orrery.tools.builtin:DEFAULT_TOOLS"


def record(path: Path, tools_ref: str | None = BUILTIN) -> Path:
    Agent(
        ScriptedModel([turn(call("calculate", expression="6*7")), "42"]),
        DEFAULT_TOOLS,
        AgentConfig(trace=path),
        tools_ref=tools_ref,
    ).run("6*7?")
    return path


def tamper(path: Path, tools_ref: str) -> Path:
    events = read_trace(path)
    events[0]["tools_ref"] = tools_ref
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


@pytest.mark.integration  # a real subprocess
def test_a_trace_naming_os_abort_does_not_kill_the_replaying_process(tmp_path: Path) -> None:
    trace = tamper(record(tmp_path / "t.jsonl"), "os:abort")
    done = subprocess.run(
        [sys.executable, "-m", "orrery", "replay", str(trace)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 2, done.stderr  # aborting would be -6 (SIGABRT)
    assert done.stderr.strip().startswith("error: replay runs tools you choose, never code named in a trace")
    assert "os:abort" in done.stderr and "Traceback" not in done.stderr


def test_replay_never_imports_the_module_a_trace_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "imported"
    (tmp_path / "planted.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\nTOOLS = []\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    trace = tamper(record(tmp_path / "t.jsonl"), "planted:TOOLS")
    with pytest.raises(ConfigError, match="pass --tools module:attr or --app NAME"):
        replay(trace, None)
    report = replay(trace, DEFAULT_TOOLS)  # the caller's tools run; the named module is still never touched
    assert report.identical and report.tool_results == 1
    assert not marker.exists() and "planted" not in sys.modules


def test_replay_takes_tools_the_user_names_or_an_installed_apps(tmp_path: Path, cli) -> None:
    trace = record(tmp_path / "t.jsonl", tools_ref=None)
    by_ref = cli("replay", trace, "--tools", BUILTIN)
    assert by_ref.code == 0 and "1 tool results replayed, 0 differences" in by_ref.out
    by_app = cli("replay", trace, "--app", "chat")
    assert by_app.code == 0 and "0 differences" in by_app.out


def test_replay_refuses_tools_that_lack_a_name_the_trace_calls(tmp_path: Path, cli) -> None:
    from orrery.tools.builtin import get_fact

    trace = record(tmp_path / "t.jsonl")
    with pytest.raises(ConfigError, match="the trace calls calculate, which the given tools lack"):
        replay(trace, [get_fact])
    cli("replay", trace, "--tools", "orrery.tools.builtin:nothing").one_line_error("cannot be loaded")
    cli("replay", trace, "--tools", "os:sep").one_line_error("is a str, not tools")
    cli("replay", trace, "--tools", "os:system").one_line_error("is a function that needs arguments")


@pytest.mark.parametrize(
    "content, message",
    [
        ("not json\n", "t.jsonl:1: not a JSON event"),
        ('{"a": 1}\n', "t.jsonl:1: not an orrery event"),
        ('{"kind": "final"}\n', "has no valid run_start event"),
        ('{"kind": "run_start", "task": "t", "options": [1]}\n', "has no valid run_start event"),
    ],
)
def test_a_garbage_trace_is_a_one_line_error(tmp_path: Path, cli, content: str, message: str) -> None:
    (tmp_path / "t.jsonl").write_text(content)
    cli("replay", tmp_path / "t.jsonl", "--tools", BUILTIN).one_line_error(message)
    with pytest.raises(DataError):
        replay(tmp_path / "t.jsonl", DEFAULT_TOOLS)
