"""Approved examples for the BI agent: question -> SQL pairs a person approved, per connection (the database's
name), given as earlier turns to the plan step and the SQL step for the nearest questions, and taken by the
decline judgment as evidence that the data holds a term an approved question used (`ExampleMemory.covers`).

Only an approval writes (`approve`, `orrery bi approve RUN`, the web app's thumbs-up); a rejection never stores
anything and withdraws nothing unless asked (`reject(..., withdraw=True)`). The pairs live in the session
database through `orrery.recall.ApprovedExamples`; an answer to approve is found by its run id: a CLI session's
last answered query (`last_answer`), or a served run's `bi` state (`orrery.serve.feedback`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from orrery.apps import ID_PATTERN
from orrery.bi.decline import user_wrote
from orrery.bi.semantic import words
from orrery.errors import DataError
from orrery.messages import Message
from orrery.recall.examples import ApprovedExamples, Example

if TYPE_CHECKING:
    from orrery.bi.context import BIContext

ID = re.compile(ID_PATTERN)  # a run id or database name a user names (a CLI session, a served run)
K = 3  # approved pairs given per SQL call (the nearest last in the prompt)
# Shown only when its question is this similar (MiniLM cosine) to the new one: in bench/bi_memory.md's first run
# the one answer an example turned wrong ("average account balance of customers" -> grouped by name) followed a
# pair at 0.04 ("List the names of the nations in ASIA"); unrelated questions score below ~0.3 with this model.
FLOOR = 0.3


class NotApprovable(DataError):
    """The run named has no answered query to approve."""


def check_id(what: str, value: str) -> str:
    if not isinstance(value, str) or not ID.match(value):
        raise DataError(f"{what} {str(value)[:80]!r} is not an id: use 1-64 letters, digits, '_' or '-'")
    return value


@dataclass
class ExampleMemory:
    """What the SQL step reads (`BIContext.approved`): the store, how many pairs, and whether a question may
    retrieve its own approved pair (`leave_one_out`, for measuring; a user asking again wants it)."""

    examples: ApprovedExamples
    k: int = K
    leave_one_out: bool = False
    floor: float | None = FLOOR  # a pair whose question is less similar (cosine) to the new one is not shown

    def nearest(self, connection: str, question: str) -> list[Example]:
        if not question.strip() or self.k <= 0 or not self.examples.has(connection):
            return []
        found = self.examples.examples(connection, question, self.k, leave_one_out=self.leave_one_out)
        embedder = self.examples.store.embedder
        if self.floor is None or embedder is None or not found:
            return found
        vectors = embedder.embed([question, *(e.question for e in found)])
        return [e for e, sim in zip(found, vectors[1:] @ vectors[0], strict=True) if sim >= self.floor]

    def covers(self, connection: str, term: str, question: str) -> bool:
        """Whether an approved pair near `question` (one `nearest` shows) has `term` in its question: a person
        approved the rows of an executed query for it, so the data holds what the term means there. Evidence
        for that term only: every other term of the question is still judged on the data."""
        return any(user_wrote(term, e.question) for e in self.nearest(connection, question))


def approved_shots(bi: BIContext, mode: str, question: str) -> list[Message]:
    """The approved pairs of the connection nearest to `question` (the user's words, else the plan's request) as
    user/assistant turns in the reply format of `mode` ('parts': the clauses, as the model fills them in; else
    {"sql"}), the nearest last (next to the question)."""
    memory: ExampleMemory | None = bi.approved
    if memory is None:
        return []
    out: list[Message] = []
    for e in reversed(memory.nearest(bi.engine.name, question)):
        reply = sql_parts(e.sql, bi.engine.dialect, bi.engine.limits.max_rows) if mode == "parts" else {"sql": e.sql}
        if reply is not None:
            out += [Message("user", f"Question: {e.question}"), Message("assistant", json.dumps(reply))]
    return out


def plan_shots(bi: BIContext, question: str, render: Callable[[str], str]) -> list[Message]:
    """The approved pairs nearest to `question` as plan-step turns (`render` writes a request as the plan step's
    user message), each answered by the plan that leads to its query (`plan_reply`), the nearest last."""
    memory: ExampleMemory | None = bi.approved
    if memory is None:
        return []
    return [
        m
        for e in reversed(memory.nearest(bi.engine.name, question))
        for m in (
            Message("user", render(e.question)),
            Message("assistant", json.dumps(plan_reply(e.question, e.sql, bi.engine.dialect))),
        )
    ]


def plan_reply(question: str, sql: str, dialect: str) -> dict[str, str]:
    """The plan an approved query answers, in the plan step's reply format: a query; its values the SQL's text
    literals the question names, its fields the SQL's columns the question names (in the question's words
    where they match)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        tree = None
    literals = [str(e.this) for e in tree.find_all(exp.Literal) if e.is_string] if tree else []
    columns = [words(c.name) for c in tree.find_all(exp.Column)] if tree else []
    values = [v for v in dict.fromkeys(literals) if v and user_wrote(v, question)]
    fields = [f for f in dict.fromkeys(columns) if f and user_wrote(f, question)]
    return {"request": question, "kind": "query", "values": ", ".join(values), "fields": ", ".join(fields)}


