"""The router architecture: classify the query, let the model pick the tools and a strategy,
then execute: DIRECT / PARALLEL = one round of parallel tool calls and a synthesis, ITERATIVE = the
agent loop restricted to the chosen tools for at most `max_turns` rounds.

Two hooks let an app decide by rules what a small model decides badly:
- `decide(query, classification) -> Route | None`: a route from rules; when given, the router's model call
  is skipped (the Routed event says `source="rules"`);
- `fan_out(query, classification, route, done) -> list[ToolCall] | None`: the next round of tool calls, with
  arguments filled from the classification (`expand` makes one call per entity); the round runs in parallel
  in one step and its results reach the model as one observation, then one synthesis call answers. It is
  asked again after each round (`done`: the results so far) until it returns []; None hands the execution
  to the model (the strategies above).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal

import pydantic

from orrery import results
from orrery.agent.calls import Emit, EventSource, ask_json, consume, synthesize
from orrery.agent.loop import DEFAULT_SYSTEM, Agent, AgentConfig, RunResult, StopRun, _is_json
from orrery.errors import ConfigError, ModelError
from orrery.events import (
    ApprovalRequired,
    Clarification,
    Classified,
    ErrorEvent,
    Event,
    Final,
    Routed,
    RunStart,
    StepEnd,
    StepStart,
    Token,
    ToolCallEvent,
    ToolResultEvent,
    env_hooks,
)
from orrery.llm.base import Model
from orrery.messages import Message, ToolCall, Usage
from orrery.tools.core import CallLedger, RunContext, Tool, ToolResult, Toolset

Complexity = Literal["SIMPLE", "MEDIUM", "COMPLEX"]
Strategy = Literal["DIRECT", "ITERATIVE", "PARALLEL"]

DEFAULT_TURNS: dict[str, int] = {"SIMPLE": 2, "MEDIUM": 4, "COMPLEX": 6}

CLASSIFY_PROMPT = (
    "Classify the user's query. Reply with JSON: `type` (the kind of query), `entities` (the "
    "names, symbols, places or dates it mentions) and `categories` (the kinds of data it needs)."
)

ROUTE_PROMPT = """Choose the tools needed to answer the query, and how to run them. Reply with JSON:
- selected_tools: the tools to use (an empty list when the query needs none);
- complexity: SIMPLE (1-2 tools), MEDIUM (3-5 tools) or COMPLEX (6+ tools, or steps that depend on earlier results);
- strategy: DIRECT or PARALLEL when all calls can be made at once, ITERATIVE when later calls need earlier results;
- max_turns: how many tool rounds to allow (about 2 for SIMPLE, 4 for MEDIUM, 6 for COMPLEX).
Tools:
"""

SYNTHESIS_PROMPT = "Answer the original question now, plainly, from the results above; do not call tools: "
MAX_FAN_OUT_ROUNDS = 4  # rounds a fan_out hook may plan before the synthesis (a bound on a buggy hook)
MAX_FAN_OUT_CALLS = 64  # calls in one round
# A result's fields a resume starts afresh (or rebuilds): not kept in a snapshot.
_RESET = frozenset({"steps", "tool_calls", "errors", "usage", "approvals", "classification", "route", "duration"})


# -- structured replies -----------------------------------------------------------------------------
class Classification(pydantic.BaseModel):
    type: str
    entities: list[str] = []
    categories: list[str] = []


class Route(pydantic.BaseModel):
    selected_tools: list[str] = []
    complexity: Complexity
    strategy: Strategy
    max_turns: int = pydantic.Field(default=0, ge=0)  # 0: the default for the complexity
    dropped: list[str] = []  # names the router chose that are not tools; filled in by RouterAgent


def expand(
    name: str, arguments: dict[str, Any], key: str, values: Iterable[Any], *, prefix: str = "fan"
) -> list[ToolCall]:
    """One call of tool `name` per value of `key` (the rest of `arguments` shared), each with its own id:
    `expand("quote", {"date": d}, "symbol", ["AAPL", "MSFT"])` -> two quote calls."""
    return [ToolCall(f"{prefix}-{name}-{i}", name, {**arguments, key: v}) for i, v in enumerate(values)]


Decide = Callable[[str, "Classification"], "Route | None"]
FanOut = Callable[[str, "Classification", "Route", list[ToolResult]], "list[ToolCall] | None"]


# -- the agent -------------------------------------------------------------------------------------------
@dataclass
class RouterConfig:
    system_prompt: str = DEFAULT_SYSTEM  # used while executing the chosen tools
    query_types: list[str] | None = None  # an enum for the classification's `type` (free text when None)
    categories: list[str] | None = None  # an enum for its `categories`
    max_turns: int = 6  # upper bound on the router's `max_turns`
    max_tokens_per_call: int | None = None
    agent: AgentConfig = field(default_factory=AgentConfig)  # base config of the ITERATIVE loop


@dataclass
class RouterResult(RunResult):
    """A RunResult plus what the router decided."""

    classification: Classification | None = None
    route: Route | None = None


@dataclass(eq=False)
class RouterRun:
    """One routed run as the hooks see it: the query, the options the tools get (`ctx.options`), the result
    being built, the system prompt for the execution (None: the config's), who chose the route (`source`, what
    the Routed event says), `answered` once a hook gave the answer itself (`answer(text)`), and the deps the
    tools get (`ctx.deps`; a hook may set them before the execution)."""

    agent: RouterAgent
    query: str
    options: dict[str, Any]
    result: RouterResult
    system_prompt: str | None = None
    source: str = "model"
    answered: bool = False
    loop: Agent | None = None  # the loop that paused for an approval (what `resume` continues)
    deps: Any = None

    def answer(self, text: str) -> None:
        """End the run with `text` (streamed as a token) instead of the phases still to come."""
        self.result.output, self.answered = text, True


ClassifyHook = Callable[[RouterRun], Generator[Event, None, Classification]]
RouteHook = Callable[[RouterRun, Classification], Generator[Event, None, Route]]
ExecuteHook = Callable[[RouterRun, Classification, Route], Iterator[Event]]
CheckHook = Callable[[RouterRun, Classification], Iterator[Event]]


class RouterAgent(EventSource):
    """`RouterAgent(model, tools)`: `stream(query)` yields the events of classify, route, execute (and check);
    `run(query)` consumes it into a RouterResult.

    Each phase is a hook an app may replace, a generator of events returning its value: `classify(run)` (default
    `classify_query`: the model's), `route(run, c)` (default `choose_route`: `decide`'s rules, else the model's;
    the router gives the Routed event), `execute(run, c, route)` (default `execute`: fan-out rounds or a
    strategy), `check(run, c)` (after the execution: none by default). A hook may end the run early with
    `run.answer(text)`. A tool that needs approval pauses the run (`result.approvals`); `resume(approvals)`
    goes on; `snapshot()` / `restore()` carry a paused run to a fresh agent."""

    classification_type: type[Classification] = Classification  # what `restore` rebuilds a classification as

    def __init__(
        self,
        model: Model,
        tools: Toolset | Iterable[Tool | Callable[..., Any]] = (),
        config: RouterConfig | None = None,
        *,
        on_event: Iterable[Emit] = (),
        decide: Decide | None = None,
        fan_out: FanOut | None = None,
        classify: ClassifyHook | None = None,
        route: RouteHook | None = None,
        execute: ExecuteHook | None = None,
        check: CheckHook | None = None,
        name: str = "router",
        result_type: type[RouterResult] = RouterResult,
        ledger: Any = None,
    ):
        self.model = model
        self.tools = tools if isinstance(tools, Toolset) else Toolset(tools)
        self.config = config or RouterConfig()
        self.handlers: list[Emit] = list(on_event)
        self.decide = decide
        self.fan_out = fan_out
        self.classify_hook = classify or self.classify_query
        self.route_hook = route or self.choose_route
        self.execute_hook = execute or self.execute
        self.check_hook = check
        self.kind = name  # RunStart.agent: what replay rebuilds and traces name
        self.result_type = result_type
        self.ledger = CallLedger(ledger)  # done-markers of approved calls (durable with a session store)
        self.paused: RouterRun | None = None  # the run waiting for approvals

    def stream(self, query: str, *, deps: Any = None, **options: Any) -> Iterator[Event]:
        """The run, with the tools' providers (MCP servers) open meanwhile; `deps` is every tool's `ctx.deps`."""
        with self.tools.holding():
            run = RouterRun(self, query, dict(options), self.result_type("completed", ""), deps=deps)
            yield from self._run(run, self._phases(run))

    def resume_stream(self, approvals: dict[str, bool | dict[str, Any]]) -> Iterator[Event]:
        """Continue the run paused for approvals inside its execution: `{call_id: True | False | {edited
        arguments}}`, one per pending call (the loop's `resume`: an approved call runs at most once)."""
        run = self.paused
        if run is None or run.loop is None:
            raise ConfigError("no routed run is waiting for approval; run the router first")
        events = run.loop.resume_stream(approvals, settings={"tool_choice": "auto"})  # the calls chosen are done
        with self.tools.holding():
            self.paused = None
            # A new result for the resumed run (the paused one stays as it was given); the decisions made stay.
            run.result = replace(
                run.result,
                status="completed",
                output="",
                steps=0,
                tool_calls=[],
                errors=[],
                usage=Usage(),
                approvals=[],
            )
            yield from self._run(run, self._resumed(run, run.loop, events))

    def resume(self, approvals: dict[str, bool | dict[str, Any]]) -> RouterResult:
        env_hooks()
        return consume(self.resume_stream(approvals), self.emit)

    def snapshot(self) -> dict[str, Any]:
        """The run paused for approvals as JSON-able data ({} when none waits): its query and options, the
        classification and route, the result's own fields, and how to rebuild the paused loop (its tools, system
        prompt, rounds) with the loop's snapshot. What a server keeps to `restore` it in a fresh agent."""
        run = self.paused
        if run is None or run.loop is None:
            return {}
        loop, r = run.loop, run.result
        kept = {f.name: getattr(r, f.name) for f in fields(r) if f.name not in _RESET and _is_json(getattr(r, f.name))}
        choice = loop.config.tool_choice
        return {
            "query": run.query,
            "options": {k: v for k, v in run.options.items() if _is_json(v)},
            "system_prompt": run.system_prompt,
            "source": run.source,
            "result": kept,
            "classification": r.classification.model_dump() if r.classification else None,
            "route": r.route.model_dump() if r.route else None,
            "loop": {
                "tools": list(loop.tools.tools),
                "system_prompt": loop.config.system_prompt,
                "max_rounds": loop.config.max_rounds,
                "tool_choice": choice if isinstance(choice, str) else None,
                "state": loop.snapshot(),
            },
        }

    def restore(self, data: dict[str, Any], *, deps: Any = None) -> None:
        """Make the run of `snapshot()` this agent's paused run, so `resume_stream` continues it (in another process
        too). `deps`: the run's typed dependencies, which a snapshot does not hold (the app gives them again)."""
        if not data.get("loop"):
            raise ConfigError("the snapshot holds no routed run waiting for approval")
        c, saved = data.get("classification"), data["loop"]
        if unknown := [n for n in saved["tools"] if n not in self.tools]:
            raise ConfigError(f"the snapshot's tools {', '.join(unknown)} are not this router's")
        result = self.result_type(**{"status": "paused", "output": "", **data.get("result", {})})
        result.classification = self.classification_type.model_validate(c) if c is not None else None
        result.route = Route.model_validate(data["route"]) if data.get("route") else None
        options = dict(data.get("options", {}))
        run = RouterRun(
            self, data["query"], options, result, data.get("system_prompt"), data.get("source", "model"), deps=deps
        )
        overrides = {"tool_choice": saved["tool_choice"]} if saved.get("tool_choice") else {}
        run.loop = self._agent(
            Route(selected_tools=saved["tools"], complexity="SIMPLE", strategy="ITERATIVE"),
            saved["system_prompt"],
            max_rounds=saved["max_rounds"],
            **overrides,
        )
        run.loop.restore(saved["state"])
        ctx = run.loop.current_run.ctx  # the options the loop's tools read, as the paused run gave them
        ctx.deps, ctx.options = deps, options
        result.status, result.approvals, self.paused = "paused", run.loop.pending_approvals, run

    def _resumed(self, run: RouterRun, loop: Agent, events: Iterator[Event]) -> Iterator[Event]:
        """The rest of a paused run: the loop goes on, then the `check` hook."""
        yield from self._loop_run(run, loop, events)
        if self.check_hook is not None and run.result.classification is not None:
            yield from self.check_hook(run, run.result.classification)

    def _run(self, run: RouterRun, phases: Iterator[Event]) -> Iterator[Event]:
        start = time.monotonic()
        result = run.result
        yield RunStart(
            run.query,
            list(self.tools.tools),
            agent=self.kind,
            options=results.jsonable(run.options),
            architecture="router",
        )
        try:
            yield from phases
        except ModelError as exc:
            result.status, result.output = "error", str(exc)
            result.errors.append(str(exc))
            yield ErrorEvent(str(exc))
        if result.status == "paused" and result.approvals:
            self.paused = run
        result.duration = time.monotonic() - start
        yield Final(result.status, result.output, result)

    def _phases(self, run: RouterRun) -> Iterator[Event]:
        """Classify and route (step 1), then execute and check; a hook's `run.answer` ends the run early."""
        result = run.result
        yield StepStart(1)
        c = result.classification = yield from self.classify_hook(run)
        if not run.answered:
            r = result.route = yield from self.route_hook(run, c)
            yield Routed(r.selected_tools, r.complexity, r.strategy, r.max_turns, r.dropped, source=run.source)
        yield StepEnd(1)
        if run.answered:
            yield Token(result.output)
            return
        yield from self.execute_hook(run, c, r)
        if self.check_hook is not None:
            yield from self.check_hook(run, c)

    # -- phase 1 ----------------------------------------------------------------------------------
    def classify_query(self, run: RouterRun) -> Generator[Event, None, Classification]:
        """The default `classify` hook: the model's classification."""
        return self.classify(run.query, run.result.usage)

    def classify(self, query: str, usage: Usage) -> Generator[Event, None, Classification]:
        cfg = self.config
        words = {"type": "string"} if cfg.query_types is None else {"enum": cfg.query_types}
        cats = {"type": "string"} if cfg.categories is None else {"enum": cfg.categories}
        schema = {
            "type": "object",
            "required": ["type", "entities", "categories"],
            "properties": {
                "type": words,
                "entities": {"type": "array", "items": {"type": "string"}},
                "categories": {"type": "array", "items": cats},
            },
        }
        messages = [Message("system", CLASSIFY_PROMPT), Message("user", query)]
        c = yield from ask_json(
            self.model, messages, schema, Classification, usage=usage, max_tokens=cfg.max_tokens_per_call
        )
        yield Classified(c.type, c.entities, c.categories)
        return c

    # -- phase 2 ----------------------------------------------------------------------------------
    def choose_route(self, run: RouterRun, c: Classification) -> Generator[Event, None, Route]:
        """The default `route` hook: `decide`'s route from rules (`run.source = "rules"`, no model call), else
        the model's; either with unknown tools dropped and max_turns bounded (`known`)."""
        decided = self.decide(run.query, c) if self.decide else None
        if decided is not None:
            run.source = "rules"
            return self.known(decided, run.result)
        cfg = self.config
        names = list(self.tools.tools)
        schema = {
            "type": "object",
            "required": ["selected_tools", "complexity", "strategy", "max_turns"],
            "properties": {
                "selected_tools": {"type": "array", "items": {"enum": names}},
                "complexity": {"enum": list(DEFAULT_TURNS)},
                "strategy": {"enum": ["DIRECT", "ITERATIVE", "PARALLEL"]},
                "max_turns": {"type": "integer", "minimum": 1, "maximum": cfg.max_turns},
            },
        }
        catalog = "\n".join(f"- {t.name}: {t.description}" for t in self.tools.tools.values())
        messages = [
            Message("system", ROUTE_PROMPT + (catalog or "(none)")),
            Message("user", f"Query: {run.query}\nClassification: {c.model_dump_json()}"),
        ]
        r = yield from ask_json(
            self.model, messages, schema, Route, usage=run.result.usage, max_tokens=cfg.max_tokens_per_call
        )
        return self.known(r, run.result)

    def known(self, r: Route, result: RouterResult) -> Route:
        """`r` with the names that are not tools dropped (and noted) and max_turns bounded."""
        r = r.model_copy()
        r.dropped = [n for n in r.selected_tools if n not in self.tools]
        for n in r.dropped:
            result.errors.append(
                f"router selected unknown tool {n!r}; dropped it (tools: {', '.join(self.tools.tools)})"
            )
        r.selected_tools = [n for n in dict.fromkeys(r.selected_tools) if n in self.tools]
        r.max_turns = min(r.max_turns or DEFAULT_TURNS[r.complexity], self.config.max_turns)
        return r

    # -- phase 3 ----------------------------------------------------------------------------------
    def execute(self, run: RouterRun, c: Classification, route: Route) -> Iterator[Event]:
        """The default `execute` hook: the `fan_out` hook's rounds, else the route's strategy; `run.system_prompt`
        replaces the config's for this run (e.g. a skill chosen from the classification)."""
        result = run.result
        system = f"{run.system_prompt or self.config.system_prompt}\n\nQuery analysis: {c.model_dump_json()}"
        if route.selected_tools and self.fan_out is not None:
            done = yield from self._fan_out_rounds(run, c, route)
            if done is not None:
                if not any(r.clarification for r in done):
                    result.output = yield from self.synthesize(run.query, system, done, result, 2 + result.steps)
                return
        if not route.selected_tools:
            yield from self._no_tools(run, system)
        elif route.strategy == "ITERATIVE":
            loop = self._agent(route, system, max_rounds=route.max_turns)
            yield from self._loop_run(run, loop, loop.stream(run.query, deps=run.deps, **run.options))
        else:
            yield from self._one_round(run, route, system)

    def _no_tools(self, run: RouterRun, system: str) -> Iterator[Event]:
        messages = [Message("system", system), Message("user", run.query)]
        yield StepStart(2)
        run.result.output = yield from synthesize(
            self.model, messages, usage=run.result.usage, max_tokens=self.config.max_tokens_per_call
        )
        yield StepEnd(2)

    def _loop_run(self, run: RouterRun, loop: Agent, events: Iterator[Event]) -> Iterator[Event]:
        """The loop's run (ITERATIVE, or a resumed one) inside ours: its steps follow ours, its RunStart/Final are
        ours to give; out of turns, one synthesis answers; paused for approvals, the loop is kept for `resume`."""
        result, offset, inner = run.result, 1 + run.result.steps, None
        for e in events:
            if isinstance(e, StepStart | StepEnd):
                yield replace(e, step=e.step + offset)
            elif isinstance(e, Final):
                inner = e.result
            elif not isinstance(e, RunStart):
                yield e
        self._absorb(inner, result)
        result.approvals, run.loop = inner.approvals, loop
        if inner.status == "max_rounds":  # force a final response once the turns are spent
            result.status = "completed"
            result.output = yield from self._finish(loop, run.query, result, result.steps + 2)

    def _one_round(self, run: RouterRun, route: Route, system: str) -> Iterator[Event]:
        """DIRECT / PARALLEL: one round, every call at once (Toolset.run runs them in parallel)."""
        result = run.result
        loop = self._agent(route, system, max_rounds=1, tool_choice="required")
        step = loop.begin(run.query, deps=run.deps, **run.options)
        yield StepStart(2)
        try:
            outcome = yield from loop.step(run=step)
        except StopRun as stop:  # the model call failed
            raise ModelError(stop.message) from stop
        yield StepEnd(2)
        self._absorb(step.result, result)
        if isinstance(outcome, str):  # answered without calling a tool
            result.output = outcome
        elif step.pending is not None:  # a call waits for a person: `resume` goes on in the loop
            result.status, result.approvals, run.loop = "paused", loop.pending_approvals, loop
            result.output = "Waiting for approval: " + ", ".join(a.tool for a in result.approvals)
            yield ApprovalRequired([asdict(a) for a in result.approvals])
        elif (question := next((r.clarification for r in outcome if r.clarification), None)) is not None:
            result.status, result.output = "paused", question
            yield Clarification(question)
        else:
            result.output = yield from self._finish(loop, run.query, result, 3)

    # -- fan-out: the calls planned by the app's rules, each round in parallel --------------------------------
    def _fan_out_rounds(
        self, run: RouterRun, c: Classification, route: Route
    ) -> Generator[Event, None, list[ToolResult] | None]:
        """Rounds of the hook's calls; None when the hook hands the first round to the model (or a call of it
        needs a person's approval, which only the loop can ask)."""
        assert self.fan_out is not None
        ctx = RunContext(run.deps, options=run.options)
        result, done = run.result, []
        for rnd in range(MAX_FAN_OUT_ROUNDS):
            calls = self.fan_out(run.query, c, route, list(done))
            if rnd == 0 and (calls is None or (self.tools.asks and self.tools.held(calls, ctx))):
                return None
            if not calls:
                break
            results = yield from self._fan_out_round(calls[:MAX_FAN_OUT_CALLS], ctx, result)
            done += results
            if (question := next((r.clarification for r in results if r.clarification), None)) is not None:
                result.status, result.output = "paused", question
                yield Clarification(question)
                break
        return done

    def _fan_out_round(
        self, calls: list[ToolCall], ctx: RunContext, result: RouterResult
    ) -> Generator[Event, None, list[ToolResult]]:
        result.steps += 1
        yield StepStart(1 + result.steps)
        for call in calls:
            yield ToolCallEvent(call)
        results = self.tools.run(calls, ctx)
        for r in results:
            yield ToolResultEvent(r.call, r.ok, r.content, r.duration, r.cached)
            if not r.ok:
                result.errors.append(r.content)
        yield StepEnd(1 + result.steps)
        result.tool_calls += results
        return results

    def observation(self, results: list[ToolResult]) -> str:
        """The fanned-out results as the one message the synthesis reads (an app may shorten it)."""
        return "\n".join(f"- {r.call.name}({json_args(r.call.arguments)}): {r.content}" for r in results)

    def synthesize(
        self, query: str, system: str, results: list[ToolResult], result: RouterResult, step: int
    ) -> Generator[Event, None, str]:
        """One model call answering from the results. The system prompt comes first and the query last, so
        the prefix a model caches stays the same from question to question."""
        messages = [
            Message("system", system),
            Message("user", f"Results:\n{self.observation(results)}\n\n{SYNTHESIS_PROMPT}{query}"),
        ]
        return (yield from self._answer(messages, result, step))

    def _agent(self, route: Route, system: str, **overrides: Any) -> Agent:
        """The core loop, shown only the selected tools."""
        tools = Toolset([self.tools.tools[n] for n in route.selected_tools], max_workers=self.tools.max_workers)
        config = replace(
            self.config.agent,
            system_prompt=system,
            verbose=False,
            trace=None,
            max_tokens_per_call=self.config.max_tokens_per_call,
            **overrides,
        )
        return Agent(self.model, tools, config, ledger=self.ledger)

    def _absorb(self, run: RunResult, result: RouterResult) -> None:
        result.status, result.output = run.status, run.output
        result.steps += run.steps
        result.tool_calls += run.tool_calls
        result.errors += run.errors
        result.usage += run.usage

    def _finish(self, agent: Agent, query: str, result: RouterResult, step: int) -> Generator[Event, None, str]:
        messages = [*agent.current_run.memory.messages, Message("user", SYNTHESIS_PROMPT + query)]
        return (yield from self._answer(messages, result, step))

    def _answer(self, messages: list[Message], result: RouterResult, step: int) -> Generator[Event, None, str]:
        """One step: the model's answer to `messages`, streamed."""
        yield StepStart(step)
        output = yield from synthesize(
            self.model, messages, usage=result.usage, max_tokens=self.config.max_tokens_per_call
        )
        yield StepEnd(step)
        return output


def json_args(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in arguments.items())
