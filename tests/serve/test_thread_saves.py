"""A run's record survives other runs saving the same thread first."""

from types import SimpleNamespace

import pytest

from orrery.serve.app import _save
from orrery.serve.threads import SessionConflict, Thread, ThreadStore


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
