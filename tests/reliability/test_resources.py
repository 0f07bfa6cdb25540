"""Issue 12, resources: bounded work for the calculator and search, and only regular, capped input files."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from reliability_fakes import DOCS, write_docs

import orrery.files
from orrery.errors import DataError, ToolError
from orrery.research.search import MAX_K, SqliteIndex, TantivyIndex
from orrery.tools.builtin import MAX_INT_BITS, calculate, safe_eval


@pytest.mark.parametrize(
    "expression",
    [
        "((9**999)**999)**999",
        "9**999 * 9**999 * 9**999",
        "2**4097",
        "round(3, -10**9)",
        "10.0**400",
        "exp(1000)",
        "sqrt(9**999)",
    ],
)
def test_the_calculator_refuses_work_it_cannot_finish_quickly(expression: str) -> None:
    t0 = time.monotonic()
    with pytest.raises(ToolError, match="too large|overflows|at most"):
        safe_eval(expression)
    assert time.monotonic() - t0 < 1.0  # refused before computing, not after


def test_the_calculator_still_computes_large_but_bounded_numbers() -> None:
    assert safe_eval("2**4095").bit_length() == 4096 <= MAX_INT_BITS
    assert calculate.fn("9**999 // 9**998") == "9"
    assert calculate.fn("sqrt(2) / 3").startswith("0.4714")
    with pytest.raises(ToolError, match="the limit is 500"):
        safe_eval("1+" * 300 + "1")
    with pytest.raises(ToolError, match="math domain error"):
        safe_eval("sqrt(-1)")


@pytest.mark.integration  # a real subprocess
@pytest.mark.parametrize("backend", ["sqlite", "tantivy"])
def test_a_huge_k_is_capped_instead_of_aborting_the_process(tmp_path: Path, backend: str) -> None:
    # In a child process: an uncapped k made tantivy abort (Rust OOM), which would end the whole test run.
    cls = {"sqlite": SqliteIndex, "tantivy": TantivyIndex}[backend]
    index = cls.create(tmp_path / "i", DOCS)
    code = textwrap.dedent(f"""
        from orrery.research.search import open_index
        docs = open_index({str(index.path)!r}).search("topic report", k=10**12)
        print(len(docs))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(len(DOCS)) and MAX_K == 100


def test_a_fifo_or_a_device_as_input_is_refused_without_blocking(tmp_path: Path, cli) -> None:
    fifo = tmp_path / "docs.jsonl"
    os.mkfifo(fifo)  # opening it for reading would block forever
    cli("research", "index", fifo, "--out", tmp_path / "i.sqlite").one_line_error("not a regular file")
    cli("research", "index", "/dev/zero", "--out", tmp_path / "i.sqlite").one_line_error("not a regular file")
    cli("research", "batch", fifo, "--out", tmp_path / "b").one_line_error("question file", "not a regular file")
    cli("replay", "/dev/zero", "--tools", "orrery.tools.builtin:DEFAULT_TOOLS").one_line_error("not a regular file")
    folder = tmp_path / "src"
    folder.mkdir()
    os.mkfifo(folder / "pipe.jsonl")  # inside a folder: skipped, the regular files are indexed
    write_docs(folder / "docs.jsonl")
    assert cli("research", "index", folder, "--out", tmp_path / "i.sqlite").code == 0


def test_input_files_are_capped_in_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli) -> None:
    big = write_docs(tmp_path / "docs.jsonl")
    monkeypatch.setattr(orrery.files, "MAX_INPUT_BYTES", 100)
    cli("research", "index", big, "--out", tmp_path / "i.sqlite").one_line_error("over the 100-byte limit")
    with pytest.raises(DataError, match="over the 100-byte limit"):
        orrery.files.input_file(big)
