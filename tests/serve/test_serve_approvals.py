"""Tool calls a person approves, over AG-UI on a live server: the run ends with an interrupt per call, a resume
decides them, and an approved call runs once however often the resume is sent."""

import httpx
import pytest
import scripted
from ag_ui.core import RunFinishedEvent
from scripted import post_run, run_input

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def notes():
    scripted.NOTES.clear()
    yield scripted.NOTES


def paused(http, thread="t1", text="hello"):
    events = post_run(http, "approve", run_input(thread=thread, run=f"{thread}-r1", text=text))
    finished = RunFinishedEvent.model_validate(events[-1])
    assert finished.outcome.type == "interrupt" and not scripted.NOTES
    return finished.outcome.interrupts


def resume(http, thread, interrupts, payloads, run="r2"):
    entries = [
        {"interruptId": i.id, "status": "resolved", "payload": p} for i, p in zip(interrupts, payloads, strict=True)
    ]
    return http.post("/agents/approve", json=run_input(thread=thread, run=f"{thread}-{run}", text="", resume=entries))


@pytest.fixture
def http(live):
    with httpx.Client(base_url=live.url, timeout=30) as c:
        yield c


def test_a_call_needing_approval_ends_the_run_with_an_interrupt_and_a_saved_thread(http):
    (interrupt,) = paused(http)
    assert interrupt.reason == "tool_approval" and interrupt.tool_call_id
    assert interrupt.metadata == {
        "id": interrupt.tool_call_id,
        "tool": "write_note",
        "arguments": {"note": "a.txt", "text": "hello"},
    }
    thread = http.get("/threads/t1").json()
    assert thread["pending"]["approvals"][0]["interrupt"] == interrupt.id
    assert "paused" not in thread  # the agent's snapshot stays on the server
    assert http.get("/threads").json()[0]["pending"] is True


