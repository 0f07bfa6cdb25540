"""The server as an attacker tries it: real HTTP against a server process on loopback (tests/serve/scripted.py,
uvicorn, the scripted apps; `orrery serve` itself where its command line matters).

Each test names what it holds: ids that are paths, raw `%2e%2e` paths, symlinks under the data folder,
cross-site and DNS-rebound requests, oversized and over-deep bodies, concurrent runs on one thread (SQLite and
PostgreSQL), a result whose plot fails, a crash mid-run, the token kept out of URLs and logs, and a session
database the server cannot use."""

import http.client
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "tests" / "serve"))
from scripted import ServerProcess, free_port, post_run, run_input  # noqa: E402
from test_serve_threads import postgres  # noqa: E402, F401 - the PostgreSQL fixture

pytestmark = pytest.mark.integration
SAMPLE = ROOT / "orrery" / "forecast" / "samples" / "air_passengers.csv"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return tmp_path_factory.mktemp("attacks") / "data"


@pytest.fixture(scope="module")
def server(data):
    proc = ServerProcess(data)
    yield proc
    proc.stop()


@pytest.fixture
def client(server):
    with httpx.Client(base_url=server.url, timeout=60) as c:
        yield c


def raw(server, method, path, body=b"", headers=None):
    """A request sent as written: the path is not normalised or re-encoded on the way."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    out = r.status, r.read()
    conn.close()
    return out


def test_ids_that_name_paths_are_refused_and_write_nothing(client, data, tmp_path):
    outside = tmp_path / "outside"
    for field, value in [
        ("runId", str(outside)),
        ("runId", "../../x"),
        ("runId", "a/../../x"),
        ("threadId", "X/runs/R"),
        ("threadId", "../t"),
        ("runId", "r" * 65),
        ("threadId", ""),
    ]:
        body = run_input(thread="ids", run="ok1") | {field: value}
        r = client.post("/agents/chat", json=body)
        assert r.status_code == 400 and f"{field} " in r.json()["error"], (field, value, r.text)
    assert not outside.exists() and not (data.parent / "x").exists() and not (data / "x").exists()
    # A thread id shaped as another thread's run record cannot break that thread.
    post_run(client, "chat", run_input(thread="X", run="R", text="what is 1+1"))
    assert client.post("/agents/chat", json=run_input(thread="X/runs/R", run="R2")).status_code == 400
    assert client.get("/threads/X").json()["messages"][0]["content"] == "what is 1+1"
    assert client.get("/threads/X%2Fruns%2FR").status_code in (400, 404)


RAW_PATHS = [
    "/runs/%2e%2e/sessions.db",
    "/runs/%2E%2E/sessions.db-wal",
    "/runs/.%2e/sessions.db",
    "/runs/..%2fsessions.db/x",
    "/runs/r/../../sessions.db",
    "/runs/%2e%2e%2f%2e%2e/sessions.db",
    "/static/..%2fapp.py",
    "/static/%2e%2e",
    "/threads/%2e%2e",
    "/runs/r/%2e%2e%2f%2e%2e%2fsessions.db",
]


def test_raw_dot_dot_paths_serve_nothing(server, data):
    (data / "runs" / "r").mkdir(parents=True, exist_ok=True)  # so that runs/.. and runs/r/../.. resolve
    for path in RAW_PATHS:
        status, body = raw(server, "GET", path)
        assert status in (400, 404), (path, status)
        assert b"SQLite" not in body and b"import" not in body and json.loads(body)["error"]


def test_a_symlink_under_the_data_folder_leads_nowhere(client, data, tmp_path):
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "result.json").write_text('{"secret": 1}')
    (data / "runs").mkdir(exist_ok=True)
    (data / "runs" / "linked").symlink_to(secret)
    r = client.get("/runs/linked/result.json")
    assert r.status_code == 404 and "secret" not in r.text
    (data / "uploads").mkdir(exist_ok=True)
    (data / "uploads" / "linkedup").symlink_to(secret)  # an "upload" that is a link out of the folder
    body = run_input(thread="sym", run="sym1", forwardedProps={"inputs": {"data": "linkedup"}})
    r = client.post("/agents/forecast", json=body)
    assert r.status_code == 400 and "no upload 'linkedup'" in r.json()["error"]
    # A run whose folder is a planted link to a place outside: its files are not written there.
    (data / "runs" / "planted").symlink_to(tmp_path / "elsewhere")
    events = post_run(client, "plotfails", run_input(thread="sym2", run="planted"))
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["result"]["artifact_errors"]
    assert not (tmp_path / "elsewhere").exists()


def test_a_path_is_never_an_input(client, data):
    cases = [
        ("forecast", {}, "/etc/passwd", "input 'data' takes an upload id"),  # the message is not the data
        ("forecast", {"data": "/etc/passwd"}, "forecast", "input 'data' takes an upload id"),
        ("forecast", {"data": "../sessions.db"}, "forecast", "input 'data' takes an upload id"),
        ("bi", {"db": "sessions.db"}, "how many rows", "no database named 'sessions.db'"),
        ("bi", {"db": str(data / "sessions.db")}, "how many rows", "input 'db'"),
        ("bi", {"db": "postgresql://u@10.0.0.1/x"}, "how many rows", "input 'db'"),
        ("markets", {"store_dir": ".."}, "AAPL price", "takes no input 'store_dir'"),
    ]
    for agent, inputs, text, words in cases:
        body = run_input(thread=f"path-{agent}", run="p1", text=text, forwardedProps={"inputs": inputs})
        r = client.post(f"/agents/{agent}", json=body)
        assert r.status_code == 400 and words in r.json()["error"], (agent, inputs, r.text)


def test_cross_site_and_rebound_requests_are_refused(server, client):
    body = json.dumps(run_input(thread="xsite", run="x1")).encode()
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""):
        status, out = raw(server, "POST", "/agents/chat", body, {"Content-Type": kind} if kind else {})
        assert status == 415 and b"application/json" in out, kind
    status, out = raw(
        server, "POST", "/agents/chat", body, {"Content-Type": "application/json", "Origin": "http://evil.example"}
    )
    assert status == 403 and b"--cors" in out
    status, _ = raw(server, "POST", "/uploads", b"x", {"Content-Type": "text/plain"})
    assert status == 415
    assert client.get("/threads/xsite").status_code == 404  # none of them ran
    for host in ("evil.example", f"evil.example:{server.port}", "127.0.0.1.evil.example", "", "[::2]"):
        status, out = raw(server, "GET", "/threads", headers={"Host": host})
        assert status == 403 and b"--allowed-host" in out, host
    same = {"Content-Type": "application/json", "Origin": server.url}  # the web app's own page
    assert raw(server, "POST", "/agents/chat", body, same)[0] == 200
    assert raw(server, "GET", "/threads", headers={"Host": f"localhost:{server.port}"})[0] == 200


def test_bodies_are_bounded(server, client, data):
    deep = b"[" * 50_000 + b"]" * 50_000
    status, out = raw(server, "POST", "/agents/chat", deep, {"Content-Type": "application/json"})
    assert status == 400 and b"nested deeper" in out
    nested = {"a": 1}
    for _ in range(200):
        nested = {"a": nested}
    r = client.post("/agents/chat", json=run_input(thread="deep", run="d1", state=nested))
    assert r.status_code == 400 and "nested deeper" in r.json()["error"]
    big = b'{"x": "' + b"y" * (10 * 2**20) + b'"}'
    status, out = raw(server, "POST", "/agents/chat", big, {"Content-Type": "application/json"})
    assert status == 413 and b"limit" in out
    before = set((data / "uploads").iterdir()) if (data / "uploads").exists() else set()
    for name, content in [
        ("bad.csv", b"\x00\x01\x02" * 1000),
        ("one.csv", b"a\n1\n"),
        ("x.parquet", b"PAR1junk"),
        ("empty.csv", b""),
    ]:
        r = client.post("/uploads", files={"file": (name, content, "text/csv")})
        assert r.status_code == 400, (name, r.text)
    big_upload = client.post("/uploads", files={"file": ("big.csv", b"1,2\n" * (6 * 2**20), "text/csv")})
    assert big_upload.status_code == 413
    after = set((data / "uploads").iterdir()) if (data / "uploads").exists() else set()
    assert after == before  # a refused upload leaves nothing behind


def _post_all(urls, thread, n):
    """n runs posted at once on one thread, spread over the servers at `urls`; each run's outcome."""
    results = [None] * n

    def one(i):
        body = run_input(thread=thread, run=f"{thread}-{i}", text=f"slowly, what is {i}+1000")
        with (
            httpx.Client(base_url=urls[i % len(urls)], timeout=120) as c,
            c.stream("POST", "/agents/chat", json=body) as r,
        ):
            results[i] = (r.status_code, [line for line in r.iter_lines() if line.startswith("data: ")][-1:])

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return results


