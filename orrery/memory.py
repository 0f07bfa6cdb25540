"""The conversation history and the context sent to the model each step."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from orrery.messages import Message


class Memory:
    """The conversation, bounded to `max_history` messages (the first `keep_first` are never dropped,
    and a tool-call turn is never split from its results)."""

    def __init__(self, max_history: int = 200, keep_first: int = 2):
        self.max_history = max_history
        self.keep_first = keep_first
        self.messages: list[Message] = []

    def add(self, *messages: Message) -> None:
        self.messages.extend(messages)
        if len(self.messages) > self.max_history:
            head = self.messages[: self.keep_first]
            body = self.messages[self.keep_first :]
            cut = safe_cut(body, len(self.messages) - self.max_history)
            self.messages = head + body[cut:]

    def clear(self) -> None:
        self.messages.clear()


def safe_cut(body: Sequence[Message], at_least: int) -> int:
    """First index >= at_least where `body` can be cut without orphaning tool results
    (a cut never starts on a tool message, so an assistant turn keeps all its results)."""
    i = max(0, at_least)
    while i < len(body) and body[i].role == "tool":
        i += 1
    return i


def estimate_tokens(messages: Sequence[Message]) -> int:
    """Rough token count (4 characters a token): enough to decide when to truncate."""
    return (
        sum(
            len(m.content) + sum(len(json.dumps(c.arguments)) + len(c.name) for c in m.tool_calls) + 8 for m in messages
        )
        // 4
    )


def _default_query(m: Message) -> list[str]:
    return [f"{c.name}({json.dumps(c.arguments, default=str)})" for c in m.tool_calls]


@dataclass
class SlidingWindow:
    """A sliding-window context manager: keep the first `keep_first` messages, keep the newest body
    messages that fit `max_tokens` (and at most `max_messages`), and replace what was dropped
    with a notice that lists the queries (tool calls) made so far, so they are not repeated."""

    max_tokens: int = 6000
    max_messages: int = 40
    keep_first: int = 2
    describe_calls: Callable[[Message], list[str]] = _default_query

    def __call__(self, messages: Sequence[Message]) -> list[Message]:
        head, body = list(messages[: self.keep_first]), list(messages[self.keep_first :])
        budget = self.max_tokens - estimate_tokens(head)
        start = max(0, len(body) - self.max_messages)
        while start < len(body) and estimate_tokens(body[start:]) > budget:
            start += 1
        start = safe_cut(body, start)
        if start == 0:
            return head + body
        queries = [q for m in body for q in self.describe_calls(m)]
        notice = Message(
            "user",
            f"[Context truncated: {start} earlier messages were removed. "
            f"Calls made so far (do not repeat them): {'; '.join(queries) or 'none'}]",
        )
        return head + [notice] + body[start:]
