"""Issue 12, the date bound: every run is bound (to now when no date is given), batches require one,
and no document after the bound is returned, to the microsecond."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from reliability_fakes import DOCS, PolicyModel, question, write_docs, write_rows

from orrery.errors import DataError
from orrery.research.runner import run_batch
from orrery.research.search import SqliteIndex, build_index, open_index

BOUND = "2024-01-15"


@pytest.mark.parametrize("backend, name", [("sqlite", "i.sqlite"), ("tantivy", "i")])
def test_a_document_a_fraction_of_a_second_after_the_bound_is_not_returned(
    tmp_path: Path, backend: str, name: str
) -> None:
    rows = [
        {"id": "at", "title": "alpha", "text": "alpha", "date": "2024-01-15T00:00:00Z"},
        {"id": "ms-after", "title": "alpha", "text": "alpha", "date": "2024-01-15T00:00:00.999Z"},
        {"id": "us-after", "title": "alpha", "text": "alpha", "date": "2024-01-15T00:00:00.000001Z"},
        {"id": "us-before", "title": "alpha", "text": "alpha", "date": "2024-01-14T23:59:59.999999Z"},
    ]
    index = build_index(write_rows(tmp_path / "d.jsonl", rows), tmp_path / name, backend=backend)
    assert {d.id for d in index.search("alpha", 10, before=BOUND)} == {"at", "us-before"}
    late = index.get("ms-after")
    assert late.date == datetime(2024, 1, 15, 0, 0, 0, 999000, tzinfo=UTC)  # stored to the microsecond
    assert {d.id for d in index.search("alpha", 10, before=late.date)} == {"at", "us-before", "us-after", "ms-after"}


def test_an_index_built_with_second_precision_is_refused(tmp_path: Path, cli) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:  # the format 1 schema: whole seconds, rounded down
        conn.executescript(
            "CREATE TABLE docs (rowid INTEGER PRIMARY KEY, id TEXT, title TEXT, text TEXT, url TEXT, "
            "source TEXT, ts INTEGER); CREATE VIRTUAL TABLE docs_fts USING fts5(title, text);"
        )
    conn.close()
    with pytest.raises(DataError, match="an orrery index of format 1; build it again"):
        open_index(path)
    cli("research", "ask", "Will it?", "--index", path, "--before", BOUND).one_line_error("format 1")
    fresh = build_index(write_docs(tmp_path / "d.jsonl"), path)  # rebuilding over it is allowed
    assert len(fresh) == len(DOCS)


def test_ask_without_before_is_bound_to_now(tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    import orrery.research.agent as agent_module

    docs = [
        *DOCS,
        DOCS[0].__class__("undated", "Topic alpha rumours", "alpha alpha", None),
        DOCS[0].__class__("future", "Topic alpha future", "alpha", datetime.now(UTC) + timedelta(days=30)),
    ]
    index = SqliteIndex.create(tmp_path / "i.sqlite", docs).path
    monkeypatch.setattr(agent_module, "resolve_model", lambda spec: PolicyModel())
    start = datetime.now(UTC)
    run = cli("research", "ask", "Will topic alpha grow?", "--index", index, "--out", tmp_path / "a.json")
    assert run.code == 0, run.err
    saved = json.loads((tmp_path / "a.json").read_text())
    assert start <= datetime.fromisoformat(saved["before"]) <= datetime.now(UTC)
    assert saved["trajectory"]["events"][0]["options"]["before"] == saved["before"]
    found = next(e for e in saved["trajectory"]["events"] if e["kind"] == "tool_result")["content"]
    assert "id=d0" in found and "undated" not in found and "future" not in found
    assert f"Today is {saved['before'][:10]}" in saved["trajectory"]["messages"][1]["content"]


def test_a_batch_row_without_a_freeze_date_is_refused(tmp_path: Path) -> None:
    index = SqliteIndex.create(tmp_path / "i.sqlite", DOCS).path
    model = PolicyModel()
    with pytest.raises(DataError, match="line 2: freeze_date is missing: a batch question needs a date bound"):
        run_batch(
            [question("alpha"), {"id": "b", "question": "Will it?"}],
            tmp_path / "out",
            model,
            index=index,
            progress=False,
        )
    assert model.calls == 0
