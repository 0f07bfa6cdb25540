"""The AG-UI event stream of scripted runs: validated against the ag-ui-protocol models, in order."""

import httpx
from ag_ui.core import Event, RunAgentInput
from fastapi.testclient import TestClient
from pydantic import TypeAdapter
from scripted import CHAT_EVENTS, model_for, post_run, run_input, sse_events

from orrery.llm.scripted import ScriptedModel
from orrery.serve import create_app

EVENTS = TypeAdapter(Event)


def types(events):
    return [e["type"] for e in events]


def test_chat_run_is_a_valid_ordered_agui_sequence(live):
    with httpx.Client(base_url=live.url, timeout=30) as c:
        events = post_run(c, "chat", run_input(text="what is 6*7"))
    parsed = [EVENTS.validate_python(e) for e in events]  # every event is a valid AG-UI event
    assert all(type(p).__name__.endswith("Event") for p in parsed)
    assert types(events) == CHAT_EVENTS
    assert events[0]["threadId"] == "t1" and events[0]["runId"] == "r1"
    start, args, result = events[8], events[9], events[11]
    assert start["toolCallName"] == "calculate" and args["delta"] == '{"expression": "6*7"}'
    assert result["toolCallId"] == start["toolCallId"] == events[10]["toolCallId"] and result["content"] == "42"
    texts = {}
    for e in events:
        if e["type"] == "TEXT_MESSAGE_CONTENT":
            texts[e["messageId"]] = texts.get(e["messageId"], "") + e["delta"]
    assert list(texts.values()) == ["Let me compute that.", "6*7 = 42"]  # streamed token by token, once each
    assert start["parentMessageId"] == events[2]["messageId"]  # the call belongs to the step's message
    assert events[-1]["outcome"] == {"type": "success"} and events[-1]["result"] == {"status": "completed"}


def test_agents_lists_apps_with_inputs(client):
    agents = {a["name"]: a for a in client.get("/agents").json()}
    assert {"chat", "forecast", "clarify"} <= set(agents)
    assert "data" in agents["forecast"]["inputs"] and agents["chat"]["description"]
    assert list(agents["forecast"]["inputs"])[0] == "message" and list(agents["chat"]["inputs"]) == ["message"]
    forecast = agents["forecast"]["schema"]
    assert forecast["properties"]["data"]["format"] == "upload" and forecast["required"] == ["data"]
    assert forecast["additionalProperties"] is False
    assert list(agents["markets"]["inputs"]) == ["message", "approve_tools"]  # the store is the operator's
    assert agents["markets"]["schema"]["properties"]["approve_tools"]["type"] == "boolean"


