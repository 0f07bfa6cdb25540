"""Feedback on a served BI answer: approve it (its question -> SQL pair becomes an example the BI agent is shown
for the nearest later questions on that database) or reject it (nothing is stored).

POST /threads/{thread_id}/runs/{run_id}/approve -> {"example", "connection", "question", "sql", "corrected"}
     ({"sql": "SELECT ..."}: a person's correction, kept with the run's question instead of the agent's SQL;
     a declined or failed run, which ran no query, takes a correction only)
POST /threads/{thread_id}/runs/{run_id}/reject  ({"withdraw": true} also removes the same pair if it was approved)
GET  /examples/{connection}                     -> the approved pairs of a database
GET  /memory/{connection}                       -> {"connection", "examples": [{id, question, sql}],
                                                    "fields": [{id, term, column}]}: what people taught it
POST /memory/{connection}/remove                ({"example": ID} or {"field": "term"}) -> {"removed": ...};
                                                    404 where the connection has no such item

The question is read from the run as the server recorded it (its `bi` state and the user's message that started
it), never from the request: a client names a run of its thread. A corrected SQL is untrusted input: bounded by
the server's body limit and `MAX_SQL`, it is kept only once it passes the read-only guard and plans (EXPLAIN) on
the run's own database (`orrery.bi.examples.correction`; for a declined or failed run, the database its answer
records, `BIAnswer.connection`); 400 with the reason otherwise, nothing stored. The examples live in
the server's session database (SQLite or PostgreSQL), where every server process sharing it finds them.
A memory item is named by what a strict pattern allows (`ITEM_ID`, `examples.TERM`), checked before it touches a
store key, and removed only within its connection's scope.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from orrery.serve.guard import check_id, parse_json

ITEM_ID = re.compile(r"[1-9][0-9]{0,17}")  # a store item's id, as `GET /memory/{connection}` lists it
MAX_REMOVE_BODY = 256  # {"field": a term of at most 64 characters}


def routes(api: APIRouter, server: Any) -> None:
    """Add the feedback routes to the server's guarded router (token and Origin checked like every route)."""

    @api.post("/threads/{thread_id}/runs/{run_id}/approve")
    async def approve(thread_id: str, run_id: str, request: Request) -> dict[str, Any]:
        fix = (await _body(request)).get("sql")
        if fix is not None and not isinstance(fix, str):
            raise HTTPException(
                400, '"sql" must be the corrected query as a string; leave it out to approve the answer'
            )
        return await asyncio.to_thread(_approve, server, thread_id, run_id, fix)

    @api.post("/threads/{thread_id}/runs/{run_id}/reject")
    async def reject(thread_id: str, run_id: str, request: Request) -> dict[str, Any]:
        withdraw = (await _body(request)).get("withdraw") is True
        return await asyncio.to_thread(_reject, server, thread_id, run_id, withdraw)

    @api.get("/examples/{connection}")
    async def examples(connection: str) -> list[dict[str, Any]]:
        check_id("connection", connection)
        found = await asyncio.to_thread(lambda: _examples(server).list(connection))
        return [_pair(e) for e in found]

    @api.get("/memory/{connection}")
    async def memory(connection: str) -> dict[str, Any]:
        return await asyncio.to_thread(_memory, server, check_id("connection", connection))

    @api.post("/memory/{connection}/remove")
    async def remove(connection: str, request: Request) -> dict[str, Any]:
        check_id("connection", connection)
        if len(raw := await request.body()) > MAX_REMOVE_BODY:
            raise HTTPException(413, f"a removal's body is at most {MAX_REMOVE_BODY} bytes")
        what, key = _item(await _body(request, raw))
        return await asyncio.to_thread(_remove, server, connection, what, key)


async def _body(request: Request, raw: bytes | None = None) -> dict[str, Any]:
    """The request's JSON object (`raw`, when read already; empty without a body); 400 otherwise."""
    try:
        body = parse_json((await request.body() if raw is None else raw) or b"{}")
    except ValueError as exc:
        raise HTTPException(400, f"the body is not JSON: {str(exc).splitlines()[0]}") from None
    if not isinstance(body, dict):
        raise HTTPException(400, "the body must be a JSON object")
    return body


def _memory(server: Any, connection: str) -> dict[str, Any]:
    from orrery.bi.examples import ExampleMemory

    examples = _examples(server)
    return {
        "connection": connection,
        "examples": [_pair(e) for e in examples.list(connection)],
        "fields": [
            {"id": f.id, "term": f.term, "column": f.column} for f in ExampleMemory(examples).fields(connection)
        ],
    }


def _pair(example: Any) -> dict[str, Any]:
    return {"id": example.id, "question": example.question, "sql": example.sql}


def _item(body: dict[str, Any]) -> tuple[str, str]:
    """('example', its id) or ('field', its term), each whole of its strict pattern; 400 otherwise."""
    from orrery.bi.examples import MAX_TERM, TERM

    if set(body) == {"example"} and isinstance(body["example"], int) and ITEM_ID.fullmatch(str(body["example"])):
        return "example", str(body["example"])
    term = body.get("field")
    if set(body) == {"field"} and isinstance(term, str) and len(term) <= MAX_TERM and TERM.fullmatch(term):
        return "field", term
    raise HTTPException(
        400,
        'name one item: {"example": ID} or {"field": "term"} (as GET /memory/{connection} lists them; a term is '
        f"at most {MAX_TERM} lower-case letters, digits and single spaces)",
    )


