"""PlanAgent's public hooks (a toy planner composed from them) and approvals of a TODO's tool call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orrery.agent.planner import MemoryEntry, Plan, PlanAgent, PlanTurn, Todo
from orrery.errors import ConfigError
from orrery.events import ApprovalDecision, ApprovalRequired, Event, RunStart, Token
from orrery.llm.scripted import ScriptedModel
from orrery.sessions import open_store
from orrery.tools.core import RunContext, ToolResult, tool


class Ledger:
    """A toy app: its own memory kept in the planner's session (a `SessionPart`)."""

    key = "ledger"

    def __init__(self) -> None:
        self.lines: list[str] = []

    def dump(self) -> dict[str, Any]:
        return {"lines": self.lines}

    def load(self, data: dict[str, Any]) -> None:
        self.lines = list(data.get("lines", []))


def toy(
    db: Path,
    session: str = "s",
    model: ScriptedModel | None = None,
    events: list[Event] | None = None,
    approve: bool = False,
) -> tuple[PlanAgent, list[str], Ledger]:
    ran: list[str] = []

    @tool
    def count(word: str) -> int:
        """Count a word's letters."""
        ran.append(f"count {word}")
        return len(word)

    @tool(requires_approval=approve)
    def send(ctx: RunContext, to: str) -> str:
        """Send the counts to someone."""
        if to == "nobody":
            raise ValueError("cannot answer: nobody to send to")
        ran.append(f"send {to}")
        return f"sent {ctx.options['results']} to {to}"

    ledger = Ledger()

    def plan(turn: PlanTurn):  # rules, not a model: one count per word, then a send
        words = turn.user_input.split()
        if not words:
            return Plan("nothing", declined="There is nothing to count.")
        yield Token("planning ")
        return Plan(
            f"count {len(words)} words",
            [Todo(f"w{i}", f"count {w}", "count", {"word": w}) for i, w in enumerate(words)]
            + [Todo("send", "send them", "send", {"to": "ana" if words[0] != "void" else "nobody"})],
        )

    def summarize(turn: PlanTurn):
        text = ", ".join(f"{t.key}={t.result}" for t in turn.state.todos)
        yield Token(text)
        return text

    def remember(turn: PlanTurn, todo: Todo, entry: MemoryEntry) -> None:
        ledger.lines.append(f"{entry.status}:{todo.key}")

    def decline(turn: PlanTurn, todo: Todo, result: ToolResult) -> str | None:
        return f"Declined: {result.error}" if "cannot answer" in (result.error or "") else None

    agent = PlanAgent(
        model or ScriptedModel([]),
        [count, send],
        db,
        session,
        plan=plan,
        summarize=summarize,
        remember=remember,
        decline=decline,
        keep=[ledger],
        name="toy",
        on_event=[] if events is None else [events.append],
    )
    return agent, ran, ledger


def test_a_toy_planner_composed_from_hooks_makes_no_model_call(tmp_path):
    events: list[Event] = []
    a, ran, ledger = toy(tmp_path / "s.db", events=events)
    r = a.run("sun moon")
    assert r.status == "completed" and r.output.startswith("w0=3, w1=4, send=sent {'w0': '3', 'w1': '4'} to ana")
    assert ran == ["count sun", "count moon", "send ana"] and a.model.requests == []
    assert ledger.lines == ["done:w0", "done:w1", "done:send"]
    assert next(e for e in events if isinstance(e, RunStart)).agent == "toy"
    assert "".join(e.text for e in events if isinstance(e, Token)).startswith("planning w0=3")
    # the app's part is saved in the same session as the plan, and a new agent loads it
    assert open_store(tmp_path / "s.db").load("s").data["ledger"] == {"lines": ledger.lines}
    _, _, again = toy(tmp_path / "s.db")
    assert again.lines == ledger.lines


def test_a_plan_hook_that_declines_ends_the_turn_declined(tmp_path):
    a, ran, _ = toy(tmp_path / "s.db")
    r = a.run("")
    assert r.status == "declined" and r.output == "There is nothing to count." and not ran and r.todos == []


def test_a_decline_hook_turns_a_failed_todo_into_a_declined_turn_and_drops_the_plan(tmp_path):
    a, ran, ledger = toy(tmp_path / "s.db")
    r = a.run("void")
    assert r.status == "declined" and r.output.endswith("cannot answer: nobody to send to")
    assert ran == ["count void"] and not a.state.todos and ledger.lines == ["done:w0", "failed:send"]