def test_approve_runs_the_call_and_the_run_finishes_with_its_result(http, notes):
    interrupts = paused(http)
    r = resume(http, "t1", interrupts, [{"approved": True}])
    assert r.status_code == 200, r.text
    events = scripted.sse_events(r)
    assert events[-1]["outcome"]["type"] == "success"
    text = "".join(e.get("delta", "") for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "Done: wrote 'hello' to a.txt"
    kinds = [(e["type"], e.get("toolCallId")) for e in events if e["type"].startswith("TOOL_CALL")]
    call = interrupts[0].tool_call_id  # the decided call opens in the resumed run, then its result
    assert kinds == [
        ("TOOL_CALL_START", call),
        ("TOOL_CALL_ARGS", call),
        ("TOOL_CALL_END", call),
        ("TOOL_CALL_RESULT", call),
    ]
    assert notes == [{"note": "a.txt", "text": "hello"}]
    thread = http.get("/threads/t1").json()
    assert thread["pending"] is None and thread["messages"][-2]["content"] == "Approved write_note"


def test_deny_runs_nothing_and_the_model_reads_the_denial(http, notes):
    interrupts = paused(http)
    events = scripted.sse_events(resume(http, "t1", interrupts, [{"approved": False}]))
    text = "".join(e.get("delta", "") for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text.startswith("Done: Denied") and not notes


def test_a_cancelled_resume_entry_denies(http, notes):
    (interrupt,) = paused(http)
    body = run_input(thread="t1", run="t1-r2", text="", resume=[{"interruptId": interrupt.id, "status": "cancelled"}])
    events = scripted.sse_events(http.post("/agents/approve", json=body))
    assert events[-1]["outcome"]["type"] == "success" and not notes


def test_edited_arguments_run_instead_of_the_models(http, notes):
    interrupts = paused(http)
    events = scripted.sse_events(
        resume(http, "t1", interrupts, [{"approved": True, "arguments": {"note": "safe.txt", "text": "hello"}}])
    )
    assert events[-1]["outcome"]["type"] == "success"
    assert notes == [{"note": "safe.txt", "text": "hello"}]


def test_a_resume_sent_twice_runs_the_call_once(http, notes):
    interrupts = paused(http)
    assert resume(http, "t1", interrupts, [{"approved": True}]).status_code == 200
    again = resume(http, "t1", interrupts, [{"approved": True}], run="r3")
    assert again.status_code == 409 and "not pending" in again.json()["error"]
    assert notes == [{"note": "a.txt", "text": "hello"}]


def test_two_resumes_sent_at_once_run_the_call_once(http, notes):
    from concurrent.futures import ThreadPoolExecutor

    interrupts = paused(http)
    with ThreadPoolExecutor(2) as pool:
        codes = sorted(
            pool.map(lambda run: resume(http, "t1", interrupts, [{"approved": True}], run).status_code, ["r2", "r3"])
        )
    assert codes == [200, 409]  # the thread's lease lets one in; the other finds nothing pending
    assert notes == [{"note": "a.txt", "text": "hello"}]


@pytest.mark.parametrize(
    "entries, said",
    [
        ([], "no user message"),
        ([{"interruptId": "apr_other", "status": "resolved", "payload": {"approved": True}}], "decide exactly"),
        ([{"interruptId": "ID", "status": "resolved", "payload": {"approved": "yes"}}], "approved"),
        ([{"interruptId": "ID", "status": "resolved", "payload": {"approved": True, "arguments": [1]}}], "arguments"),
        ([{"interruptId": "ID", "status": "resolved", "payload": {"approved": True}}] * 2, "decide exactly"),
    ],
)
def test_a_resume_that_does_not_decide_exactly_the_pending_calls_is_a_400(http, notes, entries, said):
    (interrupt,) = paused(http)
    entries = [{**e, "interruptId": interrupt.id if e["interruptId"] == "ID" else e["interruptId"]} for e in entries]
    r = http.post("/agents/approve", json=run_input(thread="t1", run="t1-r2", text="", resume=entries or None))
    assert r.status_code == 400 and said in r.json()["error"]
    assert http.get("/threads/t1").json()["pending"] is not None and not notes  # still waiting, nothing ran


def test_a_new_message_instead_of_a_decision_drops_the_paused_call(http, notes):
    paused(http)
    events = post_run(http, "approve", run_input(thread="t1", run="t1-r2", text="other"))
    assert events[-1]["outcome"]["type"] == "interrupt"  # a new call, for the new message
    pending = http.get("/threads/t1").json()["pending"]
    assert pending["approvals"][0]["arguments"]["text"] == "other" and not notes


def test_an_app_whose_pause_the_server_cannot_resume_ends_with_run_error(http, notes):
    events = post_run(http, "hidden", run_input(text="hello"))
    assert events[-1]["type"] == "RUN_ERROR" and "cannot resume" in events[-1]["message"]
    thread = http.get("/threads/t1").json()
    assert thread["pending"] is None and thread["runs"][-1]["status"] == "error" and not notes


def test_a_resume_after_the_server_died_mid_resume_does_not_run_the_call_again(tmp_path):
    """The server is killed after the approved call ran and before the thread was saved; a restarted server
    takes the same resume: the call's result is read from the session store, not run again."""
    effects, crash = tmp_path / "notes.txt", tmp_path / "crash"
    env = {"NOTES_FILE": str(effects), "CRASH_FILE": str(crash), "LEASE_S": "2"}
    data, db = tmp_path / "data", str(tmp_path / "sessions.db")
    server = scripted.ServerProcess(data, db, env)
    try:
        with httpx.Client(base_url=server.url, timeout=30) as c:
            interrupts = paused(c, text="crash test")
            crash.touch()
            with pytest.raises(httpx.HTTPError):
                resume(c, "t1", interrupts, [{"approved": True}]).raise_for_status()
        server.proc.wait(20)
        assert effects.read_text().splitlines() == ["a.txt:crash test"]
    finally:
        server.stop()
    server = scripted.ServerProcess(data, db, env)
    try:
        with httpx.Client(base_url=server.url, timeout=30) as c:
            assert c.get("/threads/t1").json()["pending"] is not None  # the killed resume saved nothing
            events = scripted.sse_events(resume(c, "t1", interrupts, [{"approved": True}]))
        assert events[-1]["outcome"]["type"] == "success"
        assert effects.read_text().splitlines() == ["a.txt:crash test"]  # ran once
    finally:
        server.stop()
