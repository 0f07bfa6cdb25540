"""One executor interface over DuckDB, PostgreSQL and SQLite, read-only by construction.

Every query passes `guard.check` first; beneath it each engine refuses writes on its own:
DuckDB is opened `read_only` with external access disabled and its configuration locked;
PostgreSQL runs every statement in a READ ONLY transaction (and, for the shipped data, as a role
that may only SELECT); SQLite is opened `mode=ro` with `query_only` and an authorizer that allows
only reads. All three stop a statement after `timeout` seconds and return at most `max_rows` rows, of at
most `max_result_bytes` in all, each text or binary cell cut at `max_cell_bytes` (the result says so in
`truncated` and `note`): a row cap alone let `SELECT repeat('x', 1e9)` return a 1 GB cell. A file that is not
a database is a one-line `QueryError` when the engine opens it.
"""

from __future__ import annotations

import datetime
import decimal
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from orrery.bi.guard import DEFAULT_LIMIT, check
from orrery.errors import OrreryError
from orrery.events import stage


class QueryError(OrreryError):
    """The database refused or failed the query; the message is the engine's."""


@dataclass
class Column:
    name: str
    type: str


@dataclass
class QueryResult:
    sql: str
    columns: list[str]
    rows: list[tuple[Any, ...]]
    engine: str
    truncated: bool = False  # more rows existed than the cap, or the bytes bound cut rows or cells
    seconds: float = 0.0
    note: str = ""  # what the bounds cut, in words

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, r, strict=True)) for r in self.rows]

    def to_dict(self) -> dict[str, Any]:
        out = {
            "sql": self.sql,
            "columns": self.columns,
            "rows": [list(r) for r in self.rows],
            "engine": self.engine,
            "truncated": self.truncated,
            "seconds": round(self.seconds, 4),
        }
        return {**out, "note": self.note} if self.note else out


@dataclass
class Limits:
    max_rows: int = DEFAULT_LIMIT
    timeout: float = 20.0  # seconds per statement
    max_cell_bytes: int = 64 * 1024  # a text or binary value longer than this is cut
    max_result_bytes: int = 8 * 2**20  # rows past this many bytes (cells summed) are dropped


class Engine(Protocol):
    """What the tools need of a database."""

    name: str
    dialect: str
    limits: Limits

    def execute(self, sql: str, *, max_rows: int | None = None) -> QueryResult: ...
    def explain(self, sql: str) -> None: ...
    def tables(self) -> dict[str, list[Column]]: ...
    def close(self) -> None: ...


@dataclass
class _Base:
    name: str
    limits: Limits = field(default_factory=Limits)
    dialect = ""

    def execute(self, sql: str, *, max_rows: int | None = None) -> QueryResult:
        """Guard, run with the timeout, keep at most `max_rows` rows (default: the engine's limit)."""
        cap = max_rows or self.limits.max_rows
        safe = check(sql, self.dialect, limit=cap + 1)
        t0 = time.perf_counter()
        with stage("execute_sql", **{"db.system.name": self.dialect}, content={"db.query.text": safe}) as s:
            columns, rows = self._run(safe, cap + 1)
            s.set(rows=len(rows))
        kept, note = bound_bytes(rows[:cap], self.limits)
        return QueryResult(
            safe, columns, kept, self.name, len(rows) > cap or bool(note), time.perf_counter() - t0, note
        )

    def explain(self, sql: str) -> None:
        """Dry run: plan the guarded query without running it (raises QueryError when it would fail)."""
        self._run("EXPLAIN " + check(sql, self.dialect, limit=self.limits.max_rows + 1))

    def _run(self, sql: str, fetch: int = 0) -> tuple[list[str], list[tuple[Any, ...]]]:
        raise NotImplementedError


def bound_bytes(rows: list[tuple[Any, ...]], limits: Limits) -> tuple[list[tuple[Any, ...]], str]:
    """Rows with every str/bytes cell cut at `max_cell_bytes` and no rows past `max_result_bytes`; the note says
    what was cut (empty when nothing was)."""
    cell_cap, total, cut_cells, kept = limits.max_cell_bytes, 0, 0, []
    for row in rows:
        out = []
        for v in row:
            size = _size(v, cell_cap)
            if size > cell_cap:
                cut_cells += 1
                if isinstance(v, str):
                    v = v[:cell_cap] + f" ...[cut: {size:,} long]"
                elif isinstance(v, bytes | bytearray | memoryview):
                    v = bytes(v[:cell_cap])
                else:  # a list, map or struct value (PostgreSQL arrays and JSON, DuckDB nested types)
                    v = f"[a {type(v).__name__} of {len(v):,} items, over {cell_cap:,} bytes: cut]"
                size = cell_cap
            total += size
            out.append(v)
        if total > limits.max_result_bytes:
            break
        kept.append(tuple(out))
    notes = [f"{cut_cells} value(s) longer than {cell_cap:,} characters/bytes were cut"] if cut_cells else []
    if len(kept) < len(rows):
        notes.append(f"only the first {len(kept)} of {len(rows)} rows fit in {limits.max_result_bytes:,} bytes")
    return kept, "; ".join(notes)


