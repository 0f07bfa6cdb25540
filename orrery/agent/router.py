"""Seed 002's router architecture: classify the query, let the model pick the tools and a strategy,
then execute: DIRECT / PARALLEL = one round of parallel tool calls and a synthesis, ITERATIVE = the
agent loop restricted to the chosen tools for at most `max_turns` rounds."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

import pydantic

from orrery.agent.loop import DEFAULT_SYSTEM, Agent, AgentConfig, RunResult, StopRun
from orrery.errors import ModelError
from orrery.events import Clarification, ErrorEvent, Event, Final, ModelCall, ModelReply, RunStart, Token
from orrery.llm.base import Model
from orrery.messages import Message, ModelResponse, Usage
from orrery.tools.core import Tool, Toolset

Complexity = Literal["SIMPLE", "MEDIUM", "COMPLEX"]
Strategy = Literal["DIRECT", "ITERATIVE", "PARALLEL"]
Emit = Callable[[Event], None]
T = TypeVar("T", bound=pydantic.BaseModel)

DEFAULT_TURNS: dict[str, int] = {"SIMPLE": 2, "MEDIUM": 4, "COMPLEX": 6}

CLASSIFY_PROMPT = ("Classify the user's query. Reply with JSON: `type` (the kind of query), `entities` (the "
                   "names, symbols, places or dates it mentions) and `categories` (the kinds of data it needs).")

ROUTE_PROMPT = """Choose the tools needed to answer the query, and how to run them. Reply with JSON:
- selected_tools: the tools to use (an empty list when the query needs none);
- complexity: SIMPLE (1-2 tools), MEDIUM (3-5 tools) or COMPLEX (6+ tools, or steps that depend on earlier results);
- strategy: DIRECT or PARALLEL when all calls can be made at once, ITERATIVE when later calls need earlier results;
- max_turns: how many tool rounds to allow (about 2 for SIMPLE, 4 for MEDIUM, 6 for COMPLEX).
Tools:
"""

SYNTHESIS_PROMPT = "Answer the original question now, plainly, from the results above; do not call tools: "


# -- events ---------------------------------------------------------------------------------------
@dataclass
class Classified(Event):
    type: str
    entities: list[str]
    categories: list[str]
    kind: str = field(init=False, default="classified")


@dataclass
class Routed(Event):
    selected_tools: list[str]
    complexity: str
    strategy: str
    max_turns: int
    dropped: list[str] = field(default_factory=list)
    kind: str = field(init=False, default="routed")


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


@runtime_checkable
class StreamingModel(Protocol):
    """A model that can also stream a plain answer (no tools) as text chunks."""

    def stream(self, messages: Sequence[Message], *, max_tokens: int | None = None) -> Iterator[str]: ...


def ask_json(model: Model, messages: Sequence[Message], schema: dict[str, Any], reply: type[T], *,
             emit: Emit, usage: Usage, max_tokens: int | None = None) -> T:
    """One schema-constrained model call, parsed into `reply`; a reply that does not match is a ModelError."""
    emit(ModelCall(0, 0, len(messages), []))
    t0 = time.monotonic()
    resp = model.complete(messages, (), tool_choice="none", schema=schema, max_tokens=max_tokens)
    emit(ModelReply(resp, time.monotonic() - t0))
    usage += resp.usage  # Usage.__iadd__ updates the caller's object in place
    try:
        return reply.model_validate_json(resp.content)
    except pydantic.ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'reply'}: {e['msg']}" for e in exc.errors())
        raise ModelError(f"model {model.name!r} replied {resp.content[:200]!r}, which does not match the "
                         f"{reply.__name__} schema ({problems})") from exc


def synthesize(model: Model, messages: Sequence[Message], *, emit: Emit, usage: Usage,
               max_tokens: int | None = None) -> str:
    """A final answer with tools disabled. Emits `Token` events: one per chunk when the model can
    `stream`, otherwise one with the whole text."""
    emit(ModelCall(0, 0, len(messages), []))
    t0 = time.monotonic()
    if isinstance(model, StreamingModel):
        parts = []
        for chunk in model.stream(messages, max_tokens=max_tokens):
            emit(Token(chunk))
            parts.append(chunk)
        resp = ModelResponse("".join(parts))
    else:
        resp = model.complete(messages, (), tool_choice="none", max_tokens=max_tokens)
        emit(Token(resp.content))
    emit(ModelReply(resp, time.monotonic() - t0))
    usage += resp.usage
    return resp.content


# -- the agent -------------------------------------------------------------------------------------------
@dataclass
class RouterConfig:
    system_prompt: str = DEFAULT_SYSTEM  # used while executing the chosen tools
    query_types: list[str] | None = None  # an enum for the classification's `type` (free text when None)
    categories: list[str] | None = None   # an enum for its `categories`
    max_turns: int = 6                   # upper bound on the router's `max_turns`
    max_tokens_per_call: int | None = None
    agent: AgentConfig = field(default_factory=AgentConfig)  # base config of the ITERATIVE loop


@dataclass
class RouterResult(RunResult):
    """A RunResult plus what the router decided."""

    classification: Classification | None = None
    route: Route | None = None


class RouterAgent:
    """`RouterAgent(model, tools).run(query)` -> RouterResult: classify, route, execute (seed 002)."""

    def __init__(self, model: Model, tools: Toolset | Iterable[Tool | Callable[..., Any]] = (),
                 config: RouterConfig | None = None, *, on_event: Iterable[Emit] = ()):
        self.model = model
        self.tools = tools if isinstance(tools, Toolset) else Toolset(tools)
        self.config = config or RouterConfig()
        self.handlers: list[Emit] = list(on_event)

    def emit(self, event: Event) -> None:
        for h in self.handlers:
            h(event)

    def run(self, query: str, **options: Any) -> RouterResult:
        """Answer `query`. Keyword options reach tools as `ctx.options`."""
        start = time.monotonic()
        result = RouterResult("completed", "")
        self.emit(RunStart(query, list(self.tools.tools)))
        try:
            result.classification = self.classify(query, result.usage)
            result.route = self.route(query, result.classification, result)
            self._execute(query, result.classification, result.route, result, options)
        except ModelError as exc:
            result.status, result.output = "error", str(exc)
            result.errors.append(str(exc))
            self.emit(ErrorEvent(str(exc)))
        result.duration = time.monotonic() - start
        self.emit(Final(result.status, result.output))
        return result

    # -- phase 1 ----------------------------------------------------------------------------------
    def classify(self, query: str, usage: Usage) -> Classification:
        cfg = self.config
        words = {"type": "string"} if cfg.query_types is None else {"enum": cfg.query_types}
        cats = {"type": "string"} if cfg.categories is None else {"enum": cfg.categories}
        schema = {"type": "object", "required": ["type", "entities", "categories"],
                  "properties": {"type": words, "entities": {"type": "array", "items": {"type": "string"}},
                                 "categories": {"type": "array", "items": cats}}}
        messages = [Message("system", CLASSIFY_PROMPT), Message("user", query)]
        c = ask_json(self.model, messages, schema, Classification, emit=self.emit, usage=usage,
                     max_tokens=cfg.max_tokens_per_call)
        self.emit(Classified(c.type, c.entities, c.categories))
        return c

    # -- phase 2 ----------------------------------------------------------------------------------
    def route(self, query: str, c: Classification, result: RouterResult) -> Route:
        cfg = self.config
        names = list(self.tools.tools)
        schema = {"type": "object", "required": ["selected_tools", "complexity", "strategy", "max_turns"],
                  "properties": {"selected_tools": {"type": "array", "items": {"enum": names}},
                                 "complexity": {"enum": list(DEFAULT_TURNS)},
                                 "strategy": {"enum": ["DIRECT", "ITERATIVE", "PARALLEL"]},
                                 "max_turns": {"type": "integer", "minimum": 1, "maximum": cfg.max_turns}}}
        catalog = "\n".join(f"- {t.name}: {t.description}" for t in self.tools.tools.values())
        messages = [Message("system", ROUTE_PROMPT + (catalog or "(none)")),
                    Message("user", f"Query: {query}\nClassification: {c.model_dump_json()}")]
        r = ask_json(self.model, messages, schema, Route, emit=self.emit, usage=result.usage,
                     max_tokens=cfg.max_tokens_per_call)
        known = [n for n in dict.fromkeys(r.selected_tools) if n in self.tools]
        r.dropped = [n for n in r.selected_tools if n not in self.tools]
        for n in r.dropped:
            result.errors.append(f"router selected unknown tool {n!r}; dropped it (tools: {', '.join(names)})")
        r.selected_tools = known
        r.max_turns = min(r.max_turns or DEFAULT_TURNS[r.complexity], cfg.max_turns)
        self.emit(Routed(r.selected_tools, r.complexity, r.strategy, r.max_turns, r.dropped))
        return r

    # -- phase 3 ----------------------------------------------------------------------------------
    def _execute(self, query: str, c: Classification, route: Route, result: RouterResult,
                 options: dict[str, Any]) -> None:
        cfg = self.config
        system = f"{cfg.system_prompt}\n\nQuery analysis: {c.model_dump_json()}"
        if not route.selected_tools:
            messages = [Message("system", system), Message("user", query)]
            result.output = synthesize(self.model, messages, emit=self.emit, usage=result.usage,
                                       max_tokens=cfg.max_tokens_per_call)
            return
        if route.strategy == "ITERATIVE":
            agent = self._agent(route, system, max_rounds=route.max_turns)
            run = agent.run(query, **options)
            self._absorb(run, result)
            if run.status == "max_rounds":  # seed 002: force a final response once the turns are spent
                result.status = "completed"
                result.output = self._finish(agent, query, result)
            elif run.status == "completed":
                self.emit(Token(run.output))
            return
        # DIRECT / PARALLEL: one round, every call at once (Toolset.run runs them in parallel)
        agent = self._agent(route, system, max_rounds=1, tool_choice="required")
        agent.ctx.options = options
        agent.memory.add(Message("system", system), Message("user", query))
        run = RunResult("completed", "")
        try:
            outcome = agent.step(0, 0, run)
        except StopRun as stop:  # the model call failed
            raise ModelError(stop.message) from stop
        self._absorb(run, result)
        if isinstance(outcome, str):  # answered without calling a tool
            result.output = outcome
            self.emit(Token(outcome))
        elif (question := next((r.clarification for r in outcome if r.clarification), None)) is not None:
            result.status, result.output = "paused", question
            self.emit(Clarification(question))
        else:
            result.output = self._finish(agent, query, result)

    def _agent(self, route: Route, system: str, **overrides: Any) -> Agent:
        """The core loop, shown only the selected tools; its events reach our handlers (less its own
        RunStart / Final: this router emits those)."""
        tools = Toolset([self.tools.tools[n] for n in route.selected_tools], max_workers=self.tools.max_workers)
        config = replace(self.config.agent, system_prompt=system, verbose=False, trace=None,
                         max_tokens_per_call=self.config.max_tokens_per_call, **overrides)
        return Agent(self.model, tools, config,
                     on_event=[lambda e: None if isinstance(e, RunStart | Final) else self.emit(e)])

    def _absorb(self, run: RunResult, result: RouterResult) -> None:
        result.status, result.output = run.status, run.output
        result.tool_calls += run.tool_calls
        result.errors += run.errors
        result.usage += run.usage

    def _finish(self, agent: Agent, query: str, result: RouterResult) -> str:
        messages = [*agent.memory.messages, Message("user", SYNTHESIS_PROMPT + query)]
        return synthesize(self.model, messages, emit=self.emit, usage=result.usage,
                          max_tokens=self.config.max_tokens_per_call)
