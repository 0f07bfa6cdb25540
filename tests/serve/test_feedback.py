"""Feedback on a served BI answer over real HTTP: approve keeps the run's question -> SQL (read from the run, never
from the request) for its database, and later runs' SQL step is shown it; reject stores nothing; a run is reached
only through its own thread; token and Origin are checked as on every route; the examples survive a restart."""

from __future__ import annotations

import httpx
import pytest
from scripted import CORRECTION_ATTACKS as ATTACKS
from scripted import Live, ServerProcess, apps, model_for, post_run, run_input

from orrery.bi.examples import ExampleMemory, open_examples
from orrery.serve import Settings, create_app

QUESTION = "How many shipments went to customers in United in 1995?"
SEEN: list[list] = []  # the messages of every model call of the server in this process


def recording(agent, body):
    model = model_for(agent, body)
    complete = model.complete

    def keep(messages, *a, **kw):
        SEEN.append(list(messages))
        return complete(messages, *a, **kw)

    model.complete = keep
    return model


def answered(client, thread: str, first: str, second: str) -> None:
    """The BI scenario of tests/serve/scripted.py: a clarification, then the answer (run `second`)."""
    events = post_run(client, "bi", run_input(thread=thread, run=first, text=QUESTION))
    (interrupt,) = events[-1]["outcome"]["interrupts"]
    resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"answer": "UNITED KINGDOM"}}]
    assert post_run(client, "bi", run_input(thread=thread, run=second, text="", resume=resume))[-1]["outcome"] == {
        "type": "success"
    }


@pytest.fixture
def server(tmp_path):
    live = Live(create_app(Settings(model=recording, apps=apps(), data=tmp_path / "data")))
    with httpx.Client(base_url=live.url, timeout=60) as client:
        client.sessions = tmp_path / "data" / "sessions.db"
        yield client
    live.stop()


# A person's correction of the run's answer: each order once, not each of its line items.
FIX = (
    "SELECT count(DISTINCT o.o_orderkey) AS shipments FROM orders o JOIN customer c ON o.o_custkey = c.c_custkey "
    "JOIN nation n ON c.c_nationkey = n.n_nationkey JOIN lineitem l ON l.l_orderkey = o.o_orderkey "
    "WHERE n.n_name = 'UNITED KINGDOM' AND year(l.l_shipdate) = 1995 -- orders, not line items"
)
PARAPHRASE = "What number of shipments went to customers in United during 1995?"


def test_a_correction_is_kept_with_the_runs_question_and_shown_for_a_paraphrase(server):
    answered(server, "bi", "b1", "b2")
    r = server.post("/threads/bi/runs/b2/approve", json={"sql": FIX, "question": "Something else?"})
    assert r.status_code == 200, r.text
    reply = r.json()
    assert reply["corrected"] is True and reply["question"] == QUESTION and "DISTINCT o.o_orderkey" in reply["sql"]
    assert "--" not in reply["sql"]  # kept as the guard reads it
    [example] = server.get("/examples/tpch").json()
    assert (example["question"], example["sql"]) == (QUESTION, reply["sql"])
    memory = ExampleMemory(open_examples(server.sessions, embedder=None))
    assert [(e.question, e.sql) for e in memory.shown("tpch", PARAPHRASE, "duckdb")] == [(QUESTION, reply["sql"])]


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_correction_the_guard_or_the_runs_database_refuses_is_a_400_and_stores_nothing(server, attack):
    answered(server, "bi", "b1", "b2")
    r = server.post("/threads/bi/runs/b2/approve", json=ATTACKS[attack])
    assert r.status_code == 400 and "\n" not in r.json()["error"], r.text
    assert server.get("/examples/tpch").json() == []