# the cell types that count as 16 bytes, tested by exact type first: most cells of a result are one of them
_FIXED_SIZE = frozenset([int, float, bool, type(None), decimal.Decimal, datetime.date, datetime.datetime])


def _size(value: Any, cap: int) -> int:
    """About how many bytes `value` holds; counting stops once past `cap` (a nested value may be huge)."""
    kind = type(value)
    if kind is str:
        return len(value)
    if kind in _FIXED_SIZE:
        return 16
    if isinstance(value, str | bytes | bytearray | memoryview):
        return len(value)
    if isinstance(value, dict):
        value = [*value.keys(), *value.values()]
    if isinstance(value, list | tuple | set):
        total = 0
        for item in value:
            total += _size(item, cap - total)
            if total > cap:
                return total
        return total
    return 16


# -- DuckDB ----------------------------------------------------------------------------------------------
# One process may open a file several times only with the same settings: every reader uses these.
DUCKDB_READ_ONLY = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "lock_configuration": True,
}


class DuckDBEngine(_Base):
    dialect = "duckdb"

    def __init__(self, name: str, path: str | Path, limits: Limits | None = None):
        import duckdb

        super().__init__(name, limits or Limits())
        self.path = Path(path)
        self._duckdb = duckdb
        try:
            self.con = duckdb.connect(str(path), read_only=True, config=DUCKDB_READ_ONLY)
        except duckdb.Error as exc:
            raise QueryError(
                f"{path} cannot be opened as a DuckDB database ({str(exc).splitlines()[0][:160]}); "
                "pass a DuckDB or SQLite database file"
            ) from None
        self._lock = threading.Lock()  # one connection: one statement at a time

    def _run(self, sql: str, fetch: int = 0) -> tuple[list[str], list[tuple[Any, ...]]]:
        # DuckDB has no statement_timeout: a timer interrupts the running statement.
        with self._lock:
            timer = threading.Timer(self.limits.timeout, self.con.interrupt)
            timer.start()
            try:
                cur = self.con.execute(sql)
                rows = cur.fetchmany(fetch or self.limits.max_rows + 1)
                return [d[0] for d in cur.description], rows
            except self._duckdb.InterruptException as exc:
                raise QueryError(f"query stopped after {self.limits.timeout:g} s; narrow it down") from exc
            except self._duckdb.Error as exc:
                raise QueryError(str(exc).splitlines()[0]) from exc
            finally:
                timer.cancel()

    def tables(self) -> dict[str, list[Column]]:
        with self._lock:
            rows = self.con.execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
            ).fetchall()
        return _group(rows)

    def close(self) -> None:
        self.con.close()


# -- PostgreSQL ------------------------------------------------------------------------------------------
class PostgresEngine(_Base):
    dialect = "postgres"

    def __init__(self, name: str, url: str, limits: Limits | None = None):
        import psycopg

        super().__init__(name, limits or Limits())
        self.url = url
        self._psycopg = psycopg
        timeout_ms = int(self.limits.timeout * 1000)
        try:
            self.con = psycopg.connect(
                url,
                connect_timeout=10,
                options=f"-c statement_timeout={timeout_ms} -c default_transaction_read_only=on",
            )
        except psycopg.Error as exc:
            raise QueryError(f"cannot connect to PostgreSQL at {_redact(url)}: {str(exc).strip()}") from exc
        self.con.read_only = True  # every transaction psycopg opens is READ ONLY
        self._lock = threading.Lock()

    def _run(self, sql: str, fetch: int = 0) -> tuple[list[str], list[tuple[Any, ...]]]:
        with self._lock:
            try:
                with self.con.transaction(), self.con.cursor() as cur:
                    cur.execute(sql)
                    rows = cur.fetchmany(fetch or self.limits.max_rows + 1)
                    return [d.name for d in cur.description], rows
            except self._psycopg.errors.QueryCanceled as exc:
                raise QueryError(f"query stopped after {self.limits.timeout:g} s; narrow it down") from exc
            except self._psycopg.Error as exc:
                raise QueryError(str(exc).strip().splitlines()[0]) from exc

    def tables(self) -> dict[str, list[Column]]:
        _, rows = self._run(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'public' ORDER BY table_name, ordinal_position",
            1_000_000,
        )
        return _group(rows)

    def close(self) -> None:
        self.con.close()


def _redact(url: str) -> str:
    import re

    return re.sub(r"://([^:/@]+):[^@]*@", r"://\1:***@", url)


