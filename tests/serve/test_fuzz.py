"""Bounded fuzzing (hypothesis) of what a client sends: AG-UI bodies, raw bytes as JSON, and uploads. No case may
get a 500, a run that starts ends with RUN_FINISHED or RUN_ERROR, and a refused upload leaves nothing behind.
Derandomized (the same cases every run): 600 cases in the fast suite, and the same properties over 2,000 cases
(`..._at_length`, integration) in the full run CI makes."""

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scripted import apps, model_for

from orrery.serve import Settings, create_app


def fuzz(n):
    return settings(
        max_examples=n,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


AGENTS = ["chat", "clarify", "forecast", "research", "nope"]
scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
ids = st.one_of(
    st.from_regex(r"\A[A-Za-z0-9_-]{1,64}\Z"),
    st.text(max_size=70),
    st.sampled_from(["..", "../../x", "/etc", "X/runs/R", "%2e%2e", "a\x00b", " ", ""]),
)
message = st.fixed_dictionaries(
    {
        "id": st.text(max_size=10),
        "role": st.sampled_from(["user", "assistant", "tool", "x"]),
        "content": st.text(max_size=40) | json_values,
    }
)
inputs = st.dictionaries(
    st.sampled_from(["data", "h", "date", "target", "groupby", "before", "db", "store_dir", "x"]),
    json_values,
    max_size=3,
)
resume = st.lists(
    st.fixed_dictionaries(
        {
            "interruptId": st.text(max_size=10),
            "status": st.sampled_from(["resolved", "cancelled", "x"]),
            "payload": json_values,
        }
    ),
    max_size=2,
)
bodies = st.fixed_dictionaries(
    {
        "threadId": ids,
        "runId": ids,
        "messages": st.lists(message, max_size=3),
        "state": json_values,
        "tools": st.just([]),
        "context": st.just([]),
        "forwardedProps": st.fixed_dictionaries({"inputs": inputs}) | json_values,
    },
    optional={"resume": resume, "parentRunId": st.text(max_size=5)},
)


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory):
    # In memory where there is a tmpfs: the cases test what the server answers, not the disk, and each run's
    # thread-store commits and upload writes fsync (most of a case's time on a disk).
    shm = Path("/dev/shm")
    data = (
        Path(tempfile.mkdtemp(prefix="orrery-fuzz-", dir=shm))
        if shm.is_dir() and os.access(shm, os.W_OK)
        else tmp_path_factory.mktemp("fuzz")
    )
    s = Settings(model=model_for, apps=apps(), data=data, allowed_hosts=("testserver",), thread_wait=2, run_timeout=20)
    try:
        with TestClient(create_app(s), raise_server_exceptions=False) as c:
            yield c, s.data
    finally:
        shutil.rmtree(data, ignore_errors=True)


def check_run(response):
    assert response.status_code < 500, response.text
    if response.status_code == 200:
        events = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
        assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR")


AGUI_CASES = dict(
    agent=st.sampled_from(AGENTS),
    body=bodies,
    drop=st.sets(st.sampled_from(["threadId", "runId", "messages"])),
    depth=st.integers(0, 5000),
)


def post_agui(client, agent, body, drop, depth):
    body = {k: v for k, v in body.items() if k not in drop} | {"state": "DEEP"}
    raw = json.dumps(body).replace('"DEEP"', "[" * depth + "]" * depth)  # a state nested `depth` levels
    check_run(client.post(f"/agents/{agent}", content=raw, headers={"Content-Type": "application/json"}))


@fuzz(250)
@given(**AGUI_CASES)
def test_agui_bodies_never_get_a_500(fuzz_client, agent, body, drop, depth):
    post_agui(fuzz_client[0], agent, body, drop, depth)


@pytest.mark.integration
@fuzz(900)
@given(**AGUI_CASES)
def test_agui_bodies_never_get_a_500_at_length(fuzz_client, agent, body, drop, depth):
    post_agui(fuzz_client[0], agent, body, drop, depth)


RAW_CASES = dict(
    raw=st.binary(max_size=200)
    | json_values.map(lambda v: json.dumps(v).encode())
    | st.integers(0, 60_000).map(lambda n: b'{"a": ' + b"[" * n + b"]" * n + b"}")
    | st.sampled_from(
        [b'{"threadId": "t", "runId": "r", "state": {"x": NaN}, "messages": []}', b"Infinity", b"[-Infinity]"]
    )
)


def post_raw(client, raw):
    check_run(client.post("/agents/chat", content=raw, headers={"Content-Type": "application/json"}))


@fuzz(150)
@given(**RAW_CASES)
def test_raw_json_bodies_never_get_a_500(fuzz_client, raw):
    post_raw(fuzz_client[0], raw)


@pytest.mark.integration
@fuzz(400)
@given(**RAW_CASES)
def test_raw_json_bodies_never_get_a_500_at_length(fuzz_client, raw):
    post_raw(fuzz_client[0], raw)


csv_text = st.lists(
    st.lists(
        st.text(st.characters(blacklist_categories=["Cs"]), max_size=6) | st.integers().map(str), min_size=1, max_size=4
    ),
    max_size=8,
).map(lambda rows: "\n".join(",".join(r) for r in rows).encode())
UPLOAD_CASES = dict(
    name=st.text(max_size=30) | st.sampled_from(["a.csv", "../../x.csv", "/etc/x.parquet", ".csv", "a.pq"]),
    content=st.binary(max_size=300) | csv_text,
    kind=st.sampled_from(["text/csv", "application/octet-stream", ""]),
)


def upload(client, data, name, content, kind):
    before = set((data / "uploads").iterdir()) if (data / "uploads").exists() else set()
    r = client.post("/uploads", files={"file": (name, content, kind)})
    assert r.status_code < 500, r.text
    after = set((data / "uploads").iterdir()) if (data / "uploads").exists() else set()
    if r.status_code == 200:
        assert {p.name for p in after - before} == {r.json()["id"]}
    else:
        assert after == before, r.text


@fuzz(200)
@given(**UPLOAD_CASES)
def test_uploads_never_get_a_500_and_a_refused_one_leaves_nothing(fuzz_client, name, content, kind):
    upload(*fuzz_client, name, content, kind)


@pytest.mark.integration
@fuzz(700)
@given(**UPLOAD_CASES)
def test_uploads_never_get_a_500_and_a_refused_one_leaves_nothing_at_length(fuzz_client, name, content, kind):
    upload(*fuzz_client, name, content, kind)
