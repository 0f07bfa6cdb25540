"""Issue 12, exit codes and errors: every failed run exits non-zero, bad input is one line (exit 2)
naming what to fix (and the file and line), never a traceback, and outputs are checked before work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from reliability_fakes import DOCS, PolicyModel, question, write_docs, write_rows

from orrery.errors import ModelError
from orrery.research.search import SqliteIndex


@pytest.fixture
def index(tmp_path: Path) -> Path:
    return SqliteIndex.create(tmp_path / "index.sqlite", DOCS).path


def test_ask_with_an_unreachable_model_exits_non_zero(tmp_path: Path, cli, index: Path, no_retry_wait) -> None:
    run = cli(
        "research",
        "ask",
        "Will topic alpha grow?",
        "--index",
        index,
        "--before",
        "2024-02-01",
        "--llm",
        "http://127.0.0.1:9/v1",
        "--out",
        tmp_path / "a.json",
    )
    assert run.code == 1, run.out + run.err
    last = run.err.strip().splitlines()[-1]  # after the live step view
    assert last.startswith("error: the run failed: cannot reach http://127.0.0.1:9/v1/")
    assert json.loads((tmp_path / "a.json").read_text())["status"] == "error"  # the failure is still recorded


def test_ask_that_ends_without_a_forecast_exits_non_zero(cli, index: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import orrery.research.agent as agent_module

    monkeypatch.setattr(agent_module, "resolve_model", lambda spec: PolicyModel())
    run = cli(
        "research", "ask", "Will topic alpha grow?", "--index", index, "--before", "2024-02-01", "--steps", "2"
    )  # search, add_source: no step left to submit
    assert run.code == 1
    assert run.err.strip().splitlines()[-1].startswith("error: no forecast: the run ended with status max_rounds")
    assert cli("research", "ask", "Will topic alpha grow?", "--index", index, "--before", "2024-02-01").code == 0


class FailsOn(PolicyModel):
    def __init__(self, word: str) -> None:
        super().__init__()
        self.word = word

    def complete(self, messages, tools=(), **kw: Any):
        if self.word in messages[1].content:
            raise ModelError("the provider answered 503 after 3 retries")
        return super().complete(messages, tools, **kw)


def test_a_batch_with_a_failed_question_exits_non_zero(
    tmp_path: Path, cli, index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import orrery.research.runner as runner

    monkeypatch.setattr(runner, "resolve_model", lambda spec: FailsOn("bravo"))
    rows = write_rows(tmp_path / "q.jsonl", [question("alpha"), question("bravo")])
    run = cli("research", "batch", rows, "--out", tmp_path / "out", "--index", index)
    assert run.code == 1 and "1 question(s) failed" in run.err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["statuses"] == {"completed": 1, "error": 1}


def bad_docs(tmp_path: Path, row: Any) -> Path:
    return write_rows(tmp_path / "d.jsonl", [DOCS[0].to_json(), row])


@pytest.mark.parametrize(
    "args, parts",
    [
        (["research", "ask", "Q?", "--before", "2024-13-01"], ["date bound", "'2024-13-01' is not a date"]),
        (["research", "ask", "Q?", "--before", ""], ["date bound", "is not a date"]),
        (["research", "ask", "Q?", "--index", "/nonexistent"], ["index /nonexistent does not exist"]),
        (["research", "ask", "Q?", "--before", "2024-01-01", "--out", "report.txt"], ["ending in .json"]),
        (["research", "index", "{docs}", "--out", "{tmp}/i", "--backend", "lucene"], ["unknown backend 'lucene'"]),
        (["research", "index", "/nonexistent.jsonl", "--out", "{tmp}/i"], ["/nonexistent.jsonl does not exist"]),
    ],
)
def test_bad_arguments_are_one_line_errors(tmp_path: Path, cli, args: list[str], parts: list[str]) -> None:
    docs = write_docs(tmp_path / "docs.jsonl")
    cli(*(a.format(tmp=tmp_path, docs=docs) for a in args)).one_line_error(*parts)


@pytest.mark.parametrize(
    "row, parts",
    [
        ("{broken", ["d.jsonl:2: not a JSON object"]),
        ({"id": "x", "text": "a", "date": "2024-13-45"}, ["d.jsonl:2:", "'2024-13-45' is not a date"]),
        ({"id": "x", "text": "a", "date": 1705276800000}, ["d.jsonl:2:", "milliseconds? divide by 1000"]),
        ({"id": "d0", "text": "a"}, ["d.jsonl:2: duplicate document id 'd0' (first at", "d.jsonl:1)"]),
        ({"title": "no id", "text": "a"}, ["d.jsonl:2: id is missing or empty"]),
        ([1, 2], ["d.jsonl:2: a document must be a JSON object"]),
    ],
)
def test_bad_documents_are_one_line_errors_with_file_and_line(tmp_path: Path, cli, row: Any, parts: list[str]) -> None:
    cli("research", "index", bad_docs(tmp_path, row), "--out", tmp_path / "i.sqlite").one_line_error(*parts)
    assert not (tmp_path / "i.sqlite").exists()


def test_bad_markdown_date_names_the_file(tmp_path: Path, cli) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "note.md").write_text("---\ndate: yesterday\n---\n# Note\n")
    cli("research", "index", tmp_path / "src", "--out", tmp_path / "i.sqlite").one_line_error(
        "note.md:", "'yesterday' is not a date"
    )


@pytest.mark.parametrize("content", [b"id,question\n1,Will it?\n", b"\x00\xff garbage" * 100, b""])
def test_a_file_that_is_not_an_index_is_refused_before_any_step(
    tmp_path: Path, cli, content: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    import orrery.research.agent as agent_module

    model = PolicyModel()
    monkeypatch.setattr(agent_module, "resolve_model", lambda spec: model)
    fake = tmp_path / "index.csv"
    fake.write_bytes(content)
    cli("research", "ask", "Will it?", "--index", fake, "--before", "2024-01-01").one_line_error(
        "is not an orrery index", "orrery research index"
    )
    assert model.calls == 0


def test_outputs_are_checked_before_the_work(tmp_path: Path, cli, index: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import orrery.research.agent as agent_module
    import orrery.research.runner as runner

    model = PolicyModel()
    monkeypatch.setattr(agent_module, "resolve_model", lambda spec: model)
    monkeypatch.setattr(runner, "resolve_model", lambda spec: model)
    rows = write_rows(tmp_path / "q.jsonl", [question("alpha")])
    cli("research", "ask", "Q?", "--index", index, "--before", "2024-01-01", "--out", rows / "a.json").one_line_error(
        "is not a writable folder"
    )  # under a file: unwritable
    cli("research", "batch", rows, "--out", rows, "--index", index).one_line_error("is a file")
    assert model.calls == 0


@pytest.mark.parametrize("option, value", [("--rpm", "-1"), ("--workers", "0"), ("--steps", "0"), ("--limit", "0")])
def test_numeric_options_out_of_range_are_refused_before_any_work(tmp_path: Path, cli, option: str, value: str) -> None:
    rows = write_rows(tmp_path / "q.jsonl", [question("alpha")])
    run = cli("research", "batch", rows, "--out", tmp_path / "out", option, value)
    assert run.code == 2 and option in run.err and "Traceback" not in run.err
    assert not (tmp_path / "out").exists()


def test_a_byte_order_mark_is_not_a_bad_line(tmp_path: Path, cli) -> None:
    docs = tmp_path / "d.jsonl"
    docs.write_bytes(b"\xef\xbb\xbf" + json.dumps(DOCS[0].to_json()).encode() + b"\n")
    run = cli("research", "index", docs, "--out", tmp_path / "i.sqlite")
    assert run.code == 0 and "indexed 1 documents" in run.out


def test_chat_with_an_unreachable_model_exits_non_zero(tmp_path: Path, cli, monkeypatch, no_retry_wait) -> None:
    monkeypatch.chdir(tmp_path)  # the default trace goes under .orrery/ here
    run = cli("chat", "--model", "http://127.0.0.1:9/v1", "-m", "What is 2+2?")
    assert run.code == 1 and "cannot reach http://127.0.0.1:9/v1/" in run.out + run.err