def test_clarification_is_an_interrupt_and_resume_continues_the_thread(client):
    first = post_run(client, "clarify", run_input(thread="trip", run="r1", text="book me a trip"))
    assert types(first)[-1] == "RUN_FINISHED" and "TEXT_MESSAGE_START" not in types(first)
    outcome = first[-1]["outcome"]
    assert outcome["type"] == "interrupt"
    (interrupt,) = outcome["interrupts"]
    assert interrupt["reason"] == "clarification" and interrupt["message"] == "Which city should I book the trip to?"
    thread = client.get("/threads/trip").json()
    assert thread["pending"]["id"] == interrupt["id"]
    body = run_input(
        thread="trip",
        run="r2",
        text="",
        resume=[{"interruptId": interrupt["id"], "status": "resolved", "payload": {"answer": "Lisbon"}}],
    )
    RunAgentInput.model_validate(body)
    second = post_run(client, "clarify", body)
    assert second[-1]["outcome"] == {"type": "success"}
    text = "".join(e["delta"] for e in second if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "Done: booked a trip to Lisbon."
    thread = client.get("/threads/trip").json()
    assert thread["pending"] is None and [r["run_id"] for r in thread["runs"]] == ["r1", "r2"]
    assert [m["content"] for m in thread["messages"]] == [
        "book me a trip",
        "Which city should I book the trip to?",
        "Lisbon",
        "Done: booked a trip to Lisbon.",
    ]
    # the interrupt is spent: resuming it again is refused
    again = client.post("/agents/clarify", json={**body, "runId": "r3"})
    assert again.status_code == 409 and "not pending" in again.json()["error"]


def test_follow_up_sees_earlier_turns(client, settings):
    seen = []

    def model(agent, body):
        m = model_for(agent, body)
        seen.append(m)
        return m

    settings.model = model
    with TestClient(create_app(settings)) as c:
        post_run(c, "chat", run_input(thread="f", run="a", text="what is 2+3"))
        post_run(c, "chat", run_input(thread="f", run="b", text="and 4*5"))
    task = seen[1].requests[0]["messages"][1].content
    assert (
        task.startswith("Earlier in this conversation:")
        and "assistant: 2+3 = 5" in task
        and task.endswith("Now: and 4*5")
    )


def test_bad_requests_are_4xx_with_a_message(client):
    cases = [
        (client.post("/agents/nope", json=run_input()), 404, "no agent named 'nope'"),
        (
            client.post("/agents/chat", content=b"{not json", headers={"Content-Type": "application/json"}),
            400,
            "not JSON",
        ),
        (client.post("/agents/chat", json={"threadId": "x"}), 400, "runId"),
        (client.post("/agents/chat", json=run_input(text="   ")), 400, "no user message"),
        (client.post("/agents/chat", json=run_input(forwardedProps={"inputs": {"h": 3}})), 400, "takes no input 'h'"),
        (
            client.post("/agents/forecast", json=run_input(forwardedProps={"inputs": {"data": "/etc/passwd"}})),
            400,
            "input 'data' takes an upload id",
        ),
        (
            client.post("/agents/forecast", json=run_input(forwardedProps={"inputs": {"h": 3}})),
            400,
            "input 'data' takes an upload id",
        ),  # never the message read as a path
        (
            client.post("/agents/forecast", json=run_input(forwardedProps={"inputs": {"data": "x", "h": "many"}})),
            400,
            "input 'h'",
        ),
        (
            client.post("/agents/bi", json=run_input(forwardedProps={"inputs": {"db": "sessions.db"}})),
            400,
            "no database named 'sessions.db'",
        ),
        (client.get("/threads/none"), 404, "no thread"),
        (client.get("/runs/x/..%2Fthreads.sqlite"), 400, "'..'"),
    ]
    for response, code, words in cases:
        assert response.status_code == code, response.text
        assert words in response.json()["error"]
    post_run(client, "chat", run_input(thread="c1"))
    wrong = client.post("/agents/clarify", json=run_input(thread="c1", run="r9"))
    assert wrong.status_code == 409 and "belongs to agent 'chat'" in wrong.json()["error"]


def test_a_failing_model_ends_with_run_error_not_a_500(client, settings):
    settings.model = lambda agent, body: ScriptedModel([])
    with TestClient(create_app(settings)) as c:
        events = post_run(c, "chat", run_input())
    assert types(events)[-1] == "RUN_ERROR" and "ran out of turns" in events[-1]["message"]
    assert types(events)[0] == "RUN_STARTED"


def test_sse_parsing_helper_reads_data_lines():
    class R:
        def iter_lines(self):
            return iter(['data: {"type": "RUN_STARTED"}', "", ": comment", 'data: {"type": "X"}'])

    assert sse_events(R()) == [{"type": "RUN_STARTED"}, {"type": "X"}]


def test_a_plan_agent_streams_its_plan_as_state_and_resumes_the_todo_after_the_answer(client):
    first = post_run(client, "planner", run_input(thread="ship", run="p1", text="shipments to Miami last week"))
    snapshot = next(e for e in first if e["type"] == "STATE_SNAPSHOT")["snapshot"]
    assert [t["status"] for t in snapshot["plan"]["todos"]] == ["pending", "pending", "pending"]
    deltas = [e["delta"] for e in first if e["type"] == "STATE_DELTA"]
    state = {"plan": snapshot["plan"]}
    for delta in deltas:  # JSON Patch "add" on a member replaces it
        (op,) = delta
        assert op["op"] == "add" and op["path"] == "/plan"
        state["plan"] = op["value"]
    assert [t["status"] for t in state["plan"]["todos"]] == ["done", "paused", "pending"]
    interrupt = first[-1]["outcome"]["interrupts"][0]
    assert interrupt["message"] == "Which Miami: Port of Miami or Miami Container Terminal?"
    resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"answer": "Port of Miami"}}]
    second = post_run(client, "planner", run_input(thread="ship", run="p2", text="", resume=resume))
    assert [e["toolCallName"] for e in second if e["type"] == "TOOL_CALL_START"] == ["resolve_port", "fetch_shipments"]
    last_plan = [e for e in second if e["type"] in ("STATE_SNAPSHOT", "STATE_DELTA")][-1]
    assert [t["status"] for t in last_plan["delta"][0]["value"]["todos"]] == ["done", "done", "done"]
    text = "".join(e["delta"] for e in second if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "Found shipments to PORT:Port of Miami" and second[-1]["outcome"] == {"type": "success"}


def test_research_run_streams_its_board_and_ends_with_the_source_board_and_probability(client):
    events = post_run(client, "research", run_input(thread="r", text="Will the incumbent win the election?"))
    states = [e for e in events if e["type"] in ("STATE_SNAPSHOT", "STATE_DELTA")]
    assert states[0]["type"] == "STATE_SNAPSHOT" and isinstance(states[0]["snapshot"]["board"], str)  # live board
    final = states[-1]["snapshot"]["board"]
    (source,) = final["sources"]
    assert final["probability"] == 0.6 and source["why"] == "the market price" and source["url"].startswith("https://")
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "Probability: 0.60. The market leans this way [1]."
    assert client.get("/threads/r").json()["state"]["board"]["probability"] == 0.6


def test_bi_agent_clarifies_as_an_interrupt_and_answers_with_its_result_as_state(client):
    first = post_run(
        client, "bi", run_input(thread="bi", run="b1", text="How many shipments went to customers in United in 1995?")
    )
    (interrupt,) = first[-1]["outcome"]["interrupts"]
    assert interrupt["message"] == "Which 'United' do you mean: UNITED KINGDOM or UNITED STATES?"
    resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"answer": "UNITED KINGDOM"}}]
    second = post_run(client, "bi", run_input(thread="bi", run="b2", text="", resume=resume))
    assert second[-1]["outcome"] == {"type": "success"}
    bi = [e["delta"][0]["value"] for e in second if e["type"] == "STATE_DELTA" and e["delta"][0]["path"] == "/bi"][-1]
    assert bi["status"] == "completed" and len(bi["columns"]) == 1 and bi["rows"][0][0] > 0
    assert "'UNITED KINGDOM'" in bi["sql"]