def sql_parts(sql: str, dialect: str, cap: int | None = None) -> dict[str, Any] | None:
    """An approved SELECT as the parts the model writes (select, where, group_by, having, order_by, limit); the
    joins are not a part (derived from the layer), nor a LIMIT equal to the guard's row cap. None for SQL that
    is not one plain SELECT (a union, a parse error): such a pair is not shown in parts mode."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return None
    if not isinstance(tree, exp.Select):
        return None

    def conjuncts(node: exp.Expression | None) -> list[str]:
        if node is None:
            return []
        return (
            [c.sql(dialect) for c in node.this.flatten()]
            if isinstance(node.this, exp.And)
            else [node.this.sql(dialect)]
        )

    limit = tree.args.get("limit")
    n = int(limit.expression.name) if limit is not None and limit.expression.is_int else None
    group = tree.args.get("group")
    order = tree.args.get("order")
    return {
        "select": [e.sql(dialect) for e in tree.expressions],
        "where": conjuncts(tree.args.get("where")),
        "group_by": [e.sql(dialect) for e in group.expressions] if group else [],
        "having": conjuncts(tree.args.get("having")),
        "order_by": [e.sql(dialect) for e in order.expressions] if order else [],
        "limit": None if n is None or n == cap else n,
    }


def use_examples(
    agent: Any,
    store: Any = None,
    *,
    k: int = K,
    leave_one_out: bool = False,
    embedder: Any = "default",
    floor: float | None = FLOOR,
) -> Any:
    """Give a BI agent the approved examples of `store` (a path, a `postgresql://` URL, a session store, an
    `ApprovedExamples`; None: the session database). `embedder="default"` uses MiniLM when it is installed
    (full text alone otherwise; no `floor` then). Returns the agent."""
    agent.bi.approved = ExampleMemory(open_examples(store, embedder), k, leave_one_out, floor)
    return agent


def open_examples(store: Any = None, embedder: Any = "default") -> ApprovedExamples:
    if isinstance(store, ApprovedExamples):
        return store
    if embedder == "default":
        embedder = _embedder()
    target = getattr(store, "url", None) or getattr(store, "path", None) if store is not None else None
    if store is not None and target is None and not isinstance(store, str | Path):
        raise DataError(f"cannot keep approved examples in a {type(store).__name__}: give a path or a URL")
    return ApprovedExamples(target or store, embedder=embedder)


def _embedder() -> Any:
    """MiniLM when it is installed, loaded at its first use (a run with no approved example never reads it)."""
    from orrery.errors import ConfigError

    try:
        from orrery.recall.embed import model_zip

        model_zip()
    except (ConfigError, ImportError):  # the memory extra or the model package is not installed: full text
        return None
    return _LazyEmbedder()


class _LazyEmbedder:
    def embed(self, texts: Any) -> Any:
        from orrery.recall.embed import default_embedder

        return default_embedder().embed(texts)


# -- approving an answer ---------------------------------------------------------------------------------
def answered_query(answer: dict[str, Any]) -> tuple[str, str]:
    """(connection, SQL) of a BI answer (`BIAnswer.to_dict()`) that ran a query; NotApprovable otherwise."""
    if answer.get("status") not in ("completed", "answered") or not answer.get("sql"):  # "answered": saved before
        raise NotApprovable(
            f"only an answered query can be approved; this answer is {answer.get('status')!r}"
            + ("" if answer.get("sql") else " and ran no SQL")
        )
    for todo in answer.get("todos") or []:
        if todo.get("tool") == "sql_executor" and todo.get("status") == "done":
            meta = _json(todo.get("result")).get("query_metadata") or {}
            if meta.get("engine"):
                return str(meta["engine"]), str(meta.get("query") or answer["sql"])
    raise NotApprovable("this answer's query is not one the SQL step ran (a GraphQL lookup cannot be approved)")


def approve(agent: Any, examples: ApprovedExamples | None = None) -> int:
    """Approve the agent's last answer (`agent.answer`, for the question the user asked): stores its question ->
    SQL pair for its connection and returns the example's id."""
    if agent.answer is None:
        raise NotApprovable("the agent has answered nothing yet")
    connection, sql = answered_query(agent.answer.to_dict())
    store = examples or (agent.bi.approved.examples if agent.bi.approved else open_examples())
    return store.approve(connection, agent.bi.question, sql)


def last_answer(sessions: Any, run_id: str) -> tuple[str, str, str]:
    """(connection, question, SQL) of the last query a CLI session (`orrery bi ask` prints its id) ran."""
    session = sessions.load(check_id("run id", run_id))
    entries = ((session.data or {}).get("bi") or {}).get("memory", []) if session is not None else []
    if session is None:
        raise NotApprovable(f"no BI session {run_id!r} in {getattr(sessions, 'path', None) or 'the session store'}")
    at = next(
        (
            i
            for i in range(len(entries) - 1, -1, -1)
            if entries[i].get("query_metadata", {}).get("engine") and entries[i].get("status") == "complete"
        ),
        None,
    )
    if at is None:
        raise NotApprovable(f"session {run_id!r} ran no query to approve")
    meta = entries[at]["query_metadata"]
    return meta["engine"], _question(entries, at), meta["query"]


def _question(entries: list[dict[str, Any]], at: int) -> str:
    """The user's words that started the plan whose step `at` ran the query: the earliest entry of that plan
    (a clarification's answer reruns a step; the question came before it)."""
    plan = [t["key"] for t in entries[at].get("active_todo_list_snapshot", [])]
    first = at
    while (
        first > 0
        and [t["key"] for t in entries[first - 1].get("active_todo_list_snapshot", [])] == plan
        and entries[first - 1].get("todo_key") != plan[-1]
    ):
        first -= 1
    return entries[first]["user_input"]


def _json(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str) else text
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
