"""PostgreSQL sessions (`open_store("postgresql://...")`): the same optimistic versioning as SqliteSessions, for
several server processes or hosts sharing one database. psycopg is an optional dependency (extra `serve`)."""

from __future__ import annotations

import json
from dataclasses import replace

import psycopg

from orrery.errors import ConfigError
from orrery.sessions import Session, _now, conflict

SCHEMA = """CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, agent TEXT NOT NULL, data TEXT NOT NULL,
            version INTEGER NOT NULL, updated_at TEXT NOT NULL)"""
COLUMNS = "id, agent, data, version, updated_at"


class PostgresSessions:
    """One row per session; a save updates the row only if its version is still the one loaded."""

    def __init__(self, url: str):
        self.url = url
        try:
            self._run(SCHEMA)
        except psycopg.OperationalError as exc:
            reason = str(exc).strip().splitlines()[-1]
            raise ConfigError(f"cannot reach the session database at {_redact(url)} ({reason}); "
                              "check the URL and that PostgreSQL is running") from exc

    def _run(self, sql: str, params: tuple = ()) -> tuple[list[tuple], int]:
        # A connection per call: simple and safe across threads; a pool is the next step if it shows in profiles.
        with psycopg.connect(self.url, autocommit=True) as db, db.cursor() as cur:
            cur.execute(sql, params)
            return (cur.fetchall() if cur.description else []), cur.rowcount

    def load(self, session_id: str) -> Session | None:
        rows, _ = self._run(f"SELECT {COLUMNS} FROM sessions WHERE id = %s", (session_id,))
        return _session(rows[0]) if rows else None

    def save(self, session: Session) -> Session:
        saved = replace(session, version=session.version + 1, updated_at=_now())
        data = json.dumps(saved.data, default=str)
        if session.version == 0:
            _, count = self._run(f"INSERT INTO sessions ({COLUMNS}) VALUES (%s, %s, %s, %s, %s) "
                                 "ON CONFLICT (id) DO NOTHING",
                                 (saved.id, saved.agent, data, saved.version, saved.updated_at))
        else:
            _, count = self._run("UPDATE sessions SET agent = %s, data = %s, version = %s, updated_at = %s "
                                 "WHERE id = %s AND version = %s",
                                 (saved.agent, data, saved.version, saved.updated_at, saved.id, session.version))
        if count != 1:
            raise conflict(session, self.load(session.id))
        return saved

    def list(self, agent: str | None = None) -> list[Session]:
        where = " WHERE agent = %s" if agent else ""
        rows, _ = self._run(f"SELECT {COLUMNS} FROM sessions{where} ORDER BY updated_at DESC", (agent,) if agent else ())
        return [_session(r) for r in rows]


def _session(row: tuple) -> Session:
    return Session(row[0], row[1], json.loads(row[2]), row[3], row[4])


def _redact(url: str) -> str:
    head, sep, tail = url.rpartition("@")
    return f"{head.split('://')[0]}://***@{tail}" if sep else url
