"""The plan-and-execute architecture: every turn classifies the user's intent against the
active plan, (re)plans a TODO list when asked, then runs the TODOs one by one through the toolset.
A tool may raise `NeedsClarification` to pause the turn; a later turn answers it, changes the plan,
continues or abandons it. The plan lives in a session (`orrery.sessions`), saved after every TODO with
optimistic versioning, so a new `PlanAgent` on the same store and session id resumes where the last one
stopped, and two writers on one session get a conflict instead of a lost update."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

import pydantic

from orrery.agent.calls import Emit, EventSource, ask_json, consume, synthesize
from orrery.agent.loop import PendingApproval, RunResult
from orrery.errors import ConfigError, ModelError
from orrery.events import (
    ApprovalDecision,
    ApprovalRequired,
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
    env_hooks,
)
from orrery.llm.base import Model
from orrery.messages import Message, ToolCall, Usage
from orrery.sessions import Session, SessionConflict, SessionStore, open_store
from orrery.tools.core import CallLedger, RunContext, Tool, ToolResult, Toolset

Intent = Literal["new_request", "modification", "exact_answer", "continue", "abandon"]
TodoStatus = Literal["pending", "done", "paused", "failed", "denied"]
EntryStatus = Literal["done", "clarification", "failed", "denied"]

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
    status: EntryStatus
    user_input: str
    output: str  # the result, the question asked, or the error


@dataclass
class PlanState:
    request: str = ""  # the rewritten request the plan serves
    todos: list[Todo] = field(default_factory=list)
    pointer: int = 0  # index of the next TODO to run
    memory: list[MemoryEntry] = field(default_factory=list)
    question: str | None = None  # the clarification the user has not answered yet
    summary: str | None = None  # set when the plan is finished
    turn: int = 0
    approval: dict[str, Any] | None = None  # the TODO's call waiting for a person: {id, answer, call}

    @property
    def active(self) -> bool:
        """A plan exists and has not been summarized yet."""
        return bool(self.todos) and self.summary is None


# -- events and results ---------------------------------------------------------------------------------
@dataclass
class PlanResult(RunResult):
    """A RunResult plus the plan's side: the intent understood, the pending question, the TODOs."""

    intent: Intent | None = None
    question: str | None = None  # set when paused
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


# -- hooks ---------------------------------------------------------------------------------------------
@dataclass
class Plan:
    """What a `plan` hook returns: the rewritten request and its TODOs, or `declined` (the text the turn ends
    with, status "declined": the data or the question cannot be answered)."""

    request: str
    todos: list[Todo] = field(default_factory=list)
    declined: str | None = None


@dataclass
class PlanTurn:
    """One user turn as the hooks see it: the agent (its `state`, `model`, `tools`, `context()`), the message,
    the intent understood and the turn's usage (pass it to model calls)."""

    agent: PlanAgent
    user_input: str
    intent: Intent | None
    usage: Usage = field(default_factory=Usage)
    steps: int = 0

    @property
    def state(self) -> PlanState:
        return self.agent.state


class SessionPart(Protocol):
    """An app's own state, saved under `key` in the planner's session, in the same versioned save as the plan."""

    key: str

    def dump(self) -> dict[str, Any]: ...

    def load(self, data: dict[str, Any]) -> None: ...


PlanHook = Callable[[PlanTurn], Generator[Event, None, Plan]]
SummarizeHook = Callable[[PlanTurn], Generator[Event, None, str]]
RememberHook = Callable[[PlanTurn, Todo, MemoryEntry], None]
DeclineHook = Callable[[PlanTurn, Todo, ToolResult], "str | None"]
# (the pending question, the user's message) -> whether the message plainly answers it, whatever the model read
AnswersHook = Callable[[str, str], bool]


def model_plan(turn: PlanTurn) -> Generator[Event, None, Plan]:
    """The default `plan` hook: the model rewrites the request and picks one tool per TODO."""
    agent = turn.agent
    names = list(agent.tools.tools)
    todo = {
        "type": "object",
        "required": ["key", "description", "tool", "arguments"],
        "properties": {
            "key": {"type": "string"},
            "description": {"type": "string"},
            "tool": {"enum": names},
            "arguments": {"type": "object"},
        },
    }
    schema = {
        "type": "object",
        "required": ["request", "todos"],
        "properties": {"request": {"type": "string"}, "todos": {"type": "array", "items": todo}},
    }
    catalog = "\n".join(
        f"- {t.name}: {t.description} Arguments: {json.dumps(t.parameters.get('properties', {}))}"
        for t in agent.tools.tools.values()
    )
    what = "Change the current request as the user asks" if turn.intent == "modification" else "New request"
    messages = [
        Message("system", f"{agent.system_prompt}\n\n{PLAN_PROMPT}{catalog or '(none)'}"),
        Message("user", f"{agent.context()}\n\n{what}: {turn.user_input}"),
    ]
    reply = yield from ask_json(
        agent.model, messages, schema, _PlanReply, usage=turn.usage, max_tokens=agent.max_tokens_per_call
    )
    todos, seen = [], set()
    for i, t in enumerate(reply.todos):
        key = t.key if t.key not in seen else f"{t.key}_{i + 1}"
        seen.add(key)
        todos.append(Todo(key, t.description, t.tool, t.arguments))
    return Plan(reply.request, todos)