def _every_message_kept(url, thread, n):
    with httpx.Client(base_url=url, timeout=60) as c:
        t = c.get(f"/threads/{thread}").json()
    said = sorted(m["content"] for m in t["messages"] if m["role"] == "user")
    assert said == sorted(f"slowly, what is {i}+1000" for i in range(n))
    answers = sorted(m["content"] for m in t["messages"] if m["role"] == "assistant")
    assert answers == sorted(f"{i}+1000 = {i + 1000}" for i in range(n))
    assert sorted(r["run_id"] for r in t["runs"]) == sorted(f"{thread}-{i}" for i in range(n))
    assert all(r["status"] == "completed" and r["events"][-1]["type"] == "RUN_FINISHED" for r in t["runs"])


@pytest.mark.parametrize("n", [2, 10])
def test_concurrent_runs_on_one_thread_keep_every_message_sqlite(server, n):
    results = _post_all([server.url], f"many-{n}", n)
    assert all(status == 200 and '"RUN_FINISHED"' in last[0] for status, last in results), results
    _every_message_kept(server.url, f"many-{n}", n)


@pytest.mark.parametrize("n", [2, 10])
def test_concurrent_runs_on_one_thread_keep_every_message_postgres(postgres, tmp_path, n):  # noqa: F811
    a, b = ServerProcess(tmp_path / "a", postgres), ServerProcess(tmp_path / "b", postgres)
    try:
        results = _post_all([a.url, b.url], f"pg-many-{n}", n)  # two processes: the lease is in the database
        assert all(status == 200 and '"RUN_FINISHED"' in last[0] for status, last in results), results
        _every_message_kept(a.url, f"pg-many-{n}", n)
    finally:
        a.stop()
        b.stop()