# -- SQLite ----------------------------------------------------------------------------------------------
_SQLITE_ALLOWED = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION}


def _sqlite_authorizer(action: int, *_: Any) -> int:
    return sqlite3.SQLITE_OK if action in _SQLITE_ALLOWED else sqlite3.SQLITE_DENY


class SQLiteEngine(_Base):
    dialect = "sqlite"

    def __init__(self, name: str, path: str | Path, limits: Limits | None = None):
        super().__init__(name, limits or Limits())
        self.path = Path(path)
        self.con = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        try:
            self.con.execute("PRAGMA query_only = ON")
            self._meta = self._read_meta()  # read before the authorizer forbids PRAGMA
        except sqlite3.DatabaseError as exc:
            self.con.close()
            raise QueryError(
                f"{path} cannot be read as a SQLite database ({exc}); pass a DuckDB or SQLite database file"
            ) from None
        self.con.set_authorizer(_sqlite_authorizer)
        self._lock = threading.Lock()

    def _read_meta(self) -> dict[str, list[Column]]:
        names = [
            r[0]
            for r in self.con.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        return {n: [Column(r[1], r[2] or "") for r in self.con.execute(f"PRAGMA table_info('{n}')")] for n in names}

    def _run(self, sql: str, fetch: int = 0) -> tuple[list[str], list[tuple[Any, ...]]]:
        deadline = time.monotonic() + self.limits.timeout
        with self._lock:
            self.con.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
            try:
                cur = self.con.execute(sql)
                rows = cur.fetchmany(fetch or self.limits.max_rows + 1)
                return [d[0] for d in cur.description or ()], rows
            except sqlite3.OperationalError as exc:
                if "interrupted" in str(exc):
                    raise QueryError(f"query stopped after {self.limits.timeout:g} s; narrow it down") from exc
                raise QueryError(str(exc)) from exc
            except sqlite3.DatabaseError as exc:
                raise QueryError(str(exc)) from exc
            finally:
                self.con.set_progress_handler(None, 0)

    def tables(self) -> dict[str, list[Column]]:
        return self._meta

    def close(self) -> None:
        self.con.close()


def _group(rows: list[tuple[str, str, str]]) -> dict[str, list[Column]]:
    out: dict[str, list[Column]] = {}
    for table, column, dtype in rows:
        out.setdefault(table, []).append(Column(column, dtype))
    return out


def declared_joins(engine: Engine) -> list[str]:
    """The foreign keys the database declares, as 'table.column = table.column' (single-column keys; none
    when the catalogue cannot be read)."""
    queries = {
        "duckdb": "SELECT table_name, constraint_column_names[1], referenced_table, referenced_column_names[1] "
        "FROM duckdb_constraints() WHERE constraint_type = 'FOREIGN KEY' "
        "AND len(constraint_column_names) = 1",
        "postgres": "SELECT k.table_name, k.column_name, u.table_name, u.column_name "
        "FROM information_schema.referential_constraints r "
        "JOIN information_schema.key_column_usage k ON k.constraint_name = r.constraint_name "
        "JOIN information_schema.key_column_usage u ON u.constraint_name = r.unique_constraint_name "
        "AND u.ordinal_position = k.position_in_unique_constraint",
    }
    try:
        if engine.dialect == "sqlite":
            return _sqlite_foreign_keys(engine)
        rows = engine.execute(queries[engine.dialect]).rows if engine.dialect in queries else []
    except QueryError:
        return []
    return [f"{t}.{c} = {rt}.{rc}" for t, c, rt, rc in rows]


def _sqlite_foreign_keys(engine: Engine) -> list[str]:
    """From the CREATE TABLE statements (the read-only authorizer forbids the foreign_key_list pragma)."""
    import sqlglot
    from sqlglot import exp

    out = []
    for table, ddl in engine.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").rows:
        try:
            tree = sqlglot.parse_one(ddl or "", read="sqlite")
        except sqlglot.errors.SqlglotError:
            continue
        for col in tree.find_all(exp.ColumnDef):  # 'a_id INTEGER REFERENCES a(id)'
            ref = col.find(exp.Reference)
            if ref is not None and isinstance(ref.this, exp.Schema) and len(ref.this.expressions) == 1:
                out.append(f"{table}.{col.name} = {ref.this.this.name}.{ref.this.expressions[0].name}")
        for fk in tree.find_all(exp.ForeignKey):  # 'FOREIGN KEY (id) REFERENCES a(id)'
            ref = fk.args.get("reference")
            if ref is not None and len(fk.expressions) == 1 and len(ref.this.expressions) == 1:
                out.append(f"{table}.{fk.expressions[0].name} = {ref.this.this.name}.{ref.this.expressions[0].name}")
    return out
