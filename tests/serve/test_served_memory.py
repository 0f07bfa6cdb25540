"""A served run's events go to the long-term memory (orrery.recall) over real HTTP: its tool results as observations
with their input, its task and answer as turns, scoped to the app and the thread; another thread never sees them."""

from __future__ import annotations

import httpx
import pytest
from scripted import post_run, run_input

from orrery.recall import LongTermMemory


@pytest.fixture
def http(live):
    with httpx.Client(base_url=live.url, timeout=60) as client:
        yield client


@pytest.mark.integration
def test_a_served_runs_observations_are_stored_and_another_thread_does_not_see_them(http, settings):
    post_run(http, "chat", run_input(thread="t1", run="r1", text="what is 6*7"))
    post_run(http, "chat", run_input(thread="t2", run="r2", text="what is 5+4"))
    db = settings.data / "sessions.db"

    def items(thread: str) -> list:
        return LongTermMemory.open(db, app="chat", thread=thread).items()

    [observation] = [i for i in items("t1") if i.kind == "observation"]
    assert (observation.tool, observation.input, observation.content, observation.ok) == (
        "calculate",
        {"expression": "6*7"},
        "42",
        True,
    )
    turns = sorted((i.tool, i.content) for i in items("t1") if i.kind == "turn")
    assert turns[0][0] == "assistant" and "42" in turns[0][1] and turns[1][0] == "user" and "6*7" in turns[1][1]
    assert not any("5+4" in i.content or "5+4" in str(i.input) for i in items("t1"))
    assert [i.input for i in items("t2") if i.kind == "observation"] == [{"expression": "5+4"}]
    assert items("t3") == [] and LongTermMemory.open(db, app="bi", thread="t1").items() == []  # nor another app
