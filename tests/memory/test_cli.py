"""`orrery memory`: list, search, remove items of a scope; list and remove approved examples; bad ids are exit 2."""

from __future__ import annotations

import sys

import pytest

from orrery.cli import main
from orrery.recall import ApprovedExamples, Item, LongTermMemory


def orrery(capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["orrery", *args])
    with pytest.raises(SystemExit) as exc:
        main()
    out = capsys.readouterr()
    return int(exc.value.code or 0), out.out, out.err


def test_list_search_and_remove_items_of_one_scope(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("orrery.recall.cli.console.width", 200)
    db = str(tmp_path / "m.db")
    mem = LongTermMemory.open(db, user="alice", thread="t1")
    [nvda, amd] = mem.remember(
        Item("observation", "NVDA trades at 100", "price"), Item("observation", "AMD news", "news")
    )
    LongTermMemory.open(db, user="bob", thread="t1").remember(Item("observation", "bob's secret", "note"))

    code, out, _ = orrery(capsys, monkeypatch, "memory", "list", "--db", db, "--user", "alice", "--thread", "t1")
    assert code == 0 and "NVDA trades at 100" in out and "AMD news" in out and "secret" not in out
    code, out, _ = orrery(
        capsys, monkeypatch, "memory", "search", "nvda price", "--db", db, "--user", "alice", "--thread", "t1"
    )
    assert "NVDA trades at 100" in out and "AMD" not in out
    assert (
        orrery(capsys, monkeypatch, "memory", "remove", str(nvda), "--db", db, "--user", "alice", "--thread", "t1")[0]
        == 0
    )
    assert [i.id for i in mem.items()] == [amd]
    code, _, err = orrery(
        capsys, monkeypatch, "memory", "remove", str(amd), "--db", db, "--user", "bob", "--thread", "t1"
    )  # not bob's item
    assert code == 2 and err.startswith("error: no item") and [i.id for i in mem.items()] == [amd]
    code, _, err = orrery(capsys, monkeypatch, "memory", "list", "--db", db, "--thread", "../etc")
    assert code == 2 and "not a valid id" in err and "Traceback" not in err


def test_examples_of_a_connection_are_listed_and_removed(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("orrery.recall.cli.console.width", 200)
    db = str(tmp_path / "m.db")
    ex = ApprovedExamples(db)
    first = ex.approve("tpch", "How many suppliers are there?", "SELECT COUNT(*) FROM supplier")
    code, out, _ = orrery(capsys, monkeypatch, "memory", "examples", "tpch", "--db", db)
    assert code == 0 and "How many suppliers are there?" in out and "SELECT COUNT(*) FROM supplier" in out
    assert orrery(capsys, monkeypatch, "memory", "remove-example", "tpch", str(first), "--db", db)[0] == 0
    assert ex.list("tpch") == []
    code, _, err = orrery(capsys, monkeypatch, "memory", "remove-example", "tpch", str(first), "--db", db)
    assert code == 2 and "no example" in err


class Recording:
    """A scripted model that keeps the messages of each call."""

    def __init__(self, turns):
        from orrery.llm.scripted import ScriptedModel

        self.inner, self.seen, self.name = ScriptedModel(turns), [], "recording"

    def complete(self, messages, tools=(), **kw):
        self.seen.append([m.content for m in messages])
        return self.inner.complete(messages, tools, **kw)


def test_chat_remember_keeps_a_threads_memory_and_shows_it_in_a_later_session(tmp_path, capsys, monkeypatch):
    from orrery.llm.scripted import call, turn

    monkeypatch.setenv("ORRERY_DATA_DIR", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    first = Recording([turn(call("calculate", expression="1234 * 5")), "It is 6170."])
    monkeypatch.setattr("orrery.llm.resolve_model", lambda _spec=None: first)
    assert orrery(capsys, monkeypatch, "chat", "--remember", "budget", "-m", "What is 1234 times 5?")[0] == 0

    later = Recording(["6170, as computed before."])
    monkeypatch.setattr("orrery.llm.resolve_model", lambda _spec=None: later)
    assert orrery(capsys, monkeypatch, "chat", "--remember", "budget", "-m", "What did 1234 times 5 give?")[0] == 0
    shown = "\n".join(later.seen[0])
    assert "Memories from earlier runs" in shown and "calculate" in shown and "6170" in shown

    other = Recording(["I don't know."])
    monkeypatch.setattr("orrery.llm.resolve_model", lambda _spec=None: other)
    assert orrery(capsys, monkeypatch, "chat", "--remember", "other", "-m", "What did 1234 times 5 give?")[0] == 0
    assert "Memories from earlier runs" not in "\n".join(other.seen[0])  # another thread's memory is not shown
