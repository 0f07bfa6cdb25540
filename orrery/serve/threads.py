"""Threads: one conversation with one agent, persisted with optimistic versioning.

The interface matches `orrery.sessions` (`open_store`, `load`, `save` raising `SessionConflict` when the
version moved, `list`), so the lead can swap this for the core store. SQLite by default; `postgresql://`
URLs keep threads in PostgreSQL so several server processes can serve one thread in turn.
"""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import closing
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from orrery.errors import ConfigError, OrreryError


class SessionConflict(OrreryError):
    """Another run saved the thread since it was loaded: reload the thread and send the message again."""


@dataclass
class Session:
    id: str
    agent: str
    title: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)  # AG-UI messages: user and assistant text
    state: dict[str, Any] = field(default_factory=dict)  # the last AG-UI state snapshot (plan, board)
    pending: dict[str, Any] | None = None  # the open clarification: {"id", "question", "task"}
    runs: list[dict[str, Any]] = field(default_factory=list)  # {"run_id", "status", "events": [AG-UI dicts]}
    version: int = 0
    updated: float = 0.0

    def data(self) -> str:
        d = asdict(self)
        for k in ("id", "agent", "version", "updated"):
            d.pop(k)
        return json.dumps(d)

    @classmethod
    def from_row(cls, id: str, agent: str, version: int, updated: float, data: str) -> Session:
        return cls(id=id, agent=agent, version=version, updated=updated, **json.loads(data))


class SessionStore(Protocol):
    def load(self, id: str) -> Session | None: ...
    def save(self, session: Session) -> Session: ...
    def list(self, agent: str | None = None) -> list[Session]: ...


SCHEMA = ("CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, agent TEXT NOT NULL, version INTEGER NOT NULL,"
          " updated DOUBLE PRECISION NOT NULL, data TEXT NOT NULL)")
COLUMNS = "id, agent, version, updated, data"


class _SQLStore:
    """The SQL both engines share; subclasses give a connection and the parameter marker."""

    mark = "?"

    def _run(self, sql: str, params: tuple = ()) -> tuple[list[tuple], int]:
        raise NotImplementedError

    def _sql(self, sql: str) -> str:
        return sql.replace("?", self.mark)

    def load(self, id: str) -> Session | None:
        rows, _ = self._run(self._sql(f"SELECT {COLUMNS} FROM threads WHERE id = ?"), (id,))
        return Session.from_row(*rows[0]) if rows else None

    def save(self, session: Session) -> Session:
        saved = replace(session, version=session.version + 1, updated=time.time())
        if session.version == 0:
            sql = (f"INSERT INTO threads ({COLUMNS}) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING")
            params: tuple = (saved.id, saved.agent, saved.version, saved.updated, saved.data())
        else:
            sql = "UPDATE threads SET version = ?, updated = ?, data = ? WHERE id = ? AND version = ?"
            params = (saved.version, saved.updated, saved.data(), saved.id, session.version)
        _, count = self._run(self._sql(sql), params)
        if count != 1:
            raise SessionConflict(f"thread {session.id!r} was changed by another run; reload it and send again")
        return saved

    def list(self, agent: str | None = None) -> list[Session]:
        where = " WHERE agent = ?" if agent else ""
        rows, _ = self._run(self._sql(f"SELECT {COLUMNS} FROM threads{where} ORDER BY updated DESC"),
                            (agent,) if agent else ())
        return [Session.from_row(*r) for r in rows]


class SQLiteStore(_SQLStore):
    def __init__(self, path: str | Path):
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(self.path)) as db, db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(SCHEMA)

    def _run(self, sql: str, params: tuple = ()) -> tuple[list[tuple], int]:
        # A connection per call: the server calls from many threads, and opening SQLite costs microseconds.
        with closing(sqlite3.connect(self.path, timeout=30)) as db, db:
            cur = db.execute(sql, params)
            return cur.fetchall(), cur.rowcount


class PostgresStore(_SQLStore):
    mark = "%s"

    def __init__(self, url: str):
        import psycopg

        self.url, self._psycopg = url, psycopg
        try:
            self._run(SCHEMA)
        except psycopg.OperationalError as exc:
            raise ConfigError(f"cannot reach the thread database {_redact(url)}: {str(exc).strip()}; "
                              "check the URL and that PostgreSQL is running") from exc

    def _run(self, sql: str, params: tuple = ()) -> tuple[list[tuple], int]:
        with self._psycopg.connect(self.url, autocommit=True) as db, db.cursor() as cur:
            cur.execute(sql, params)
            return (cur.fetchall() if cur.description else []), cur.rowcount


def open_store(url_or_path: str | Path) -> SessionStore:
    """`postgresql://...` -> PostgresStore; anything else is a SQLite file path."""
    text = str(url_or_path)
    if text.startswith(("postgresql://", "postgres://")):
        return PostgresStore(text)
    return SQLiteStore(text)


def _redact(url: str) -> str:
    head, sep, tail = url.rpartition("@")
    return f"{head.split('://')[0]}://***@{tail}" if sep else url