# -- approvals --------------------------------------------------------------------------------------------------
def test_a_todo_whose_tool_needs_approval_pauses_the_turn_with_the_call_in_the_session(tmp_path):
    events: list[Event] = []
    a, ran, _ = toy(tmp_path / "s.db", events=events, approve=True)
    r = a.run("sun")
    assert r.status == "paused" and ran == ["count sun"]
    [pending] = r.approvals
    assert (pending.tool, pending.arguments) == ("send", {"to": "ana"}) and a.pending_approvals == r.approvals
    assert any(isinstance(e, ApprovalRequired) for e in events)
    saved = open_store(tmp_path / "s.db").load("s").data["plan"]
    assert saved["approval"]["call"] == {"id": pending.id, "tool": "send", "arguments": {"to": "ana"}}
    assert [t["status"] for t in saved["todos"]] == ["done", "paused"]


def test_approve_runs_the_call_and_the_plan_goes_on(tmp_path):
    events: list[Event] = []
    a, ran, _ = toy(tmp_path / "s.db", events=events, approve=True)
    r = a.run("sun")
    r = a.resume({r.approvals[0].id: True})
    assert r.status == "completed" and ran == ["count sun", "send ana"] and r.output.endswith("to ana")
    assert [e.approved for e in events if isinstance(e, ApprovalDecision)] == [True]
    assert a.state.approval is None and not a.pending_approvals


def test_deny_is_the_todos_observation_and_the_turn_is_summarized(tmp_path):
    a, ran, ledger = toy(tmp_path / "s.db", approve=True)
    r = a.run("sun")
    r = a.resume({r.approvals[0].id: False})
    assert r.status == "completed" and ran == ["count sun"]
    assert [t.status for t in r.todos] == ["done", "denied"] and "denied the call to 'send'" in r.output
    assert ledger.lines[-1] == "denied:send" and not a.state.active


def test_a_new_planner_restored_from_a_snapshot_resumes_the_paused_turn(tmp_path):
    a, ran, _ = toy(tmp_path / "s.db", approve=True)
    r = a.run("sun")
    b, ran_b, _ = toy(tmp_path / "s.db", approve=True)  # e.g. the server's next request
    b.restore(a.snapshot())
    assert b.resume({r.approvals[0].id: True}).status == "completed" and ran_b == ["send ana"]
    with pytest.raises(ConfigError, match="open the planner on that session"):
        toy(tmp_path / "s.db", session="other")[0].restore(a.snapshot())


def test_edited_arguments_run_instead_of_the_plans(tmp_path):
    a, ran, _ = toy(tmp_path / "s.db", approve=True)
    r = a.run("sun")
    r = a.resume({r.approvals[0].id: {"to": "bo"}})
    assert r.status == "completed" and ran == ["count sun", "send bo"]


def test_a_resume_must_decide_the_pending_call(tmp_path):
    a, _, _ = toy(tmp_path / "s.db", approve=True)
    with pytest.raises(ConfigError, match="no tool call is waiting"):
        a.resume({"x": True})
    a.run("sun")
    with pytest.raises(ConfigError, match="exactly the pending call"):
        a.resume({"x": True})


def test_a_resume_sent_twice_runs_the_call_once(tmp_path):
    db = tmp_path / "s.db"
    a, ran, _ = toy(db, approve=True)
    call_id = a.run("sun").approvals[0].id
    stale, ran_stale, _ = toy(db, approve=True)  # a second request loaded the paused session meanwhile
    assert a.resume({call_id: True}).status == "completed"
    with pytest.raises(ConfigError, match="no tool call is waiting"):
        a.resume({call_id: True})  # nothing is pending any more
    r = stale.resume({call_id: True})  # the done-marker is read: the call does not run again
    assert ran.count("send ana") == 1 and "send ana" not in ran_stale
    assert r.status == "error" and "version" in r.output  # its save is refused: the other resume won


def test_every_todo_tool_reads_the_agents_deps(tmp_path):
    """`PlanAgent(deps=...)` is each TODO's `ctx.deps`: two agents share one module-level tool, each sees its own."""

    @tool
    def greet(ctx: RunContext[dict[str, str]]) -> str:
        """Greet with the app's name."""
        return f"hello from {ctx.deps['name']}"

    def plan(_turn: PlanTurn):
        yield Token("")
        return Plan("greet", [Todo("g", "greet", "greet")])

    def said(_turn: PlanTurn):
        yield Token("")
        return "ok"

    agents = [
        PlanAgent(ScriptedModel([]), [greet], tmp_path / f"{n}.db", "s", plan=plan, summarize=said, deps={"name": n})
        for n in ("one", "two")
    ]
    for a, n in zip(agents, ("one", "two"), strict=True):
        a.run("hi")
        assert a.state.todos[0].result == f"hello from {n}"
