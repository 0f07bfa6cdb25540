"""A real PostgreSQL for the memory tests (Debian's server binaries, initdb + pg_ctl as an unprivileged user on
127.0.0.1 and a free port), stopped at the end; `store` gives each test a SQLite and a PostgreSQL store."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def _pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL server binaries not found: apt-get install postgresql")
    return Path(found[-1]).parent


def _as_owner(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "nobody", "--", *cmd] if os.geteuid() == 0 else cmd  # postgres refuses root


@pytest.fixture(scope="session")
def postgres() -> Iterator[str]:
    # Not under pytest's basetemp: concurrent pytest runs prune old basetemps, and nobody must reach the folder.
    root = Path(tempfile.mkdtemp(prefix="orrery-memory-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "nobody")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    binary, data = _pg_bin(), root / "data"
    subprocess.run(
        _as_owner([str(binary / "initdb"), "-D", str(data), "-U", "orrery", "-A", "trust", "--no-sync"]),
        check=True,
        capture_output=True,
    )
    subprocess.run(
        _as_owner(
            [
                str(binary / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(root / "log"),
                "-w",
                "start",
                "-o",
                f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off",
            ]
        ),
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql://orrery@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            _as_owner([str(binary / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]), capture_output=True
        )
        shutil.rmtree(root, ignore_errors=True)


_DB = iter(range(1, 1_000_000))


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database for one test: a SQLite file, or a new database in the session's PostgreSQL."""
    if request.param == "sqlite":
        return str(tmp_path / "sessions.db")
    import psycopg

    url = request.getfixturevalue("postgres")
    name = f"memory_{next(_DB)}"
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    return url.rsplit("/", 1)[0] + "/" + name
