"""The server with the real embedded model: a chat run streamed over AG-UI from a live server."""

import sys
from pathlib import Path

import httpx
import pytest
from pydantic import TypeAdapter

sys.path.insert(0, str(Path(__file__).parents[1] / "serve"))
from ag_ui.core import Event  # noqa: E402
from scripted import Live, post_run, run_input  # noqa: E402

from orrery.chat import APP as CHAT  # noqa: E402
from orrery.serve import Settings, create_app  # noqa: E402

pytestmark = pytest.mark.integration


def test_chat_agent_with_the_embedded_model_streams_a_valid_run(tmp_path):
    server = Live(create_app(Settings(model="local", apps={"chat": CHAT}, data=tmp_path)))
    try:
        with httpx.Client(base_url=server.url, timeout=600) as c:
            events = post_run(c, "chat", run_input(thread="local", text="What is 17 * 23? Use the calculator."))
            stored = c.get("/threads/local").json()
    finally:
        server.stop()
    adapter = TypeAdapter(Event)
    for e in events:
        adapter.validate_python(e)
    types = [e["type"] for e in events]
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED", types
    assert events[-1]["outcome"] == {"type": "success"}
    calls = [e for e in events if e["type"] == "TOOL_CALL_START"]
    results = [e["content"] for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert calls and calls[0]["toolCallName"] == "calculate" and results[0] == "391"
    # The answer's quality is the model's; the server's part is that what streamed is the answer it kept.
    messages = {}
    for e in events:
        if e["type"] == "TEXT_MESSAGE_CONTENT":
            messages[e["messageId"]] = messages.get(e["messageId"], "") + e["delta"]
    assert list(messages.values())[-1].strip() == stored["messages"][-1]["content"].strip() != ""
