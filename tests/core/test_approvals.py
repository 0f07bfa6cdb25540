"""Tool calls a person approves: the run pauses, `resume(approvals=...)` runs each approved call exactly once."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from orrery import Agent, AgentConfig, ScriptedModel, tool
from orrery import events as ev
from orrery.errors import ConfigError
from orrery.llm.scripted import turn
from orrery.messages import ToolCall
from orrery.sessions import open_store
from orrery.tools.core import CallLedger

HERE = Path(__file__).parent


def tools():
    ran: list[dict] = []

    @tool(requires_approval=True)
    def write_file(name: str, text: str) -> str:
        """Write a file.

        Args:
            name: the file name
            text: what to write
        """
        ran.append({"name": name, "text": text})
        return f"wrote {len(text)} chars to {name}"

    @tool(requires_approval=lambda ctx, args: args.get("amount", 0) > 100)
    def pay(amount: int) -> str:
        """Pay an amount.

        Args:
            amount: in euros
        """
        ran.append({"amount": amount})
        return f"paid {amount}"

    @tool
    def read(name: str) -> str:
        """Read a file.

        Args:
            name: the file name
        """
        ran.append({"read": name})
        return "contents"

    return [write_file, pay, read], ran


W1 = ToolCall("w1", "write_file", {"name": "a.txt", "text": "hello"})
W2 = ToolCall("w2", "write_file", {"name": "b.txt", "text": "bye"})


def agent(turns, **kw):
    ts, ran = tools()
    events = []
    return Agent(ScriptedModel(turns), ts, AgentConfig(), on_event=[events.append], **kw), ran, events


def test_a_call_that_needs_approval_pauses_the_run_with_the_call_in_the_snapshot():
    a, ran, events = agent([turn(W1)])
    r = a.run("write hello to a.txt")
    assert r.status == "paused" and not ran
    assert [(p.id, p.tool, p.arguments) for p in r.approvals] == [("w1", "write_file", W1.arguments)]
    assert "write_file" in r.output
    snap = a.snapshot()
    assert snap["pending"]["approvals"] == [{"id": "w1", "tool": "write_file", "arguments": W1.arguments}]
    assert json.loads(json.dumps(snap)) == snap  # saved with the session as JSON
    assert [e.kind for e in events][-3:] == ["step_end", "approval_required", "final"]


def test_approve_runs_the_call_and_the_run_goes_on():
    a, ran, events = agent([turn(W1), "Done: a.txt written."])
    a.run("write")
    r = a.resume({"w1": True})
    assert r.status == "completed" and r.output == "Done: a.txt written."
    assert ran == [{"name": "a.txt", "text": "hello"}]
    sent = a.model.requests[1]["messages"]
    assert sent[-2].tool_calls[0].id == "w1" and sent[-1].role == "tool" and sent[-1].content.startswith("wrote 5")
    decision = next(e for e in events if isinstance(e, ev.ApprovalDecision))
    assert decision.approved and decision.call_id == "w1"


def test_deny_becomes_an_observation_and_nothing_runs():
    a, ran, _ = agent([turn(W1), "I did not write it."])
    a.run("write")
    r = a.resume({"w1": False})
    assert r.status == "completed" and not ran
    observation = a.model.requests[1]["messages"][-1]
    assert observation.role == "tool" and observation.content.startswith("Denied:")


def test_edited_arguments_run_instead_of_the_models():
    a, ran, _ = agent([turn(W1), "ok"])
    a.run("write")
    a.resume({"w1": {"name": "safe.txt", "text": "hello"}})
    assert ran == [{"name": "safe.txt", "text": "hello"}]
    observation = a.model.requests[1]["messages"][-1].content
    assert (
        observation.startswith('(run with the arguments the user gave: {"name": "safe.txt"')
        and "wrote 5" in observation
    )


def test_two_approvals_in_one_step_beside_a_call_that_needs_none():
    read = ToolCall("r1", "read", {"name": "x"})
    small, big = ToolCall("p1", "pay", {"amount": 5}), ToolCall("p2", "pay", {"amount": 500})
    a, ran, _ = agent([turn(W1, read, small, big), "ok"])
    r = a.run("do it all")
    assert r.status == "paused" and [p.id for p in r.approvals] == ["w1", "p2"]
    assert ran == [{"read": "x"}, {"amount": 5}]  # the predicate let the small payment through
    with pytest.raises(ConfigError, match="missing: p2"):
        a.resume({"w1": True})
    r = a.resume({"w1": True, "p2": False})
    assert r.status == "completed"
    assert ran == [{"read": "x"}, {"amount": 5}, {"name": "a.txt", "text": "hello"}]
    sent = a.model.requests[1]["messages"]
    assert [m.tool_call_id for m in sent[-4:]] == ["w1", "r1", "p1", "p2"]  # every call answered, in order
    assert sent[-1].content.startswith("Denied:")


def test_resume_sent_twice_runs_the_call_once():
    a, ran, _ = agent([turn(W1), "ok"])
    a.run("write")
    paused = a.snapshot()
    a.resume({"w1": True})
    with pytest.raises(ConfigError, match="no tool call is waiting"):
        a.resume({"w1": True})  # the same agent: nothing is pending any more
    # A retried request restores the paused session into a new agent: the done-marker travels with the
    # snapshot of the first resume... and even from the paused snapshot, with a shared ledger, it is read.
    b, ran_b, _ = agent(["ok"], ledger=a.ledger)
    b.restore(paused)
    r = b.resume({"w1": True})
    assert r.status == "completed" and ran == [{"name": "a.txt", "text": "hello"}] and ran_b == []
    assert r.tool_calls[0].cached and r.tool_calls[0].content.startswith("wrote 5")


def test_the_done_marker_is_durable_in_a_session_store(tmp_path):
    store = open_store(tmp_path / "s.db")
    a, ran, _ = agent([turn(W1), "ok"], ledger=store)
    a.run("write")
    paused = a.snapshot()
    a.resume({"w1": True})
    b, ran_b, _ = agent(["ok"], ledger=CallLedger(open_store(tmp_path / "s.db")))  # another process's view
    b.restore(paused)
    assert b.resume({"w1": True}).status == "completed" and len(ran) == 1 and not ran_b


def test_a_call_id_a_model_chose_is_hashed_before_it_names_a_session(tmp_path):
    ledger = CallLedger(tmp_path / "s.db")
    ledger.put("p-../../x y", {"ok": True, "content": "c"})
    assert ledger.get("p-../../x y") == {"ok": True, "content": "c"}
    assert all("/" not in s.id for s in open_store(tmp_path / "s.db").list())


def test_a_toolset_run_outside_the_loop_refuses_a_call_that_needs_approval():
    from orrery.tools.core import RunContext, Toolset

    ts, ran = tools()
    [r] = Toolset(ts).run([W1], RunContext())
    assert not r.ok and "approval" in r.content and not ran


CRASH_SCRIPT = HERE / "approval_crash_script.py"


def _phase(tmp_path: Path, phase: str, kill: str = "", arch: str = "loop") -> subprocess.CompletedProcess:
    env = {**os.environ, "APPROVAL_DIR": str(tmp_path), "KILL_AT": kill, "ARCH": arch}
    return subprocess.run(
        [sys.executable, str(CRASH_SCRIPT), phase], env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.integration  # a real subprocess
@pytest.mark.parametrize("kill", ["before", "after"])
@pytest.mark.parametrize("arch", ["loop", "planner"])
def test_a_process_killed_around_the_approved_call_runs_it_once_after_restart(tmp_path, kill, arch):
    """`before`: killed after the decision, before the call ran; `after`: killed after it ran, before the
    session was saved. The restarted process resumes the saved (still paused) session with the same decision:
    the plain loop's snapshot, or the planner's own session (its TODO paused on the call)."""
    assert _phase(tmp_path, "run", arch=arch).returncode == 0
    crashed = _phase(tmp_path, "resume", kill, arch)
    assert crashed.returncode == 9, crashed.stderr
    side_effects = (tmp_path / "effects.txt").read_text().splitlines() if (tmp_path / "effects.txt").exists() else []
    assert len(side_effects) == (0 if kill == "before" else 1)
    done = _phase(tmp_path, "resume", arch=arch)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "effects.txt").read_text().splitlines() == ["hello"]
    again = _phase(tmp_path, "resume", arch=arch)  # a resume sent once more after it completed
    assert again.returncode == 3, again.stderr  # nothing pending: refused, and nothing ran
    assert (tmp_path / "effects.txt").read_text().splitlines() == ["hello"]


def test_the_react_format_pauses_and_resumes_too():
    step = {
        "thought": "write it",
        "action": "tool",
        "tool_name": "write_file",
        "tool_input": {"name": "a.txt", "text": "hi"},
    }
    ts, ran = tools()
    a = Agent(
        ScriptedModel([step, {"thought": "done", "action": "respond", "response": "Written."}]),
        ts,
        AgentConfig(format="react"),
    )
    r = a.run("write")
    assert r.status == "paused" and r.approvals[0].tool == "write_file" and not ran
    r = a.resume({r.approvals[0].id: True})
    assert r.output == "Written." and ran == [{"name": "a.txt", "text": "hi"}]
    assert a.model.requests[1]["messages"][-1].content == "Observation from write_file: wrote 2 chars to a.txt"


def test_a_new_question_instead_of_a_decision_drops_the_paused_turn():
    a, ran, _ = agent([turn(W1), "Fine, I will not."])
    a.run("write")
    r = a.query("Never mind.")
    assert r.status == "completed" and not ran and not a.pending_approvals
    assert [m.role for m in a.model.requests[1]["messages"]] == ["system", "user", "user"]
