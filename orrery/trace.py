"""Every run as JSON lines: `TraceWriter` (an event handler) and `read_trace`/`is_trace`. Re-running a trace is
`orrery.replay`'s, beside the CLI: this module loads neither the agent package nor the app registry."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from orrery.errors import DataError
from orrery.events import Event
from orrery.files import read_lines


class TraceWriter:
    """An event handler appending one JSON line per event (flushed, so a crash loses nothing)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def __call__(self, event: Event) -> None:
        line = json.dumps({"t": time.time(), **event.to_dict()}, default=str)
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")


def read_trace(path: str | Path) -> list[dict[str, Any]]:
    events = []
    for n, line in read_lines(path, what="trace"):
        if line.strip():
            try:
                event = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{n}: not a JSON event ({exc.msg}); is this an orrery trace?") from None
            if not isinstance(event, dict) or not isinstance(event.get("kind"), str):
                raise DataError(f"{path}:{n}: not an orrery event (no 'kind'); is this an orrery trace?")
            events.append(event)
    return events


def is_trace(path: str | Path) -> bool:
    """Whether ``path`` is a regular file whose first line is an orrery event."""
    try:
        for _, line in read_lines(path, what="trace"):
            event = json.loads(line)
            return isinstance(event, dict) and isinstance(event.get("kind"), str)
    except (DataError, json.JSONDecodeError):
        return False
    return True  # empty: a run that was stopped before its first event
