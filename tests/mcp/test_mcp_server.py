"""`orrery mcp`: the apps as MCP tools, driven by the official `mcp` Python client over streamable HTTP (a real
uvicorn server on 127.0.0.1) and over stdio (`python -m orrery mcp` as a subprocess)."""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest
import uvicorn
from mcp import Client, StdioServerParameters

from orrery.apps import discover
from orrery.errors import DataError
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.mcp import MCPServerError, MCPServerHTTP
from orrery.mcp.server import Catalogue, Settings, http_app

sys.path.insert(0, str(Path(__file__).parent))
import slow_app  # noqa: E402
from forecast.test_agent import WORKFLOW, grounded_narrative  # noqa: E402

SAMPLES = Path(__file__).parents[2] / "orrery" / "forecast" / "samples"


def test_input_schemas_are_typed_from_the_apps_declared_inputs():
    cat = Catalogue(Settings(files=SAMPLES, dbs=("tpch", "chinook")))
    forecast = cat.schemas["forecast"]["properties"]
    assert {"type": "integer", "minimum": 1, "maximum": 10_000} in forecast["h"]["anyOf"]  # the app's own model
    assert forecast["data"]["type"] == "string" and "data_csv" in forecast
    assert cat.schemas["research"]["required"] == ["message"]
    assert cat.schemas["bi"]["properties"]["db"]["enum"] == ["tpch", "chinook"]
    assert set(cat.schemas["markets"]["properties"]) == {"message"}  # the store is the operator's, never offered


@pytest.mark.parametrize(
    "tool, arguments, says",
    [
        ("forecast", {"data": "../../../etc/passwd"}, "not a .csv/.parquet/.pq file inside the server's data folder"),
        ("forecast", {"data": str(SAMPLES / "air_passengers.csv")}, "inside the server's data folder"),
        ("forecast", {"data": "missing.csv"}, "does not exist"),
        ("forecast", {"data": "air_passengers.csv", "h": "twelve"}, "h: 'twelve' is not valid under any of the given"),
        ("forecast", {"data": "air_passengers.csv", "path": "x"}, "Additional properties are not allowed"),
        ("forecast", {}, "data: Field required (send data or data_csv)"),
        ("bi", {"message": "How many?", "db": "/etc/passwd"}, "db: '/etc/passwd' does not match"),
        ("bi", {"message": "How many?", "db": "postgresql://u@h/db"}, "db: 'postgresql://u@h/db' does not match"),
        ("research", {"question": "Will it rain?"}, "'message' is a required property"),
    ],
)
def test_nothing_a_client_names_is_a_server_path(tool, arguments, says):
    cat = Catalogue(Settings(files=SAMPLES))
    with pytest.raises(DataError) as info:
        cat.check(tool, arguments)
    assert says in str(info.value)


def test_each_bi_call_gets_a_session_of_its_own():
    cat = Catalogue(Settings())
    sessions = {cat.check("bi", {"message": "How many customers?", "db": "tpch"})[2]["session_id"] for _ in range(2)}
    assert len(sessions) == 2


