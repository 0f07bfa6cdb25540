"""Approvals of the planner (BI's SQL) and the router (markets' tools) served over AG-UI: the web app's input turns
them on, the run ends with an interrupt, a resume decides it in a fresh agent, and the call runs once however often
the resume is sent, also after the server restarted between the pause and the resume."""

import json

import httpx
import pytest
import scripted
from ag_ui.core import RunFinishedEvent
from scripted import post_run, run_input

pytestmark = pytest.mark.integration

BI = ("bisql", {"approve_sql": True}, "How many nations are there?")
MARKETS = ("markets", {"approve_tools": True}, "Show Apple's daily prices for November and December 2012")


@pytest.fixture(autouse=True)
def calls():
    scripted.CALLS.clear()
    yield scripted.CALLS


@pytest.fixture
def http(live):
    with httpx.Client(base_url=live.url, timeout=60) as c:
        yield c


def paused(http, agent, inputs, text, thread="t1"):
    body = run_input(thread=thread, run=f"{thread}-r1", text=text, forwardedProps={"inputs": inputs})
    finished = RunFinishedEvent.model_validate(post_run(http, agent, body)[-1])
    assert finished.outcome.type == "interrupt"
    return finished.outcome.interrupts


def resume(http, agent, interrupts, approved, run="r2", thread="t1"):
    entries = [{"interruptId": i.id, "status": "resolved", "payload": {"approved": approved}} for i in interrupts]
    return http.post(f"/agents/{agent}", json=run_input(thread=thread, run=f"{thread}-{run}", text="", resume=entries))


def answer(events):
    return "".join(e.get("delta", "") for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def test_bi_with_approve_sql_pauses_on_the_query_and_runs_it_once_approved(http, calls):
    (interrupt,) = paused(http, *BI)
    assert interrupt.reason == "tool_approval" and interrupt.metadata["tool"] == "sql_executor"
    assert interrupt.metadata["arguments"]["sql"].startswith("SELECT COUNT(*) AS nations FROM nation")
    assert calls == []  # nothing ran on the database
    r = resume(http, "bisql", [interrupt], True)
    assert r.status_code == 200, r.text
    events = scripted.sse_events(r)
    assert events[-1]["outcome"]["type"] == "success"
    [result] = [json.loads(e["content"]) for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert result["rows"] == [[25]] and result["query_metadata"]["query"].startswith("SELECT COUNT(*)")
    assert calls == ["sql"]
    again = resume(http, "bisql", [interrupt], True, run="r3")  # the same decision sent twice
    assert again.status_code == 409 and "not pending" in again.json()["error"]
    assert calls == ["sql"]


def test_bi_denied_runs_no_sql(http, calls):
    interrupts = paused(http, *BI)
    events = scripted.sse_events(resume(http, "bisql", interrupts, False))
    assert events[-1]["outcome"]["type"] == "success"
    assert calls == [] and "Denied" in next(e["content"] for e in events if e["type"] == "TOOL_CALL_RESULT")


def test_without_approve_sql_bi_runs_the_query_at_once_and_a_bad_flag_is_a_400(http, calls):
    r = http.post("/agents/bisql", json=run_input(text=BI[2], forwardedProps={"inputs": {"approve_sql": "yes"}}))
    assert r.status_code == 400 and "approve_sql" in r.json()["error"] and calls == []
    events = post_run(http, "bisql", run_input(thread="t2", text=BI[2]))
    assert events[-1]["outcome"]["type"] == "success"
    assert calls == ["sql", "sql"]  # the built query's one-row check, then the query: no approval asked


def test_markets_with_approve_tools_pauses_the_routed_run_and_runs_the_call_once(http, calls):
    (interrupt,) = paused(http, *MARKETS)
    assert interrupt.metadata["tool"] == "price_history" and interrupt.metadata["arguments"]["symbol"] == "AAPL"
    assert calls == []
    events = scripted.sse_events(resume(http, "markets", [interrupt], True))
    assert events[-1]["outcome"]["type"] == "success", events[-1]
    assert calls == ["price_history"] and "Data as of" in answer(events)  # checked as an unpaused answer
    assert resume(http, "markets", [interrupt], True, run="r3").status_code == 409
    assert calls == ["price_history"]


@pytest.mark.parametrize("agent, inputs, text, ran", [(*BI, "sql"), (*MARKETS, "price_history")])
def test_a_pause_resumes_after_the_server_restarted_and_the_call_runs_once(tmp_path, agent, inputs, text, ran):
    """The server that paused is stopped; a new one on the same data folder and database takes the resume (the
    agent is rebuilt from the thread's snapshot); a resume sent again is refused and runs nothing."""
    effects = tmp_path / "calls.txt"
    data, db, env = tmp_path / "data", str(tmp_path / "sessions.db"), {"CALLS_FILE": str(effects)}
    server = scripted.ServerProcess(data, db, env)
    try:
        with httpx.Client(base_url=server.url, timeout=60) as c:
            interrupts = paused(c, agent, inputs, text)
    finally:
        server.stop()
    assert not effects.exists()
    server = scripted.ServerProcess(data, db, env)
    try:
        with httpx.Client(base_url=server.url, timeout=60) as c:
            events = scripted.sse_events(resume(c, agent, interrupts, True))
            assert events[-1]["outcome"]["type"] == "success", events[-1]
            assert resume(c, agent, interrupts, True, run="r3").status_code == 409
    finally:
        server.stop()
    assert effects.read_text().splitlines() == [ran]


def test_a_resume_runs_with_the_paused_runs_inputs_not_the_resume_requests(http, calls):
    """The query approved on TPC-H runs on TPC-H even when the resume names another database."""
    (interrupt,) = paused(http, *BI)
    entries = [{"interruptId": interrupt.id, "status": "resolved", "payload": {"approved": True}}]
    body = run_input(
        thread="t1",
        run="t1-r2",
        text="",
        resume=entries,
        forwardedProps={"inputs": {"db": "chinook", "approve_sql": False}},
    )
    events = post_run(http, "bisql", body)
    [result] = [json.loads(e["content"]) for e in events if e["type"] == "TOOL_CALL_RESULT"]
    assert result["rows"] == [[25]] and calls == ["sql"]
