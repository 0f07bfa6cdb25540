"""A correction of a declined served BI run over real HTTP (issue 26, round 21): the run's answer records its
database, so `approve` with `{"sql"}` keeps the run's question (never the body's) with the checked correction and a
paraphrase is shown it; round 19's attacks are still refused; a plain approve of a declined run is still a 409;
a run whose answer was saved before the field is a 409 saying to ask again."""

from __future__ import annotations

import httpx
import pytest
from scripted import CORRECTION_ATTACKS as ATTACKS
from scripted import Live, apps, model_for, post_run, run_input

from orrery.bi.examples import ExampleMemory, open_examples
from orrery.llm.scripted import ScriptedModel
from orrery.serve import Settings, create_app

QUESTION = "How many nations are there?"
PARAPHRASE = "What is the number of nations?"
DECLINE = {"request": "Count the nations' headcount", "kind": "cannot_answer", "values": [], "fields": ["headcount"]}
FIX = "SELECT count(*) AS n FROM nation -- the data answers it"
KEPT = "SELECT COUNT(*) AS n FROM nation"


def declining(agent, body):
    """The served scripts, with the planner wrongly declining QUESTION (the data has no 'headcount')."""
    users = [m for m in body.messages if m.role == "user"]
    if agent == "bi" and users and users[-1].content == QUESTION:
        return ScriptedModel([DECLINE])
    return model_for(agent, body)


@pytest.fixture
def server(tmp_path):
    live = Live(create_app(Settings(model=declining, apps=apps(), data=tmp_path / "data")))
    with httpx.Client(base_url=live.url, timeout=60) as client:
        client.sessions = tmp_path / "data" / "sessions.db"
        yield client
    live.stop()


def declined(client, thread="bi", run="d1") -> None:
    post_run(client, "bi", run_input(thread=thread, run=run, text=QUESTION))
    state = client.get(f"/threads/{thread}").json()
    assert state["runs"][-1]["status"] == "completed"  # the run ended; its BI answer declined


def test_a_correction_of_a_declined_run_is_kept_with_the_runs_question_and_shown_for_a_paraphrase(server):
    declined(server)
    r = server.post("/threads/bi/runs/d1/approve", json={})
    assert r.status_code == 409 and "'declined'" in r.json()["error"] and "\n" not in r.json()["error"]
    assert server.get("/examples/tpch").json() == []
    r = server.post("/threads/bi/runs/d1/approve", json={"sql": FIX, "question": "Something else?"})
    assert r.status_code == 200, r.text
    reply = r.json()
    assert (reply["connection"], reply["question"], reply["sql"], reply["corrected"]) == ("tpch", QUESTION, KEPT, True)
    [example] = server.get("/examples/tpch").json()
    assert (example["question"], example["sql"]) == (QUESTION, KEPT)
    memory = ExampleMemory(open_examples(server.sessions, embedder=None))
    assert [(e.question, e.sql) for e in memory.shown("tpch", PARAPHRASE, "duckdb")] == [(QUESTION, KEPT)]


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_bad_correction_of_a_declined_run_is_a_400_and_stores_nothing(server, attack):
    declined(server)
    r = server.post("/threads/bi/runs/d1/approve", json=ATTACKS[attack])
    assert r.status_code == 400 and "\n" not in r.json()["error"], r.text
    assert server.get("/examples/tpch").json() == []


def test_a_declined_run_is_reached_only_through_its_thread_and_origin_is_checked(server):
    declined(server)
    post_run(server, "chat", run_input(thread="other", run="r1", text="what is 6*7"))
    assert server.post("/threads/other/runs/d1/approve", json={"sql": FIX}).status_code == 404
    r = server.post("/threads/other/runs/r1/approve", json={"sql": FIX})  # a chat run has no BI answer
    assert r.status_code == 409 and "no BI answer" in r.json()["error"]
    r = server.post("/threads/bi/runs/d1/approve", json={"sql": FIX}, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403
    assert server.get("/examples/tpch").json() == []


def test_a_declined_run_saved_without_its_database_is_a_409_saying_to_ask_again(server, monkeypatch):
    from orrery.bi.agent import BIAnswer

    to_dict = BIAnswer.to_dict
    monkeypatch.setattr(BIAnswer, "to_dict", lambda self: {k: v for k, v in to_dict(self).items() if k != "connection"})
    declined(server)  # its answer is recorded as before the field
    r = server.post("/threads/bi/runs/d1/approve", json={"sql": FIX})
    assert r.status_code == 409 and "ask the question again" in r.json()["error"] and "\n" not in r.json()["error"]
    assert server.get("/examples/tpch").json() == []
