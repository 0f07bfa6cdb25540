"""The long-term memory: items (tool observations, conversation turns, approved examples) kept per scope in
SQLite (WAL, the session database's file by default) or PostgreSQL, searched by full text and, when an embedder
is given, by vectors, the two rankings fused.

A scope is (user, app, thread). Every read filters on the user and the app in SQL, and on the thread unless the
caller asks for the user's other threads of that app too (`threads="all"`): one user never reads another's items.
Retention (`max_items`, `max_age_days` per scope) is enforced in the transaction of each write.

Vectors are searched in NumPy over the scope's rows: retention bounds a scope (10,000 items by default, 15 MB of
384-float vectors, one matrix product), so an approximate index (sqlite-vec, pgvector) would add an extension to
install for no measured gain at that size; bench/memory.py measures the search time.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from orrery.errors import ConfigError, DataError

if TYPE_CHECKING:
    import numpy as np

Kind = Literal["observation", "turn", "example", "field"]
KINDS: tuple[str, ...] = ("observation", "turn", "example", "field")
SCOPE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$")
MAX_TEXT = 20_000  # characters kept of one item's content (a tool can return megabytes)
RRF_K = 60  # reciprocal rank fusion's constant (Cormack et al. 2009): rank r scores 1 / (RRF_K + r)
MAX_QUERY_WORDS = 32


def check_id(value: str, what: str) -> str:
    if not isinstance(value, str) or not SCOPE_ID.match(value):
        raise DataError(
            f"{what} {value!r} is not a valid id: use 1-128 letters, digits and . _ : @ - "
            "(starting with a letter or digit)"
        )
    return value


@dataclass(frozen=True)
class Scope:
    """Whose memory: a user's, in one app, in one thread (conversation)."""

    user: str = "local"
    app: str = "chat"
    thread: str = "default"

    def __post_init__(self) -> None:
        check_id(self.user, "user")
        check_id(self.app, "app")
        check_id(self.thread, "thread")


@dataclass
class Item:
    """One remembered thing. `kind` observation: a tool's result (`tool`, its `input`, `ok`); turn: a user's or the
    assistant's text (`tool` holds the role); example: an approved question (`content`) -> answer (`input`); field:
    a person's answer to the BI field question (`content` the term; `orrery.bi.examples.keep_field`)."""

    kind: str
    content: str
    tool: str | None = None
    input: Any = None
    ok: bool = True
    run_id: str = ""
    created: float = field(default_factory=time.time)
    id: int | None = None
    scope: Scope | None = None
    score: float = 0.0

    @property
    def text(self) -> str:
        """What search indexes: the tool and its input beside the content."""
        head = f"{self.tool} {json.dumps(self.input, default=str)}" if self.input not in (None, {}) else self.tool
        return f"{head or ''}\n{self.content}".strip()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["scope"] = asdict(self.scope) if self.scope else None
        return d


@dataclass
class Retention:
    """Limits per scope, applied on every write: the newest `max_items`, none older than `max_age_days`."""

    max_items: int | None = 10_000
    max_age_days: float | None = None


class Embedder(Protocol):
    name: str

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32 rows of unit length."""
        ...


def open_memory(
    target: str | Path | MemoryStore | None = None,
    *,
    embedder: Embedder | None = None,
    retention: Retention | None = None,
) -> MemoryStore:
    """A store from a path, a `postgresql://` URL, a store, or None: the session database's file."""
    if isinstance(target, MemoryStore):
        return target
    if target is None:
        from orrery.sessions import data_dir

        target = data_dir() / "sessions.db"
    cls = PostgresMemory if str(target).startswith(("postgresql://", "postgres://")) else SqliteMemory
    return cls(target, embedder=embedder, retention=retention)


def fts_words(query: str) -> list[str]:
    """The query's words, for an OR query: untrusted text never reaches the FTS syntax, only letters and digits."""
    return list(dict.fromkeys(re.findall(r"[^\W_]+", query.lower())))[:MAX_QUERY_WORDS]


def fuse(*rankings: Sequence[int]) -> list[tuple[int, float]]:
    """Reciprocal rank fusion of ranked id lists: (id, score), best first."""
    scores: dict[int, float] = {}
    for ranking in rankings:
        for rank, item_id in enumerate(ranking, start=1):
            scores[item_id] = scores.get(item_id, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], -kv[0]))


COLUMNS = "id, user_id, app, thread, run_id, kind, tool, input, content, ok, created"
Mode = Literal["fused", "fts", "vector"]


