"""The agent loop as a generator of events: context -> model -> tool calls -> observations, inside validation
retries. `stream()` is the loop; `run()` consumes it (as smolagents' `_run_stream` and `run`)."""

from __future__ import annotations

import json
import queue
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, get_origin

from orrery import results
from orrery.agent import react
from orrery.agent.calls import EventSource, consume
from orrery.agent.output import FINAL_TOOL, OutputInvalid, OutputSpec
from orrery.errors import ConfigError, ModelError, OrreryError
from orrery.events import (
    ApprovalDecision,
    ApprovalRequired,
    Clarification,
    ErrorEvent,
    Event,
    Final,
    ModelCall,
    ModelReply,
    PartialOutput,
    Progress,
    Retry,
    RunStart,
    StateChanged,
    Status,
    StepEnd,
    StepStart,
    Thought,
    Token,
    ToolCallDelta,
    ToolCallEvent,
    ToolResultEvent,
    env_hooks,
)
from orrery.llm.base import Model, ModelProfile, profile_of
from orrery.llm.base import stream as llm_stream
from orrery.memory import Memory
from orrery.messages import Message, ModelResponse, ToolCall, ToolSpec, Usage
from orrery.tools.core import CallLedger, RunContext, Tool, ToolResult, Toolset

Validator = Callable[[str, RunContext], "str | None"]
"""Inspects a final answer: returns None to accept it, or a message that asks the model to retry."""

ANSWER_NOW = "You repeated a call whose result you already have. Answer the question now from the results above."

TOOL_STOP_WAIT = 2.0  # seconds a closed stream waits for its running tools to reach their next progress report

DEFAULT_SYSTEM = (
    "You are a careful assistant. Use the tools when they help, one step at a time, "
    "and answer plainly when you are done."
)


@dataclass
class AgentConfig:
    system_prompt: str = DEFAULT_SYSTEM
    format: Literal["auto", "native", "react"] = "auto"  # auto: the model's `profile.format`
    max_rounds: int = 20  # tool rounds per attempt
    max_retries: int = 3  # validation retries
    max_tokens: int | None = None  # token budget for the whole run
    max_tokens_per_call: int | None = None
    wall_time: float | None = None  # seconds
    max_calls_per_step: int | None = None  # 1 = one action per step
    tool_choice: str | Callable[[RunContext], str] = "auto"  # a function of state: e.g. "required" mid-workflow
    validators: list[Validator] = field(default_factory=list)
    finish: Callable[[RunContext], str | None] | None = None  # the workflow says when it is done
    context: Callable[[Sequence[Message]], list[Message]] | None = None  # e.g. SlidingWindow()
    board: Callable[[RunContext], str] | None = None  # pinned message, re-injected every step ...
    board_at: int | None = 2  # ... at this index, or None: after the history (keeps the prefix cached)
    max_history: int = 500
    answer_on_repeat: bool = True  # a turn that only repeats earlier calls is followed by a tool-less turn
    output_mode: Literal["auto", "schema", "tool"] = "auto"  # how output_type= is asked for (orrery.agent.output);
    # auto: the model's `profile.output_mode`
    verbose: bool = False
    trace: str | Path | None = None


@dataclass
class PendingApproval:
    """A tool call waiting for a person's decision: `resume(approvals={id: True | False | {edited arguments}})`."""

    id: str
    tool: str
    arguments: dict[str, Any]


