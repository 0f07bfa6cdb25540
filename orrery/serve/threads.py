"""Threads: one conversation with one agent, kept as an `orrery.sessions` session.

A thread's session holds, under `data`: its title, the AG-UI messages (user and assistant text), the last
state snapshot, the pending clarification or approvals (with the paused agent's snapshot, never sent to
clients) and each run's id and status. Each run's AG-UI events (the web app
replays them to reopen a thread) are a session of their own, written once when the run ends, so a save costs the
new run, not the thread's whole history. The session store gives the optimistic versioning and the SQLite /
PostgreSQL choice; the store's leases let one run at a time work on a thread, across server processes.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orrery.sessions import Session, SessionConflict, SessionStore, open_store

__all__ = ["SessionConflict", "Thread", "ThreadStore"]
KIND = "thread"  # sessions of other kinds (a PlanAgent's own, a run's events) share the store and are not listed
RUN_KIND = "thread_run"


def _run_id(thread_id: str, run_id: str) -> str:
    return f"{thread_id}/runs/{run_id}"


@dataclass
class Thread:
    id: str
    agent: str
    title: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)  # AG-UI messages: user and assistant text
    state: dict[str, Any] = field(default_factory=dict)  # the last AG-UI state (plan, board)
    pending: dict[str, Any] | None = None  # the open clarification {"id", "question", "task"}, or approvals
    # {"kind": "approval", "task", "approvals": [{"interrupt", "id", "tool", "arguments"}]}
    runs: list[dict[str, Any]] = field(default_factory=list)  # {"run_id", "status", "events": [AG-UI dicts]}
    version: int = 0
    updated: str = ""
    stored: set[str] = field(default_factory=set, repr=False)  # ids of runs whose events are already stored apart
    paused: dict[str, Any] | None = field(default=None, repr=False)  # the agent's snapshot while approvals wait

    def session(self) -> Session:
        """The thread without its runs' events (stored apart: `ThreadStore.save`)."""
        runs = [{k: v for k, v in r.items() if k != "events"} for r in self.runs]
        data = {
            "kind": KIND,
            "title": self.title,
            "messages": self.messages,
            "state": self.state,
            "pending": self.pending,
            "runs": runs,
            "paused": self.paused,
        }
        return Session(self.id, self.agent, data, self.version, self.updated)

    @classmethod
    def of(cls, s: Session) -> Thread:
        d = s.data
        runs = d.get("runs", [])
        return cls(
            s.id,
            s.agent,
            d.get("title", ""),
            d.get("messages", []),
            d.get("state", {}),
            d.get("pending"),
            runs,
            s.version,
            s.updated_at,
            {r["run_id"] for r in runs if "events" not in r},
            d.get("paused"),
        )


class ThreadStore:
    def __init__(self, target: str | Path | SessionStore | None = None):
        self.sessions: SessionStore = open_store(target)

    def load(self, thread_id: str) -> Thread | None:
        s = self.sessions.load(thread_id)
        return self._with_events(Thread.of(s)) if s is not None and s.data.get("kind") == KIND else None

    def save(self, thread: Thread) -> Thread:
        """Raises SessionConflict when another run saved the thread since it was loaded. A run's events are
        written once: a run already stored (a retry after a conflict) is left as it is."""
        new = [r for r in thread.runs if r["run_id"] not in thread.stored]
        for run in new:
            record = Session(_run_id(thread.id, run["run_id"]), thread.agent, {"kind": RUN_KIND, "run": run})
            with contextlib.suppress(SessionConflict):  # stored already (by a save that then conflicted)
                self.sessions.save(record)
        saved = Thread.of(self.sessions.save(thread.session()))
        saved.runs = thread.runs
        return saved

    def acquire(self, thread_id: str, owner: str, ttl: float) -> bool:
        """The thread's lease (one run at a time, across processes sharing the store), or False while another
        owner holds it; the holder calls again to extend it."""
        return self.sessions.acquire(f"thread:{thread_id}", owner, ttl)

    def release(self, thread_id: str, owner: str) -> None:
        self.sessions.release(f"thread:{thread_id}", owner)

    def list(self, agent: str | None = None) -> list[Thread]:
        """The threads without their runs' events (the store reads only sessions of the thread kind)."""
        return [Thread.of(s) for s in self.sessions.list(agent, kind=KIND)]

    def _with_events(self, thread: Thread) -> Thread:
        for run in thread.runs:
            if "events" not in run:  # threads saved before runs were stored apart keep theirs inline
                stored = self.sessions.load(_run_id(thread.id, run["run_id"]))
                run["events"] = stored.data["run"].get("events", []) if stored is not None else []
        return thread
