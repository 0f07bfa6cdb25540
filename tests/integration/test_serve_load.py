"""50 concurrent streaming sessions against one server process with a scripted model: each checks its own
complete ordered sequence (nothing lost, duplicated or interleaved), while another client walks away mid-stream."""

import asyncio
import json
import sys
from pathlib import Path

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "serve"))
from scripted import CHAT_EVENTS, ServerProcess, run_input  # noqa: E402

pytestmark = pytest.mark.integration
SESSIONS = 50


async def session(client: httpx.AsyncClient, i: int) -> list[dict]:
    body = run_input(thread=f"load-{i}", run=f"run-{i}", text=f"what is {i}*{i + 7}")
    async with client.stream("POST", "/agents/chat", json=body) as r:
        assert r.status_code == 200
        return [json.loads(line[6:]) async for line in r.aiter_lines() if line.startswith("data: ")]


async def abandon(client: httpx.AsyncClient) -> int:
    body = run_input(thread="walked-away", run="run-gone", text="count slowly")
    async with client.stream("POST", "/agents/steps", json=body) as r:
        seen = 0
        async for line in r.aiter_lines():
            seen += line.startswith("data: ")
            if seen == 5:
                return seen  # leave without reading the rest
    return seen


def check(events: list[dict], i: int) -> None:
    assert [e["type"] for e in events] == CHAT_EVENTS, i
    assert events[0]["threadId"] == f"load-{i}" and events[-1]["runId"] == f"run-{i}"
    assert json.loads(events[9]["delta"]) == {"expression": f"{i}*{i + 7}"}
    assert events[11]["content"] == str(i * (i + 7)) and events[11]["toolCallId"] == events[8]["toolCallId"]
    answer = events[14:19]
    assert "".join(e["delta"] for e in answer[1:4]) == f"{i}*{i + 7} = {i * (i + 7)}"
    assert len({e["messageId"] for e in answer}) == 1


async def load(url: str) -> tuple[list[list[dict]], int]:
    limits = httpx.Limits(max_connections=SESSIONS + 5)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        *results, left_after = await asyncio.gather(*(session(client, i) for i in range(SESSIONS)), abandon(client))
    return results, left_after


def test_fifty_concurrent_sessions_each_get_their_own_complete_sequence(tmp_path):
    server = ServerProcess(tmp_path / "data")
    try:
        results, left_after = asyncio.run(load(server.url))
        assert left_after == 5
        for i, events in enumerate(results):
            check(events, i)
        with httpx.Client(base_url=server.url, timeout=60) as c:
            threads = {t["id"] for t in c.get("/threads").json()}
            assert {f"load-{i}" for i in range(SESSIONS)} <= threads
            gone = c.get("/threads/walked-away").json()["runs"][0]
            assert gone["status"] == "cancelled"
            assert [e["type"] for e in gone["events"]].count("STEP_STARTED") < 20  # stopped before its 20 steps
            check(asyncio.run(load_one(server.url)), 3)  # and the server still serves
    finally:
        server.stop()


async def load_one(url: str) -> list[dict]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        body = run_input(thread="after", run="run-3", text="what is 3*10")
        async with client.stream("POST", "/agents/chat", json=body) as r:
            events = [json.loads(line[6:]) async for line in r.aiter_lines() if line.startswith("data: ")]
    events[0]["threadId"] = "load-3"  # the check names threads by index
    return events
