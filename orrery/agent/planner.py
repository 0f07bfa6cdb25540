"""The plan-and-execute architecture: every turn classifies the user's intent against the
active plan, (re)plans a TODO list when asked, then runs the TODOs one by one through the toolset.
A tool may raise `NeedsClarification` to pause the turn; a later turn answers it, changes the plan,
continues or abandons it. The plan lives in a session (`orrery.sessions`), saved after every TODO with
optimistic versioning, so a new `PlanAgent` on the same store and session id resumes where the last one
stopped, and two writers on one session get a conflict instead of a lost update."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import pydantic

from orrery.agent.calls import Emit, EventSource, ask_json, synthesize
from orrery.agent.loop import RunResult
from orrery.errors import ModelError
from orrery.events import (
    Clarification,
    ErrorEvent,
    Event,
    Final,
    IntentClassified,
    Planned,
    RunStart,
    StateChanged,
    Status,
    StepEnd,
    StepStart,
    TodoUpdate,
    ToolCallEvent,
    ToolResultEvent,
)
from orrery.llm.base import Model
from orrery.messages import Message, ToolCall, Usage
from orrery.sessions import Session, SessionConflict, SessionStore, open_store
from orrery.tools.core import RunContext, Tool, Toolset

Intent = Literal["new_request", "modification", "exact_answer", "continue", "abandon"]
TodoStatus = Literal["pending", "done", "paused", "failed"]

SYSTEM = "You plan and run data requests step by step with the tools given, and report results plainly."

INTENTS: dict[str, str] = {
    "exact_answer": "the message just answers the pending question (the paused step reruns with it)",
    "modification": "it changes or adds to the current request, so the plan must be redone",
    "new_request": "it asks for something else (the plan is dropped and a new one made)",
    "continue": "go on with the plan where it stopped (for example 'go on' or 'retry')",
    "abandon": "stop and drop the plan (for example 'forget it', 'cancel')",
}

PLAN_PROMPT = """Rewrite the user's request as one clear, unambiguous sentence, then break it into TODO steps,
each run by exactly one tool. Reply with JSON: `request` (the rewrite) and `todos`, a list in execution
order of {key (short snake_case id), description, tool, arguments (the tool's arguments)}.
Use an empty list when no tool is needed. Tools:
"""

SUMMARY_PROMPT = "Report to the user what was found, from the results of the steps below. Be brief and plain."


# -- state -------------------------------------------------------------------------------------------
@dataclass
class Todo:
    key: str
    description: str
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    status: TodoStatus = "pending"
    result: str | None = None  # the tool's output, as the model reads it
    error: str | None = None


@dataclass
class MemoryEntry:
    """One execution of one TODO (memory is kept per TODO)."""

    turn: int
    todo_key: str
    tool: str
    status: Literal["done", "clarification", "failed"]
    user_input: str
    output: str  # the result, the question asked, or the error


@dataclass
class PlanState:
    request: str = ""                 # the rewritten request the plan serves
    todos: list[Todo] = field(default_factory=list)
    pointer: int = 0                  # index of the next TODO to run
    memory: list[MemoryEntry] = field(default_factory=list)
    question: str | None = None       # the clarification the user has not answered yet
    summary: str | None = None        # set when the plan is finished
    turn: int = 0

    @property
    def active(self) -> bool:
        """A plan exists and has not been summarized yet."""
        return bool(self.todos) and self.summary is None


# -- events and results ---------------------------------------------------------------------------------
@dataclass
class PlanResult(RunResult):
    """A RunResult plus the plan's side: the intent understood, the pending question, the TODOs."""

    intent: Intent | None = None
    question: str | None = None      # set when paused
    todos: list[Todo] = field(default_factory=list)


class _IntentReply(pydantic.BaseModel):
    intent: Intent


class _TodoSpec(pydantic.BaseModel):
    key: str
    description: str
    tool: str
    arguments: dict[str, Any] = {}


class _PlanReply(pydantic.BaseModel):
    request: str
    todos: list[_TodoSpec]


# -- the agent -----------------------------------------------------------------------------------------
class PlanAgent(EventSource):
    """`PlanAgent(model, tools, store, session_id)`: `stream(text)` yields one user turn's events,
    `run(text)` consumes them into a PlanResult.

    Tools read the run through `ctx.options`: `clarification` (the user's answer when the TODO is
    rerun after a question, else None), `request` (the rewritten request), `todo` (its key) and
    `results` ({key: output} of the TODOs done so far)."""

    def __init__(self, model: Model, tools: Toolset | Iterable[Tool | Callable[..., Any]],
                 store: str | Path | SessionStore | None, session_id: str, *, on_event: Iterable[Emit] = (),
                 system_prompt: str = SYSTEM, memory_window: int = 10, max_tokens_per_call: int | None = None):
        self.model = model
        self.tools = tools if isinstance(tools, Toolset) else Toolset(tools)
        self.store = open_store(store)
        self.session = self.store.load(session_id) or Session(session_id, agent="planner")
        self.state = _plan_state(self.session.data.get("plan"))
        self.handlers: list[Emit] = list(on_event)
        self.system_prompt = system_prompt
        self.memory_window = memory_window
        self.max_tokens_per_call = max_tokens_per_call

    def stream(self, user_input: str) -> Iterator[Event]:
        """One user message: classify, maybe (re)plan, run TODOs until done, a question or an error; the tools'
        providers (MCP servers) are open meanwhile."""
        with self.tools.holding():
            yield from self._turn(user_input)

    def _turn(self, user_input: str) -> Iterator[Event]:
        start = time.monotonic()
        usage = Usage()
        self.state.turn += 1
        self._steps = 0
        yield RunStart(user_input, list(self.tools.tools), agent="planner")
        intent: Intent | None = None
        try:
            intent = yield from self.classify(user_input, usage)
            result = yield from self._handle(intent, user_input, usage)
        except (ModelError, SessionConflict) as exc:  # the saved state is the last consistent one: go back to it
            self.reload()
            result = self._result("error", str(exc), intent, usage)
            result.errors.append(str(exc))
            yield ErrorEvent(str(exc))
        result.duration = time.monotonic() - start
        yield Final(result.status, result.output, result)

    def reload(self) -> None:
        """Take the session as stored now (after an error, or to see another writer's changes)."""
        self.session = self.store.load(self.session.id) or Session(self.session.id, agent="planner")
        self.state = _plan_state(self.session.data.get("plan"))

    # -- steps ---------------------------------------------------------------------------------------
    def classify(self, user_input: str, usage: Usage) -> Generator[Event, None, Intent]:
        """Without an active plan every message is a new request (no model call); otherwise the model
        chooses among the intents that make sense now (exact_answer only while a question is pending)."""
        if not self.state.active:
            intent: Intent = "new_request"
            yield IntentClassified(intent, [intent])
            return intent
        allowed = [i for i in INTENTS if i != "exact_answer" or self.state.question is not None]
        prompt = ("Classify the user's new message. Reply with JSON {\"intent\": ...}, one of:\n"
                  + "\n".join(f"- {i}: {INTENTS[i]}" for i in allowed))
        messages = [Message("system", f"{self.system_prompt}\n\n{prompt}"),
                    Message("user", f"{self._context()}\n\nNew message: {user_input}")]
        schema = {"type": "object", "required": ["intent"], "properties": {"intent": {"enum": allowed}}}
        reply = yield from ask_json(self.model, messages, schema, _IntentReply, usage=usage,
                                    max_tokens=self.max_tokens_per_call)
        if reply.intent not in allowed:
            raise ModelError(f"intent {reply.intent!r} is not possible now; expected one of {', '.join(allowed)}")
        yield IntentClassified(reply.intent, allowed)
        return reply.intent

    def plan(self, user_input: str, intent: Intent, usage: Usage) -> Iterator[Event]:
        """Rewrite the request and replace the plan (keeping the memory)."""
        names = list(self.tools.tools)
        todo = {"type": "object", "required": ["key", "description", "tool", "arguments"],
                "properties": {"key": {"type": "string"}, "description": {"type": "string"},
                               "tool": {"enum": names}, "arguments": {"type": "object"}}}
        schema = {"type": "object", "required": ["request", "todos"],
                  "properties": {"request": {"type": "string"}, "todos": {"type": "array", "items": todo}}}
        catalog = "\n".join(f"- {t.name}: {t.description} Arguments: {json.dumps(t.parameters.get('properties', {}))}"
                            for t in self.tools.tools.values())
        what = "Change the current request as the user asks" if intent == "modification" else "New request"
        messages = [Message("system", f"{self.system_prompt}\n\n{PLAN_PROMPT}{catalog or '(none)'}"),
                    Message("user", f"{self._context()}\n\n{what}: {user_input}")]
        reply = yield from ask_json(self.model, messages, schema, _PlanReply, usage=usage,
                                    max_tokens=self.max_tokens_per_call)
        todos, seen = [], set()
        for i, t in enumerate(reply.todos):
            key = t.key if t.key not in seen else f"{t.key}_{i + 1}"
            seen.add(key)
            todos.append(Todo(key, t.description, t.tool, t.arguments))
        self.state = PlanState(reply.request, todos, memory=self.state.memory, turn=self.state.turn)
        self._save()
        yield Planned(reply.request, [asdict(t) for t in todos])
        yield self._plan_event()

    def _handle(self, intent: Intent, user_input: str, usage: Usage) -> Generator[Event, None, PlanResult]:
        if intent == "abandon":
            self.state = PlanState(memory=self.state.memory, turn=self.state.turn)
            self._save()
            yield self._plan_event()
            return self._result("cancelled", "Dropped the plan. What would you like to do instead?", intent, usage)
        if intent in ("new_request", "modification"):
            yield from self.plan(user_input, intent, usage)
        return (yield from self._execute(user_input, user_input if intent == "exact_answer" else None, intent, usage))

    def _execute(self, user_input: str, answer: str | None, intent: Intent,
                 usage: Usage) -> Generator[Event, None, PlanResult]:
        """Run TODOs from the pointer on; `answer` goes to the first one (the one that asked)."""
        st = self.state
        st.question = None
        while st.pointer < len(st.todos):
            todo = st.todos[st.pointer]
            done = [t for t in st.todos if t.status == "done"]
            ctx = RunContext(options={"clarification": answer, "request": st.request, "todo": todo.key,
                                      "results": {t.key: t.result for t in done}},
                             succeeded=[t.tool for t in done])
            answer = None
            call = ToolCall(f"{todo.key}-{st.turn}", todo.tool, dict(todo.arguments))
            self._steps += 1
            yield StepStart(self._steps)
            yield ToolCallEvent(call)
            [r] = self.tools.run([call], ctx)
            yield ToolResultEvent(call, r.ok, r.content, r.duration, r.cached)
            yield StepEnd(self._steps)
            if r.clarification is not None:
                todo.status, st.question = "paused", r.clarification
                yield from self._remember(todo, "clarification", user_input, r.clarification)
                yield Clarification(r.clarification)
                return self._result("paused", r.clarification, intent, usage)
            if not r.ok:
                todo.status, todo.error = "failed", r.error
                yield from self._remember(todo, "failed", user_input, r.error or r.content)
                message = (f"Step {todo.key!r} ({todo.tool}) failed: {r.error}. Say 'continue' to retry it, "
                           "change the request, or abandon it.")
                yield ErrorEvent(message)
                return self._result("error", message, intent, usage)
            todo.status, todo.result, todo.error = "done", r.content, None
            st.pointer += 1
            yield from self._remember(todo, "done", user_input, r.content)
        results = "\n".join(f"- {t.key} ({t.description}): {t.result}" for t in st.todos)
        messages = [Message("system", f"{self.system_prompt}\n\n{SUMMARY_PROMPT}"),
                    Message("user", f"Request: {st.request}\nResults:\n{results or '(no steps were needed)'}")]
        self._steps += 1
        yield StepStart(self._steps)
        st.summary = yield from synthesize(self.model, messages, usage=usage, max_tokens=self.max_tokens_per_call)
        yield StepEnd(self._steps)
        self._save()
        return self._result("completed", st.summary, intent, usage)

    # -- helpers -------------------------------------------------------------------------------------
    def _remember(self, todo: Todo, status: Literal["done", "clarification", "failed"], user_input: str,
                  output: str) -> Iterator[Event]:
        """One memory entry, saved in the same transaction as the TODO's new status and the pointer."""
        self.state.memory.append(MemoryEntry(self.state.turn, todo.key, todo.tool, status, user_input, output))
        self._save()
        yield TodoUpdate(todo.key, todo.status)
        yield self._plan_event()

    def _plan_event(self) -> StateChanged:
        st = self.state
        return StateChanged("plan", {"request": st.request, "pointer": st.pointer, "question": st.question,
                                     "todos": [{"key": t.key, "description": t.description, "tool": t.tool,
                                                "status": t.status} for t in st.todos]})

    def _save(self) -> None:
        self.session = self.store.save(replace(self.session, data={"plan": asdict(self.state)}))

    def _context(self) -> str:
        st = self.state
        lines = [f"- turn {m.turn}, {m.todo_key} ({m.tool}): {m.status}: {m.output[:300]}"
                 for m in st.memory[-self.memory_window:]]
        parts = ["Recent steps:\n" + "\n".join(lines)] if lines else []
        if st.active:
            todos = "\n".join(f"{i + 1}. [{t.status}] {t.key}: {t.description} ({t.tool})"
                              for i, t in enumerate(st.todos))
            parts.append(f"Active plan for: {st.request}\n{todos}")
        if st.question is not None:
            parts.append(f"Pending question to the user: {st.question}")
        return "\n\n".join(parts) or "No plan yet."

    def _result(self, status: Status, output: str, intent: Intent | None, usage: Usage) -> PlanResult:
        todos = [Todo(**asdict(t)) for t in self.state.todos]
        return PlanResult(status, output, steps=self._steps, usage=usage, intent=intent,
                          question=self.state.question if status == "paused" else None, todos=todos)


def _plan_state(data: dict[str, Any] | None) -> PlanState:
    if not data:
        return PlanState()
    return PlanState(data["request"], [Todo(**t) for t in data["todos"]], data["pointer"],
                     [MemoryEntry(**m) for m in data["memory"]], data["question"], data["summary"], data["turn"])