def model_summary(turn: PlanTurn) -> Generator[Event, None, str]:
    """The default `summarize` hook: the model reports the TODOs' results, streamed as tokens."""
    agent, st = turn.agent, turn.state
    results = "\n".join(f"- {t.key} ({t.description}): {t.result}" for t in st.todos)
    messages = [
        Message("system", f"{agent.system_prompt}\n\n{SUMMARY_PROMPT}"),
        Message("user", f"Request: {st.request}\nResults:\n{results or '(no steps were needed)'}"),
    ]
    return (yield from synthesize(agent.model, messages, usage=turn.usage, max_tokens=agent.max_tokens_per_call))


# -- the agent -----------------------------------------------------------------------------------------
class PlanAgent(EventSource):
    """`PlanAgent(model, tools, store, session_id)`: `stream(text)` yields one user turn's events,
    `run(text)` consumes them into a PlanResult.

    Hooks (each optional): `plan(turn) -> Plan` makes the TODO list (default: the model's, `model_plan`);
    `summarize(turn) -> str` the final answer (default: the model's report, `model_summary`); `remember(turn,
    todo, entry)` adds an app's memory to each TODO's entry, before the save; `decline(turn, todo, result) ->
    str | None` ends the turn "declined" with that text when a TODO's result means the data cannot answer;
    `keep` the apps' `SessionPart`s saved with the plan; `name` the RunStart's agent (what traces show).
    `plan` and `summarize` are generators of events returning their value (`yield from ask_json(...)`).

    Tools read the run through `ctx.options`: `clarification` (the user's answer when the TODO is
    rerun after a question, else None), `request` (the rewritten request), `todo` (its key) and
    `results` ({key: output} of the TODOs done so far). A TODO whose tool needs approval pauses the turn
    ("paused", `result.approvals`, the call kept in the session) until `resume(approvals)`."""

    def __init__(
        self,
        model: Model,
        tools: Toolset | Iterable[Tool | Callable[..., Any]],
        store: str | Path | SessionStore | None,
        session_id: str,
        *,
        on_event: Iterable[Emit] = (),
        system_prompt: str = SYSTEM,
        memory_window: int = 10,
        max_tokens_per_call: int | None = None,
        plan: PlanHook = model_plan,
        summarize: SummarizeHook = model_summary,
        remember: RememberHook | None = None,
        decline: DeclineHook | None = None,
        answers: AnswersHook | None = None,
        keep: Iterable[SessionPart] = (),
        name: str = "planner",
        deps: Any = None,
    ):
        self.model = model
        self.deps = deps  # every tool's `ctx.deps`
        self.tools = tools if isinstance(tools, Toolset) else Toolset(tools)
        self.store = open_store(store)
        self.ledger = CallLedger(self.store)  # done-markers of approved calls, durable in the session store
        self.handlers: list[Emit] = list(on_event)
        self.system_prompt = system_prompt
        self.memory_window = memory_window
        self.max_tokens_per_call = max_tokens_per_call
        self.plan_hook, self.summarize_hook = plan, summarize
        self.remember_hook, self.decline_hook, self.answers_hook = remember, decline, answers
        self.parts = list(keep)
        self.name = name
        self.session = Session(session_id, agent=name)
        self.state = PlanState()
        self.reload()

    def stream(self, user_input: str) -> Iterator[Event]:
        """One user message: classify, maybe (re)plan, run TODOs until done, a question, an approval or an error;
        the tools' providers (MCP servers) are open meanwhile."""
        with self.tools.holding():
            yield from self._turn(user_input, None)

    def resume_stream(self, approvals: dict[str, bool | dict[str, Any]]) -> Iterator[Event]:
        """Continue a turn paused for an approval: `{call_id: True (run it) | False (deny) | {edited arguments}}`.
        The approved call runs at most once (its result is kept under its call id in `ledger` before the turn
        goes on), then the TODOs after it; a denial is the TODO's observation (it ends `denied`, the TODOs after
        it do not run) and the turn is summarized from what ran."""
        pending = self.state.approval
        if pending is None:
            raise ConfigError(
                "no tool call is waiting for approval; run the agent (or open the session that paused) first"
            )
        if set(approvals) != {pending["call"]["id"]}:
            raise ConfigError(f"approvals must decide exactly the pending call {pending['call']['id']}")
        decision = approvals[pending["call"]["id"]]
        if not isinstance(decision, bool | dict):
            raise ConfigError("approval: give True, False or a dict of edited arguments")
        words = f"{'Denied' if decision is False else 'Approved'} {pending['call']['tool']}"  # the turn's message
        with self.tools.holding():
            yield from self._turn(words, decision)

    def resume(self, approvals: dict[str, bool | dict[str, Any]]) -> PlanResult:
        env_hooks()
        return consume(self.resume_stream(approvals), self.emit)

    def snapshot(self) -> dict[str, Any]:
        """Where the conversation stands: its session (id, version); the session itself holds the plan, a pending
        question or approval, and the apps' parts. What a server keeps to `restore` a paused turn."""
        return {"session": self.session.id, "version": self.session.version}

    def restore(self, data: dict[str, Any]) -> None:
        """Continue the conversation of `snapshot()`: the session as stored now (a later save wins)."""
        if data.get("session") != self.session.id:
            raise ConfigError(
                f"the snapshot is of session {data.get('session')!r}; this planner keeps "
                f"{self.session.id!r}: open the planner on that session"
            )
        self.reload()

    @property
    def pending_approvals(self) -> list[PendingApproval]:
        a = self.state.approval
        return [PendingApproval(a["call"]["id"], a["call"]["tool"], a["call"]["arguments"])] if a else []

    def _turn(self, user_input: str, decision: bool | dict[str, Any] | None) -> Iterator[Event]:
        start = time.monotonic()
        self.state.turn += 1
        turn = PlanTurn(self, user_input, None)
        yield RunStart(user_input, list(self.tools.tools), agent=self.name, architecture="planner")
        try:
            if decision is not None:
                result = yield from self._decided(turn, decision)
            else:
                turn.intent = yield from self.classify(user_input, turn.usage)
                result = yield from self._handle(turn)
        except (ModelError, SessionConflict) as exc:  # the saved state is the last consistent one: go back to it
            self.reload()
            result = self._result("error", str(exc), turn)
            result.errors.append(str(exc))
            yield ErrorEvent(str(exc))
        result.duration = time.monotonic() - start
        yield Final(result.status, result.output, result)

    def reload(self) -> None:
        """Take the session as stored now (after an error, or to see another writer's changes)."""
        self.session = self.store.load(self.session.id) or Session(self.session.id, agent=self.name)
        self.state = _plan_state(self.session.data.get("plan"))
        for part in self.parts:
            part.load(self.session.data.get(part.key) or {})

    def save(self) -> None:
        """The plan and the apps' parts in one versioned save (a stale writer gets a SessionConflict)."""
        data = {"plan": asdict(self.state), **{p.key: p.dump() for p in self.parts}}
        self.session = self.store.save(replace(self.session, data=data))

    # -- steps ---------------------------------------------------------------------------------------
    def classify(self, user_input: str, usage: Usage) -> Generator[Event, None, Intent]:
        """Without an active plan every message is a new request (no model call); otherwise the model
        chooses among the intents that make sense now (exact_answer only while a question is pending)."""
        if not self.state.active:
            intent: Intent = "new_request"
            yield IntentClassified(intent, [intent])
            return intent
        allowed = [i for i in INTENTS if i != "exact_answer" or self.state.question is not None]
        prompt = 'Classify the user\'s new message. Reply with JSON {"intent": ...}, one of:\n' + "\n".join(
            f"- {i}: {INTENTS[i]}" for i in allowed
        )
        messages = [
            Message("system", f"{self.system_prompt}\n\n{prompt}"),
            Message("user", f"{self.context()}\n\nNew message: {user_input}"),
        ]
        schema = {"type": "object", "required": ["intent"], "properties": {"intent": {"enum": allowed}}}
        reply = yield from ask_json(
            self.model, messages, schema, _IntentReply, usage=usage, max_tokens=self.max_tokens_per_call
        )
        if reply.intent not in allowed:
            raise ModelError(f"intent {reply.intent!r} is not possible now; expected one of {', '.join(allowed)}")
        question = self.state.question
        if question is not None and self.answers_hook is not None and self.answers_hook(question, user_input):
            reply.intent = "exact_answer"  # the app reads the message as one of the options it offered: so it is
        yield IntentClassified(reply.intent, allowed)
        return reply.intent

    def _handle(self, turn: PlanTurn) -> Generator[Event, None, PlanResult]:
        if turn.intent == "abandon":
            self.state = PlanState(memory=self.state.memory, turn=self.state.turn)
            self.save()
            yield self.plan_event()
            return self._result("cancelled", "Dropped the plan. What would you like to do instead?", turn)
        if turn.intent in ("new_request", "modification"):
            plan = yield from self.plan_hook(turn)
            self.state = PlanState(
                plan.request, [] if plan.declined else plan.todos, memory=self.state.memory, turn=self.state.turn
            )
            self.save()
            yield Planned(plan.request, [asdict(t) for t in self.state.todos])
            yield self.plan_event()
            if plan.declined is not None:
                return self._declined(plan.declined, turn)
        answer = turn.user_input if turn.intent == "exact_answer" else None
        return (yield from self._execute(turn, answer))

    def _execute(self, turn: PlanTurn, answer: str | None) -> Generator[Event, None, PlanResult]:
        """Run TODOs from the pointer on; `answer` goes to the first one (the one that asked)."""
        st = self.state
        st.question = None
        while st.pointer < len(st.todos):
            todo = st.todos[st.pointer]
            ctx = self._todo_context(todo, answer)
            call = ToolCall(f"{todo.key}-{st.turn}", todo.tool, dict(todo.arguments))
            turn.steps += 1
            yield StepStart(turn.steps)
            yield ToolCallEvent(call)
            if self.tools.asks and self.tools.held([call], ctx):
                yield StepEnd(turn.steps)
                return (yield from self._ask_approval(turn, todo, call, answer))
            answer = None
            [r] = self.tools.run([call], ctx)
            yield ToolResultEvent(call, r.ok, r.content, r.duration, r.cached)
            yield StepEnd(turn.steps)
            ended = yield from self._observe(turn, todo, r)
            if ended is not None:
                return ended
        return (yield from self._summarize(turn))

    def _observe(self, turn: PlanTurn, todo: Todo, r: ToolResult) -> Generator[Event, None, PlanResult | None]:
        """The TODO's new status from its tool's result; a result that ends the turn, or None to go on."""
        st = self.state
        if r.clarification is not None:
            todo.status, st.question = "paused", r.clarification
            yield from self._remember(turn, todo, "clarification", r.clarification)
            yield Clarification(r.clarification)
            return self._result("paused", r.clarification, turn)
        if not r.ok:
            todo.status, todo.error = "failed", r.error
            yield from self._remember(turn, todo, "failed", r.error or r.content)
            if self.decline_hook is not None and (text := self.decline_hook(turn, todo, r)) is not None:
                return self._declined(text, turn)
            message = (
                f"Step {todo.key!r} ({todo.tool}) failed: {r.error}. Say 'continue' to retry it, "
                "change the request, or abandon it."
            )
            yield ErrorEvent(message)
            return self._result("error", message, turn)
        todo.status, todo.result, todo.error = "done", r.content, None
        st.pointer += 1
        yield from self._remember(turn, todo, "done", r.content)
        return None

    def _summarize(self, turn: PlanTurn) -> Generator[Event, None, PlanResult]:
        turn.steps += 1
        yield StepStart(turn.steps)
        self.state.summary = yield from self.summarize_hook(turn)
        yield StepEnd(turn.steps)
        self.save()
        return self._result("completed", self.state.summary, turn)

    # -- approvals ------------------------------------------------------------------------------------
    def _ask_approval(
        self, turn: PlanTurn, todo: Todo, call: ToolCall, answer: str | None
    ) -> Generator[Event, None, PlanResult]:
        """Pause the turn on `call`: the approval is saved with the plan before the turn ends."""
        todo.status = "paused"
        self.state.approval = {
            "id": uuid.uuid4().hex,
            "answer": answer,
            "call": {"id": call.id, "tool": call.name, "arguments": call.arguments},
        }
        self.save()
        yield self.plan_event()
        pending = self.pending_approvals
        yield ApprovalRequired([asdict(a) for a in pending])
        result = self._result(
            "paused",
            "Waiting for approval: " + ", ".join(f"{a.tool}({json.dumps(a.arguments, default=str)})" for a in pending),
            turn,
        )
        result.approvals = pending
        return result

    def _decided(self, turn: PlanTurn, decision: bool | dict[str, Any]) -> Generator[Event, None, PlanResult]:
        """Apply a person's decision on the paused TODO, then go on with the plan."""
        st = self.state
        pending = st.approval
        assert pending is not None
        todo = st.todos[st.pointer]
        call = ToolCall(
            pending["call"]["id"],
            pending["call"]["tool"],
            decision if isinstance(decision, dict) else pending["call"]["arguments"],
        )
        turn.steps += 1
        yield StepStart(turn.steps)
        yield ApprovalDecision(call.id, call.name, decision is not False, call.arguments)
        key = f"{pending['id']}-{call.id}"
        if (done := self.ledger.get(key)) is not None:  # ran before this resume (a retry, a crash): never twice
            r = ToolResult(call, done["ok"], done["content"], error=done.get("error"), cached=True)
        elif decision is False:
            msg = f"the user denied the call to {call.name!r}"
            r = ToolResult(call, False, f"Denied: {msg}", error=msg)
        else:
            [r] = self.tools.run([call], self._todo_context(todo, pending["answer"]), approved=True)
            self.ledger.put(key, {"ok": r.ok, "content": r.content, "error": r.error})
        yield ToolResultEvent(call, r.ok, r.content, r.duration, r.cached)
        yield StepEnd(turn.steps)
        st.approval = None
        if decision is False:
            todo.status, todo.result, todo.error = "denied", r.content, r.error
            yield from self._remember(turn, todo, "denied", r.content)
            return (yield from self._summarize(turn))
        ended = yield from self._observe(turn, todo, r)
        return ended if ended is not None else (yield from self._execute(turn, None))

    # -- helpers -------------------------------------------------------------------------------------
    def _todo_context(self, todo: Todo, answer: str | None) -> RunContext:
        done = [t for t in self.state.todos if t.status == "done"]
        return RunContext(
            options={
                "clarification": answer,
                "request": self.state.request,
                "todo": todo.key,
                "results": {t.key: t.result for t in done},
            },
            succeeded=[t.tool for t in done],
            deps=self.deps,
        )

    def _remember(self, turn: PlanTurn, todo: Todo, status: EntryStatus, output: str) -> Iterator[Event]:
        """One memory entry (and the app's, by the `remember` hook), saved in the same transaction as the TODO's
        new status and the pointer."""
        entry = MemoryEntry(self.state.turn, todo.key, todo.tool, status, turn.user_input, output)
        self.state.memory.append(entry)
        if self.remember_hook is not None:
            self.remember_hook(turn, todo, entry)
        self.save()
        yield TodoUpdate(todo.key, todo.status)
        yield self.plan_event()

    def _declined(self, text: str, turn: PlanTurn) -> PlanResult:
        """The turn ends "declined": the plan is dropped (nothing is left to continue), the memory kept."""
        result = self._result("declined", text, turn)
        self.state = PlanState(memory=self.state.memory, turn=self.state.turn)
        self.save()
        return result

    def plan_event(self) -> StateChanged:
        """The plan as the UI shows it (request, pointer, question, the TODOs' statuses)."""
        st = self.state
        return StateChanged(
            "plan",
            {
                "request": st.request,
                "pointer": st.pointer,
                "question": st.question,
                "todos": [
                    {"key": t.key, "description": t.description, "tool": t.tool, "status": t.status} for t in st.todos
                ],
            },
        )

    def context(self) -> str:
        """What the model is told of the conversation: recent memory, the active plan, a pending question."""
        st = self.state
        lines = [
            f"- turn {m.turn}, {m.todo_key} ({m.tool}): {m.status}: {m.output[:300]}"
            for m in st.memory[-self.memory_window :]
        ]
        parts = ["Recent steps:\n" + "\n".join(lines)] if lines else []
        if st.active:
            todos = "\n".join(
                f"{i + 1}. [{t.status}] {t.key}: {t.description} ({t.tool})" for i, t in enumerate(st.todos)
            )
            parts.append(f"Active plan for: {st.request}\n{todos}")
        if st.question is not None:
            parts.append(f"Pending question to the user: {st.question}")
        return "\n\n".join(parts) or "No plan yet."

    def _result(self, status: Status, output: str, turn: PlanTurn) -> PlanResult:
        todos = [Todo(**asdict(t)) for t in self.state.todos]
        return PlanResult(
            status,
            output,
            steps=turn.steps,
            usage=turn.usage,
            intent=turn.intent,
            question=self.state.question if status == "paused" else None,
            todos=todos,
        )


def _plan_state(data: dict[str, Any] | None) -> PlanState:
    if not data:
        return PlanState()
    return PlanState(
        data["request"],
        [Todo(**t) for t in data["todos"]],
        data["pointer"],
        [MemoryEntry(**m) for m in data["memory"]],
        data["question"],
        data["summary"],
        data["turn"],
        data.get("approval"),
    )
