"""A run's record survives other runs saving the same thread first; thread listing reads threads only, and a
database of the schema before the `kind` column is migrated when opened."""

import json
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from types import SimpleNamespace

import pytest

from orrery import sessions
from orrery.serve.app import _save
from orrery.serve.threads import SessionConflict, Thread, ThreadStore
from orrery.sessions import Session


def test_a_run_saved_after_others_is_added_to_what_they_saved(tmp_path, monkeypatch):
    store = ThreadStore(tmp_path / "threads.db")
    store.save(Thread("t1", "chat", title="x"))
    mine, theirs = store.load("t1"), store.load("t1")
    theirs.runs.append({"run_id": "theirs"})
    store.save(theirs)
    real, calls = store.save, []

    def third_writer_once(thread):  # a third run saves after our first conflict, before our retry lands
        calls.append(1)
        if len(calls) == 2:
            other = store.load("t1")
            other.runs.append({"run_id": "third"})
            real(other)
        return real(thread)

    monkeypatch.setattr(store, "save", third_writer_once)
    mine.runs.append({"run_id": "mine"})
    _save(SimpleNamespace(store=store), mine)
    assert [r["run_id"] for r in store.load("t1").runs] == ["theirs", "third", "mine"] and len(calls) == 3


def test_a_thread_that_keeps_conflicting_raises_after_a_few_tries(tmp_path, monkeypatch):
    store = ThreadStore(tmp_path / "threads.db")
    store.save(Thread("t1", "chat"))
    thread = store.load("t1")
    thread.runs.append({"run_id": "mine"})

    def always(_):
        raise SessionConflict("another writer saved t1")

    monkeypatch.setattr(store, "save", always)
    with pytest.raises(SessionConflict):  # a save that never lands does not pass silently
        _save(SimpleNamespace(store=store), thread, tries=3)


def test_a_save_writes_the_new_runs_events_once_and_a_load_brings_them_back(tmp_path, monkeypatch):
    store = ThreadStore(tmp_path / "threads.db")
    thread = Thread("t1", "chat", runs=[{"run_id": "r1", "status": "completed", "events": [{"type": "A"}] * 3}])
    thread = store.save(thread)
    written = []
    real = store.sessions.save
    monkeypatch.setattr(store.sessions, "save", lambda s: written.append(s.id) or real(s))
    thread.runs.append({"run_id": "r2", "status": "completed", "events": [{"type": "B"}]})
    store.save(thread)
    assert written == ["t1/runs/r2", "t1"]  # the earlier run is not written again
    assert "events" not in json.dumps(store.sessions.load("t1").data)
    assert [r["events"] for r in store.load("t1").runs] == [[{"type": "A"}] * 3, [{"type": "B"}]]
    assert [t.id for t in store.list()] == ["t1"]  # run records are not threads


def test_a_thread_saved_with_inline_events_keeps_them_when_saved_again(tmp_path):
    store = ThreadStore(tmp_path / "threads.db")
    legacy = {
        "kind": "thread",
        "title": "old",
        "messages": [],
        "state": {},
        "pending": None,
        "runs": [{"run_id": "r0", "status": "completed", "events": [{"type": "OLD"}]}],
    }
    store.sessions.save(Session("t0", "chat", legacy))
    thread = store.load("t0")
    assert thread.runs[0]["events"] == [{"type": "OLD"}]
    store.save(thread)
    assert store.load("t0").runs[0]["events"] == [{"type": "OLD"}]
    assert store.sessions.load("t0/runs/r0") is not None


OLD_SCHEMA = (
    "CREATE TABLE orrery_sessions (id TEXT PRIMARY KEY, agent TEXT NOT NULL, data TEXT NOT NULL, "
    "version INTEGER NOT NULL, updated_at TEXT NOT NULL)"
)  # the table before its `kind` column


def old_database(path):
    """A database as the code before the `kind` column wrote it: two threads with run records, an agent's own
    session, a thread with events inline and a value JSON keeps only as NaN."""
    runs = [{"run_id": "r1", "status": "completed"}]
    rows = [
        (
            "t1",
            "chat",
            {"kind": "thread", "title": "first", "messages": [], "state": {}, "pending": None, "runs": runs},
            2,
            "2026-01-01T00:00:02",
        ),
        (
            "t1/runs/r1",
            "chat",
            {"kind": "thread_run", "run": {**runs[0], "events": [{"type": "A"}]}},
            1,
            "2026-01-01T00:00:01",
        ),
        (
            "t2",
            "forecast",
            {
                "kind": "thread",
                "title": "second",
                "messages": [],
                "state": {"x": float("nan")},
                "pending": None,
                "runs": [{"run_id": "r0", "events": [{"type": "OLD"}]}],
            },
            1,
            "2026-01-01T00:00:03",
        ),
        ("t1#planner", "chat", {"plan": {"todos": []}}, 4, "2026-01-01T00:00:04"),
    ]
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(OLD_SCHEMA)
        db.executemany(
            "INSERT INTO orrery_sessions VALUES (?, ?, ?, ?, ?)",
            [(i, a, json.dumps(d), v, u) for i, a, d, v, u in rows],
        )
    return table(path)


def table(path):
    with closing(sqlite3.connect(path)) as db:
        return sorted(db.execute("SELECT id, agent, data, version, updated_at FROM orrery_sessions").fetchall())