def test_a_plot_that_cannot_be_drawn_is_reported_and_the_run_finishes(client):
    events = post_run(client, "plotfails", run_input(thread="plot", run="plot1", text="forecast it"))
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"]["type"] == "success"
    assert events[-1]["result"]["artifact_errors"][0].startswith("plot.png: ValueError")
    custom = {e["name"]: e["value"] for e in events if e["type"] == "CUSTOM"}
    assert custom["orrery.artifacts"] == ["runs/plot1/result.json"] and "plot.png" in custom["orrery.error"]
    assert client.get("/runs/plot1/result.json").json() == {"best_model": "AutoETS"}
    assert client.get("/runs/plot1/plot.png").status_code == 404
    thread = client.get("/threads/plot").json()
    assert thread["runs"][0]["status"] == "completed" and thread["messages"][-1]["content"] == "The forecast is done."


def test_a_crash_mid_run_ends_with_run_error_and_is_saved_as_failed(client):
    events = post_run(client, "broken", run_input(thread="crash", run="crash1", text="go"))
    assert events[-1]["type"] == "RUN_ERROR" and "the result broke" in events[-1]["message"]
    assert [r["status"] for r in client.get("/threads/crash").json()["runs"]] == ["error"]


def test_a_run_id_is_used_once(client):
    post_run(client, "chat", run_input(thread="once", run="once1"))
    again = client.post("/agents/chat", json=run_input(thread="once", run="once1", text="what is 2+2"))
    assert again.status_code == 409 and "runId" in again.json()["error"]
    post_run(client, "plotfails", run_input(thread="once-a", run="once2"))
    other = client.post("/agents/plotfails", json=run_input(thread="once-b", run="once2"))  # another thread's run
    assert other.status_code == 409
    assert client.get("/runs/once2/result.json").status_code == 200


def orrery_serve(*args, env=None):
    cmd = [sys.executable, "-m", "orrery", "serve", *args]
    return subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