def test_a_correction_refused_as_a_huge_body_a_body_not_an_object_or_another_threads_run(server):
    answered(server, "bi", "b1", "b2")
    huge = b'{"sql": "SELECT 1 ' + b" " * 2**21 + b'"}'
    r = server.post("/threads/bi/runs/b2/approve", content=huge, headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    r = server.post("/threads/bi/runs/b2/approve", content=b"[1]", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "JSON object" in r.json()["error"]
    post_run(server, "chat", run_input(thread="other", run="r1", text="what is 6*7"))
    r = server.post("/threads/other/runs/b2/approve", json={"sql": FIX})
    assert r.status_code == 404
    r = server.post("/threads/bi/runs/b2/approve", json={"sql": FIX}, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403
    assert server.get("/examples/tpch").json() == []


def test_approve_keeps_the_runs_pair_and_later_runs_are_shown_it(server):
    answered(server, "bi", "b1", "b2")
    r = server.post("/threads/bi/runs/b2/approve", json={"question": "x"})
    assert r.status_code == 200, r.text
    assert r.json()["connection"] == "tpch" and r.json()["question"] == QUESTION  # the run's, not the body's
    assert r.json()["corrected"] is False
    [example] = server.get("/examples/tpch").json()
    assert example["question"] == QUESTION and "'UNITED KINGDOM'" in example["sql"]
    assert server.get("/examples/chinook").json() == []

    SEEN.clear()
    answered(server, "bi-next", "c1", "c2")
    sql_call = next(m for m in SEEN if "fill in the parts" in m[0].content)
    assert sql_call[-3].content == f"Question: {QUESTION}" and "UNITED KINGDOM" in sql_call[-2].content


def test_reject_stores_nothing_and_withdraws_only_when_asked(server):
    answered(server, "bi", "b1", "b2")
    assert server.post("/threads/bi/runs/b2/reject", json={}).json() == {"stored": False, "withdrawn": 0}
    assert server.get("/examples/tpch").json() == []
    server.post("/threads/bi/runs/b2/approve", json={})
    assert server.post("/threads/bi/runs/b2/reject", json={}).json()["withdrawn"] == 0
    assert len(server.get("/examples/tpch").json()) == 1  # a rejection removes nothing a user approved
    assert server.post("/threads/bi/runs/b2/reject", json={"withdraw": True}).json()["withdrawn"] == 1
    assert server.get("/examples/tpch").json() == []


def test_a_run_is_reached_only_through_its_thread_and_only_an_answer_is_approvable(server):
    answered(server, "bi", "b1", "b2")
    post_run(server, "chat", run_input(thread="other", run="r1", text="what is 6*7"))
    r = server.post("/threads/other/runs/b2/approve", json={})
    assert r.status_code == 404 and "no run 'b2' on thread 'other'" in r.json()["error"]
    r = server.post("/threads/other/runs/r1/approve", json={})
    assert r.status_code == 409 and "no BI answer" in r.json()["error"]
    r = server.post("/threads/bi/runs/b1/approve", json={})  # the run that asked which 'United'
    assert r.status_code == 409 and "'paused'" in r.json()["error"]
    assert server.post("/threads/bi/runs/bad.id/approve", json={}).status_code == 400
    assert server.post("/threads/nosuch/runs/bad.id/approve", json={}).status_code == 400  # before any lookup
    assert server.get("/examples/bad.name").status_code == 400
    assert server.get("/examples/tpch").json() == []


def test_token_and_origin_are_checked(tmp_path):
    live = Live(create_app(Settings(model=model_for, apps=apps(), data=tmp_path / "data", token="s3cret")))
    try:
        with httpx.Client(base_url=live.url, timeout=60) as client:
            assert client.post("/threads/bi/runs/b2/approve", json={}).status_code == 401
            auth = {"Authorization": "Bearer s3cret"}
            r = client.post("/threads/bi/runs/b2/approve", json={}, headers={**auth, "Origin": "https://evil.example"})
            assert r.status_code == 403
            assert client.post("/threads/bi/runs/b2/approve", json={}, headers=auth).status_code == 404
    finally:
        live.stop()


@pytest.mark.integration
def test_approved_examples_survive_a_server_restart(tmp_path):
    data = tmp_path / "data"
    first = ServerProcess(data)
    try:
        with httpx.Client(base_url=first.url, timeout=60) as client:
            answered(client, "bi", "b1", "b2")
            assert client.post("/threads/bi/runs/b2/approve", json={}).status_code == 200
    finally:
        first.stop()
    second = ServerProcess(data)
    try:
        [example] = httpx.get(f"{second.url}/examples/tpch", timeout=60).json()
        assert example["question"] == QUESTION
    finally:
        second.stop()
