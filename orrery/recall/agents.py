"""The long-term memory as agents use it: a handler that writes a run's events into it, a `recall` tool, a context
hook that puts the k most relevant memories before the task, and `memory_state` (both memories of an agent)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Literal

from orrery.errors import ToolError
from orrery.events import Event, Final, RunStart, ToolResultEvent
from orrery.messages import Message
from orrery.recall.store import Item, MemoryStore, Mode, Retention, Scope, open_memory
from orrery.tools.core import Tool

MAX_RECALL = 20
SHOWN_CHARS = 500  # of each recalled item, in what the model reads


@dataclass
class LongTermMemory:
    """A store seen from one scope: what a run writes to and recalls from. `threads="all"` recalls from the
    user's other threads of the same app too (never another user's or app's)."""

    store: MemoryStore
    scope: Scope
    threads: Literal["one", "all"] = "one"

    @classmethod
    def open(
        cls,
        target: str | Path | MemoryStore | None = None,
        *,
        user: str = "local",
        app: str = "chat",
        thread: str = "default",
        retention: Retention | None = None,
        embedder: Any = None,
        threads: Literal["one", "all"] = "one",
    ) -> LongTermMemory:
        return cls(open_memory(target, embedder=embedder, retention=retention), Scope(user, app, thread), threads)

    def remember(self, *items: Item) -> list[int]:
        return self.store.add(self.scope, items)

    def recall(
        self,
        query: str,
        k: int = 5,
        *,
        kinds: Sequence[str] | None = None,
        mode: Mode = "fused",
        exclude: str | None = None,
    ) -> list[Item]:
        return self.store.search(self.scope, query, k, kinds=kinds, threads=self.threads, mode=mode, exclude=exclude)

    def items(self, *, kinds: Sequence[str] | None = None, limit: int = 1000) -> list[Item]:
        return self.store.items(self.scope, kinds=kinds, threads=self.threads, limit=limit)

    def recorder(self) -> Recorder:
        return Recorder(self)


class Recorder:
    """An event handler (beside TraceWriter, on the same events): each tool result becomes an observation (tool,
    input, content, ok), the run's task a user turn and its final answer an assistant turn, under one run id.
    Each is written as its event arrives, so a run that crashes keeps what it observed."""

    def __init__(self, memory: LongTermMemory):
        self.memory = memory
        self.run_id = ""

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunStart):
            self.run_id = uuid.uuid4().hex
            self.memory.remember(Item("turn", event.task, "user", run_id=self.run_id))
        elif isinstance(event, ToolResultEvent):
            self.memory.remember(
                Item("observation", event.content, event.call.name, dict(event.call.arguments), event.ok, self.run_id)
            )
        elif isinstance(event, Final) and event.output:
            self.memory.remember(
                Item(
                    "turn",
                    event.output,
                    "assistant",
                    {"status": event.status},
                    event.status == "completed",
                    self.run_id,
                )
            )


def attach(agent: Any, memory: LongTermMemory) -> Any:
    """Record `agent`'s runs into `memory` (a `Recorder` among its handlers), bind its `recall` tool, if it has
    one, to `memory`, and give it `agent.memory_state()` (`memory_state`). Works for any architecture with
    `handlers` and a `tools` Toolset (loop, router, planner). Returns the agent."""
    agent.handlers.append(memory.recorder())
    if "recall" in agent.tools:
        agent.tools.add(recall_tool(memory))  # the same spec, so the model's tool catalogue does not change
    agent.memory_state = partial(memory_state, agent, memory)  # a method of this agent, not of every Agent
    return agent


def describe(items: Sequence[Item]) -> str:
    """Recalled items as the model reads them, one a line, each cut to SHOWN_CHARS."""
    lines = []
    for it in items:
        text = " ".join(it.content.split())[:SHOWN_CHARS]
        if it.kind == "observation":
            lines.append(f"- {it.tool}({json.dumps(it.input, default=str)}) -> {text}")
        else:
            lines.append(f"- {it.tool or it.kind}: {text}")
    return "\n".join(lines)


def recall_tool(memory: LongTermMemory | None) -> Tool:
    """The `recall` tool reading `memory` (`attach` binds an agent's `recall` to its memory)."""

    def recall(query: str, k: int = 5) -> str:
        """Search what earlier runs of this conversation found (tool results) and said.

        Args:
            query: what to look for, in words
            k: how many memories to return (1-20)
        """
        if memory is None:
            raise ToolError("no long-term memory is attached to this run; attach one with orrery.recall.attach")
        return describe(memory.recall(query, max(1, min(k, MAX_RECALL)))) or "Nothing relevant is remembered."

    return Tool(recall)


recall = recall_tool(None)
"""The `recall` tool of an agent not yet attached to a memory (it tells the model none is attached)."""


def memories_block(memory: LongTermMemory, query: str, k: int = 5) -> str | None:
    """The k memories most relevant to `query` as a message text (None when there are none); the query's own
    turn (written as the run starts) is left out."""
    items = memory.recall(query, k, exclude=query)
    return f"Memories from earlier runs (use them if they help):\n{describe(items)}" if items else None


@dataclass
class RecallContext:
    """A context hook (`AgentConfig(context=RecallContext(memory))`): before the latest user message (the task, or
    a follow-up's question), a message with the k memories most relevant to it, searched once per message;
    `inner` (e.g. SlidingWindow()) runs first."""

    memory: LongTermMemory
    k: int = 5
    inner: Callable[[Sequence[Message]], list[Message]] | None = None

    def __post_init__(self) -> None:
        self._cache: tuple[str, str | None] | None = None

    def __call__(self, messages: Sequence[Message]) -> list[Message]:
        out = list(self.inner(messages) if self.inner else messages)
        at = next((i for i in range(len(out) - 1, -1, -1) if out[i].role == "user" and not out[i].pinned), None)
        if at is None:
            return out
        task = out[at].content
        if self._cache is None or self._cache[0] != task:
            self._cache = (task, memories_block(self.memory, task, self.k))
        block = self._cache[1]
        return out if block is None else [*out[:at], Message("user", block), *out[at:]]


def memory_state(agent: Any, memory: LongTermMemory | None = None, *, limit: int = 100) -> dict[str, Any]:
    """Both memories of an agent: the bounded conversation (`short_term`, its messages; a planner's TODO entries)
    and the newest `limit` long-term items of `memory`'s scope."""
    short: list[dict[str, Any]] = []
    run = getattr(agent, "current_run", None)  # the plain loop's latest run: its conversation and context
    if (conversation := getattr(run, "memory", None)) is not None and hasattr(conversation, "messages"):
        short = [m.to_dict() for m in conversation.messages]
    elif (plan := getattr(agent, "state", None)) is not None and hasattr(plan, "memory"):
        from dataclasses import asdict

        short = [asdict(e) for e in plan.memory]
    if memory is None:  # the memory attached to the agent: its Recorder's
        memory = next((h.memory for h in getattr(agent, "handlers", ()) if isinstance(h, Recorder)), None)
    long = [i.to_dict() for i in memory.items(limit=limit)] if memory is not None else []
    return {"short_term": short, "long_term": long}
