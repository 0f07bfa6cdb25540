"""Conversations saved by id, so a run can pause and resume across requests, processes and restarts.

A `Session` holds an agent's snapshot (messages, JSON-able state, a plan, a pending question) and a version.
`save` is optimistic: it succeeds only if the stored version is still the one the writer loaded, so two
writers on one session get a `SessionConflict` instead of silently losing one's update. SQLite by default
(one file under the user's data dir); `open_store("postgresql://...")` for several server processes.
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from orrery.errors import ConfigError, OrreryError


class SessionConflict(OrreryError):
    """Another writer saved the session since it was loaded."""


@dataclass
class Session:
    id: str
    agent: str = ""
    data: dict[str, Any] = field(default_factory=dict)
    version: int = 0  # 0: never saved
    updated_at: str = ""


class SessionStore(Protocol):
    def load(self, session_id: str) -> Session | None: ...
    def save(self, session: Session) -> Session: ...
    def list(self, agent: str | None = None) -> list[Session]: ...


def data_dir() -> Path:
    """Where orrery keeps what a user makes (sessions): $ORRERY_DATA_DIR, else $XDG_DATA_HOME/orrery."""
    if env := os.environ.get("ORRERY_DATA_DIR"):
        return Path(env)
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "orrery"


def open_store(target: str | Path | SessionStore | None = None) -> SessionStore:
    """A store from a path, a `postgresql://` URL, an existing store, or None (the default SQLite file)."""
    if target is None:
        target = data_dir() / "sessions.db"
    if not isinstance(target, str | Path):
        return target
    if str(target).startswith(("postgresql://", "postgres://")):
        from orrery.sessions_pg import PostgresSessions  # psycopg is an optional dependency (extra `serve`)

        return PostgresSessions(str(target))
    return SqliteSessions(target)


def _now() -> str:
    return datetime.now(UTC).isoformat()


class SqliteSessions:
    """One row per session; each save is one transaction guarded by the version it expects."""

    SCHEMA = """CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, agent TEXT NOT NULL, data TEXT NOT NULL,
                version INTEGER NOT NULL, updated_at TEXT NOT NULL)"""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.exists() and not self.path.is_file():
            raise ConfigError(f"{self.path} is not a file; give a path for the session database")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self._db() as db:
                db.execute(self.SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"{self.path} is not an orrery session database ({exc}); give another path") from exc

    def _db(self) -> closing[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        return closing(db)

    def load(self, session_id: str) -> Session | None:
        with self._db() as db:
            row = db.execute("SELECT id, agent, data, version, updated_at FROM sessions WHERE id = ?",
                             (session_id,)).fetchone()
        return None if row is None else Session(row[0], row[1], json.loads(row[2]), row[3], row[4])

    def save(self, session: Session) -> Session:
        saved = replace(session, version=session.version + 1, updated_at=_now())
        data = json.dumps(saved.data, default=str)
        with self._db() as db:
            db.execute("BEGIN IMMEDIATE")
            if session.version == 0:
                cur = db.execute("INSERT OR IGNORE INTO sessions VALUES (?, ?, ?, ?, ?)",
                                 (saved.id, saved.agent, data, saved.version, saved.updated_at))
            else:
                cur = db.execute("UPDATE sessions SET agent = ?, data = ?, version = ?, updated_at = ? "
                                 "WHERE id = ? AND version = ?",
                                 (saved.agent, data, saved.version, saved.updated_at, saved.id, session.version))
            if cur.rowcount != 1:
                db.execute("ROLLBACK")
                raise conflict(session, self.load(session.id))
            db.execute("COMMIT")
        return saved


    def list(self, agent: str | None = None) -> list[Session]:
        query = "SELECT id, agent, data, version, updated_at FROM sessions"
        with self._db() as db:
            rows = db.execute(query + (" WHERE agent = ?" if agent else "") + " ORDER BY updated_at DESC",
                              (agent,) if agent else ()).fetchall()
        return [Session(r[0], r[1], json.loads(r[2]), r[3], r[4]) for r in rows]


def conflict(mine: Session, stored: Session | None) -> SessionConflict:
    now = stored.version if stored else "none"
    return SessionConflict(f"session {mine.id!r} was saved by another writer (stored version {now}, this writer "
                           f"loaded {mine.version}); reload it and apply the change again")
