"""Auth, CORS, limits, uploads, the forecast agent's artifacts, cancellation on disconnect."""

import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from scripted import post_run, run_input

from orrery.errors import ConfigError
from orrery.exposure import is_loopback
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.serve import create_app
from orrery.serve.app import serve
from orrery.serve.guard import Hosts

SAMPLE = Path(__file__).parents[2] / "orrery" / "forecast" / "samples" / "air_passengers.csv"


def test_token_guards_every_endpoint_but_the_web_apps_files(settings):
    settings.token = "s3cret"
    c = TestClient(create_app(settings))
    for path in ("/agents", "/threads", "/threads/x", "/runs/a/plot.png"):
        r = c.get(path)
        assert r.status_code == 401 and "Bearer" in r.json()["error"], path
    assert c.get("/").status_code == 200 and c.get("/static/app.js").status_code == 200  # code, no secret
    assert c.post("/agents/chat", json=run_input()).status_code == 401
    assert c.get("/agents", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert c.get("/agents", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    in_url = c.get("/?token=s3cret")  # a URL ends up in logs and history: refused, and no cookie
    assert (
        in_url.status_code == 400 and "Authorization" in in_url.json()["error"] and "set-cookie" not in in_url.headers
    )
    assert c.post("/login", json={"token": "wrong"}).status_code == 401
    signed = c.post("/login", json={"token": "s3cret"})  # the web app's way in: a same-site, http-only cookie
    cookie = signed.headers["set-cookie"].lower()
    assert signed.status_code == 200 and "samesite=strict" in cookie and "httponly" in cookie
    assert c.get("/agents").status_code == 200  # the cookie now rides along


def test_no_cors_unless_asked(settings):
    origin = {"Origin": "http://elsewhere.example"}
    assert "access-control-allow-origin" not in TestClient(create_app(settings)).get("/agents", headers=origin).headers
    settings.cors = ("http://elsewhere.example",)
    r = TestClient(create_app(settings)).get("/agents", headers=origin)
    assert r.headers["access-control-allow-origin"] == "http://elsewhere.example"


def test_off_loopback_needs_a_token(monkeypatch):
    monkeypatch.delenv("ORRERY_TOKEN", raising=False)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.com")
    with pytest.raises(ConfigError, match="pass --token"):
        serve("0.0.0.0", 8000)


@pytest.mark.integration  # a real subprocess
def test_the_cli_refuses_to_serve_off_loopback_without_a_token():
    cli = subprocess.run(
        [sys.executable, "-m", "orrery", "serve", "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": "/tmp"},
    )
    assert cli.returncode == 2 and "serving on 0.0.0.0 would let anyone" in cli.stderr


def test_upload_limits_and_bad_files(client, settings):
    ok = client.post("/uploads", files={"file": ("air.csv", SAMPLE.read_bytes(), "text/csv")})
    assert ok.status_code == 200 and ok.json()["rows"] == 144 and len(ok.json()["columns"]) == 2
    bad_type = client.post("/uploads", files={"file": ("x.exe", b"MZ", "application/octet-stream")})
    assert bad_type.status_code == 415 and ".csv or .parquet" in bad_type.json()["error"]
    junk = client.post("/uploads", files={"file": ("x.parquet", b"not parquet at all", "application/octet-stream")})
    assert junk.status_code == 400 and "cannot be read as a table" in junk.json()["error"]
    one_col = client.post("/uploads", files={"file": ("y.csv", b"a\n1\n2\n", "text/csv")})
    assert one_col.status_code == 400 and "date column and a value column" in one_col.json()["error"]
    settings.max_upload_bytes = 100
    small = TestClient(create_app(settings))
    big = small.post("/uploads", files={"file": ("air.csv", SAMPLE.read_bytes(), "text/csv")})
    assert big.status_code == 413 and "limit of 100 bytes" in big.json()["error"]
    huge = small.post("/uploads", content=b"x" * 200_000, headers={"Content-Type": "multipart/form-data; boundary=b"})
    assert huge.status_code == 413  # refused from its Content-Length, before the body is read

    def chunks():
        yield b"{}"

    chunked = small.post("/agents/chat", content=chunks(), headers={"Content-Type": "application/json"})
    assert chunked.status_code == 411 and "Content-Length" in chunked.json()["error"]


def test_forecast_agent_on_an_upload_streams_its_plot_tables_and_artifacts(client):
    upload = client.post("/uploads", files={"file": ("air.csv", SAMPLE.read_bytes(), "text/csv")}).json()
    body = run_input(
        thread="fc",
        run="fc1",
        text="forecast the next year",
        forwardedProps={"inputs": {"data": upload["id"], "h": 12}},
    )
    events = post_run(client, "forecast", body)
    names = [e["type"] for e in events]
    assert names[0] == "RUN_STARTED" and names[-1] == "RUN_FINISHED" and events[-1]["outcome"]["type"] == "success"
    tools = [e["toolCallName"] for e in events if e["type"] == "TOOL_CALL_START"]
    assert tools == ["analyze_features", "cross_validate", "generate_forecast", "detect_anomalies"]
    custom = {e["name"]: e["value"] for e in events if e["type"] == "CUSTOM"}
    chart = custom["orrery.forecast"]
    assert len(chart["history"]) == 144 and len(chart["forecasts"]) == 12
    assert {"lo_80", "hi_80", "lo_95", "hi_95", "mean"} <= set(chart["forecasts"][0])
    assert chart["best_model"] in ("AutoETS", "AutoTheta")
    assert {r["model"] for r in custom["orrery.table"]["rows"]} >= {"AutoETS", "AutoTheta", "SeasonalNaive"}
    assert custom["orrery.artifacts"] == ["runs/fc1/result.json", "runs/fc1/plot.png"]
    png = client.get("/runs/fc1/plot.png")
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    assert client.get("/runs/fc1/result.json").json()["best_model"] == chart["best_model"]
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert "Best model by cross-validation" in text


def test_a_client_that_leaves_cancels_its_run_and_the_next_is_served(live, settings):
    models = []

    def slow(agent, body):
        if agent != "chat":
            return ScriptedModel([])

        def step(msgs):
            time.sleep(0.05)
            return turn(call("calculate", expression=f"{len(msgs)} + 1"))

        models.append(ScriptedModel([step] * 200 + ["done"]))
        return models[-1]

    settings.model = slow
    with httpx.Client(base_url=live.url, timeout=30) as c:
        with c.stream("POST", "/agents/chat", json=run_input(thread="gone", run="g1")) as r:
            seen = 0
            for line in r.iter_lines():
                seen += line.startswith("data: ")
                if seen >= 6:
                    break  # leave mid-stream
        at_leave = len(models[0].requests)
        time.sleep(0.6)
        stopped = len(models[0].requests)
        time.sleep(0.3)
        assert len(models[0].requests) == stopped < at_leave + 4 < 200  # stopped within a step or two
        t0 = time.monotonic()
        events = post_run(c, "chat", run_input(thread="next", run="n1"))  # the server is free at once
        assert events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR") and time.monotonic() - t0 < 30
        thread = c.get("/threads/gone").json()
        assert thread["runs"][0]["status"] == "cancelled"


def test_run_time_limit_ends_the_run_with_an_error(settings):
    settings.run_timeout = 0.3
    settings.model = lambda agent, body: ScriptedModel(
        [lambda m: time.sleep(0.2) or turn(call("calculate", expression="1+1"))] * 50
    )
    with TestClient(create_app(settings)) as c:
        events = post_run(c, "chat", run_input())
    assert events[-1]["type"] == "RUN_ERROR" and events[-1]["code"] == "timeout"
    assert "limit of 0.3s" in events[-1]["message"]
    assert threading.active_count() < 50


def test_a_second_run_on_a_busy_thread_waits_then_gets_409_and_nothing_is_lost(live, settings):
    def slow(agent, body):
        text = body.messages[-1].content
        first = turn(call("calculate", expression="1+1"))
        return ScriptedModel([(lambda m: time.sleep(1.5) or first) if "slow" in text else first, "done"])

    settings.model, settings.thread_wait = slow, 0.3
    results = {}

    def first():
        with httpx.Client(base_url=live.url, timeout=30) as c:
            results["first"] = post_run(c, "chat", run_input(thread="busy", run="b1", text="slow one"))

    t = threading.Thread(target=first)
    t.start()
    time.sleep(0.5)
    with httpx.Client(base_url=live.url, timeout=30) as c:
        later = c.post("/agents/chat", json=run_input(thread="busy", run="b2", text="second"))
        assert later.status_code == 409 and "busy with another run" in later.json()["error"]
        t.join(30)
        assert results["first"][-1]["type"] == "RUN_FINISHED"
        thread = c.get("/threads/busy").json()
        assert [m["content"] for m in thread["messages"]] == ["slow one", "done"]
        settings.thread_wait = 30
        post_run(c, "chat", run_input(thread="busy", run="b3", text="second"))  # the thread is free again
        assert [m["content"] for m in c.get("/threads/busy").json()["messages"]][-2:] == ["second", "done"]


def test_a_thread_that_cannot_be_saved_ends_the_run_with_run_error(client, monkeypatch):
    store = client.app.state.server.store

    def fail(thread):
        raise OSError("disk full")

    monkeypatch.setattr(store, "save", fail)
    events = post_run(client, "chat", run_input(thread="unsaved", run="u1"))
    assert events[-1]["type"] == "RUN_ERROR" and "could not be saved: OSError: disk full" in events[-1]["message"]
    monkeypatch.undo()
    assert store.acquire("unsaved", "someone-else", 1)  # the lease was released all the same


def test_the_host_names_a_server_answers_to():
    loop, everywhere, named = Hosts("127.0.0.1"), Hosts("0.0.0.0", ["orrery.lan"]), Hosts("box.lan")
    assert all(loop(h) for h in ("127.0.0.1:8000", "localhost", "LOCALHOST:1", "[::1]:8000"))
    assert not any(loop(h) for h in ("evil.example", "10.0.0.5:8000", "127.0.0.1.evil.example", "", "a b", "[::2]"))
    assert all(everywhere(h) for h in ("10.0.0.5:8000", "[fe80::1]:80", "localhost:8000", "orrery.lan:8000"))
    assert not any(everywhere(h) for h in ("evil.example:8000", "10.0.0.5.nip.io"))  # a DNS name can be rebound
    assert named("box.lan:8000") and named("BOX.LAN") and not named("localhost") and not named("10.0.0.5")


def test_a_runs_folder_that_is_a_link_out_of_the_data_folder_gets_no_files(client, settings, tmp_path):
    settings.data.mkdir(parents=True, exist_ok=True)
    (settings.data / "runs").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    events = post_run(client, "plotfails", run_input(thread="out", run="out1"))
    assert events[-1]["type"] == "RUN_FINISHED" and len(events[-1]["result"]["artifact_errors"]) == 2
    assert list((tmp_path / "elsewhere").iterdir()) == []
