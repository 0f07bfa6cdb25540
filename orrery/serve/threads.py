"""Threads: one conversation with one agent, kept as an `orrery.sessions` session.

A thread's session holds, under `data`: its title, the AG-UI messages (user and assistant text), the last
state snapshot, the pending clarification and each run's AG-UI events (the web app replays them to reopen
a thread). The session store gives the optimistic versioning and the SQLite / PostgreSQL choice.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orrery.sessions import Session, SessionConflict, SessionStore, SqliteSessions, open_store

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


class _SqliteThreads(SqliteSessions):
    """SqliteSessions with one connection per thread instead of one per call: a load takes 6 µs instead of
    3.3 ms, which was most of a run's time to first event (bench/serve.py). Worth folding into SqliteSessions."""

    def __init__(self, path: str | Path):
        self._local = threading.local()
        super().__init__(path)

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[list[tuple[Any, ...]], int]:
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = sqlite3.connect(self.path, timeout=30)
        with db:  # one transaction per statement, committed or rolled back, as with a fresh connection
            cur = db.execute(sql, params)
            return cur.fetchall(), cur.rowcount


class ThreadStore:
    def __init__(self, target: str | Path | SessionStore | None = None):
        local = isinstance(target, Path) or (isinstance(target, str) and "://" not in target)
        self.sessions: SessionStore = _SqliteThreads(target) if local else open_store(target)

    def load(self, thread_id: str) -> Thread | None:
        s = self.sessions.load(thread_id)
        return Thread.of(s) if s is not None and s.data.get("kind") == KIND else None

    def save(self, thread: Thread) -> Thread:
        """Raises SessionConflict when another run saved the thread since it was loaded."""
        return Thread.of(self.sessions.save(thread.session()))

    def list(self, agent: str | None = None) -> list[Thread]:
        return [Thread.of(s) for s in self.sessions.list(agent) if s.data.get("kind") == KIND]
