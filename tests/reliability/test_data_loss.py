"""Issue 12, data loss: index builds never destroy what they did not create; batches validate first;
timed-out tools stop."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from reliability_fakes import DOCS, PolicyModel, question, write_docs, write_rows

from orrery.errors import DataError
from orrery.messages import ToolCall
from orrery.research.runner import run_batch
from orrery.research.search import SqliteIndex, TantivyIndex, build_index, open_index
from orrery.tools.core import RunContext, Toolset

BACKENDS = {"sqlite": "index.sqlite", "tantivy": "index"}


def listing(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- research index


def test_tantivy_index_into_a_users_folder_is_refused_and_deletes_nothing(tmp_path: Path, cli) -> None:
    src = write_docs(tmp_path / "docs.jsonl")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.md").write_text("my only copy")
    run = cli("research", "index", src, "--out", mine, "--backend", "tantivy")
    run.one_line_error("is an existing folder that is not an orrery index")
    assert listing(mine) == {"thesis.md": b"my only copy"}


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_index_out_that_is_the_source_folder_is_refused(tmp_path: Path, cli, backend: str) -> None:
    src = tmp_path / "src"
    src.mkdir()
    write_docs(src / "docs.jsonl")
    before = listing(src)
    cli("research", "index", src, "--out", src, "--backend", backend).one_line_error("is or contains the input")
    assert listing(src) == before


def test_index_out_that_is_the_input_file_is_refused(tmp_path: Path, cli) -> None:
    src = write_docs(tmp_path / "src.jsonl")
    before = src.read_bytes()
    cli("research", "index", src, "--out", src).one_line_error("is or contains the input")
    assert src.read_bytes() == before


def test_index_out_that_is_a_users_file_is_refused(tmp_path: Path, cli) -> None:
    src = write_docs(tmp_path / "src.jsonl")
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    cli("research", "index", src, "--out", notes).one_line_error("is an existing file that is not an orrery index")
    assert notes.read_text() == "keep me"


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_reindexing_a_bad_file_keeps_the_good_index(tmp_path: Path, cli, backend: str) -> None:
    out = tmp_path / BACKENDS[backend]
    good = write_docs(tmp_path / "good.jsonl")
    assert cli("research", "index", good, "--out", out, "--backend", backend).code == 0
    bad = write_rows(tmp_path / "bad.jsonl", [DOCS[0].to_json(), "{not json"])
    cli("research", "index", bad, "--out", out, "--backend", backend).one_line_error("bad.jsonl:2", "not a JSON")
    index = open_index(out)
    assert len(index) == 3 and [d.id for d in index.search("alpha")] == ["d0"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["good.jsonl", "bad.jsonl", out.name])  # no temp


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_reindexing_swaps_in_the_new_index_whole(tmp_path: Path, backend: str) -> None:
    out = tmp_path / BACKENDS[backend]
    build_index(write_docs(tmp_path / "a.jsonl"), out, backend=backend)
    reader = open_index(out)
    build_index(write_docs(tmp_path / "b.jsonl", DOCS[:1]), out, backend=backend)
    assert len(open_index(out)) == 1
    # an open reader sees one whole index: SQLite keeps its open file, tantivy reloads the new one
    assert len(reader) == (3 if backend == "sqlite" else 1)
    assert bool(reader.search("bravo")) == (backend == "sqlite")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["a.jsonl", "b.jsonl", out.name])


def test_a_source_with_no_documents_is_an_error_not_an_empty_index(tmp_path: Path, cli) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "data.csv").write_text("a,b\n1,2\n")
    cli("research", "index", empty, "--out", tmp_path / "i.sqlite").one_line_error("no documents found")
    assert not (tmp_path / "i.sqlite").exists()


def test_create_refuses_a_non_index_path_too(tmp_path: Path) -> None:
    (tmp_path / "f.sqlite").write_text("a user's file")
    with pytest.raises(DataError, match="not an orrery index"):
        SqliteIndex.create(tmp_path / "f.sqlite", DOCS)
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "x").write_text("x")
    with pytest.raises(DataError, match="not an orrery index"):
        TantivyIndex.create(tmp_path / "dir", DOCS)
    assert (tmp_path / "f.sqlite").read_text() == "a user's file" and (tmp_path / "dir" / "x").exists()


# --------------------------------------------------------------------------- research batch


@pytest.fixture
def index(tmp_path: Path) -> Path:
    return SqliteIndex.create(tmp_path / "index.sqlite", DOCS).path


def test_batch_refuses_duplicate_ids_before_any_model_call(tmp_path: Path, index: Path) -> None:
    model = PolicyModel()
    with pytest.raises(DataError, match=r"line 3: duplicate id 'alpha' \(first on line 1\)"):
        run_batch(
            [question("alpha"), question("bravo"), question("alpha", resolution=1)],
            tmp_path / "out",
            model,
            index=index,
            progress=False,
        )
    assert model.calls == 0 and not (tmp_path / "out").exists()


def test_batch_reports_every_bad_row_with_its_line_before_any_model_call(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    import orrery.research.runner as runner

    model = PolicyModel()
    monkeypatch.setattr(runner, "resolve_model", lambda spec: model)
    rows = write_rows(
        tmp_path / "q.jsonl",
        [
            question("alpha"),
            {"question": "no id", "freeze_date": "2024-02-01"},
            question(7),
            question("bravo", freeze_date="2024-13-45"),
            question("charlie", resolution=0.5),
            "{oops",
            question("delta", freeze_date=None),
        ],
    )
    run = cli("research", "batch", rows, "--out", tmp_path / "out", "--index", index)
    line = run.one_line_error("6 bad question row(s), nothing was run", "--skip-invalid")
    for n in (2, 3, 4, 5, 6, 7):
        assert f"line {n}:" in line
    assert "line 1:" not in line
    assert "2024-13-45" in line and "0.5" in line and "freeze_date is missing" in line
    assert model.calls == 0 and not (tmp_path / "out").exists()


def test_skip_invalid_runs_the_good_rows_and_writes_the_summary(
    tmp_path: Path, cli, index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import orrery.research.runner as runner

    monkeypatch.setattr(runner, "resolve_model", lambda spec: PolicyModel(p=0.7))
    rows = write_rows(
        tmp_path / "q.jsonl",
        [
            question("alpha", resolution=1),
            question("alpha", resolution=0),
            question("bravo", resolution=0.5),
            question("charlie", resolution=0),
        ],
    )
    run = cli("research", "batch", rows, "--out", tmp_path / "out", "--index", index, "--skip-invalid")
    assert run.code == 0, run.err
    assert "line 2: duplicate id 'alpha'" in run.out and "line 3: resolution must be 0, 1 or null" in run.out
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert [r["id"] for r in summary["rows"]] == ["alpha", "charlie"]
    assert summary["brier"]["n"] == 2  # each question counted once
    assert summary["brier"]["brier"] == pytest.approx(((0.7 - 1) ** 2 + 0.7**2) / 2)


# --------------------------------------------------------------------------- tool timeouts


def run_tool(tool_name: str, tools: list, **args) -> object:
    return Toolset(tools).run([ToolCall("1", tool_name, args)], RunContext())[0]


def test_a_process_tool_that_times_out_is_stopped_before_its_effect(tmp_path: Path) -> None:
    from reliability_fakes import slow_write

    target = tmp_path / "effect.txt"
    result = run_tool("slow_write", [slow_write], path=str(target), delay=1.5)
    assert not result.ok and "timed out after 0.5s and was stopped" in result.content
    time.sleep(1.5)  # past the moment the tool would have written
    assert not target.exists()
    done = run_tool("slow_write", [slow_write], path=str(target), delay=0)
    assert done.ok and done.content == "wrote it" and target.read_text() == "written"


def test_a_thread_tool_that_times_out_is_told_to_stop_and_can(tmp_path: Path) -> None:
    from reliability_fakes import polite_write

    target = tmp_path / "effect.txt"
    result = run_tool("polite_write", [polite_write], path=str(target), delay=1.0)
    assert not result.ok and "timed out after 0.3s and was asked to stop" in result.content
    time.sleep(1.0)
    assert not target.exists()


def test_a_tools_own_timeout_error_is_reported_as_itself() -> None:
    from reliability_fakes import own_timeout

    result = run_tool("own_timeout", [own_timeout])
    assert not result.ok
    assert "raised TimeoutError: upstream did not answer in 3s" in result.content
    assert "None" not in result.content


def test_a_process_tool_that_dies_is_a_tool_error() -> None:
    from reliability_fakes import crash

    result = run_tool("crash", [crash])
    assert not result.ok and "the tool's process died" in result.content


def test_a_process_tool_must_be_importable_by_its_process() -> None:
    from orrery.errors import ConfigError
    from orrery.tools.core import tool

    with pytest.raises(ConfigError, match="module level"):

        @tool(process=True)
        def local() -> str:
            """Defined inside a function: a process could not import it."""
            return "x"


def test_where_folders_cannot_be_exchanged_the_old_index_survives_a_failed_swap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    import orrery.files

    out = tmp_path / "index"
    build_index(write_docs(tmp_path / "a.jsonl"), out, backend="tantivy")
    monkeypatch.setattr(orrery.files, "_exchange", lambda a, b: False)  # e.g. not Linux: two renames
    real_rename = os.rename

    def second_rename_fails(src, dst):
        if Path(src).name.endswith(".tmp") and Path(dst) == out:
            raise OSError("disk gone")
        return real_rename(src, dst)

    monkeypatch.setattr(os, "rename", second_rename_fails)
    with pytest.raises(OSError, match="disk gone"):
        build_index(write_docs(tmp_path / "b.jsonl", DOCS[:1]), out, backend="tantivy")
    assert len(open_index(out)) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl", "index"]
    monkeypatch.setattr(os, "rename", real_rename)
    build_index(write_docs(tmp_path / "b.jsonl", DOCS[:1]), out, backend="tantivy")
    assert len(open_index(out)) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl", "index"]


def test_a_process_tools_worker_serves_later_calls_until_it_times_out() -> None:
    import os

    from reliability_fakes import worker_pid

    first = run_tool("worker_pid", [worker_pid], delay=0).value
    assert first != os.getpid() and run_tool("worker_pid", [worker_pid], delay=0).value == first
    assert not run_tool("worker_pid", [worker_pid], delay=2).ok  # timed out: that worker is killed
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)
    assert run_tool("worker_pid", [worker_pid], delay=0).value not in (first, os.getpid())


def test_ask_out_never_replaces_a_file_orrery_did_not_write(
    tmp_path: Path, cli, index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import orrery.research.agent as agent_module

    monkeypatch.setattr(agent_module, "resolve_model", lambda spec: PolicyModel())
    ask = ("research", "ask", "Will topic alpha grow?", "--index", index, "--before", "2024-02-01", "--out")
    mine = tmp_path / "results.json"
    mine.write_text('{"my": "data"}')
    cli(*ask, mine).one_line_error("exists and is not a research trajectory")
    assert mine.read_text() == '{"my": "data"}'
    (tmp_path / "run.trace.jsonl").write_text("my notes\n")
    cli(*ask, tmp_path / "run.json").one_line_error("is not an orrery trace")
    assert (tmp_path / "run.trace.jsonl").read_text() == "my notes\n" and not (tmp_path / "run.json").exists()

    out = tmp_path / "ask.json"
    for _ in range(2):  # a rerun replaces its own trajectory and restarts its own trace
        assert cli(*ask, out).code == 0
    kinds = [json.loads(line)["kind"] for line in out.with_suffix(".trace.jsonl").read_text().splitlines()]
    assert kinds.count("run_start") == 1 and json.loads(out.read_text())["probability"] == 0.7


def test_batch_out_never_replaces_a_users_files(tmp_path: Path, index: Path) -> None:
    out = tmp_path / "docs"
    out.mkdir()
    (out / "alpha.json").write_text('{"my": "notes"}')  # what the trajectory of question "alpha" would be
    (out / "bravo.trace.jsonl").write_text("my log\n")
    (out / "summary.json").write_text('{"quarter": 3}')
    model = PolicyModel()
    with pytest.raises(
        DataError,
        match=r"holds files a batch would replace.*alpha.json, bravo.trace.jsonl, "
        r"summary.json",
    ):
        run_batch([question("alpha"), question("bravo")], out, model, index=index, progress=False)
    assert model.calls == 0
    assert listing(out) == {
        "alpha.json": b'{"my": "notes"}',
        "bravo.trace.jsonl": b"my log\n",
        "summary.json": b'{"quarter": 3}',
    }
    (out / "summary.json").unlink()
    done = run_batch([question("charlie")], out, model, index=index, progress=False)  # no clash: runs beside
    assert done.summary["statuses"] == {"completed": 1} and (out / "alpha.json").read_text() == '{"my": "notes"}'
