"""BI fixtures: the shipped databases built once per session in a temporary home, a real PostgreSQL
(Debian's server binaries, initdb + pg_ctl as an unprivileged user on 127.0.0.1 and a free port) loaded
with TPC-H and Chinook, read through a role that may only SELECT, stopped at the end; and small SQLite
databases a test writes (`sqlite_bi`)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import sqlite3
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import BIContext

READER = "orrery_reader"


@pytest.fixture(scope="session")
def bi_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """ORRERY_BI_HOME (and the sessions' ORRERY_DATA_DIR) for the whole session: the built-in databases are
    built once, and nothing is written to the user's home."""
    home = tmp_path_factory.mktemp("bi-home")
    old = {k: os.environ.get(k) for k in ("ORRERY_BI_HOME", "ORRERY_DATA_DIR")}
    os.environ["ORRERY_BI_HOME"] = os.environ["ORRERY_DATA_DIR"] = str(home)
    yield home
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def tpch(bi_home: Path):
    from orrery.bi.data import open_engine

    engine = open_engine("tpch")
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def chinook(bi_home: Path):
    from orrery.bi.data import open_engine

    engine = open_engine("chinook")
    yield engine
    engine.close()


@dataclass
class Postgres:
    port: int

    def url(self, db: str, user: str = READER) -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{db}"

    def admin(self, db: str) -> str:
        return self.url(db, "postgres")


def _pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb is None:
        raise RuntimeError("PostgreSQL server binaries not found: apt-get install postgresql")
    return Path(initdb).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_owner(cmd: list[str], user: str | None) -> list[str]:
    # initdb and postgres refuse to run as root.
    return ["runuser", "-u", user, "--", *cmd] if user else cmd


@pytest.fixture(scope="session")
def postgres(bi_home: Path) -> Iterator[Postgres]:
    import psycopg

    from orrery.bi.data import builtin_path, copy_to_postgres

    user = "postgres" if os.geteuid() == 0 else None
    root = Path(tempfile.mkdtemp(prefix="orrery-pg-"))
    data = root / "data"
    if user:
        pw = pwd.getpwnam(user)
        os.chown(root, pw.pw_uid, pw.pw_gid)
    binary = _pg_bin()
    subprocess.run(
        _as_owner(
            [str(binary / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], user
        ),
        check=True,
        capture_output=True,
    )
    port = _free_port()
    opts = f"-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={root} -c fsync=off"
    subprocess.run(
        _as_owner([str(binary / "pg_ctl"), "-D", str(data), "-o", opts, "-l", str(root / "log"), "-w", "start"], user),
        check=True,
        capture_output=True,
    )
    pg = Postgres(port)
    try:
        with psycopg.connect(pg.admin("postgres"), autocommit=True) as con:
            con.execute(f"CREATE ROLE {READER} LOGIN")
            for db in ("tpch", "chinook"):
                con.execute(f"CREATE DATABASE {db}")
        for db in ("tpch", "chinook"):
            copy_to_postgres(builtin_path(db), pg.admin(db))
            with psycopg.connect(pg.admin(db), autocommit=True) as con:
                con.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {READER}")
                con.execute(f"ALTER ROLE {READER} SET default_transaction_read_only = on")
        yield pg
    finally:
        subprocess.run(
            _as_owner([str(binary / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], user), capture_output=True
        )
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_tpch(postgres: Postgres):
    from orrery.bi.engines import PostgresEngine

    engine = PostgresEngine("tpch", postgres.url("tpch"))
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def pg_chinook(postgres: Postgres):
    from orrery.bi.engines import PostgresEngine

    engine = PostgresEngine("chinook", postgres.url("chinook"))
    yield engine
    engine.close()


@pytest.fixture
def sqlite_bi(tmp_path: Path) -> Iterator[Callable[[str, dict[str, list[tuple]]], BIContext]]:
    """Make a BIContext (a drafted layer, no model) over a SQLite database built from a DDL script and each
    table's rows; the engines are closed after the test."""
    engines: list[SQLiteEngine] = []

    def make(script: str, rows: dict[str, list[tuple]]) -> BIContext:
        path = tmp_path / f"d{len(engines)}.sqlite"
        with sqlite3.connect(path) as con:
            con.executescript(script)
            for table, values in rows.items():
                con.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(values[0]))})", values)
        engines.append(SQLiteEngine(path.stem, path))
        return BIContext(engines[-1], draft(engines[-1]), None)

    yield make
    for engine in engines:
        engine.close()


@pytest.fixture
def indicators(sqlite_bi) -> BIContext:
    """Countries by region, and yearly indicators: fertility, population, life expectancy (rounds 32, 61)."""
    return sqlite_bi(
        "CREATE TABLE countries (code TEXT, country_name TEXT, region TEXT);"
        "CREATE TABLE indicators (code TEXT, year INTEGER, fertility REAL, population INTEGER, life_expectancy REAL);",
        {
            "countries": [(f"C{i}", f"Land {i}", ("Europe", "Asia", "Africa")[i % 3]) for i in range(12)],
            "indicators": [(f"C{i % 12}", 1990 + i % 20, 1.5 + (i % 5) / 2, 1000 * i, 60 + i % 20) for i in range(60)],
        },
    )


@pytest.fixture
def birds(sqlite_bi) -> BIContext:
    """Birds of three species weighed on two islands, no declared keys (rounds 48 and 49): on Dream the lightest is a
    Chinstrap (2800 g) and the lightest Adelie weighs 2900 g; the lightest of all, a Gentoo of 2500 g, is on Biscoe."""
    bi = sqlite_bi(
        "CREATE TABLE species (id INTEGER, common_name TEXT);"
        "CREATE TABLE islands (isl_cd TEXT, isl_name TEXT);"
        "CREATE TABLE birds (bird_id INTEGER, species_id INTEGER, isl_cd TEXT, mass_g REAL);",
        {
            "species": [(1, "Adelie"), (2, "Chinstrap"), (3, "Gentoo")],
            "islands": [("DR", "Dream"), ("BI", "Biscoe")],
            "birds": [(i, 1 + i % 2, "DR", 2700.0 + 100 * i) for i in range(1, 9)] + [(9, 3, "BI", 2500.0)],
        },
    )
    assert {"birds.species_id = species.id", "birds.isl_cd = islands.isl_cd"} <= set(bi.semantic.joins)
    return bi