@dataclass
class RunResult:
    status: Status
    output: Any  # the answer's text, or the validated value of `output_type=`
    steps: int = 0
    retries: int = 0
    tool_calls: list[ToolResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    duration: float = 0.0
    approvals: list[PendingApproval] = field(default_factory=list)  # set when paused for approvals

    @property
    def ok(self) -> bool:
        return self.status == "completed"

    def __str__(self) -> str:
        return OutputSpec.render(self.output)

    # -- the result protocol (orrery.results) --
    @property
    def data(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "output": results.jsonable(self.output),
            "steps": self.steps,
            "tool_calls": [{"tool": t.call.name, "ok": t.ok} for t in self.tool_calls],
            "errors": list(self.errors),
        }

    def views(self) -> list[results.View]:
        return []

    def files(self) -> dict[str, Callable[[Path], Any]]:
        return {}


class StopRun(Exception):  # noqa: N818 - control flow: a limit or a model failure ends the run
    def __init__(self, status: Status, message: str):
        self.status, self.message = status, message


@dataclass(eq=False)
class Run:
    """What one run owns, so that one Agent (configuration only) can serve several runs at once: its config (the
    agent's plus this run's overrides), its view of the conversation (`memory`), the tools' `ctx` (options,
    succeeded tools, a finish signal; `ctx.state` is the conversation's, shared with the runs that continue it),
    the calls done so far, the forced answer, the pinned board, the pending approvals and the result (usage)."""

    config: AgentConfig
    memory: Memory
    ctx: RunContext
    profile: ModelProfile = field(default_factory=ModelProfile)
    output: OutputSpec | None = None  # the typed output asked for, if any
    task: str = ""
    pending: dict[str, Any] | None = None  # the tool calls waiting for approval (JSON: kept in snapshots)
    done_calls: set[str] = field(default_factory=set)
    force_answer: bool = False
    board: str | None = None
    result: RunResult = field(default_factory=lambda: RunResult("completed", ""))
    catalogue: list[ToolSpec] = field(default_factory=list)  # every tool as declared, the MCP servers' included

    @property
    def usage(self) -> Usage:
        return self.result.usage


class Agent(EventSource):
    """`Agent(model, tools, config, deps_type=...)`: `stream(task, deps=...)` yields the run's events, `run(task,
    deps=...)` consumes them into a RunResult; every tool's `ctx.deps` is the run's `deps` (an instance of
    `deps_type`, checked when the run starts). `query()` continues the conversation; `snapshot()`/`restore()`
    carry it across processes. The agent holds configuration; each `stream()` makes a `Run` that holds the run's
    state (`current_run` is the latest, which `query` and `snapshot` continue), so two runs of one agent may go on
    at once."""

    def __init__(
        self,
        model: Model,
        tools: Toolset | Iterable[Tool | Callable[..., Any]] = (),
        config: AgentConfig | None = None,
        *,
        deps_type: Any = None,
        on_event: Iterable[Callable[[Event], None]] = (),
        state: dict[str, Any] | None = None,
        tools_ref: str | None = None,
        ledger: CallLedger | Any = None,
        name: str = "agent",
    ):
        self.model = model
        self.name = name  # RunStart.agent: what traces and spans call the run (an app names its own)
        self.deps_type = deps_type
        self.profile = profile_of(model)
        self.tools = tools if isinstance(tools, Toolset) else Toolset(tools)
        self.config = config or AgentConfig()
        if self.config.format == "auto":  # a copy: the caller's config may serve models of other formats
            self.config = replace(self.config, format=self.profile.format)
        self.handlers: list[Callable[[Event], None]] = list(on_event)
        self.tools_ref = tools_ref
        # Done-markers of approved calls: in memory (and snapshots) by default; a session store keeps them durable.
        self.ledger = ledger if isinstance(ledger, CallLedger) else CallLedger(ledger)
        # Every tool as declared (not gated, not refined): a model that keeps it in its prompt prefix gets a
        # cache hit at each step while gating changes what it may call.
        self._catalogue = [t.spec() for t in self.tools.tools.values()]
        self._initial_state = dict(state) if state is not None else {}
        self.current_run = self._new_run(self.config, RunContext(state=state if state is not None else {}))
        self._model_name = str(getattr(model, "name", ""))
        if self.config.verbose:
            from orrery.console import ConsoleView

            self.handlers.append(ConsoleView())
        if self.config.trace:
            from orrery.trace import TraceWriter

            self.handlers.append(TraceWriter(self.config.trace))

    # -- public API -------------------------------------------------------------------------
    def stream(
        self,
        task: str,
        *,
        deps: Any = None,
        settings: dict[str, Any] | None = None,
        output_type: Any = None,
        **options: Any,
    ) -> Iterator[Event]:
        """Start a new conversation on `task` (a new `Run`), yielding its events; the last is
        `Final(result=RunResult)`. `deps` (an instance of `deps_type`) is every tool's `ctx.deps`; `settings`
        overrides AgentConfig fields for this run only; `output_type` (a pydantic model, dataclass, TypedDict, or
        a union with str) makes `result.output` a validated instance (`orrery.agent.output`); other keyword
        options reach tools as `ctx.options`. Closing the iterator stops the run at the next event (and the
        model's stream)."""
        run = self.begin(task, deps=deps, settings=settings, output_type=output_type, **options)
        return self._with_providers(run, self._go(run, task))

    def begin(
        self,
        task: str,
        *,
        deps: Any = None,
        settings: dict[str, Any] | None = None,
        output_type: Any = None,
        **options: Any,
    ) -> Run:
        """A new `Run` on `task` (system prompt and task in its memory), made the current one, not started: an
        architecture drives it one `step(run=run)` at a time; `stream` runs it to the end."""
        config = self._overridden(settings)
        ctx = RunContext(self._checked(deps), state=self.current_run.ctx.state, options=dict(options))
        run = self._new_run(config, ctx, self._output_spec(config, output_type))
        run.task = task
        run.memory.add(Message("system", self._system_prompt(config)), Message("user", task))
        self.current_run = run
        return run

    def query_stream(
        self,
        question: str,
        *,
        deps: Any = None,
        settings: dict[str, Any] | None = None,
        output_type: Any = None,
        **options: Any,
    ) -> Iterator[Event]:
        """A follow-up on the kept history (tools stay available), yielding its events; the conversation's deps
        go on unless `deps` gives new ones."""
        if not self.current_run.memory.messages:
            return self.stream(question, deps=deps, settings=settings, output_type=output_type, **options)
        run = self._continued(settings, output_type, deps=self._checked(deps) if deps is not None else None)
        run.ctx.options.update(options)
        run.memory.add(Message("user", question))
        return self._with_providers(run, self._go(run, question))

    def query(
        self,
        question: str,
        *,
        deps: Any = None,
        settings: dict[str, Any] | None = None,
        output_type: Any = None,
        **options: Any,
    ) -> RunResult:
        env_hooks()
        return consume(
            self.query_stream(question, deps=deps, settings=settings, output_type=output_type, **options), self.emit
        )

    def resume_stream(
        self,
        approvals: dict[str, bool | dict[str, Any]],
        *,
        settings: dict[str, Any] | None = None,
        output_type: Any = None,
    ) -> Iterator[Event]:
        """Continue a run paused for approvals: `{call_id: True (run it) | False (deny) | {edited arguments}}`,
        one decision per pending call. An approved call runs once: its result is kept under the call id in
        `ledger` before the run goes on, so a resume sent again (or after a crash) reads it instead of rerunning."""
        pending = self.current_run.pending
        if pending is None:
            raise ConfigError(
                "no tool call is waiting for approval; run the agent (or restore the session that paused) first"
            )
        ids = [a["id"] for a in pending["approvals"]]
        unknown, missing = sorted(set(approvals) - set(ids)), [i for i in ids if i not in approvals]
        if unknown or missing:
            raise ConfigError(
                f"approvals must decide exactly the pending calls {', '.join(ids)}"
                + (f"; unknown: {', '.join(unknown)}" if unknown else "")
                + (f"; missing: {', '.join(missing)}" if missing else "")
            )
        bad = [i for i, d in approvals.items() if not isinstance(d, bool | dict)]
        if bad:
            raise ConfigError(f"approval for {', '.join(bad)}: give True, False or a dict of edited arguments")
        run = self._continued(settings, output_type, keep_pending=True)
        return self._with_providers(run, self._go(run, pending["task"], dict(approvals)))

    def resume(
        self,
        approvals: dict[str, bool | dict[str, Any]],
        *,
        settings: dict[str, Any] | None = None,
        output_type: Any = None,
    ) -> RunResult:
        env_hooks()
        return consume(self.resume_stream(approvals, settings=settings, output_type=output_type), self.emit)

    @property
    def pending_approvals(self) -> list[PendingApproval]:
        pending = self.current_run.pending
        return [PendingApproval(**a) for a in pending["approvals"]] if pending else []

    def reset(self) -> None:
        self.current_run = self._new_run(self.config, RunContext(state=dict(self._initial_state)))

    def snapshot(self) -> dict[str, Any]:
        """The conversation as JSON-able data: messages, tools that succeeded, and the JSON-able part of
        `ctx.state` (values such as DataFrames are not kept; an app rebuilds them from its inputs)."""
        run = self.current_run
        state = {k: v for k, v in run.ctx.state.items() if _is_json(v)}
        data = {
            "messages": [m.to_dict() for m in run.memory.messages],
            "state": state,
            "succeeded": list(run.ctx.succeeded),
        }
        if run.pending is not None:
            data["pending"] = run.pending
        if self.ledger.memory:
            data["done_calls"] = dict(self.ledger.memory)
        return data

    def restore(self, data: dict[str, Any]) -> None:
        """Continue a conversation saved by `snapshot()` (a `query()` then follows it up)."""
        run = self.current_run = self._new_run(self.config, self.current_run.ctx)
        run.memory.add(*(Message.from_dict(m) for m in data.get("messages", [])))
        run.ctx.state.update(data.get("state", {}))
        run.ctx.succeeded[:] = data.get("succeeded", [])
        run.pending = data.get("pending")
        self.ledger.memory.update(data.get("done_calls", {}))

    # -- the loop ------------------------------------------------------------------------------
    def _checked(self, deps: Any) -> Any:
        """`deps` if it fits `deps_type` (any value when the agent declares none), else a one-line ConfigError."""
        want = self.deps_type
        if want is None or isinstance(deps, get_origin(want) or want):  # list[str] is checked as a list
            return deps
        if deps is None:
            raise ConfigError(f"this agent needs deps: pass deps=<a {want.__name__}> to run/stream")
        raise ConfigError(f"deps must be a {want.__name__} (the agent's deps_type), not a {type(deps).__name__}")

    def _new_run(self, config: AgentConfig, ctx: RunContext, output: OutputSpec | None = None) -> Run:
        return Run(config, Memory(self.config.max_history), ctx, self.profile, output, catalogue=self._catalogue)

    def _continued(
        self, settings: dict[str, Any] | None, output_type: Any, keep_pending: bool = False, deps: Any = None
    ) -> Run:
        """A run that goes on with the current run's conversation (its memory and `ctx.state`), in a context of
        its own that starts from the current run's: its deps (or `deps`), options and succeeded tools."""
        prev, config = self.current_run, self._overridden(settings)
        output = self._output_spec(config, output_type) if output_type is not None or not keep_pending else prev.output
        ctx = RunContext(
            prev.ctx.deps if deps is None else deps,
            state=prev.ctx.state,
            options=dict(prev.ctx.options),
            succeeded=list(prev.ctx.succeeded),
        )
        self.current_run = Run(
            config,
            prev.memory,
            ctx,
            self.profile,
            output,
            pending=prev.pending if keep_pending else None,
            catalogue=self._catalogue,
        )
        return self.current_run

    def _overridden(self, settings: dict[str, Any] | None) -> AgentConfig:
        if not settings:
            return self.config
        unknown = sorted(set(settings) - {f.name for f in fields(AgentConfig)})
        if unknown:
            raise ConfigError(
                f"unknown setting(s) {', '.join(unknown)}; AgentConfig has "
                f"{', '.join(f.name for f in fields(AgentConfig))}"
            )
        return replace(self.config, **settings)

    def _output_spec(self, config: AgentConfig, output_type: Any) -> OutputSpec | None:
        if output_type is None:
            return None
        if config.format == "react":
            raise ConfigError("output_type needs the native tool format; the react format answers in its own JSON")
        return OutputSpec(output_type)

    def _system_prompt(self, cfg: AgentConfig) -> str:
        if cfg.format == "react":
            return react.system_prompt(cfg.system_prompt, [t.spec() for t in self.tools.tools.values()])
        return cfg.system_prompt

    def _with_providers(self, run: Run, events: Iterator[Event]) -> Iterator[Event]:
        """The run with its tool providers (MCP servers) open: they list their tools at the start and close at
        the end (or when the stream is closed). One that cannot open ends the run with its one-line error."""
        if not self.tools.providers:
            yield from events
            return
        try:
            self.tools.open()
        except OrreryError as exc:
            result = RunResult("error", str(exc), errors=[str(exc)])
            yield ErrorEvent(str(exc))
            yield Final(result.status, result.output, result)
            return
        try:
            run.catalogue = [t.spec() for t in self.tools.tools.values()]
            if run.config.format == "react" and run.memory.messages[0].role == "system":
                run.memory.messages[0] = Message("system", self._system_prompt(run.config))
            yield from events
        finally:
            self.tools.close()

    def _go(self, run: Run, task: str, decisions: dict[str, Any] | None = None) -> Iterator[Event]:
        cfg = run.config
        run.ctx.final_output = None
        run.task = task
        run.done_calls.clear()
        run.force_answer = False
        run.board = None
        result = run.result = RunResult("completed", "")
        start = time.monotonic()
        yield RunStart(
            task,
            list(self.tools.tools),
            self.tools_ref,
            results.jsonable(run.ctx.options),
            agent=self.name,
            architecture="agent",
        )
        try:
            if decisions is not None:
                yield from self._decide(run, decisions, result)
            for attempt in range(cfg.max_retries + 1):
                output = yield from self._attempt(run, attempt, result, start)
                if output is None:  # paused for a clarification or an approval
                    break
                result.output = output
                retry = None
                if run.output is not None:
                    try:
                        result.output = run.output.parse(output)
                    except OutputInvalid as exc:
                        retry = run.output.retry_message(exc, _output_mode(run))
                retry = retry or next((m for v in cfg.validators if (m := v(output, run.ctx))), None)
                if retry is None:
                    result.status = "completed"
                    break
                result.status = "invalid"
                result.errors.append(retry)
                if attempt == cfg.max_retries:
                    break
                result.retries += 1
                yield Retry(attempt + 1, retry)
                run.memory.add(Message("user", retry))
        except StopRun as stop:
            result.status, result.output = stop.status, result.output or stop.message
            result.errors.append(stop.message)
            yield ErrorEvent(stop.message)
        result.duration = time.monotonic() - start
        yield Final(result.status, OutputSpec.render(result.output), result)

    def _attempt(self, run: Run, attempt: int, result: RunResult, start: float) -> Generator[Event, None, str | None]:
        """Tool rounds until a final answer. Returns it, or None when a tool asked a clarification."""
        cfg = run.config
        for rnd in range(cfg.max_rounds):
            if cfg.wall_time is not None and time.monotonic() - start > cfg.wall_time:
                raise StopRun("timeout", f"wall time of {cfg.wall_time}s exceeded after {result.steps} steps")
            if cfg.max_tokens is not None and result.usage.total >= cfg.max_tokens:
                raise StopRun("max_tokens", f"token budget of {cfg.max_tokens} spent after {result.steps} steps")
            result.steps += 1
            yield StepStart(result.steps)
            outcome = yield from self._step(run, rnd, attempt, result)
            yield StepEnd(result.steps)
            if isinstance(outcome, str):
                return outcome
            if run.pending is not None:
                result.status = "paused"
                result.approvals = [PendingApproval(**a) for a in run.pending["approvals"]]
                result.output = "Waiting for approval: " + ", ".join(
                    f"{a.tool}({json.dumps(a.arguments, default=str)})" for a in result.approvals
                )
                yield ApprovalRequired([asdict(a) for a in result.approvals])
                return None
            if (clar := next((r.clarification for r in outcome if r.clarification), None)) is not None:
                result.status, result.output = "paused", clar
                yield Clarification(clar)
                return None
            done = run.ctx.final_output or (cfg.finish(run.ctx) if cfg.finish else None)
            if done is not None:
                return done
        raise StopRun("max_rounds", f"no final answer after {cfg.max_rounds} tool rounds")

    def context_messages(self, run: Run | None = None) -> list[Message]:
        """What the model sees this step (of `run`, by default the current one): history -> context manager ->
        pinned board (at `board_at`)."""
        run = run or self.current_run
        cfg = run.config
        messages = list(run.memory.messages)
        if cfg.context is not None:
            messages = cfg.context(messages)
        if cfg.board is not None:
            at = len(messages) if cfg.board_at is None else cfg.board_at
            messages.insert(at, Message("user", cfg.board(run.ctx), pinned=True))
        return messages

    def step(
        self, rnd: int = 0, attempt: int = 0, result: RunResult | None = None, *, run: Run | None = None
    ) -> Generator[Event, None, str | list[ToolResult]]:
        """One model call and its tool calls of `run` (by default the current one), as events. Returns the final
        text, or the tool results; `result` (by default the run's) gathers usage, tool calls and errors."""
        run = run or self.current_run
        return self._step(run, rnd, attempt, result if result is not None else run.result)

    def _step(
        self, run: Run, rnd: int, attempt: int, result: RunResult
    ) -> Generator[Event, None, str | list[ToolResult]]:
        cfg = run.config
        messages = self.context_messages(run)
        if cfg.board is not None and (board := next(m for m in messages if m.pinned).content) != run.board:
            run.board = board
            yield StateChanged("board", run.board)
        specs = [] if run.force_answer else self.tools.specs(run.ctx)
        if run.output is not None and _output_mode(run) == "tool":
            specs.append(run.output.tool_spec())
        if run.force_answer:  # shown this turn only, not kept in the history
            messages.append(Message("user", ANSWER_NOW))
        run.force_answer = False
        yield ModelCall(rnd, attempt, len(messages), [s.name for s in specs], self._model_name)
        raw = yield from self._call_model(run, messages, specs)
        result.usage += raw.usage
        resp = raw
        if cfg.format == "react":
            thought, resp = react.parse(raw, f"step{result.steps}")
            if thought:
                yield Thought(thought)
            if not resp.tool_calls:
                yield Token(resp.content)
        elif raw.content and raw.tool_calls:
            yield Thought(raw.content)
        if run.output is not None and (final := next((c for c in resp.tool_calls if c.name == FINAL_TOOL), None)):
            run.memory.add(
                Message("assistant", resp.content, [final]),
                Message("tool", "Final result received.", tool_call_id=final.id, name=FINAL_TOOL),
            )
            return "" if final.error else json.dumps(final.arguments)
        if not resp.tool_calls:
            run.memory.add(Message("assistant", raw.content if cfg.format == "react" else resp.content))
            return resp.content
        return (yield from self._act(run, raw, resp, result))

    def _call_model(
        self, run: Run, messages: list[Message], specs: list[ToolSpec]
    ) -> Generator[Event, None, ModelResponse]:
        """The model's reply, streamed: answer text as Token events, tool calls as ToolCallDelta events."""
        cfg = run.config
        t0 = time.monotonic()
        out = run.output if run.output is not None and _output_mode(run) == "schema" else None
        deltas = self._open_stream(run, messages, specs, out)
        raw = None
        typed = run.output if run.output is not None and cfg.format != "react" else None
        text, shown, final_at = "", None, None  # the typed answer as it grows: text, or the final tool's arguments
        try:
            for d in deltas:
                if cfg.format != "react":  # react replies are JSON: its answer is emitted once parsed
                    if d.text:
                        yield Token(d.text)
                    if d.index is not None:
                        yield ToolCallDelta(d.index, d.id, d.name, d.arguments)
                        if d.name == FINAL_TOOL:
                            final_at, text = d.index, ""
                    if typed is not None and (
                        piece := d.text
                        if out is not None
                        else d.arguments
                        if d.index is not None and d.index == final_at
                        else ""
                    ):
                        text += piece
                        if (partial := typed.partial(text)) and partial != shown:
                            shown = partial
                            yield PartialOutput(partial)
                raw = d.response or raw
        except ModelError as exc:
            raise StopRun("error", str(exc)) from exc
        if raw is None:
            raise StopRun("error", f"model {getattr(self.model, 'name', '?')!r} ended its stream without a reply")
        yield ModelReply(raw, time.monotonic() - t0)
        return raw

    def _open_stream(
        self, run: Run, messages: list[Message], specs: list[ToolSpec], out: OutputSpec | None
    ) -> Iterator[Any]:
        cfg = run.config
        if cfg.format == "react":
            return llm_stream(self.model, messages, (), schema=react.schema(specs), max_tokens=cfg.max_tokens_per_call)
        choice = cfg.tool_choice(run.ctx) if callable(cfg.tool_choice) else cfg.tool_choice
        return llm_stream(
            self.model,
            messages,
            specs,
            tool_choice=choice if specs else "none",
            schema=out.schema if out is not None else None,
            max_tokens=cfg.max_tokens_per_call,
            catalogue=run.catalogue,
        )

    def _act(
        self, run: Run, raw: ModelResponse, resp: ModelResponse, result: RunResult
    ) -> Generator[Event, None, list[ToolResult]]:
        cfg = run.config
        calls, extra = resp.tool_calls, []
        if cfg.max_calls_per_step is not None:
            calls, extra = calls[: cfg.max_calls_per_step], calls[cfg.max_calls_per_step :]
        for c in resp.tool_calls:
            yield ToolCallEvent(c)
        held = self.tools.held(calls, run.ctx) if self.tools.asks else []
        if held:
            calls = [c for c in calls if c not in held]
        results = (yield from self._run_tools(run, calls)) + [_refused(c, cfg.max_calls_per_step) for c in extra]
        for r in results:
            yield ToolResultEvent(r.call, r.ok, r.content, r.duration, r.cached)
            if not r.ok:
                result.errors.append(r.content)
        result.tool_calls.extend(results)
        if held:  # the turn is recorded once every call has a result, after `resume`
            run.pending = {
                "id": uuid.uuid4().hex,
                "task": run.task,
                "format": cfg.format,
                "raw": raw.content,
                "assistant": Message("assistant", resp.content, list(resp.tool_calls)).to_dict(),
                "results": [r.to_message().to_dict() for r in results],
                "approvals": [{"id": c.id, "tool": c.name, "arguments": c.arguments} for c in held],
            }
            return results
        if cfg.answer_on_repeat:
            # Small models often repeat a call whose answer (or error) they already have instead of answering.
            keys = [f"{r.call.name}:{json.dumps(r.call.arguments, sort_keys=True, default=str)}" for r in results]
            run.force_answer = all(k in run.done_calls for k in keys)
            run.done_calls.update(keys)
        if cfg.format == "react":
            run.memory.add(*react.as_messages(raw.content, [(r.call.name, r.content) for r in results]))
        else:
            run.memory.add(
                Message("assistant", resp.content, list(resp.tool_calls)), *(r.to_message() for r in results)
            )
        return results

    def _decide(self, run: Run, decisions: dict[str, Any], result: RunResult) -> Iterator[Event]:
        """Run the approved calls of the paused turn (each once: a done-marker under the pause and call id is
        read before and written right after it runs), deny the others, and record the whole turn."""
        pending, run.pending = run.pending, None
        assert pending is not None
        decided: dict[str, ToolResult] = {}
        for a in pending["approvals"]:
            d = decisions[a["id"]]
            call = ToolCall(a["id"], a["tool"], d if isinstance(d, dict) else a["arguments"])
            yield ApprovalDecision(call.id, call.name, d is not False, call.arguments)
            key = f"{pending['id']}-{call.id}"
            if (done := self.ledger.get(key)) is not None:  # ran before this resume: never twice
                r = ToolResult(call, done["ok"], done["content"], error=done.get("error"), cached=True)
            elif d is False:
                msg = f"the user denied the call to {call.name!r}; do not call it again with these arguments"
                r = ToolResult(call, False, f"Denied: {msg}", error=msg)
            else:
                [r] = yield from self._run_tools(run, [call], approved=True)
                self.ledger.put(key, {"ok": r.ok, "content": r.content, "error": r.error})
            yield ToolResultEvent(r.call, r.ok, r.content, r.duration, r.cached)
            if not r.ok:
                result.errors.append(r.content)
            decided[call.id] = r
        result.tool_calls.extend(decided.values())
        ran = {m["tool_call_id"]: Message.from_dict(m) for m in pending["results"]}
        assistant = Message.from_dict(pending["assistant"])
        replies = [ran[c.id] if c.id in ran else decided[c.id].to_message() for c in assistant.tool_calls]
        for c, reply in zip(assistant.tool_calls, replies, strict=True):
            if isinstance(edited := decisions.get(c.id), dict) and edited != c.arguments:  # what actually ran
                reply.content = (
                    f"(run with the arguments the user gave: {json.dumps(edited, default=str)}) " + reply.content
                )

        if pending["format"] == "react":
            run.memory.add(*react.as_messages(pending["raw"], [(m.name or "", m.content) for m in replies]))
        else:
            run.memory.add(assistant, *replies)

    def _run_tools(
        self, run: Run, calls: Sequence[ToolCall], approved: bool = False
    ) -> Generator[Event, None, list[ToolResult]]:
        """Run the calls, yielding the `Progress` they report (`ctx.progress`) while they run. Only a tool that
        takes the RunContext can report, so only then do the calls run in a daemon worker thread (the stream
        stays live, and a Ctrl-C in the consumer is not held up by them); others run here, at no cost.
        When the consumer stops (closes the stream, Ctrl-C), `ctx.cancelled` turns True, so the tools stop at
        their next progress report, and the worker is waited for `TOOL_STOP_WAIT` seconds at most."""
        tools = self.tools.tools
        if not any(c.name in tools and tools[c.name].wants_context for c in calls):
            return self.tools.run(calls, run.ctx, approved=approved)
        reports: queue.Queue[Progress | None] = queue.Queue()
        box: dict[str, Any] = {}

        def work() -> None:
            try:
                box["results"] = self.tools.run(calls, run.ctx, approved=approved)
            except BaseException as exc:  # re-raised in the consumer's thread below
                box["error"] = exc
            finally:
                reports.put(None)

        run.ctx.reporter = lambda label, done, total: reports.put(Progress(label, done, total))
        run.ctx.cancellation = threading.Event()
        worker = threading.Thread(target=work, name="orrery-tools", daemon=True)
        worker.start()
        try:
            while (report := reports.get()) is not None:
                yield report
        except BaseException:  # GeneratorExit (the stream closed), KeyboardInterrupt while waiting for a report
            run.ctx.cancellation.set()
            worker.join(TOOL_STOP_WAIT)
            raise
        finally:
            run.ctx.reporter = None
        if "error" in box:
            raise box["error"]
        return box["results"]


def _output_mode(run: Run) -> str:
    return run.profile.output_mode if run.config.output_mode == "auto" else run.config.output_mode


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _refused(call: ToolCall, limit: int | None) -> ToolResult:
    msg = f"only {limit} tool call per step is allowed; {call.name!r} was not run. Call it in the next step."
    return ToolResult(call, False, f"Error: {msg}", error=msg)
