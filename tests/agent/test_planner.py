"""PlanAgent (seed 003): TODO plans run step by step, clarifications, replanning, SQLite resume."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from orrery.agent.planner import PlanAgent
from orrery.events import Event, Planned
from orrery.llm.scripted import ScriptedModel
from orrery.sessions import open_store
from orrery.tools.core import NeedsClarification, RunContext, Toolset, tool


def plan(*todos: tuple[str, str, dict[str, Any]], request: str = "Shipments to Miami port last week") -> dict:
    return {
        "request": request,
        "todos": [{"key": k, "description": f"do {k}", "tool": t, "arguments": a} for k, t, a in todos],
    }


MIAMI = plan(
    ("dates", "resolve_dates", {"text": "last week"}),
    ("port", "resolve_port", {"name": "Miami"}),
    ("fetch", "fetch_shipments", {}),
)


class World:
    """The BI tools, with a log of what ran and what each call saw."""

    def __init__(self) -> None:
        self.log: list[tuple[str, Any]] = []
        self.broken = False

        @tool
        def resolve_dates(ctx: RunContext, text: str) -> str:
            """Turn a relative date into a range."""
            self.log.append(("dates", text))
            return "2025-01-08..2025-01-15"

        @tool
        def resolve_port(ctx: RunContext, name: str) -> str:
            """Resolve a port name; asks when it is ambiguous."""
            answer = ctx.options["clarification"]
            self.log.append(("port", answer))
            if name == "Miami" and answer is None:
                raise NeedsClarification("Which Miami: Port of Miami or Miami Container Terminal?")
            return f"PORT:{answer or name}"

        @tool
        def fetch_shipments(ctx: RunContext) -> str:
            """Run the shipment query with the resolved filters."""
            if self.broken:
                raise RuntimeError("elasticsearch is down")
            self.log.append(("fetch", dict(ctx.options["results"])))
            return "142 shipments"

        self.tools = Toolset([resolve_dates, resolve_port, fetch_shipments])


@pytest.fixture
def world() -> World:
    return World()


def agent(world: World, db: Path, turns: list, session: str = "s1", events: list[Event] | None = None) -> PlanAgent:
    return PlanAgent(ScriptedModel(turns), world.tools, db, session, on_event=[] if events is None else [events.append])


def test_plan_is_executed_in_order_with_one_memory_entry_per_todo(world, tmp_path):
    events: list[Event] = []
    a = agent(
        world,
        tmp_path / "s.db",
        [
            plan(
                ("dates", "resolve_dates", {"text": "last week"}),
                ("port", "resolve_port", {"name": "Doral"}),
                ("fetch", "fetch_shipments", {}),
            ),
            "Found 142 shipments.",
        ],
        events=events,
    )
    r = a.run("show me shipments to Doral last week")

    assert r.status == "completed" and r.output == "Found 142 shipments." and r.intent == "new_request"
    assert [e[0] for e in world.log] == ["dates", "port", "fetch"]
    assert world.log[2][1] == {"dates": "2025-01-08..2025-01-15", "port": "PORT:Doral"}  # earlier results reach tools
    assert [(m.todo_key, m.status) for m in a.state.memory] == [("dates", "done"), ("port", "done"), ("fetch", "done")]
    assert [t.status for t in r.todos] == ["done", "done", "done"]
    planning, summary = a.model.requests
    assert planning["schema"]["properties"]["todos"]["items"]["properties"]["tool"]["enum"] == list(world.tools.tools)
    assert summary["tools"] == [] and "142 shipments" in summary["messages"][-1].content
    assert any(isinstance(e, Planned) for e in events)


def test_a_clarification_pauses_the_turn(world, tmp_path):
    a = agent(world, tmp_path / "s.db", [MIAMI])
    r = a.run("shipments to Miami last week")

    assert r.status == "paused" and r.question == r.output and "Which Miami" in r.output
    assert [t.status for t in r.todos] == ["done", "paused", "pending"]
    assert a.state.pointer == 1 and a.state.question == r.question
    assert [e[0] for e in world.log] == ["dates", "port"]  # fetch did not run
    assert a.state.memory[-1].status == "clarification"


def test_an_exact_answer_reruns_the_same_todo_with_the_answer(world, tmp_path):
    a = agent(world, tmp_path / "s.db", [MIAMI, {"intent": "exact_answer"}, "Found 142 shipments."])
    a.run("shipments to Miami last week")
    r = a.run("Port of Miami")

    assert r.status == "completed" and r.intent == "exact_answer"
    assert world.log == [
        ("dates", "last week"),
        ("port", None),
        ("port", "Port of Miami"),
        ("fetch", {"dates": "2025-01-08..2025-01-15", "port": "PORT:Port of Miami"}),
    ]
    classify = a.model.requests[1]
    assert "exact_answer" in classify["schema"]["properties"]["intent"]["enum"]
    assert "Which Miami" in classify["messages"][-1].content  # the pending question is shown
    assert [(m.todo_key, m.status) for m in a.state.memory] == [
        ("dates", "done"),
        ("port", "clarification"),
        ("port", "done"),
        ("fetch", "done"),
    ]
    assert a.state.question is None


def test_a_modification_replans(world, tmp_path):
    new_plan = plan(
        ("port", "resolve_port", {"name": "Port of Miami"}),
        ("fetch", "fetch_shipments", {}),
        request="Shipments to Port of Miami last week, with arrival dates",
    )
    a = agent(world, tmp_path / "s.db", [MIAMI, {"intent": "modification"}, new_plan, "Done."])
    a.run("shipments to Miami last week")
    r = a.run("Port of Miami, and include arrival dates")

    assert r.status == "completed" and r.intent == "modification"
    assert [t.key for t in r.todos] == ["port", "fetch"]
    assert a.state.request == new_plan["request"]
    assert world.log[2:] == [("port", None), ("fetch", {"port": "PORT:Port of Miami"})]
    assert "Active plan for" in a.model.requests[2]["messages"][-1].content  # the planner saw the old plan
    assert [m.status for m in a.state.memory][:2] == ["done", "clarification"]  # memory survives the replan


def test_abandon_drops_the_plan(world, tmp_path):
    a = agent(
        world,
        tmp_path / "s.db",
        [MIAMI, {"intent": "abandon"}, plan(("dates", "resolve_dates", {"text": "today"})), "Today."],
    )
    a.run("shipments to Miami last week")
    r = a.run("forget it")

    assert r.status == "cancelled" and r.todos == [] and a.state.question is None
    assert len(world.log) == 2
    r = a.run("what is today's date range?")  # no active plan: a new request, no classification call
    assert r.status == "completed" and r.intent == "new_request"
    assert "todos" in a.model.requests[2]["schema"]["properties"]


def test_a_new_agent_resumes_from_sqlite(world, tmp_path):
    db = tmp_path / "s.db"
    first = agent(world, db, [MIAMI])
    assert first.run("shipments to Miami last week").status == "paused"
    del first

    second = agent(world, db, [{"intent": "exact_answer"}, "Found 142 shipments."])
    assert second.state.pointer == 1 and second.state.question is not None
    r = second.run("Port of Miami")

    assert r.status == "completed"
    assert [e[0] for e in world.log] == ["dates", "port", "port", "fetch"]  # dates did not rerun
    assert world.log[2] == ("port", "Port of Miami")
    assert len(second.state.memory) == 4 and second.state.turn == 2
    assert open_store(db).load("s1").data["plan"] == asdict(second.state)
    assert agent(world, db, [], session="other").state.todos == []  # sessions are separate rows


def test_a_failing_tool_fails_the_todo_and_keeps_state_consistent(world, tmp_path):
    db = tmp_path / "s.db"
    world.broken = True
    a = agent(
        world,
        db,
        [
            plan(("dates", "resolve_dates", {"text": "last week"}), ("fetch", "fetch_shipments", {})),
            {"intent": "continue"},
            "Found 142 shipments.",
        ],
    )
    r = a.run("shipments last week")

    assert r.status == "error"
    assert "'fetch'" in r.output and "elasticsearch is down" in r.output
    assert [t.status for t in r.todos] == ["done", "failed"] and a.state.pointer == 1
    assert a.state.memory[-1].status == "failed"
    assert open_store(db).load("s1").data["plan"] == asdict(a.state)

    world.broken = False
    r = a.run("try again")
    assert r.status == "completed" and r.intent == "continue"
    assert [e[0] for e in world.log] == ["dates", "fetch"]
    assert "exact_answer" not in a.model.requests[1]["schema"]["properties"]["intent"]["enum"]  # no question pending


def test_a_bad_model_reply_is_an_error_and_the_saved_state_is_kept(world, tmp_path):
    db = tmp_path / "s.db"
    a = agent(world, db, [MIAMI, {"intent": "teleport"}])
    a.run("shipments to Miami last week")
    before = asdict(a.state)
    r = a.run("???")

    assert r.status == "error"
    assert asdict(a.state) == before == open_store(db).load("s1").data["plan"]