class MemoryStore:
    """The SQL both engines share. `add` writes items to a scope; `search` ranks a scope's items for a query."""

    mark = "?"

    def __init__(self, embedder: Embedder | None = None, retention: Retention | None = None):
        self.embedder = embedder
        self.retention = retention or Retention()

    # -- engine hooks ----------------------------------------------------------------------------------------
    def _tx(self, write: bool = True) -> Any:
        """A context manager giving a cursor whose statements commit together."""
        raise NotImplementedError

    def _fts(self, cur: Any, where: str, params: list[Any], words: list[str], limit: int) -> list[int]:
        raise NotImplementedError

    def _blob(self, vector: np.ndarray) -> Any:
        return vector.astype("float32").tobytes()

    def _sql(self, sql: str) -> str:
        return sql.replace("?", self.mark)

    # -- writing ---------------------------------------------------------------------------------------------
    def add(self, scope: Scope, items: Sequence[Item]) -> list[int]:
        """Write `items` to `scope` (one transaction, retention applied), returning their ids."""
        if not items:
            return []
        vectors = self.embedder.embed([i.text for i in items]) if self.embedder else [None] * len(items)
        ids = []
        with self._tx() as cur:
            for item, vec in zip(items, vectors, strict=True):
                content = item.content[:MAX_TEXT]
                row = (
                    scope.user,
                    scope.app,
                    scope.thread,
                    item.run_id,
                    item.kind,
                    item.tool,
                    json.dumps(item.input, default=str),
                    content,
                    bool(item.ok),
                    item.created,
                    Item(item.kind, content, item.tool, item.input).text,
                    None if vec is None else self._blob(vec),
                )
                cur.execute(
                    self._sql(
                        "INSERT INTO orrery_memory (user_id, app, thread, run_id, kind, tool, input, "
                        "content, ok, created, text, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                        " RETURNING id"
                    ),
                    row,
                )
                ids.append(cur.fetchone()[0])
            self._retain(cur, scope)
        return ids

    def _retain(self, cur: Any, scope: Scope) -> None:
        where, params = "user_id = ? AND app = ? AND thread = ?", [scope.user, scope.app, scope.thread]
        r = self.retention
        if r.max_age_days is not None:
            cur.execute(
                self._sql(f"DELETE FROM orrery_memory WHERE {where} AND created < ?"),
                (*params, time.time() - r.max_age_days * 86400),
            )
        if r.max_items is not None:
            cur.execute(
                self._sql(
                    f"DELETE FROM orrery_memory WHERE {where} AND id NOT IN (SELECT id FROM "
                    f"orrery_memory WHERE {where} ORDER BY created DESC, id DESC LIMIT ?)"
                ),
                (*params, *params, r.max_items),
            )

    def remove(self, scope: Scope, item_id: int) -> bool:
        """Delete one item of `scope`; False when the scope holds no such item."""
        with self._tx() as cur:
            cur.execute(
                self._sql("DELETE FROM orrery_memory WHERE id = ? AND user_id = ? AND app = ? AND thread = ?"),
                (item_id, scope.user, scope.app, scope.thread),
            )
            return cur.rowcount == 1

    # -- reading ---------------------------------------------------------------------------------------------
    def _where(
        self, scope: Scope, kinds: Sequence[str] | None, threads: Literal["one", "all"]
    ) -> tuple[str, list[Any]]:
        where, params = ["m.user_id = ?", "m.app = ?"], [scope.user, scope.app]
        if threads == "one":
            where.append("m.thread = ?")
            params.append(scope.thread)
        if kinds:
            bad = set(kinds) - set(KINDS)
            if bad:
                raise DataError(f"unknown item kind(s) {', '.join(sorted(bad))}; use {', '.join(KINDS)}")
            where.append(f"m.kind IN ({', '.join('?' for _ in kinds)})")
            params.extend(kinds)
        return " AND ".join(where), params

    def items(
        self,
        scope: Scope,
        *,
        kinds: Sequence[str] | None = None,
        threads: Literal["one", "all"] = "one",
        limit: int = 1000,
    ) -> list[Item]:
        """The scope's items, newest first."""
        where, params = self._where(scope, kinds, threads)
        with self._tx(write=False) as cur:
            cur.execute(
                self._sql(
                    f"SELECT {prefixed()} FROM orrery_memory m WHERE {where} ORDER BY m.created DESC, m.id DESC LIMIT ?"
                ),
                (*params, limit),
            )
            return [_item(r) for r in cur.fetchall()]

    def search(
        self,
        scope: Scope,
        query: str,
        k: int = 5,
        *,
        kinds: Sequence[str] | None = None,
        threads: Literal["one", "all"] = "one",
        mode: Mode = "fused",
        exclude: str | None = None,
        vector: np.ndarray | None = None,
    ) -> list[Item]:
        """The `k` items of the scope most relevant to `query`: full text, vectors (with an embedder), or both
        fused. `exclude` drops items whose content equals it (a question never retrieves itself); `vector` is the
        query's, when the caller has it (not embedded again)."""
        if mode == "vector" and self.embedder is None:
            raise ConfigError("vector search needs an embedder: open the store with embedder=...")
        where, params = self._where(scope, kinds, threads)
        if exclude is not None:
            where += " AND m.content <> ?"
            params.append(exclude)
        pool = max(4 * k, 20)
        if mode == "fts" or self.embedder is None:
            vector = None
        elif vector is None:
            vector = self.embedder.embed([query])[0]
        with self._tx(write=False) as cur:
            rankings = []
            if mode in ("fused", "fts") and (words := fts_words(query)):
                rankings.append(self._fts(cur, where, params, words, pool))
            if vector is not None:
                rankings.append(self._vector(cur, where, params, vector, pool))
            ranked = fuse(*rankings)[:k]
            if not ranked:
                return []
            ids = [i for i, _ in ranked]
            cur.execute(
                self._sql(f"SELECT {prefixed()} FROM orrery_memory m WHERE m.id IN ({', '.join('?' for _ in ids)})"),
                ids,
            )
            found = {r[0]: _item(r) for r in cur.fetchall()}
        out = []
        for item_id, score in ranked:
            if item_id in found:
                found[item_id].score = score
                out.append(found[item_id])
        return out

    def _vector(self, cur: Any, where: str, params: list[Any], q: np.ndarray, limit: int) -> list[int]:
        import numpy as np  # only with an embedder: the memory extra

        cur.execute(
            self._sql(f"SELECT m.id, m.embedding FROM orrery_memory m WHERE {where} AND m.embedding IS NOT NULL"),
            params,
        )
        rows = cur.fetchall()
        rows = [(i, np.frombuffer(bytes(b), dtype=np.float32)) for i, b in rows]
        rows = [(i, v) for i, v in rows if v.shape == q.shape]  # vectors of another model are not comparable
        if not rows:
            return []
        from orrery.recall.embed import single_thread

        with single_thread():
            sims = np.stack([v for _, v in rows]) @ q
        order = np.argsort(-sims, kind="stable")[:limit]
        return [rows[j][0] for j in order]