def test_an_upload_is_capped_and_lands_in_the_servers_upload_folder(tmp_path):
    cat = Catalogue(Settings(uploads=tmp_path, max_upload_bytes=100))
    _, _, _, inputs = cat.check("forecast", {"data_csv": "date,value\n2020-01-01,1\n"})
    assert Path(inputs["data"]).parent.parent == tmp_path
    with pytest.raises(Exception, match="over the server's limit of 100 bytes"):
        cat.check("forecast", {"data_csv": "x" * 101})


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HTTPServer:
    """`orrery mcp --transport http`'s app under uvicorn on a thread of this process."""

    def __init__(self, settings: Settings, token: str | None = None):
        self.port = _port()
        self.server = uvicorn.Server(
            uvicorn.Config(http_app(settings, token=token), host="127.0.0.1", port=self.port, log_level="warning")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        return f"http://127.0.0.1:{self.port}/mcp"

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.mark.integration
def test_the_python_client_lists_tools_forecasts_a_sample_file_with_progress_and_chats():
    apps = discover()
    model = ScriptedModel([*WORKFLOW, grounded_narrative, turn(call("calculate", expression="6*7")), "It is 42."])
    settings = Settings(model=model, files=SAMPLES, apps={"forecast": apps["forecast"], "chat": apps["chat"]})
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(done, total, message):
        progress.append((done, total, message))

    async def session(url):
        async with Client(url) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            result = await client.call_tool(
                "forecast", {"data": "air_passengers.csv", "h": 6}, progress_callback=on_progress
            )
            chat = await client.call_tool("chat", {"message": "What is 6*7?"})
            return tools, result, chat

    with HTTPServer(settings) as url:
        tools, result, chat = anyio.run(session, url)
    assert not chat.is_error and chat.content[0].text == "It is 42."
    data = chat.structured_content  # the result's `data` (orrery.results): status, output and what the run did
    assert (data["status"], data["output"]) == ("completed", "It is 42.")
    assert data["tool_calls"] == [{"tool": "calculate", "ok": True}]
    assert set(tools) == {"forecast", "chat"}
    assert {"type": "integer", "minimum": 1, "maximum": 10_000} in tools["forecast"].input_schema["properties"]["h"][
        "anyOf"
    ]
    assert not result.is_error
    data = result.structured_content
    assert data["best_model"] in ("AutoETS", "AutoTheta") and len(data["forecasts"]) == 6
    assert "The best model is" in result.content[0].text
    assert ("forecast" in {m for _, _, m in progress}) and all(total and done <= total for done, total, _ in progress)


@pytest.mark.integration
def test_a_cancelled_call_stops_the_run_on_the_server():
    slow_app.CLOSED.clear()
    settings = Settings(apps={"slow": slow_app.APP})
    seen = []

    async def session(url):
        async with Client(url) as client:

            async def on_progress(done, _total, _message):
                seen.append(done)

            with anyio.move_on_after(1.0):  # the caller gives up: the SDK sends notifications/cancelled
                await client.call_tool("slow", {"message": "go"}, progress_callback=on_progress)
            await anyio.sleep(0.5)

    with HTTPServer(settings) as url:
        started = time.monotonic()
        anyio.run(session, url)
        assert slow_app.CLOSED.wait(5), "the server did not close the app's run"
    assert seen and time.monotonic() - started < 15


@pytest.mark.integration
def test_http_needs_the_token_when_one_is_set():
    import httpx

    with HTTPServer(Settings(apps={"slow": slow_app.APP}), token="s3cret") as url:
        assert httpx.post(url, json={}).status_code == 401
        with MCPServerHTTP(url, headers={"Authorization": "Bearer s3cret"}) as server:  # orrery's own client
            assert [t.name for t in server.open()] == ["mcp_slow"]
            server.close()
        with pytest.raises(MCPServerError, match="could not start"):
            MCPServerHTTP(url, headers={"Authorization": "Bearer wrong"}, connect_timeout=10).open()


@pytest.mark.integration
def test_orrery_mcp_over_stdio_refuses_paths_and_bad_arguments():
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "orrery", "mcp", "--files", str(SAMPLES)],
        cwd=str(Path(__file__).parents[2]),
    )

    async def session():
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            escape = await client.call_tool("forecast", {"data": "../../../../etc/passwd"})
            bad = await client.call_tool("research", {"message": 42})
            unknown = await client.call_tool("nope", {})
            return names, escape, bad, unknown

    names, escape, bad, unknown = anyio.run(session)
    assert {"forecast", "research", "markets", "bi", "chat"} <= set(names)
    assert escape.is_error and "inside the server's data folder" in escape.content[0].text
    assert bad.is_error and "42 is not of type 'string'" in bad.content[0].text
    assert unknown.is_error and "no tool 'nope'" in unknown.content[0].text
