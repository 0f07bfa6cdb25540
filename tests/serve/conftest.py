import json
import socket
import threading
import time

import pytest
import uvicorn
from fastapi.testclient import TestClient
from scripted import apps, model_for

from orrery.serve import Settings, create_app


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Live:
    """A uvicorn server on a thread of the test process."""

    def __init__(self, app):
        self.port = free_port()
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self):
        self.server.should_exit = True
        self.thread.join(10)


def sse_events(response) -> list[dict]:
    """The AG-UI events of an SSE response, parsed from its `data:` lines."""
    return [json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: ")]


def run_input(thread="t1", run="r1", text="what is 6*7", **extra) -> dict:
    return {"threadId": thread, "runId": run, "state": {}, "tools": [], "context": [], "forwardedProps": {},
            "messages": [{"id": f"m-{run}", "role": "user", "content": text}], **extra}


def post_run(client, agent, body, **kw) -> list[dict]:
    with client.stream("POST", f"/agents/{agent}", json=body, **kw) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        return sse_events(r)


@pytest.fixture
def settings(tmp_path):
    return Settings(llm=model_for, apps=apps(), data=tmp_path / "data")


@pytest.fixture
def client(settings):
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.fixture
def live(settings):
    server = Live(create_app(settings))
    yield server
    server.stop()
