"""Conversations saved by id, so a run can pause and resume across requests, processes and restarts.

A `Session` holds an agent's snapshot (messages, JSON-able state, a plan, a pending question) and a version.
`save` is optimistic: it succeeds only if the stored version is still the one the writer loaded, so two
writers on one session get a `SessionConflict` instead of silently losing one's update. SQLite by default
(one file under the user's data dir); `open_store("postgresql://...")` for several server processes.

A session's `data["kind"]` (a thread, a run's events, none for an agent's own) is also kept in an indexed `kind`
column, so `list(kind=...)` reads only the sessions of that kind. A database made before that column existed is
migrated when it is opened: the column is added and filled from the stored data in one transaction, under a lock
that makes a second process opening it at the same time wait and then find it done.

`acquire(key, owner, ttl)` / `release(key, owner)` are leases: a key one owner holds across processes until it
releases it or the lease expires (the server holds one per thread while a run works on it).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
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
    def list(self, agent: str | None = None, kind: str | None = None) -> list[Session]: ...
    def acquire(self, key: str, owner: str, ttl: float) -> bool: ...
    def release(self, key: str, owner: str) -> None: ...


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
        return PostgresSessions(str(target))
    return SqliteSessions(target)


SCHEMA = (
    "CREATE TABLE IF NOT EXISTS orrery_sessions (id TEXT PRIMARY KEY, agent TEXT NOT NULL, data TEXT NOT NULL, "
    "version INTEGER NOT NULL, updated_at TEXT NOT NULL, kind TEXT)"
)
KIND_INDEX = "CREATE INDEX IF NOT EXISTS orrery_sessions_kind ON orrery_sessions (kind, agent, updated_at)"
COLUMNS = "id, agent, data, version, updated_at"
# Leases: a lock one writer holds on a key (a thread) across processes, until it releases it or it expires
# (a process that died). Expiry is by the writers' clocks: hosts sharing a PostgreSQL keep them in sync (NTP).
LOCKS = (
    "CREATE TABLE IF NOT EXISTS orrery_locks (id TEXT PRIMARY KEY, owner TEXT NOT NULL, "
    "expires DOUBLE PRECISION NOT NULL)"
)


def kind_of(data: Any) -> str:
    """What the `kind` column holds for a session's data: its "kind" string, else ""."""
    kind = data.get("kind") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) else ""


class _SQLSessions:
    """The SQL both engines share: each save is one statement guarded by the version the writer loaded."""

    mark = "?"

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[list[tuple[Any, ...]], int]:
        raise NotImplementedError

    def _transaction(self) -> Any:
        """A context manager giving a cursor whose statements commit together, the schema lock held."""
        raise NotImplementedError

    def _columns(self, cur: Any) -> set[str]:
        raise NotImplementedError

    def _migrate(self) -> None:
        """Create the table, or add the `kind` column to one made before it, and fill `kind` where it is NULL:
        rows of a database just migrated, or saved since by a process still running the code before it."""
        with self._transaction() as cur:
            cur.execute(LOCKS)
            columns = self._columns(cur)
            if not columns:
                cur.execute(SCHEMA)
                cur.execute(KIND_INDEX)
            elif "kind" not in columns:
                cur.execute("ALTER TABLE orrery_sessions ADD COLUMN kind TEXT")
                cur.execute(KIND_INDEX)
            cur.execute("SELECT id, data FROM orrery_sessions WHERE kind IS NULL")
            # kind_of in Python, not the engine's JSON functions: data may hold NaN, which Python's json writes
            # and reads but SQLite and PostgreSQL refuse.
            kinds = [(kind_of(_data(sid, data)), sid) for sid, data in cur.fetchall()]
            cur.executemany(self._sql("UPDATE orrery_sessions SET kind = ? WHERE id = ?"), kinds)

    def _sql(self, sql: str) -> str:
        return sql.replace("?", self.mark)

    def load(self, session_id: str) -> Session | None:
        rows, _ = self._run(self._sql(f"SELECT {COLUMNS} FROM orrery_sessions WHERE id = ?"), (session_id,))
        return _session(rows[0]) if rows else None

    def save(self, session: Session) -> Session:
        saved = replace(session, version=session.version + 1, updated_at=datetime.now(UTC).isoformat())
        data, kind = json.dumps(saved.data, default=str), kind_of(saved.data)
        if session.version == 0:
            sql = f"INSERT INTO orrery_sessions ({COLUMNS}, kind) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING"
            params: tuple[Any, ...] = (saved.id, saved.agent, data, saved.version, saved.updated_at, kind)
        else:
            sql = (
                "UPDATE orrery_sessions SET agent = ?, data = ?, version = ?, updated_at = ?, kind = ? "
                "WHERE id = ? AND version = ?"
            )
            params = (saved.agent, data, saved.version, saved.updated_at, kind, saved.id, session.version)
        _, count = self._run(self._sql(sql), params)
        if count != 1:
            stored = self.load(session.id)
            raise SessionConflict(
                f"session {session.id!r} was saved by another writer (stored version "
                f"{stored.version if stored else 'none'}, this writer loaded {session.version}); "
                "reload it and apply the change again"
            )
        return saved

    def list(self, agent: str | None = None, kind: str | None = None) -> list[Session]:
        """The sessions (of `agent`, of `kind`), the latest saved first. A row whose kind is NULL (saved by a
        process still running the code before the column) is read and checked here."""
        where, params = [], []
        if agent:
            where.append("agent = ?")
            params.append(agent)
        if kind is not None:
            where.append("(kind = ? OR kind IS NULL)")
            params.append(kind)
        sql = f"SELECT {COLUMNS} FROM orrery_sessions{' WHERE ' + ' AND '.join(where) if where else ''}"
        rows, _ = self._run(self._sql(f"{sql} ORDER BY updated_at DESC"), tuple(params))
        sessions = [_session(r) for r in rows]
        return sessions if kind is None else [s for s in sessions if kind_of(s.data) == kind]

    def acquire(self, key: str, owner: str, ttl: float) -> bool:
        """Take the lease on `key` for `ttl` seconds (or extend it, when `owner` holds it); False while another
        owner holds it. One statement, so two writers racing for a free key cannot both get it."""
        now = time.time()
        sql = (
            "INSERT INTO orrery_locks (id, owner, expires) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE "
            "SET owner = excluded.owner, expires = excluded.expires "
            "WHERE orrery_locks.expires < ? OR orrery_locks.owner = ?"
        )
        _, count = self._run(self._sql(sql), (key, owner, now + ttl, now, owner))
        return count == 1

    def release(self, key: str, owner: str) -> None:
        self._run(self._sql("DELETE FROM orrery_locks WHERE id = ? AND owner = ?"), (key, owner))


