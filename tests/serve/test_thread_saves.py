"""A run's record survives other runs saving the same thread first."""

import json
from types import SimpleNamespace

import pytest

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
    legacy = {"kind": "thread", "title": "old", "messages": [], "state": {}, "pending": None,
              "runs": [{"run_id": "r0", "status": "completed", "events": [{"type": "OLD"}]}]}
    store.sessions.save(Session("t0", "chat", legacy))
    thread = store.load("t0")
    assert thread.runs[0]["events"] == [{"type": "OLD"}]
    store.save(thread)
    assert store.load("t0").runs[0]["events"] == [{"type": "OLD"}]
    assert store.sessions.load("t0/runs/r0") is not None