def prefixed() -> str:
    return ", ".join(f"m.{c.strip()}" for c in COLUMNS.split(","))


def _item(row: tuple[Any, ...]) -> Item:
    item_id, user, app, thread, run_id, kind, tool, inp, content, ok, created = row
    return Item(
        kind,
        content,
        tool,
        json.loads(inp) if inp else None,
        bool(ok),
        run_id,
        created,
        item_id,
        Scope(user, app, thread),
    )


SQLITE_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS orrery_memory (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, "
    "app TEXT NOT NULL, thread TEXT NOT NULL, run_id TEXT NOT NULL, kind TEXT NOT NULL, tool TEXT, input TEXT, "
    "content TEXT NOT NULL, ok INTEGER NOT NULL, created REAL NOT NULL, text TEXT NOT NULL, embedding BLOB)",
    "CREATE INDEX IF NOT EXISTS orrery_memory_scope ON orrery_memory (user_id, app, thread, created)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS orrery_memory_fts USING fts5(text, content='orrery_memory', "
    "content_rowid='id', tokenize='porter unicode61')",
    "CREATE TRIGGER IF NOT EXISTS orrery_memory_ai AFTER INSERT ON orrery_memory BEGIN "
    "INSERT INTO orrery_memory_fts (rowid, text) VALUES (new.id, new.text); END",
    "CREATE TRIGGER IF NOT EXISTS orrery_memory_ad AFTER DELETE ON orrery_memory BEGIN "
    "INSERT INTO orrery_memory_fts (orrery_memory_fts, rowid, text) VALUES ('delete', old.id, old.text); END",
]