def test_orrery_serve_keeps_the_token_out_of_urls_and_its_log_and_answers_allowed_hosts(tmp_path):
    port = free_port()
    proc = orrery_serve(
        "--port",
        str(port),
        "--token",
        "TOPSECRET",
        "--allowed-host",
        "orrery.lan",
        env={"ORRERY_DATA_DIR": str(tmp_path)},
    )
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(600):
            try:
                httpx.get(f"{url}/", timeout=1)
                break
            except httpx.TransportError:
                threading.Event().wait(0.1)
        assert httpx.get(f"{url}/agents?token=TOPSECRET").status_code == 400
        assert httpx.get(f"{url}/?x=1&token=TOPSECRET").status_code == 400
        assert httpx.get(f"{url}/agents", headers={"Authorization": "Bearer TOPSECRET"}).status_code == 200
        login = httpx.post(f"{url}/login", json={"token": "TOPSECRET"})
        assert httpx.get(f"{url}/agents", cookies=login.cookies).status_code == 200
        named = {"Authorization": "Bearer TOPSECRET", "Host": f"orrery.lan:{port}"}
        assert httpx.get(f"{url}/agents", headers=named).status_code == 200  # --allowed-host
        assert httpx.get(f"{url}/agents", headers=named | {"Host": "other.lan"}).status_code == 403
    finally:
        proc.terminate()
        out = proc.communicate(timeout=30)[0]
    assert "GET /agents?token=***" in out and "TOPSECRET" not in out


def _unusable_databases(tmp_path):
    import sqlite3
    from contextlib import closing

    afile = tmp_path / "afile"
    afile.write_text("x")
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    damaged = tmp_path / "damaged.db"  # a sound SQLite file of the old schema with a record that is not JSON
    with closing(sqlite3.connect(damaged)) as db, db:
        db.execute(
            "CREATE TABLE orrery_sessions (id TEXT PRIMARY KEY, agent TEXT NOT NULL, data TEXT NOT NULL, "
            "version INTEGER NOT NULL, updated_at TEXT NOT NULL)"
        )
        db.execute("INSERT INTO orrery_sessions VALUES ('t1', 'chat', '{not json', 1, 'x')")
    locked = tmp_path / "locked"
    locked.mkdir()
    readonly = locked / "sessions.db"
    sqlite3.connect(readonly).close()
    if os.geteuid() == 0:  # root writes through permissions: what it cannot write is a journal where a folder is
        (locked / "sessions.db-wal").mkdir()
        unwritable = afile / "sub" / "sessions.db"
    else:
        readonly.chmod(0o444)
        locked.chmod(0o555)
        unwritable = locked / "new" / "sessions.db"
    return [
        (str(afile / "sessions.db"), "cannot create the session database's folder"),
        (str(unwritable), "cannot create the session database's folder"),
        (str(corrupt), "not an orrery session database"),
        (str(damaged), "damaged record 't1'"),
        (str(readonly), "cannot write the session database"),
    ]


def test_a_session_database_the_server_cannot_use_is_one_line_and_exit_2(tmp_path):
    for db, words in _unusable_databases(tmp_path):
        proc = orrery_serve("--port", str(free_port()), "--db", db, env={"ORRERY_DATA_DIR": str(tmp_path / "data")})
        out = proc.communicate(timeout=120)[0]
        assert proc.returncode == 2 and words in out and "Traceback" not in out, (db, out)
        assert len(out.strip().splitlines()) == 1, out
    data = tmp_path / "afile" / "data"  # the data folder (uploads, run files) the same way
    proc = orrery_serve("--port", str(free_port()), env={"ORRERY_DATA_DIR": str(data)})
    out = proc.communicate(timeout=120)[0]
    assert proc.returncode == 2 and "cannot create the data folder" in out and len(out.strip().splitlines()) == 1


def test_a_real_forecast_whose_series_id_matplotlib_reads_as_math_still_finishes(client):
    frame = SAMPLE.read_text().splitlines()
    csv = "\n".join([frame[0] + ",series", *(f"{line},$\\foo$" for line in frame[1:])])
    upload = client.post("/uploads", files={"file": ("dollar.csv", csv.encode(), "text/csv")}).json()
    body = run_input(
        thread="dollar",
        run="dollar1",
        text="forecast the next year",
        forwardedProps={"inputs": {"data": upload["id"], "h": 12, "groupby": "series"}},
    )
    events = post_run(client, "forecast", body)
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"]["type"] == "success"
    files = next(e["value"] for e in events if e["type"] == "CUSTOM" and e["name"] == "orrery.artifacts")
    failed = events[-1]["result"].get("artifact_errors", [])
    assert "runs/dollar1/result.json" in files
    assert ("runs/dollar1/plot.png" in files) != any(f.startswith("plot.png") for f in failed)  # drawn, or said so
    assert client.get("/runs/dollar1/result.json").json()["best_model"]
    assert [r["status"] for r in client.get("/threads/dollar").json()["runs"]] == ["completed"]