def _remove(server: Any, connection: str, what: str, key: str) -> dict[str, Any]:
    """Remove the connection's item; 404 when it has none of that id or term (another connection's included)."""
    from orrery.bi.examples import ExampleMemory

    examples = _examples(server)
    if what == "example":
        found = [e.id for e in examples.list(connection) if str(e.id) == key]
    else:
        found = [f.id for f in ExampleMemory(examples).fields(connection) if f.term == key]
    if not found or not all(examples.remove(connection, i) for i in found):
        raise HTTPException(404, f"{connection} has no {what} {key!r}; GET /memory/{connection} lists them")
    return {"removed": {what: int(key) if what == "example" else key}, "connection": connection}


def _approve(server: Any, thread_id: str, run_id: str, fix: str | None) -> dict[str, Any]:
    if fix is None:
        connection, question, kept = _answer(server, thread_id, run_id)
    else:
        connection, question = _correctable(server, thread_id, run_id)
        kept = _correction(connection, fix)
    return {
        "example": _examples(server).approve(connection, question, kept),
        "connection": connection,
        "question": question,
        "sql": kept,
        "corrected": fix is not None,
    }


def _correction(connection: str, sql: str) -> str:
    """The corrected SQL as kept, checked on the run's database (`correction`); 400 with the reason otherwise."""
    from orrery.bi.examples import BadCorrection, correction_on

    try:
        return correction_on(connection, sql)
    except BadCorrection as exc:
        raise HTTPException(400, str(exc)) from None


def _reject(server: Any, thread_id: str, run_id: str, withdraw: bool) -> dict[str, Any]:
    """Nothing is stored; with `withdraw`, an approval of the same pair is removed."""
    connection, question, sql = _answer(server, thread_id, run_id)
    return {"stored": False, "withdrawn": _examples(server).reject(connection, question, sql) if withdraw else 0}


def _examples(server: Any) -> Any:
    from orrery.bi.examples import open_examples

    if getattr(server, "_examples", None) is None:  # the embedder (when installed) loads at the first approval
        server._examples = open_examples(server.store.sessions)
    return server._examples


def _answer(server: Any, thread_id: str, run_id: str) -> tuple[str, str, str]:
    """(connection, question, SQL) of a run of the thread that answered with a query; 404 / 409 otherwise."""
    from orrery.bi.examples import answered_query

    answer, question = _run_answer(server, thread_id, run_id)
    connection, sql = _approvable(answered_query, answer)
    return connection, question, sql


def _correctable(server: Any, thread_id: str, run_id: str) -> tuple[str, str]:
    """(connection, question) of a run of the thread a correction can be kept for: one that answered with a query,
    or one declined or failed on the database its answer records (`examples.correctable`); 404 / 409 otherwise."""
    from orrery.bi.examples import correctable

    answer, question = _run_answer(server, thread_id, run_id)
    return _approvable(correctable, answer), question


def _approvable(read: Callable[[dict[str, Any]], Any], answer: dict[str, Any]) -> Any:
    from orrery.bi.examples import NotApprovable

    try:
        return read(answer)
    except NotApprovable as exc:
        raise HTTPException(409, str(exc)) from None


def _run_answer(server: Any, thread_id: str, run_id: str) -> tuple[dict[str, Any], str]:
    """The BI answer (its `bi` state) and the question of a run of the thread; 404 / 409 otherwise."""
    thread_id, run_id = check_id("thread id", thread_id), check_id("run id", run_id)
    thread = server.store.load(thread_id)
    run = next((r for r in thread.runs if r["run_id"] == run_id), None) if thread else None
    if run is None:
        raise HTTPException(404, f"no run {run_id!r} on thread {thread_id!r}; GET /threads/{{id}} lists its runs")
    answer, question = _bi_state(run.get("events", [])), _question(thread, run_id)
    if answer is None or not question:
        raise HTTPException(409, f"run {run_id!r} gave no BI answer to approve")
    return answer, question


def _bi_state(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last `bi` state the run sent (a snapshot's key, or a delta adding it)."""
    found = None
    for e in events:
        if e.get("type") == "STATE_SNAPSHOT" and isinstance(e.get("snapshot"), dict) and "bi" in e["snapshot"]:
            found = e["snapshot"]["bi"]
        elif e.get("type") == "STATE_DELTA":
            found = next(
                (
                    op["value"]
                    for op in e.get("delta", [])
                    if isinstance(op, dict) and op.get("path") == "/bi" and op.get("op") in ("add", "replace")
                ),
                found,
            )
    return found if isinstance(found, dict) else None


def _question(thread: Any, run_id: str) -> str:
    """The question the run answered: the user's message of the run, or, when it answered a clarification (the
    run before it paused), of the run that asked it. Each run of a thread added one user message, in order."""
    at = next(i for i, r in enumerate(thread.runs) if r["run_id"] == run_id)
    while at > 0 and thread.runs[at - 1].get("status") == "paused":
        at -= 1
    users = [m for m in thread.messages if m.get("role") == "user"]
    return str(users[at].get("content") or "") if at < len(users) else ""
