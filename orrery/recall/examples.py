"""Approved examples: question -> SQL pairs a person approved, per connection, retrieved as few-shot examples.

Only `approve` writes; `reject` never stores anything (it withdraws an earlier approval of the same pair), so a
wrong answer cannot teach the next one. The pairs of a connection are shared by its users.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orrery.errors import DataError
from orrery.recall.store import Embedder, Item, MemoryStore, Retention, Scope, open_memory

APP = "bi"
OWNER = "approved"  # the scope's user: a connection's examples are not one user's
MAX_QUESTION = 2000
MAX_SQL = 20_000


@dataclass
class Example:
    id: int
    question: str
    sql: str
    score: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)  # what the approver kept beside the SQL (e.g. its parts)


def _example(item: Item) -> Example:
    extra = {k: v for k, v in item.input.items() if k != "sql"}
    return Example(item.id or 0, item.content, item.input["sql"], item.score, extra)


def _checked(question: str, sql: str) -> tuple[str, str]:
    question, sql = (question or "").strip(), (sql or "").strip()
    if not question or not sql:
        raise DataError("an example needs a question and its SQL, both non-empty")
    if len(question) > MAX_QUESTION or len(sql) > MAX_SQL:
        raise DataError(f"an example's question is at most {MAX_QUESTION} characters and its SQL {MAX_SQL}")
    return question, sql


class ApprovedExamples:
    """`approve(connection, question, sql)`, `reject(...)`, `examples(connection, question, k)`, `list`, `remove`."""

    def __init__(self, store: str | Path | MemoryStore | None = None, *, embedder: Embedder | None = None):
        self.store = open_memory(store, embedder=embedder, retention=Retention(max_items=None))

    def _scope(self, connection: str) -> Scope:
        return Scope(OWNER, APP, connection)

    def _same(self, connection: str, question: str, sql: str) -> list[Example]:
        return [e for e in self.list(connection) if e.question == question and e.sql == sql]

    def approve(self, connection: str, question: str, sql: str, **extra: Any) -> int:
        """Store the pair (once: approving it again returns the stored id); `extra` (JSON-able, e.g. the SQL's
        parts) is kept beside it and returned with it."""
        question, sql = _checked(question, sql)
        if same := self._same(connection, question, sql):
            return same[0].id
        [item_id] = self.store.add(self._scope(connection), [Item("example", question, "sql", {**extra, "sql": sql})])
        return item_id

    def reject(self, connection: str, question: str, sql: str) -> int:
        """Never stores the pair; withdraws an earlier approval of it. Returns how many were withdrawn."""
        question, sql = _checked(question, sql)
        return sum(self.store.remove(self._scope(connection), e.id) for e in self._same(connection, question, sql))

    def examples(
        self, connection: str, question: str, k: int = 3, *, leave_one_out: bool = False, vector: Any = None
    ) -> list[Example]:
        """The k approved pairs nearest to `question`; `leave_one_out` leaves out a pair of the very same question;
        `vector`: the question's, when the caller has it (not embedded again)."""
        exclude = question.strip() if leave_one_out else None
        items = self.store.search(
            self._scope(connection), question, k, kinds=["example"], exclude=exclude, vector=vector
        )
        return [_example(i) for i in items]

    def has(self, connection: str) -> bool:
        """Whether the connection has any approved pair (one indexed read, no embedding)."""
        return bool(self.store.items(self._scope(connection), kinds=["example"], limit=1))

    def list(self, connection: str) -> list[Example]:
        items = self.store.items(self._scope(connection), kinds=["example"], limit=100_000)
        return [_example(i) for i in items]

    def remove(self, connection: str, example_id: int) -> bool:
        return self.store.remove(self._scope(connection), example_id)


def as_prompt(examples: list[Example]) -> str:
    """Examples as the text given to the model before the question."""
    return "\n\n".join(f"Question: {e.question}\nSQL: {e.sql}" for e in examples)
