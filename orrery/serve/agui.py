"""orrery events -> AG-UI events: the one place that knows both vocabularies.

It depends only on `orrery.events` and the `ag-ui-protocol` package, so replacing the thread bridge by
`agent.stream()` changes nothing here. One `Translator` per run; it keeps the few ids AG-UI needs to pair
starts with ends (the open step, the open text message) and the pending interrupts (a clarification, or one per
tool call waiting for approval).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    Interrupt,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    StateDeltaEvent,
    StateSnapshotEvent,
    StepFinishedEvent,
    StepStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from orrery.events import (
    ApprovalDecision,
    ApprovalRequired,
    Clarification,
    ErrorEvent,
    Event,
    Final,
    ModelCall,
    ModelReply,
    Retry,
    RunStart,
    StateChanged,
    StepEnd,
    StepStart,
    Thought,
    Token,
    ToolCallDelta,
    ToolCallEvent,
    ToolResultEvent,
)

CLARIFICATION = "clarification"  # the Interrupt.reason of a question the agent asks the user
APPROVAL = "tool_approval"  # the Interrupt.reason of a tool call waiting for a person's decision
APPROVAL_SCHEMA = {
    "type": "object",
    "required": ["approved"],
    "properties": {"approved": {"type": "boolean"}, "arguments": {"type": "object"}},
}


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


class Translator:
    """Feed it orrery events in order; it returns the AG-UI events to send for each."""

    def __init__(self, thread_id: str, run_id: str):
        self.thread_id, self.run_id = thread_id, run_id
        self.steps = 0
        self.step: str | None = None
        self.message: str | None = None  # the assistant text message being streamed token by token
        self.streamed = ""
        self.interrupts: list[Interrupt] = []
        self.state: dict[str, Any] | None = None  # None until the first snapshot is sent
        self.calls: dict[int, str] = {}  # tool call index -> id, for calls streamed as deltas
        self.thought = ""  # the text streamed in this step (a Thought repeating it is not sent again)
        self.said: str | None = None  # that text's message id: the step's tool calls belong to the same message

    # -- run boundaries --------------------------------------------------------------------------
    def started(self) -> list[BaseEvent]:
        return [RunStartedEvent(thread_id=self.thread_id, run_id=self.run_id)]

    def answer(self, text: str) -> list[BaseEvent]:
        """The run's answer as a text message, unless its tokens were streamed already; when the app added to
        the streamed text (checked figures, a summary), only what it added."""
        out = self._end_step() + self._end_message()
        streamed = self.streamed.strip()
        if streamed and text.strip().startswith(streamed):
            text = text.strip()[len(streamed) :].strip()
        if not text:
            return out
        mid = new_id("msg")
        return out + [
            TextMessageStartEvent(message_id=mid, role="assistant"),
            TextMessageContentEvent(message_id=mid, delta=text),
            TextMessageEndEvent(message_id=mid),
        ]

    def finished(self, status: str, result: Any = None) -> list[BaseEvent]:
        """RUN_FINISHED (success, interrupt for a clarification, cancelled) or RUN_ERROR for status "error"."""
        out = self._end_step() + self._end_message()
        if status == "error":
            message = result.get("error", "the run failed") if isinstance(result, dict) else "the run failed"
            return [*out, RunErrorEvent(message=message, code="error")]
        if status == "paused" and self.interrupts:
            outcome: Any = RunFinishedInterruptOutcome(interrupts=self.interrupts)
        elif status == "cancelled":
            outcome = RunFinishedCancelledOutcome()
        else:
            outcome = RunFinishedSuccessOutcome()
        return [*out, RunFinishedEvent(thread_id=self.thread_id, run_id=self.run_id, result=result, outcome=outcome)]

    def snapshot(self, state: dict[str, Any]) -> list[BaseEvent]:
        self.state = state
        return [StateSnapshotEvent(snapshot=state)]

    def custom(self, name: str, value: Any) -> list[BaseEvent]:
        return [CustomEvent(name=name, value=value)]

    def error(self, message: str, code: str = "error") -> list[BaseEvent]:
        return [*self._end_step(), *self._end_message(), RunErrorEvent(message=message, code=code)]

    # -- one orrery event ------------------------------------------------------------------------
    def event(self, ev: Event) -> list[BaseEvent]:
        handler = next((_HANDLERS[t] for t in type(ev).__mro__ if t in _HANDLERS), None)
        return handler(self, ev) if handler is not None else self._other(ev)

    def _model_call(self, _ev: ModelCall) -> list[BaseEvent]:
        self.calls, self.thought, self.said = {}, "", None
        return []

    def _tool_call(self, ev: ToolCallEvent) -> list[BaseEvent]:
        call = ev.call
        if call.id in self.calls.values():
            return [ToolCallEndEvent(tool_call_id=call.id)]
        return [
            ToolCallStartEvent(tool_call_id=call.id, tool_call_name=call.name, parent_message_id=self.said),
            ToolCallArgsEvent(tool_call_id=call.id, delta=json.dumps(call.arguments, default=str)),
            ToolCallEndEvent(tool_call_id=call.id),
        ]

    def _decision(self, ev: ApprovalDecision) -> list[BaseEvent]:
        # A resumed run: the call (as decided, edited arguments included) opens here, its result follows.
        cid = ev.call_id
        return [
            *self._other(ev),
            ToolCallStartEvent(tool_call_id=cid, tool_call_name=ev.tool),
            ToolCallArgsEvent(tool_call_id=cid, delta=json.dumps(ev.arguments, default=str)),
            ToolCallEndEvent(tool_call_id=cid),
        ]

    def _clarification(self, ev: Clarification) -> list[BaseEvent]:
        self.interrupts = [
            Interrupt(
                id=new_id("int"),
                reason=CLARIFICATION,
                message=ev.question,
                response_schema={
                    "type": "object",
                    "required": ["answer"],
                    "properties": {"answer": {"type": "string"}},
                },
            )
        ]
        return []

    def _approvals(self, ev: ApprovalRequired) -> list[BaseEvent]:
        # One interrupt per call, with an id of its own: a decision sent for an earlier pause never matches
        # this one (call ids are the model's and may repeat).
        self.interrupts = [
            Interrupt(
                id=new_id("apr"),
                reason=APPROVAL,
                tool_call_id=a["id"],
                message=f"Run {a['tool']}?",
                response_schema=APPROVAL_SCHEMA,
                metadata=json.loads(json.dumps(a, default=str)),
            )
            for a in ev.approvals
        ]
        return []  # sent in RUN_FINISHED's interrupt outcome

    def _thought(self, ev: Thought) -> list[BaseEvent]:
        # Already on screen when its tokens were streamed as the step's text message.
        return [] if ev.text.strip() == self.thought.strip() else [CustomEvent(name="orrery.thought", value=ev.text)]

    def _other(self, ev: Event) -> list[BaseEvent]:
        """Any other event (intents, plan decisions, an app's own) as CUSTOM `orrery.<kind>`."""
        data = ev.to_dict()
        data.pop("kind", None)
        return [CustomEvent(name=f"orrery.{ev.kind}", value=json.loads(json.dumps(data, default=str)))]

    # -- pairing -----------------------------------------------------------------------------------
    def _state(self, name: str, value: Any) -> list[BaseEvent]:
        value = json.loads(json.dumps(value, default=str))
        if self.state is None:
            self.state = {name: value}
            return [StateSnapshotEvent(snapshot=self.state)]
        self.state[name] = value
        return [StateDeltaEvent(delta=[{"op": "add", "path": f"/{_pointer(name)}", "value": value}])]

    def _call_delta(self, d: ToolCallDelta) -> list[BaseEvent]:
        out = self._end_message()
        if d.index not in self.calls:
            self.calls[d.index] = d.id or new_id("call")
            out.append(
                ToolCallStartEvent(
                    tool_call_id=self.calls[d.index], tool_call_name=d.name or "tool", parent_message_id=self.said
                )
            )
        if d.arguments:
            out.append(ToolCallArgsEvent(tool_call_id=self.calls[d.index], delta=d.arguments))
        return out

    def _start_step(self, n: int | None = None) -> list[BaseEvent]:
        out = self._end_step()
        self.steps += 1
        self.step = f"step {n if n is not None else self.steps}"
        return [*out, StepStartedEvent(step_name=self.step)]

    def _end_step(self) -> list[BaseEvent]:
        out = self._end_message()
        if self.step is not None:
            out.append(StepFinishedEvent(step_name=self.step))
            self.step = None
        return out

    def _token(self, text: str) -> list[BaseEvent]:
        out: list[BaseEvent] = []
        if self.message is None:
            self.message, self.streamed = new_id("msg"), ""
            out.append(TextMessageStartEvent(message_id=self.message, role="assistant"))
        self.streamed += text
        return [*out, TextMessageContentEvent(message_id=self.message, delta=text)] if text else out

    def _end_message(self) -> list[BaseEvent]:
        if self.message is None:
            return []
        mid, self.message, self.thought, self.said = self.message, None, self.streamed, self.message
        return [TextMessageEndEvent(message_id=mid)]


# One orrery event type -> its AG-UI events; any other event becomes CUSTOM `orrery.<kind>` (`_other`).
_HANDLERS: dict[type, Callable[[Any, Any], list[BaseEvent]]] = {
    StepStart: lambda t, e: t._start_step(e.step),
    StepEnd: lambda t, _e: t._end_step(),
    ModelCall: lambda t, e: t._model_call(e),
    Token: lambda t, e: t._token(e.text),
    ToolCallDelta: lambda t, e: t._call_delta(e),
    ModelReply: lambda t, _e: t._end_message(),
    ToolCallEvent: lambda t, e: t._tool_call(e),
    ApprovalDecision: lambda t, e: t._decision(e),
    ToolResultEvent: lambda _t, e: [
        ToolCallResultEvent(message_id=new_id("tool"), tool_call_id=e.call.id, content=e.content, role="tool")
    ],
    StateChanged: lambda t, e: t._state(e.name, e.value),
    Clarification: lambda t, e: t._clarification(e),
    ApprovalRequired: lambda t, e: t._approvals(e),
    Final: lambda _t, _e: [],  # the server closes the run: an app's answer may span several inner runs
    RunStart: lambda _t, _e: [],
    Thought: lambda t, e: t._thought(e),
    Retry: lambda _t, e: [CustomEvent(name="orrery.retry", value={"attempt": e.attempt, "message": e.message})],
    ErrorEvent: lambda _t, e: [CustomEvent(name="orrery.error", value=e.message)],
}


def _pointer(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")
