"""Shared by the reliability tests (imported by name: tests/ has no packages)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from orrery.llm.scripted import call
from orrery.messages import Message, ModelResponse, ToolSpec, Usage
from orrery.research.types import Document
from orrery.tools.core import cancelled, tool

DOCS = [
    Document(
        f"d{i}", f"Topic {w} report", f"News about topic {w}: things happened.", datetime(2024, 1, 1 + i, tzinfo=UTC)
    )
    for i, w in enumerate(["alpha", "bravo", "charlie"])
]


def write_docs(path: Path, docs: Sequence[Document] = DOCS) -> Path:
    path.write_text("".join(json.dumps(d.to_json()) + "\n" for d in docs), encoding="utf-8")
    return path


def write_rows(path: Path, rows: Sequence[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def question(qid: Any, **extra: Any) -> dict[str, Any]:
    return {"id": qid, "question": f"Will topic {qid} grow?", "freeze_date": "2024-02-01", **extra}


class PolicyModel:
    """Thread-safe: search the question, keep the first hit, submit `p`; counts its calls."""

    name = "policy"

    def __init__(self, p: float = 0.7) -> None:
        self.p, self.calls, self._lock = p, 0, threading.Lock()

    def complete(self, messages: Sequence[Message], _tools: Sequence[ToolSpec] = (), **_: Any) -> ModelResponse:
        with self._lock:
            self.calls += 1
        last = messages[-1]
        if last.role == "tool" and last.name == "search" and (m := re.search(r"id=(\S+)", last.content)):
            c = call("add_source", id=m.group(1), why="on topic")
        elif last.role == "tool" and last.name == "add_source":
            c = call("submit", probability=self.p, rationale="The report [1].")
        else:
            c = call("search", query=messages[1].content.splitlines()[0].removeprefix("Question: "))
        return ModelResponse("", [c], Usage(10, 5))


@tool(timeout=0.5, process=True)
def slow_write(path: str, delay: float) -> str:
    """Waits, then writes a file: an effect that must not happen after a timeout.

    Args:
        path: the file to write
        delay: seconds to wait first
    """
    time.sleep(delay)
    Path(path).write_text("written", encoding="utf-8")
    return "wrote it"


@tool(timeout=0.3)
def polite_write(path: str, delay: float) -> str:
    """Waits in small steps, checking cancelled(); writes only if still wanted.

    Args:
        path: the file to write
        delay: seconds to wait first
    """
    end = time.monotonic() + delay
    while time.monotonic() < end:
        if cancelled():
            return "stopped"
        time.sleep(0.02)
    Path(path).write_text("written", encoding="utf-8")
    return "wrote it"


@tool(timeout=5)
def own_timeout() -> str:
    """Fails with its own TimeoutError (e.g. an HTTP client's)."""
    raise TimeoutError("upstream did not answer in 3s")


@tool(timeout=5, process=True)
def crash() -> str:
    """Kills its own process."""
    import os

    os.abort()


@tool(timeout=0.5, process=True)
def worker_pid(delay: float) -> int:
    """The id of the process running the call, after a wait.

    Args:
        delay: seconds to wait first
    """
    import os

    time.sleep(delay)
    return os.getpid()
