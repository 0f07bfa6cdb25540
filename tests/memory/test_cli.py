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
    [nvda, amd] = mem.remember(Item("observation", "NVDA trades at 100", "price"), Item("observation", "AMD news", "news"))
    LongTermMemory.open(db, user="bob", thread="t1").remember(Item("observation", "bob's secret", "note"))

    code, out, _ = orrery(capsys, monkeypatch, "memory", "list", "--db", db, "--user", "alice", "--thread", "t1")
    assert code == 0 and "NVDA trades at 100" in out and "AMD news" in out and "secret" not in out
    code, out, _ = orrery(capsys, monkeypatch, "memory", "search", "nvda price", "--db", db, "--user", "alice",
                          "--thread", "t1")
    assert "NVDA trades at 100" in out and "AMD" not in out
    assert orrery(capsys, monkeypatch, "memory", "remove", str(nvda), "--db", db, "--user", "alice",
                  "--thread", "t1")[0] == 0
    assert [i.id for i in mem.items()] == [amd]
    code, _, err = orrery(capsys, monkeypatch, "memory", "remove", str(amd), "--db", db, "--user", "bob",
                          "--thread", "t1")  # not bob's item
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