class SqliteMemory(MemoryStore):
    """One connection per thread (as the sessions), WAL: several processes may write; each write is one
    transaction that waits up to 30 s for another's."""

    def __init__(self, path: str | Path, *, embedder: Embedder | None = None, retention: Retention | None = None):
        super().__init__(embedder, retention)
        self.path = Path(path).expanduser()
        if self.path.exists() and not self.path.is_file():
            raise ConfigError(f"{self.path} is not a file; give a path for the memory database")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        deadline = time.monotonic() + 30
        while True:
            try:
                self._setup()
                return
            except sqlite3.OperationalError as exc:
                # Switching a new file to WAL answers "locked" at once, without the busy wait, while another
                # process opens it too: wait here as every other write does.
                if "locked" in str(exc) and time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
                raise ConfigError(f"{self.path} cannot hold orrery's memory ({exc}); give another path") from exc
            except sqlite3.DatabaseError as exc:
                raise ConfigError(f"{self.path} cannot hold orrery's memory ({exc}); give another path") from exc

    def _setup(self) -> None:
        self._db().execute("PRAGMA journal_mode=WAL")
        with self._tx() as cur:
            for stmt in SQLITE_SCHEMA:
                cur.execute(stmt)

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = self._local.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        return db

    @contextmanager
    def _tx(self, write: bool = True) -> Iterator[sqlite3.Cursor]:
        cur = self._db().cursor()
        cur.execute("BEGIN IMMEDIATE" if write else "BEGIN")  # a reader never holds the write lock (WAL)
        try:
            yield cur
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        cur.execute("COMMIT")

    def _fts(self, cur: Any, where: str, params: list[Any], words: list[str], limit: int) -> list[int]:
        match = " OR ".join(f'"{w}"' for w in words)
        cur.execute(
            f"SELECT m.id FROM orrery_memory_fts f JOIN orrery_memory m ON m.id = f.rowid "
            f"WHERE orrery_memory_fts MATCH ? AND {where} ORDER BY bm25(orrery_memory_fts) LIMIT ?",
            (match, *params, limit),
        )
        return [r[0] for r in cur.fetchall()]


PG_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS orrery_memory (id BIGSERIAL PRIMARY KEY, user_id TEXT NOT NULL, app TEXT NOT NULL, "
    "thread TEXT NOT NULL, run_id TEXT NOT NULL, kind TEXT NOT NULL, tool TEXT, input TEXT, content TEXT NOT NULL, "
    "ok BOOLEAN NOT NULL, created DOUBLE PRECISION NOT NULL, text TEXT NOT NULL, embedding BYTEA, "
    "tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED)",
    "CREATE INDEX IF NOT EXISTS orrery_memory_scope ON orrery_memory (user_id, app, thread, created)",
    "CREATE INDEX IF NOT EXISTS orrery_memory_tsv ON orrery_memory USING GIN (tsv)",
]


class PostgresMemory(MemoryStore):
    """The memory in PostgreSQL, shared by several server processes or hosts."""

    mark = "%s"

    def __init__(self, url: str | Path, *, embedder: Embedder | None = None, retention: Retention | None = None):
        import psycopg  # optional: in the `serve` and `bi` extras

        super().__init__(embedder, retention)
        self.url, self._psycopg = str(url), psycopg
        try:
            with self._tx() as cur:
                cur.execute("SELECT pg_advisory_xact_lock(hashtext('orrery_memory schema'))")
                for stmt in PG_SCHEMA:
                    cur.execute(stmt)
        except psycopg.OperationalError as exc:
            from orrery.sessions import redact

            reason = str(exc).strip().splitlines()[-1]
            raise ConfigError(
                f"cannot reach the memory database at {redact(self.url)} ({reason}); "
                "check the URL and that PostgreSQL is running"
            ) from exc

    @contextmanager
    def _tx(self, write: bool = True) -> Iterator[Any]:  # noqa: ARG002 - a read is one transaction too
        with self._psycopg.connect(self.url) as db, db.cursor() as cur:  # committed when the block ends
            yield cur

    def _fts(self, cur: Any, where: str, params: list[Any], words: list[str], limit: int) -> list[int]:
        query = " | ".join(words)
        cur.execute(
            self._sql(
                f"SELECT m.id FROM orrery_memory m, to_tsquery('english', ?) q "
                f"WHERE m.tsv @@ q AND {where} ORDER BY ts_rank(m.tsv, q) DESC, m.id DESC LIMIT ?"
            ),
            (query, *params, limit),
        )
        return [r[0] for r in cur.fetchall()]
