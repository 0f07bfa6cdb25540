"""A test app for tests/mcp/test_server.py: its agent reports progress every 0.05 s for a minute and records when
its stream is closed (the server's cancellation reaching the run)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

from orrery.apps import App
from orrery.events import Event, Final, Progress

CLOSED = threading.Event()


class SlowAgent:
    def stream(self, _message: str) -> Iterator[Event]:
        try:
            for i in range(1200):
                yield Progress("waiting", i + 1, 1200)
                time.sleep(0.05)
            yield Final("completed", "done", None)
        except GeneratorExit:
            CLOSED.set()
            raise


def factory(_llm: object = None) -> SlowAgent:
    return SlowAgent()


APP = App(name="slow", description="Waits a minute, reporting progress.", agent="slow_app:factory", message="anything")