def _session(row: tuple[Any, ...]) -> Session:
    return Session(row[0], row[1], _data(row[0], row[2]), row[3], row[4])


def _data(session_id: str, text: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise ConfigError(
            f"the session database holds a damaged record {session_id!r} ({exc}); restore the "
            "database from a backup or give another one"
        ) from None


class SqliteSessions(_SQLSessions):
    """One connection per thread, reused: opening one per call cost 3.3 ms a load under a server's load against
    6 us (bench/serve.py), most of a run's time to first event."""

    def __init__(self, path: str | Path):
        self._local = threading.local()
        self.path = Path(path).expanduser()
        if self.path.exists() and not self.path.is_file():
            raise ConfigError(f"{self.path} is not a file; give a path for the session database")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._run("PRAGMA journal_mode=WAL")
            self._migrate()
        except OSError as exc:
            raise ConfigError(
                f"cannot create the session database's folder {self.path.parent} ({exc.strerror}); "
                "give a path you can write"
            ) from None
        except sqlite3.OperationalError as exc:  # read-only file or folder, locked, out of space
            raise ConfigError(
                f"cannot write the session database {self.path} ({exc}); check its permissions or give another path"
            ) from None
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"{self.path} is not an orrery session database ({exc}); give another path") from None

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = sqlite3.connect(self.path, timeout=30)
        return db

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[list[tuple[Any, ...]], int]:
        with self._db() as db:  # one transaction per statement, committed or rolled back, as with a fresh connection
            cur = db.execute(sql, params)
            return cur.fetchall(), cur.rowcount

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        with self._db() as db:  # committed at the end, rolled back on an exception
            cur = db.execute("BEGIN IMMEDIATE")  # the write lock before reading the schema: one migration at a time
            yield cur

    def _columns(self, cur: sqlite3.Cursor) -> set[str]:
        return {row[1] for row in cur.execute("PRAGMA table_info(orrery_sessions)").fetchall()}


class PostgresSessions(_SQLSessions):
    """Sessions in PostgreSQL, for several server processes or hosts sharing threads."""

    mark = "%s"

    def __init__(self, url: str):
        import psycopg  # optional: in the `serve` and `bi` extras

        self.url, self._psycopg = url, psycopg
        try:
            self._migrate()
        except psycopg.OperationalError as exc:
            reason = str(exc).strip().splitlines()[-1]
            raise ConfigError(
                f"cannot reach the session database at {redact(url)} ({reason}); "
                "check the URL and that PostgreSQL is running"
            ) from exc

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[list[tuple[Any, ...]], int]:
        with self._psycopg.connect(self.url, autocommit=True) as db, db.cursor() as cur:
            cur.execute(sql, params)
            return (cur.fetchall() if cur.description else []), cur.rowcount

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._psycopg.connect(self.url) as db, db.cursor() as cur:  # committed when the block ends
            # Held to the commit: a second server opening the database waits here, then finds the schema done
            # (CREATE TABLE IF NOT EXISTS alone can fail when two run at once).
            cur.execute("SELECT pg_advisory_xact_lock(hashtext('orrery_sessions schema'))")
            yield cur

    def _columns(self, cur: Any) -> set[str]:
        cur.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = 'orrery_sessions'"
        )
        return {row[0] for row in cur.fetchall()}


def redact(url: str) -> str:
    """A database URL without its password, for messages."""
    head, sep, tail = url.rpartition("@")
    return f"{head.split('://')[0]}://***@{tail}" if sep else url
