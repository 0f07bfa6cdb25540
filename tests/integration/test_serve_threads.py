"""Threads outlive a server: a restart between two turns (SQLite), and two server processes sharing one
real PostgreSQL (started here with initdb + pg_ctl as an unprivileged user), a thread continued on the other."""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "serve"))
from scripted import ServerProcess, post_run, run_input  # noqa: E402

from orrery.errors import ConfigError  # noqa: E402
from orrery.serve.threads import SessionConflict, Thread, ThreadStore  # noqa: E402
from orrery.sessions import Session  # noqa: E402

pytestmark = pytest.mark.integration
PG = Path("/usr/lib/postgresql/15/bin")


def _as_postgres_user(cmd):
    return ["runuser", "-u", "nobody", "--", *cmd] if os.geteuid() == 0 else cmd


@pytest.fixture(scope="module")
def postgres():
    # Its own folder in /tmp, not under pytest's: another pytest starting meanwhile sets that base back to 0700,
    # which nobody (the server's user when the tests run as root) then cannot reach.
    root = Path(tempfile.mkdtemp(prefix="orrery-pg-"))
    data = root / "data"
    root.chmod(0o755)
    if os.geteuid() == 0:
        shutil.chown(root, "nobody")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    subprocess.run(
        _as_postgres_user([str(PG / "initdb"), "-D", str(data), "-U", "orrery", "-A", "trust"]),
        check=True,
        capture_output=True,
    )
    subprocess.run(
        _as_postgres_user(
            [
                str(PG / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(root / "log"),
                "-w",
                "start",
                "-o",
                f"-p {port} -k {root} -c listen_addresses=127.0.0.1",
            ]
        ),
        check=True,
        capture_output=True,
    )
    yield f"postgresql://orrery@127.0.0.1:{port}/postgres"
    subprocess.run(_as_postgres_user([str(PG / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"]), capture_output=True)
    shutil.rmtree(root, ignore_errors=True)


def clarify_two_turns(first: str, second: str, thread: str):
    with httpx.Client(base_url=first, timeout=60) as a:
        events = post_run(a, "clarify", run_input(thread=thread, run="r1", text="book me a trip"))
    interrupt = events[-1]["outcome"]["interrupts"][0]
    with httpx.Client(base_url=second, timeout=60) as b:
        assert b.get(f"/threads/{thread}").json()["pending"]["question"] == interrupt["message"]
        resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"answer": "Oslo"}}]
        events = post_run(b, "clarify", run_input(thread=thread, run="r2", text="", resume=resume))
        assert (
            "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT") == "Done: booked a trip to Oslo."
        )
        thread_now = b.get(f"/threads/{thread}").json()
    assert [r["run_id"] for r in thread_now["runs"]] == ["r1", "r2"] and thread_now["pending"] is None


def test_server_restart_between_two_turns_keeps_the_thread(tmp_path):
    first = ServerProcess(tmp_path / "data")
    with httpx.Client(base_url=first.url, timeout=60) as a:
        events = post_run(a, "clarify", run_input(thread="trip", run="r1", text="book me a trip"))
    first.stop()
    interrupt = events[-1]["outcome"]["interrupts"][0]
    second = ServerProcess(tmp_path / "data")
    try:
        with httpx.Client(base_url=second.url, timeout=60) as b:
            resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"answer": "Rome"}}]
            events = post_run(b, "clarify", run_input(thread="trip", run="r2", text="", resume=resume))
            assert (
                "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
                == "Done: booked a trip to Rome."
            )
            assert [m["content"] for m in b.get("/threads/trip").json()["messages"]][0] == "book me a trip"
    finally:
        second.stop()


def test_two_server_processes_share_threads_in_postgresql(postgres, tmp_path):
    a, b = ServerProcess(tmp_path / "a", postgres), ServerProcess(tmp_path / "b", postgres)
    try:
        clarify_two_turns(a.url, b.url, "shared-1")
        clarify_two_turns(b.url, a.url, "shared-2")
        with httpx.Client(base_url=a.url, timeout=60) as c:
            assert {t["id"] for t in c.get("/threads").json()} == {"shared-1", "shared-2"}
    finally:
        a.stop()
        b.stop()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_store_refuses_a_stale_save(kind, tmp_path, request):
    store = ThreadStore(tmp_path / "t.db" if kind == "sqlite" else request.getfixturevalue("postgres"))
    saved = store.save(Thread(id=f"v-{kind}", agent="chat", title="first"))
    assert saved.version == 1 and store.load(saved.id).title == "first"
    newer = store.save(replace(saved, title="second"))
    assert newer.version == 2
    with pytest.raises(SessionConflict, match="another writer"):
        store.save(replace(saved, title="stale"))  # version 1 is gone
    with pytest.raises(SessionConflict):
        store.save(Thread(id=f"v-{kind}", agent="chat"))  # a new thread with a taken id
    assert store.load(saved.id).title == "second" and [t.id for t in store.list("chat")] == [saved.id]
    store.sessions.save(Session(f"v-{kind}#plan", agent="chat", data={"plan": {}}))  # an agent's own session
    assert [t.id for t in store.list("chat")] == [saved.id] and store.load(f"v-{kind}#plan") is None
    assert store.list("forecast") == []


def test_an_unreachable_database_is_a_one_line_error():
    with pytest.raises(ConfigError, match=r"cannot reach the session database at postgresql://\*\*\*@127.0.0.1:1/x"):
        ThreadStore("postgresql://u:secret@127.0.0.1:1/x")


def test_processes_opening_a_postgres_database_of_the_old_schema_migrate_it_once(postgres):
    import psycopg

    with psycopg.connect(postgres, autocommit=True) as db:
        db.execute("CREATE DATABASE old_schema")
    url = postgres.rsplit("/", 1)[0] + "/old_schema"
    rows = [
        ("t1", "chat", json.dumps({"kind": "thread", "title": "first", "runs": [{"run_id": "r1"}]}), 2, "2"),
        ("t1/runs/r1", "chat", json.dumps({"kind": "thread_run", "run": {"run_id": "r1", "events": []}}), 1, "1"),
        ("t1#plan", "chat", json.dumps({"plan": {}, "x": float("nan")}), 3, "3"),
    ]
    select = "SELECT id, agent, data, version, updated_at FROM orrery_sessions ORDER BY id"
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(
            "CREATE TABLE orrery_sessions (id TEXT PRIMARY KEY, agent TEXT NOT NULL, data TEXT NOT NULL, "
            "version INTEGER NOT NULL, updated_at TEXT NOT NULL)"
        )  # the table before its `kind` column
        db.cursor().executemany("INSERT INTO orrery_sessions VALUES (%s, %s, %s, %s, %s)", rows)
        before = db.execute(select).fetchall()
    code = (
        "import sys; from orrery.serve.threads import ThreadStore; "
        "print([t.id for t in ThreadStore(sys.argv[1]).list('chat')])"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [(p.returncode, out.strip(), err) for p, (out, err) in zip(procs, outs, strict=True)] == [
        (0, "['t1']", "")
    ] * 4
    with psycopg.connect(url, autocommit=True) as db:
        assert db.execute(select).fetchall() == before  # nothing stored was changed or lost
        assert dict(db.execute("SELECT id, kind FROM orrery_sessions").fetchall()) == {
            "t1": "thread",
            "t1/runs/r1": "thread_run",
            "t1#plan": "",
        }
    assert ThreadStore(url).load("t1").runs == [{"run_id": "r1", "events": []}]