def test_a_database_of_the_old_schema_is_migrated_when_opened_and_keeps_every_record(tmp_path):
    path = tmp_path / "old.db"
    before = old_database(path)
    store = ThreadStore(path)
    assert [(t.id, t.title) for t in store.list()] == [("t2", "second"), ("t1", "first")]
    assert [t.id for t in store.list("chat")] == ["t1"]
    assert store.load("t1").runs[0]["events"] == [{"type": "A"}] and store.load("t2").runs[0]["events"] == [
        {"type": "OLD"}
    ]
    assert table(path) == before  # nothing stored was changed or lost
    with closing(sqlite3.connect(path)) as db:
        kinds = dict(db.execute("SELECT id, kind FROM orrery_sessions"))
    assert kinds == {"t1": "thread", "t1/runs/r1": "thread_run", "t2": "thread", "t1#planner": ""}
    store.save(store.load("t1"))  # the migrated database takes new saves
    assert ThreadStore(path).load("t1").version == 3 and [t.id for t in ThreadStore(path).list()] == ["t1", "t2"]


def test_listing_threads_reads_no_run_records(tmp_path, monkeypatch):
    store = ThreadStore(tmp_path / "threads.db")
    for n in range(3):
        thread = Thread(f"t{n}", "chat", runs=[{"run_id": f"r{k}", "events": [{"type": "A"}]} for k in range(4)])
        store.save(thread)
    store.sessions.save(Session("t0#planner", "chat", {"plan": {}}))
    read = []
    real = sessions._session
    monkeypatch.setattr(sessions, "_session", lambda row: read.append(row[0]) or real(row))
    assert [t.id for t in store.list("chat")] == ["t2", "t1", "t0"]
    assert sorted(read) == ["t0", "t1", "t2"]  # not the 12 run records nor the planner's session


def test_a_thread_saved_by_the_old_code_after_the_migration_is_listed(tmp_path):
    path = tmp_path / "old.db"
    old_database(path)
    store = ThreadStore(path)
    data = {"kind": "thread", "title": "late", "messages": [], "state": {}, "pending": None, "runs": []}
    with closing(sqlite3.connect(path)) as db, db:  # a server not yet upgraded inserts as it always did
        db.execute(
            "INSERT INTO orrery_sessions (id, agent, data, version, updated_at) VALUES (?, ?, ?, ?, ?)",
            ("t3", "chat", json.dumps(data), 1, "2026-01-01T00:00:05"),
        )
        db.execute(
            "INSERT INTO orrery_sessions (id, agent, data, version, updated_at) VALUES (?, ?, ?, ?, ?)",
            ("t3/runs/x", "chat", json.dumps({"kind": "thread_run", "run": {}}), 1, "2026-01-01T00:00:06"),
        )
    assert [t.id for t in store.list("chat")] == ["t3", "t1"]


@pytest.mark.integration  # a real subprocess
def test_processes_opening_an_old_database_at_once_migrate_it_once(tmp_path):
    path = tmp_path / "old.db"
    before = old_database(path)
    code = (
        "import sys; from orrery.serve.threads import ThreadStore; "
        "print(sorted(t.id for t in ThreadStore(sys.argv[1]).list()))"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [(p.returncode, out.strip(), err) for p, (out, err) in zip(procs, outs, strict=True)] == [
        (0, "['t1', 't2']", "")
    ] * 4
    assert table(path) == before


def test_a_save_that_conflicts_keeps_both_writers_messages_state_and_question(tmp_path):
    store = ThreadStore(tmp_path / "threads.db")
    store.save(Thread("t1", "chat", messages=[{"role": "user", "content": "first"}]))
    mine, theirs = store.load("t1"), store.load("t1")
    theirs.messages.append({"role": "user", "content": "theirs"})
    theirs.state["board"] = {"n": 1}
    theirs.runs.append({"run_id": "theirs"})
    store.save(theirs)
    since = len(mine.messages)
    mine.messages += [{"role": "user", "content": "mine"}, {"role": "assistant", "content": "my answer"}]
    mine.state["plan"] = {"todos": []}
    mine.pending = {"id": "int_1", "question": "Which city?", "task": "book"}
    mine.runs.append({"run_id": "mine"})
    _save(SimpleNamespace(store=store), mine, since)
    saved = store.load("t1")
    assert [m["content"] for m in saved.messages] == ["first", "theirs", "mine", "my answer"]
    assert saved.state == {"board": {"n": 1}, "plan": {"todos": []}} and saved.pending["id"] == "int_1"
    assert [r["run_id"] for r in saved.runs] == ["theirs", "mine"]


def test_a_thread_lease_is_held_by_one_owner_until_released_or_expired(tmp_path):
    store = ThreadStore(tmp_path / "threads.db")
    assert store.acquire("t1", "a", 30) and not store.acquire("t1", "b", 30)
    assert store.acquire("t1", "a", 30)  # the holder extends it
    assert store.acquire("t2", "b", 30)  # another thread is free
    store.release("t1", "b")  # only the holder releases
    assert not store.acquire("t1", "b", 30)
    store.release("t1", "a")
    assert store.acquire("t1", "b", 0.05) and not store.acquire("t1", "c", 30)
    time.sleep(0.1)
    assert store.acquire("t1", "c", 30)  # a holder that died frees it when the lease expires
