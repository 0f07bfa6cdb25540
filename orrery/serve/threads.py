"""Threads: one conversation with one agent, kept as an `orrery.sessions` session.

A thread's session holds, under `data`: its title, the AG-UI messages (user and assistant text), the last
state snapshot, the pending clarification and each run's AG-UI events (the web app replays them to reopen
a thread). The session store gives the optimistic versioning and the SQLite / PostgreSQL choice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orrery.sessions import Session, SessionConflict, SessionStore, open_store

__all__ = ["SessionConflict", "Thread", "ThreadStore"]
KIND = "thread"  # sessions of other kinds (a PlanAgent's own) share the store and are not listed


@dataclass
class Thread:
    id: str
    agent: str
    title: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)  # AG-UI messages: user and assistant text
    state: dict[str, Any] = field(default_factory=dict)  # the last AG-UI state (plan, board)
    pending: dict[str, Any] | None = None  # the open clarification: {"id", "question", "task"}
    runs: list[dict[str, Any]] = field(default_factory=list)  # {"run_id", "status", "events": [AG-UI dicts]}
    version: int = 0
    updated: str = ""

    def session(self) -> Session:
        data = {"kind": KIND, "title": self.title, "messages": self.messages, "state": self.state,
                "pending": self.pending, "runs": self.runs}
        return Session(self.id, self.agent, data, self.version, self.updated)

    @classmethod
    def of(cls, s: Session) -> Thread:
        d = s.data
        return cls(s.id, s.agent, d.get("title", ""), d.get("messages", []), d.get("state", {}), d.get("pending"),
                   d.get("runs", []), s.version, s.updated_at)


class ThreadStore:
    def __init__(self, target: str | Path | SessionStore | None = None):
        self.sessions: SessionStore = open_store(target)

    def load(self, thread_id: str) -> Thread | None:
        s = self.sessions.load(thread_id)
        return Thread.of(s) if s is not None and s.data.get("kind") == KIND else None

    def save(self, thread: Thread) -> Thread:
        """Raises SessionConflict when another run saved the thread since it was loaded."""
        return Thread.of(self.sessions.save(thread.session()))

    def list(self, agent: str | None = None) -> list[Thread]:
        return [Thread.of(s) for s in self.sessions.list(agent) if s.data.get("kind") == KIND]
