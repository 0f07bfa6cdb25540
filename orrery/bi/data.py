"""The databases the BI agent knows: shipped ones built at first use, and the user's registered ones.

Built-in (DuckDB files made once under `~/.cache/orrery/bi/db/`, or `$ORRERY_BI_HOME/db/`):
- `tpch`: TPC-H at scale 0.01 from DuckDB's tpch extension (the `duckdb-extension-tpch` wheel, loaded
  from site-packages, no network): orders, lineitem (ship / commit / receipt dates), customers, nations.
- `chinook`: the Chinook music store, converted from the SQLite file shipped in `data/` (MIT, see
  data/LICENSE.md).
- `superstore`: the Superstore sales table from `bokeh-sampledata`.
Registered (`orrery bi connect URL`): a DuckDB or SQLite file, or a PostgreSQL URL, kept by name in
`connections.yaml` in the same folder.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from orrery.bi.engines import DUCKDB_READ_ONLY, DuckDBEngine, Engine, Limits, PostgresEngine, SQLiteEngine, _group
from orrery.errors import ConfigError
from orrery.files import atomic_path, cache_dir, write_atomic

DATA = Path(__file__).parent / "data"
CHINOOK_SQLITE = DATA / "Chinook_Sqlite.sqlite"
TPCH_SCALE = 0.01
BUILTIN = ("tpch", "chinook", "superstore")


def bi_home() -> Path:
    return Path(os.environ.get("ORRERY_BI_HOME") or cache_dir() / "bi")


# -- building the shipped databases ------------------------------------------------------------------
def _build_tpch(con: Any) -> None:
    import duckdb_extension_tpch

    ext = next(Path(duckdb_extension_tpch.__file__).parent.rglob("tpch.duckdb_extension"), None)
    if ext is None:
        raise ConfigError(
            "the duckdb-extension-tpch package has no tpch.duckdb_extension; reinstall "
            "'duckdb-extension-tpch==1.5.5' (pip install 'orrery[bi]')"
        )
    con.execute(f"INSTALL '{ext}'")
    con.execute("LOAD tpch")
    con.execute(f"CALL dbgen(sf={TPCH_SCALE})")


_SQLITE_TYPES = [
    (re.compile(r"N?VARCHAR.*|TEXT|CHAR.*", re.I), "VARCHAR"),
    (re.compile(r"NUMERIC\((\d+),(\d+)\)", re.I), r"DECIMAL(\1,\2)"),
    (re.compile(r"DATETIME|TIMESTAMP", re.I), "TIMESTAMP"),
    (re.compile(r"INT.*", re.I), "INTEGER"),
]


def _duck_type(sqlite_type: str) -> str:
    for pattern, duck in _SQLITE_TYPES:
        if pattern.fullmatch(sqlite_type.strip()):
            return pattern.sub(duck, sqlite_type.strip())
    return "VARCHAR"


def _build_chinook(con: Any) -> None:
    import pandas as pd

    src = sqlite3.connect(f"{CHINOOK_SQLITE.resolve().as_uri()}?mode=ro", uri=True)
    try:
        tables = [
            r[0]
            for r in src.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        for t in tables:
            cols = [(r[1], _duck_type(r[2]), r[5]) for r in src.execute(f"PRAGMA table_info('{t}')")]
            keys = [c for c, _, pk in sorted(cols, key=lambda c: c[2]) if pk]
            ddl = ", ".join(f'"{c}" {ty}' for c, ty, _ in cols)
            ddl += f", PRIMARY KEY ({', '.join(chr(34) + k + chr(34) for k in keys)})" if keys else ""
            con.execute(f'CREATE TABLE "{t}" ({ddl})')
            frame = pd.read_sql_query(f'SELECT * FROM "{t}"', src)
            con.register("frame", frame)
            con.execute(f'INSERT INTO "{t}" SELECT * FROM frame')
            con.unregister("frame")
    finally:
        src.close()


def _build_superstore(con: Any) -> None:
    from bokeh_sampledata.sample_superstore import data

    frame = data.rename(columns=lambda c: re.sub(r"\W+", "_", c.strip()).lower())
    con.register("frame", frame)
    con.execute("CREATE TABLE orders AS SELECT * FROM frame")
    con.unregister("frame")


BUILDERS: dict[str, Callable[[Any], None]] = {
    "tpch": _build_tpch,
    "chinook": _build_chinook,
    "superstore": _build_superstore,
}


def builtin_path(name: str) -> Path:
    """The DuckDB file of a shipped database, built on first use (atomically: a temp file renamed)."""
    import duckdb

    target = bi_home() / "db" / f"{name}.duckdb"
    if target.is_file():
        return target
    with atomic_path(target) as tmp:
        tmp.unlink()  # DuckDB wants to create the file itself
        try:
            con = duckdb.connect(str(tmp))
            try:
                BUILDERS[name](con)
                con.execute("CHECKPOINT")
            finally:
                con.close()
        finally:
            Path(f"{tmp}.wal").unlink(missing_ok=True)
    return target


# -- registered connections ------------------------------------------------------------------------------
def _connections_file() -> Path:
    return bi_home() / "connections.yaml"


def connections() -> dict[str, str]:
    import yaml

    path = _connections_file()
    return (yaml.safe_load(path.read_text()) or {}) if path.is_file() else {}


def kind_of(url: str) -> str:
    """'postgres', 'duckdb' or 'sqlite' for a URL or file path."""
    if url.startswith(("postgresql://", "postgres://")):
        return "postgres"
    path = Path(url.removeprefix("duckdb:").removeprefix("sqlite:")).expanduser()
    if not path.is_file():
        raise ConfigError(
            f"{url} is neither a PostgreSQL URL (postgresql://user@host/db) nor an existing DuckDB/SQLite file"
        )
    with path.open("rb") as f:
        head = f.read(16)
    return "sqlite" if head.startswith(b"SQLite format 3\x00") else "duckdb"


def connect(url: str, name: str | None = None) -> str:
    """Register `url` under `name` (default: the file's stem or the PostgreSQL database name); returns the name.
    An existing name is never overwritten. The semantic layer is drafted now (joins found from names and
    data, value samples) unless one exists for the name."""
    import yaml

    from orrery.bi.semantic import user_path, write_draft

    kind = kind_of(url)
    if kind != "postgres":
        url = str(Path(url.removeprefix("duckdb:").removeprefix("sqlite:")).expanduser().resolve())
    name = name or (url.rsplit("/", 1)[-1].split("?")[0] if kind == "postgres" else Path(url).stem)
    name = re.sub(r"\W+", "_", name).strip("_").lower() or "db"
    known = connections()
    if name in BUILTIN or (name in known and known[name] != url):
        raise ConfigError(f"a database named {name!r} is already known; pick another name with --name")
    engine = _engine(kind, name, url, Limits())  # it must open before it is registered
    try:
        # owner-only: a connection URL may hold a password
        write_atomic(_connections_file(), yaml.safe_dump({**known, name: url}, sort_keys=True), mode=0o600)
        if not user_path(name).exists():  # joins and samples found once, kept for a person to check
            write_draft(name, engine)
    finally:
        engine.close()
    return name


def _engine(kind: str, name: str, url: str, limits: Limits) -> Engine:
    if kind == "postgres":
        return PostgresEngine(name, url, limits)
    if kind == "sqlite":
        return SQLiteEngine(name, url, limits)
    return DuckDBEngine(name, url, limits)


def open_engine(db: str, limits: Limits | None = None) -> Engine:
    """A built-in name, a registered name, a PostgreSQL URL or a DuckDB/SQLite file."""
    limits = limits or Limits()
    if db in BUILTIN:
        return DuckDBEngine(db, builtin_path(db), limits)
    known = connections()
    if db in known:
        return _engine(kind_of(known[db]), db, known[db], limits)
    if "/" in db or db.endswith((".duckdb", ".db", ".sqlite", ".sqlite3")) or "://" in db:
        kind = kind_of(db)
        name = db.rsplit("/", 1)[-1].split("?")[0] if kind == "postgres" else Path(db).stem
        return _engine(kind, name, db, limits)
    raise ConfigError(
        f"unknown database {db!r}; use one of {', '.join([*BUILTIN, *known])}, a PostgreSQL URL "
        "or a DuckDB/SQLite file (register one with `orrery bi connect URL`)"
    )


# -- PostgreSQL loading ------------------------------------------------------------------------------------
_PG_TYPES = [
    (re.compile(r"VARCHAR.*|TEXT", re.I), "text"),
    (re.compile(r"DOUBLE|FLOAT.*", re.I), "double precision"),
    (re.compile(r"(DECIMAL|NUMERIC)(\(.*\))?", re.I), r"numeric\2"),
    (re.compile(r"BIGINT", re.I), "bigint"),
    (re.compile(r"INTEGER|INT", re.I), "integer"),
    (re.compile(r"DATE", re.I), "date"),
    (re.compile(r"TIMESTAMP.*", re.I), "timestamp"),
    (re.compile(r"BOOLEAN", re.I), "boolean"),
]


def _pg_type(duck_type: str) -> str:
    for pattern, pg in _PG_TYPES:
        if pattern.fullmatch(duck_type):
            return pattern.sub(pg, duck_type)
    return "text"


def copy_to_postgres(duckdb_path: Path, pg_url: str) -> list[str]:
    """Copy every table of a DuckDB file into PostgreSQL (lower-case names, so unquoted SQL works on both).
    Needs a role that may create tables; the BI agent itself connects with a read-only one."""
    import duckdb
    import psycopg

    src = duckdb.connect(str(duckdb_path), read_only=True, config=DUCKDB_READ_ONLY)
    names = []
    try:
        with psycopg.connect(pg_url) as pg:
            columns = src.execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
            ).fetchall()
            for table, cols in _group(columns).items():
                ddl = ", ".join(f"{c.name.lower()} {_pg_type(c.type)}" for c in cols)
                pg.execute(f"CREATE TABLE {table.lower()} ({ddl})")
                with pg.cursor().copy(f"COPY {table.lower()} FROM STDIN") as copy:
                    for row in src.execute(f'SELECT * FROM "{table}"').fetchall():
                        copy.write_row(row)
                for c in cols:  # join columns get an index: TPC-H Q20 ran past 20 s without them
                    if re.search(r"(key|id)$", c.name, re.I):
                        pg.execute(f"CREATE INDEX ON {table.lower()} ({c.name.lower()})")
                pg.execute(f"ANALYZE {table.lower()}")
                names.append(table.lower())
    finally:
        src.close()
    return names
