"""The market analyst: a RouterAgent (classify -> route -> execute -> synthesize) on the local store.

What this module adds to the core router:
- classification checked by rules: symbols resolved against the store ("Apple" -> AAPL), tickers not in
  the store named in a plain "not in the data" answer, the model's type kept unless it calls a market
  question "general";
- a rule-based route used when the model's route is invalid (unparseable, or missing a tool the query
  plainly names, e.g. "fibonacci" without fibonacci_levels);
- tool schemas narrowed per query (symbol enums, no date arguments when the query names no date);
- a skill prompt per domain (prompts/*.md), and grounding: every number in the answer must come from a
  tool result, else one rewrite, else the answer is the tools' own summaries. Every answer ends with the
  data's "as of" date and the price used.

When the rules read the whole question (its symbols, dates and what to compute: `questions.py`), they decide
alone (`decide_by_rules`): no model call classifies or routes, the core router's `fan_out` hook runs the
tools once per symbol (or once over the list, for a comparison or a screen) in parallel, the figures are
streamed, and one model call adds prose, kept only where grounded. Otherwise the model decides as above.
"""

from __future__ import annotations

import calendar
import json
import re
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from orrery import results
from orrery.agent.calls import ask_json, synthesize
from orrery.agent.router import (
    DEFAULT_TURNS,
    Classification,
    Route,
    RouterAgent,
    RouterConfig,
    RouterResult,
    RouterRun,
    expand,
)
from orrery.errors import ConfigError, ModelError
from orrery.events import (
    Classified,
    ErrorEvent,
    Event,
    Token,
    ToolCallEvent,
    ToolResultEvent,
)
from orrery.grounding import grounded_sentences, ungrounded
from orrery.llm import Model, model_argument, resolve_model
from orrery.llm.base import profile_of
from orrery.markets import questions as Qs
from orrery.markets.tools import PERIOD_METRICS as PERIOD
from orrery.markets.tools import MarketsDeps
from orrery.messages import Message, ToolCall, Usage
from orrery.tools import RunContext, Tool, ToolResult

QUERY_TYPES = ["stock_specific", "comparison", "screener", "market_overview", "general"]
CATEGORIES = [
    "price",
    "history",
    "technical",
    "candlestick",
    "patterns",
    "levels",
    "fibonacci",
    "screening",
    "performance",
    "comparison",
    "forecast",
    "symbols",
]
PROMPTS = Path(__file__).parent / "prompts"
PROSE_SYSTEM = (PROMPTS / "prose.md").read_text(encoding="utf-8").strip()  # the same for every question: cached
# Numbers an answer may use without a tool having returned them: indicator periods and thresholds,
# interval levels.
STANDARD_NUMBERS = (9, 12, 14, 20, 26, 30, 50, 70, 80, 95, 200)

# Words that look like tickers but are not (indicators, exchanges, common abbreviations).
NOT_TICKERS = frozenset(
    [
        "RSI",
        "MACD",
        "SMA",
        "EMA",
        "ATR",
        "ADX",
        "OBV",
        "BB",
        "BBANDS",
        "STOCH",
        "US",
        "USA",
        "NYSE",
        "NASDAQ",
        "ETF",
        "ETFS",
        "CEO",
        "IPO",
        "EPS",
        "PE",
        "AI",
        "OK",
        "API",
        "USD",
        "EUR",
        "GDP",
        "YTD",
        "YOY",
        "QOQ",
        "TA",
        "OHLC",
        "OHLCV",
        "VS",
        "I",
        "A",
        "AM",
        "PM",
        "S",
        "P",
        "SP",
        "DMA",
        "MA",
        "DI",
        "CAGR",
        "ATH",
        "FAQ",
        "JSON",
        "CSV",
    ]
)

_CATEGORY_WORDS: dict[str, str] = {
    "price": r"\b(price|close[sd]?|closing|open(ed)?|quote|trad(e|ed|ing) at|worth|volume|high|low|52[- ]?weeks?)\b",
    "history": r"\b(history|historical|ohlc|between .+ and|from \d{4}.* to|daily (prices|bars))\b",
    "technical": r"\b(rsi|macd|bollinger|bbands|sma\s?\d*|ema\s?\d*|moving average|atr|stochastic|adx|obv|"
    r"indicators?|overbought|oversold|momentum)\b",
    "candlestick": r"\b(candle|candlestick|doji|hammer|engulfing|harami|marubozu)",
    "patterns": r"\b(chart patterns?|patterns?|double (top|bottom)|head and shoulders|triangle)\b",
    "levels": r"\b(support|resistance|pivot)",
    "fibonacci": r"\bfib",
    "screening": r"\b(find|screen|scan|which (\w+ )?(stocks?|symbols?|tickers?)|stocks with|stocks (where|whose|that|trading)|"
    r"any stocks|all stocks|list stocks)\b",
    "performance": r"\b(returns?|volatil\w*|drawdown|perform\w*|cagr|gain(ed|s)?|los[st]|risk|best day|worst day|"
    r"percent(age)? change|change[sd]?|rose|rise|risen|fell|grew|increased|decreased|ytd|"
    r"year[- ]to[- ]date)\b",
    "comparison": r"\b(compar\w*|versus|vs\.?|correlat\w*|outperform\w*|against)\b",
    "forecast": r"\b(forecast|predict\w*|where will|next (week|month|year)|outlook|expect\w*|in a month)\b",
    "symbols": r"\b(what|which) (symbols|stocks|tickers|data) (do you have|are (in|available))|"
    r"\blist (the |all )?(symbols|tickers|stocks)\b|\bsymbols (you have|available|in the store)",
}
_TOOLS_FOR: dict[str, str] = {  # in the order a route runs them: screen first, then per-symbol analysis
    "screening": "stock_screener",
    "price": "quote",
    "history": "price_history",
    "technical": "technical_indicators",
    "candlestick": "candlestick_patterns",
    "patterns": "chart_patterns",
    "levels": "support_resistance",
    "fibonacci": "fibonacci_levels",
    "performance": "performance",
    "forecast": "price_forecast",
    "symbols": "list_symbols",
}
_DATE = re.compile(r"\b(19|20)\d{2}\b")
# An optional argument is offered to the model only when the query asks for it (small models fill every
# argument they see, inventing dates and periods).
_ARG_WANTED = {
    "date": _DATE,
    "start": _DATE,
    "end": _DATE,
    "period": re.compile(r"\b(rsi|sma|ema|atr|adx)\s*[(-]?\s*\d+|\b\d+[- ]day\b", re.IGNORECASE),
    "limit": re.compile(r"\btop \d+|\blimit\b|\b\d+ (stocks|symbols)\b", re.IGNORECASE),
    "lookback": re.compile(r"\b(last|past) \d+ (days|bars|sessions)\b", re.IGNORECASE),
    "sort_by": re.compile(r"\b(sort|top|highest|lowest|best|worst|rank)", re.IGNORECASE),
    "descending": re.compile(r"\b(sort|top|highest|best|rank)", re.IGNORECASE),
}
_LOOKBACK_TOOLS = ("candlestick_patterns", "support_resistance", "fibonacci_levels", "chart_patterns")
FOLLOW_UP_SYMBOLS = 3  # a screen's matches analysed further ("for found stocks, ..."): the first by its sort
_FOLLOW_UP = re.compile(
    r"\b(for (the )?(found|those|these|them|each|matches|hits)|then|and (analy[sz]e|check))\b", re.IGNORECASE
)


class MarketClassification(Classification):
    symbols: list[str] = []  # resolved against the store
    unknown: list[str] = []  # named in the query, not in the store
    skill: str = "mixed"
    source: str = "model"  # model | rules (the model failed or called a market question general)


@dataclass
class MarketsResult(RouterResult):
    """A RouterResult plus the facts, grounding and data dates behind the answer."""

    answer: str = ""  # the model's checked prose (or the facts when it could not be grounded)
    facts: list[str] = field(default_factory=list)  # one computed summary per successful tool call
    as_of: dict[str, str] = field(default_factory=dict)  # symbol -> the last date the answer used
    prices_used: list[str] = field(default_factory=list)
    grounded: bool = True
    ungrounded: list[str] = field(default_factory=list)
    route_source: str = "model"  # model | rules
    model_tools: list[str] | None = None  # what the model's router chose (None: it gave no valid reply)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "output": self.output,
            "answer": self.answer,
            "facts": self.facts,
            "as_of": self.as_of,
            "prices_used": self.prices_used,
            "grounded": self.grounded,
            "ungrounded": self.ungrounded,
            "classification": self.classification.model_dump() if self.classification else None,
            "route": self.route.model_dump() if self.route else None,
            "route_source": self.route_source,
            "model_tools": self.model_tools,
            "tool_calls": [
                {
                    "name": t.call.name,
                    "arguments": t.call.arguments,
                    "ok": t.ok,
                    "result": t.value if t.ok else t.content,
                }
                for t in self.tool_calls
            ],
            "errors": self.errors,
            "usage": {"prompt": self.usage.prompt_tokens, "completion": self.usage.completion_tokens},
            "seconds": round(self.duration, 2),
        }

    # -- the result protocol (orrery.results): the facts and grounding as data; charts come from the tool results
    @property
    def data(self) -> dict[str, Any]:
        return results.jsonable(self.to_dict())


# -- rules -----------------------------------------------------------------------------------------------
def categories_in(query: str) -> list[str]:
    low = query.lower()
    cats = [c for c, pattern in _CATEGORY_WORDS.items() if re.search(pattern, low)]
    if "candlestick" in cats and "patterns" in cats and not re.search(r"chart|double|head|triangle", low):
        cats.remove("patterns")  # "candlestick patterns" are not chart patterns
    if "symbols" in cats:  # "which stocks do you have" asks for the list, not a screen
        cats = [k for k in cats if k != "screening"]
    return cats


def unknown_tickers(query: str, store: Any) -> list[str]:
    words = re.findall(r"(?<![\w&])\$?([A-Z](?:[A-Z]|\.(?=[A-Z])){0,5})(?![\w&])", query)  # BRK.B, not "GOOG."
    return [w for w in dict.fromkeys(words) if w not in NOT_TICKERS and store.lookup(w) is None]


def unknown_names(entities: list[str], query: str, store: Any) -> list[str]:
    """The model's entities that are proper names in the query but not in the store ("Tesla")."""
    out = []
    for e in entities:
        e = e.strip()
        words = re.findall(r"[\w&]+", e)
        if (
            not e
            or store.lookup(e) is not None
            or e.lower() not in query.lower()
            or not e[0].isupper()
            or any(w.upper() in NOT_TICKERS for w in words)
            or categories_in(e)
            or any(store.lookup(w) for w in words)
            or _DATE.search(e)
        ):
            continue
        out.append(e)
    return out


def rule_classification(query: str, store: Any) -> MarketClassification:
    symbols = store.find_in_text(query)
    cats = categories_in(query)
    if "screening" in cats:
        kind = "screener"
    elif len(symbols) >= 2 or ("comparison" in cats and symbols):
        kind = "comparison"
    elif symbols:
        kind = "stock_specific"
    elif cats or re.search(r"\b(market|stocks|index|indices|s&p|nasdaq)\b", query, re.IGNORECASE):
        kind = "market_overview"
    else:
        kind = "general"
    return MarketClassification(
        type=kind,
        entities=symbols,
        categories=cats,
        symbols=symbols,
        unknown=unknown_tickers(query, store),
        source="rules",
    )


_RANKED = re.compile(
    r"\b(which|who|compare\w*|rank\w*|higher|highest|lower|lowest|best|worst|more|most|"
    r"less|least|versus|vs\.?|outperform\w*|beat)\b",
    re.IGNORECASE,
)
_COMPARED = ("quote", "price_history", "technical_indicators", "performance")  # compare_symbols computes these


def screens(query: str, c: Classification) -> bool:
    """A screen: the rules' type says so, or the question states a condition ("RSI below 30") over a list."""
    return c.type == "screener" or bool(Qs.conditions(query) and len(getattr(c, "symbols", [])) != 1)


def ranks(query: str, c: MarketClassification) -> bool:
    """A comparison to compute: several symbols and a ranking word ("which ... higher", "compare")."""
    return len(c.symbols) >= 2 and bool(_RANKED.search(query))


_PLAIN_WORDS = frozenset(
    [m.lower() for m in (*calendar.month_name, *calendar.month_abbr, *calendar.day_name) if m]
    + [
        "bollinger",
        "bands",
        "band",
        "fibonacci",
        "relative",
        "strength",
        "index",
        "moving",
        "average",
        "exchange",
        "exchanges",
        "composite",
        "stock",
        "stocks",
        "wall",
        "street",
        "give",
        "show",
        "list",
        "tell",
        "year",
        "ytd",
    ]
)


def stray_names(query: str, store: Any) -> list[str]:
    """Capitalised words inside a sentence that name nothing the rules know ("Tesla" in "Compare Tesla and
    Apple"): the model's entities decide whether they are companies not in the data."""
    text = query
    for alias in sorted(store.aliases, key=len, reverse=True):
        text = re.sub(rf"(?<![\w&]){re.escape(alias)}(?![\w&])", " ", text, flags=re.IGNORECASE)
    out = []
    for m in re.finditer(r"(?<![\w&$'])([A-Z][a-z]\w*)", text):
        if re.search(r"(^|[.!?]\s*)$", text[: m.start()].rstrip(" \"'(")) or m.group(1).lower() in _PLAIN_WORDS:
            continue
        out.append(m.group(1))
    return out


def rules_classify(query: str, rules: MarketClassification, store: Any) -> bool:
    """Whether the rules' classification stands alone: it found what the question is about (symbols, tickers
    not in the data, or a kind of analysis) and no capitalised word is left unexplained."""
    return bool(rules.symbols or rules.unknown or rules.type != "general") and not stray_names(query, store)


def rule_route(query: str, c: MarketClassification) -> Route:
    cats = c.categories
    tools = [t for k, t in _TOOLS_FOR.items() if k in cats]
    if screens(query, c):
        tools = ["stock_screener", *tools]
    if screens(query, c) and not _FOLLOW_UP.search(query):  # the screener computes prices and indicators itself
        tools = [t for t in tools if t not in ("quote", "price_history", "technical_indicators")]
    elif len(c.symbols) >= 2 and (
        "performance" in tools or "comparison" in cats or (ranks(query, c) and set(tools) & set(_COMPARED))
    ):
        tools = [t for t in tools if t not in _COMPARED] + ["compare_symbols"]
    if "history" in cats and "quote" in tools:
        tools.remove("quote")
    if not tools and c.type != "general":
        tools = ["quote"] if c.symbols else ["stock_screener"]
    tools = list(dict.fromkeys(tools))
    dependent = c.type == "screener" and len(tools) > 1
    n = len(tools) * max(1, len(c.symbols))
    complexity = "SIMPLE" if n <= 2 and not dependent else "MEDIUM" if n <= 5 and not dependent else "COMPLEX"
    strategy = (
        "ITERATIVE" if dependent or complexity == "MEDIUM" else "DIRECT" if complexity == "SIMPLE" else "PARALLEL"
    )
    return Route(selected_tools=tools, complexity=complexity, strategy=strategy, max_turns=DEFAULT_TURNS[complexity])


def consistent(model_type: str, rules_type: str, symbols: list[str]) -> bool:
    """Whether the model's query type agrees with what the query plainly says; if not, the rules' type is used
    (a small model calls a screen a "comparison", or a question about Paris "stock_specific")."""
    if rules_type == "screener" or (rules_type == "general" and not symbols):
        return model_type == rules_type
    return {
        "general": rules_type == "general",
        "comparison": len(symbols) >= 2,
        "stock_specific": len(symbols) >= 1,
    }.get(model_type, True)


def route_is_valid(route: Route, rules: Route, c: MarketClassification) -> bool:
    """The model's route stands when it covers every tool the query plainly asks for (quote and
    price_history count as each other) and names some tool for a market question."""
    if c.type != "general" and not route.selected_tools:
        return False
    chosen = set(route.selected_tools)
    if chosen & {"quote", "price_history"}:
        chosen |= {"quote", "price_history"}
    return set(rules.selected_tools) <= chosen


def skill_for(c: MarketClassification, store: Any) -> str:
    if c.type == "general" and not c.symbols:
        return "general"
    kinds = {store.symbols[s].kind for s in c.symbols}
    if c.type in ("screener", "market_overview") or len(kinds) != 1:
        return "mixed"
    return "index" if kinds <= {"index", "etf"} else "crypto" if kinds == {"crypto"} else "stock"


def skill_prompt(name: str, store: Any) -> str:
    symbols = "; ".join(f"{s.symbol} ({s.name}, {s.kind}, {s.first} to {s.last})" for s in store.symbols.values())
    common = (PROMPTS / "common.md").read_text(encoding="utf-8")
    return (common + "\n" + (PROMPTS / f"{name}.md").read_text(encoding="utf-8")).replace("{symbols}", symbols)


# -- the agent -------------------------------------------------------------------------------------------
class MarketsAgent(RouterAgent):
    """`MarketsAgent(model, store).run("Is Apple oversold?")` -> MarketsResult."""

    classification_type = MarketClassification

    def __init__(
        self,
        model: Model,
        store: Any,
        tools: Iterable[Tool] | None = None,
        config: RouterConfig | None = None,
        *,
        on_event: Iterable[Callable[[Event], None]] = (),
        one_call_per_turn: bool | None = None,
        decide_by_rules: bool = True,
        prose: bool = True,
        prose_tokens: int = 160,
        approve: Iterable[str] = (),
    ):
        """`approve` names tools whose every call waits for a person (`resume(approvals=...)`)."""
        from orrery.markets.tools import TOOLS

        # Per-agent copies: their own TTL caches (keyed by arguments, so one per store) and schemas
        # narrowed to the current query.
        copies = [t.gated(t.available, self._refine) for t in (tools if tools is not None else TOOLS)]
        if unknown := set(approve) - {t.name for t in copies}:
            raise ConfigError(f"approve names no markets tool: {', '.join(sorted(unknown))}")
        for t in copies:
            t.requires_approval = t.requires_approval or t.name in set(approve)
        config = config or RouterConfig(max_tokens_per_call=400)
        config = replace(config, agent=replace(config.agent, tool_choice=self._tool_choice))
        super().__init__(
            model,
            copies,
            config,
            on_event=on_event,
            decide=self._decide if decide_by_rules else None,
            fan_out=self._plan if decide_by_rules else None,
            classify=self.classify_market,
            route=self.route_market,
            execute=self.execute_market,
            check=self.check_answer,
            name="markets",
            result_type=MarketsResult,
        )
        self.store = store
        self.decide_by_rules = decide_by_rules
        self.prose, self.prose_tokens = prose, prose_tokens
        self._window: Qs.Window | None = None  # the window this run's planned calls use
        self._planned = False  # this run's tools were planned by the rules (fan-out)
        # The embedded model writes one call per reply, so a one-round strategy would drop the other calls.
        self.one_call_per_turn = (
            not profile_of(model).parallel_calls if one_call_per_turn is None else one_call_per_turn
        )
        self._current = MarketClassification(type="general")
        self._query = ""
        self._route: Route | None = None
        self._called: set[str] = set()  # tools called in this run
        self._screened: list[str] = []  # this run's screen matches (else closest): offered to follow-ups
        self._system = self.config.system_prompt  # this run's skill prompt

    def _watch(self, events: Iterator[Event]) -> Generator[Event, None, None]:
        """Pass events on, noting the tools called and the symbols each screen found."""
        for event in events:
            if isinstance(event, ToolCallEvent):
                self._called.add(event.call.name)
            if isinstance(event, ToolResultEvent) and event.ok and event.call.name == "stock_screener":
                screen = json.loads(event.content)
                found = [r["symbol"] for r in screen["matches"] or screen.get("closest", [])]
                self._screened = list(dict.fromkeys(self._screened + found))
            yield event

    def snapshot(self) -> dict[str, Any]:
        """The router's snapshot of a paused run, with the tools this run called and the symbols its screens found."""
        data = super().snapshot()
        return data | {"markets": {"called": sorted(self._called), "screened": self._screened}} if data else data

    def restore(self, data: dict[str, Any], *, deps: Any = None) -> None:
        """The router's restore, with the store as the run's deps and this run's classification, route and skill."""
        super().restore(data, deps=deps or MarketsDeps(self.store))
        run = self.paused
        assert run is not None and isinstance(run.result.classification, MarketClassification)
        self._current, self._route, self._query = run.result.classification, run.result.route, run.query
        self._system = run.system_prompt or self.config.system_prompt
        kept = data.get("markets", {})
        self._called, self._screened = set(kept.get("called", [])), list(kept.get("screened", []))

    # -- the router's hooks ----------------------------------------------------------------------------------
    def classify_market(self, run: RouterRun) -> Generator[Event, None, MarketClassification]:
        """The classification; a question only about symbols not in the data is answered here."""
        self._route, self._screened, self._called = None, [], set()
        self._window, self._planned = None, False
        c = yield from self.classify(run.query, run.result.usage)
        if c.unknown and not c.symbols:
            run.result.answer = self._not_in_data(c.unknown)
            run.answer(run.result.answer)
        return c

    def route_market(self, run: RouterRun, c: Classification) -> Generator[Event, None, Route]:
        """The route (`route`); a question that is not about the data gets the refusal, with no model prose."""
        assert isinstance(c, MarketClassification) and isinstance(run.result, MarketsResult)
        route = yield from self.route(run, c)
        run.source = run.result.route_source
        if self.decide_by_rules and not route.selected_tools and c.type == "general" and not c.symbols:
            run.result.answer = _refusal(self.store)
            run.answer(run.result.answer)
        return route

    def execute_market(self, run: RouterRun, c: Classification, route: Route) -> Iterator[Event]:
        """The router's execution with this run's skill prompt and the store, noting what the tools found."""
        assert isinstance(c, MarketClassification)
        self._system = run.system_prompt = skill_prompt(c.skill, self.store)  # the config stays as given
        run.deps = MarketsDeps(self.store)
        yield from self._watch(self.execute(run, c, route))

    def check_answer(self, run: RouterRun, c: Classification) -> Generator[Event, None, None]:
        assert isinstance(c, MarketClassification) and isinstance(run.result, MarketsResult)
        yield from self._check(run.query, c, run.result)

    # -- phase 1: the model's classification, checked by rules ---------------------------------------------
    def classify(self, query: str, usage: Usage) -> Generator[Event, None, MarketClassification]:
        self._query = query
        rules = rule_classification(query, self.store)
        model = None
        if not (self.decide_by_rules and rules_classify(query, rules, self.store)):
            try:
                model = yield from self._model_classification(query, usage)
            except ModelError as exc:
                yield ErrorEvent(f"classification by rules: {exc}")
        c = rules
        if model is not None:
            found = [s for e in model.entities if (s := self.store.lookup(e))]
            symbols = list(dict.fromkeys(rules.symbols + found))
            unknown = list(dict.fromkeys(rules.unknown + unknown_names(model.entities, query, self.store)))
            kind = model.type if consistent(model.type, rules.type, symbols) else rules.type
            cats = (
                rules.categories
                if kind == "general"
                else list(dict.fromkeys(rules.categories + [k for k in model.categories if k in CATEGORIES]))
            )
            c = MarketClassification(
                type=kind,
                entities=model.entities,
                categories=cats,
                symbols=symbols,
                unknown=unknown,
                source="model" if kind == model.type else "rules",
            )
        c.skill = skill_for(c, self.store)
        self._current = c
        yield Classified(c.type, c.symbols + c.unknown, c.categories)
        return c

    def _model_classification(self, query: str, usage: Usage) -> Generator[Event, None, Classification]:
        schema = {
            "type": "object",
            "required": ["type", "entities", "categories"],
            "properties": {
                "type": {"enum": QUERY_TYPES},
                "entities": {"type": "array", "items": {"type": "string"}},
                "categories": {"type": "array", "items": {"enum": CATEGORIES}},
            },
        }
        messages = [
            Message(
                "system",
                "Classify a question about stock market data. Reply with JSON: `type` "
                f"(one of {', '.join(QUERY_TYPES)}), `entities` (the companies, tickers and indices "
                "it names) and `categories` (the kinds of analysis it needs).",
            ),
            Message("user", query),
        ]
        return (
            yield from ask_json(
                self.model, messages, schema, Classification, usage=usage, max_tokens=self.config.max_tokens_per_call
            )
        )

    # -- phase 2: the model's route, or the rules' when it is invalid --------------------------------------
    def route(self, run: RouterRun, c: MarketClassification) -> Generator[Event, None, Route]:
        result = run.result
        assert isinstance(result, MarketsResult)
        if self.decide is not None and self.decide(run.query, c) is not None:  # the core's choice says "rules"
            route = yield from self.choose_route(run, c)
            result.route_source, self._route = "rules", route
            return route
        route = yield from self._checked_route(run, c, result)
        if self.one_call_per_turn and route.selected_tools:
            calls = len(route.selected_tools) * max(1, len(c.symbols))
            if route.strategy != "ITERATIVE" or route.max_turns < calls:
                route = route.model_copy(
                    update={
                        "strategy": "ITERATIVE",
                        "max_turns": min(self.config.max_turns, max(route.max_turns, calls)),
                    }
                )
        self._route = route
        return route

    def _checked_route(
        self, run: RouterRun, c: MarketClassification, result: MarketsResult
    ) -> Generator[Event, None, Route]:
        """The model's route when it covers what the query plainly asks, else the rules'."""
        # The fallback reads the query's own words, not the model's categories (a small model adds "price"
        # to most questions).
        rules = rule_route(run.query, c.model_copy(update={"categories": categories_in(run.query)}))
        result.route_source = "rules"
        if c.type == "general" and not c.symbols and not rules.selected_tools:
            return rules  # nothing to look up: no router call
        try:
            route = yield from self.choose_route(run, c)
        except ModelError as exc:
            result.errors.append(f"router: {exc}")
            return rules
        result.model_tools = list(route.selected_tools)
        if not route_is_valid(route, rules, c):
            return rules
        result.route_source = "model"
        return route

    # -- rules that decide alone: the route, and every call with its arguments -----------------------------
    def _decide(self, query: str, c: Classification) -> Route | None:
        """The rules' route when they read the question whole (a market question whose every tool gets its
        arguments from it), or a question that needs no tool; else None: the model routes."""
        assert isinstance(c, MarketClassification)
        rules = rule_route(query, c.model_copy(update={"categories": categories_in(query)}))
        if not rules.selected_tools:
            return rules if c.type == "general" and not c.symbols else None
        return rules if self._calls(query, c, rules.selected_tools) is not None else None

    def _plan(self, query: str, c: Classification, route: Route, done: list[ToolResult]) -> list[ToolCall] | None:
        """The fan-out hook: round one from the question; after a screen, its follow-ups on what it found."""
        assert isinstance(c, MarketClassification)
        if not done:
            calls = self._calls(query, c, route.selected_tools)
            self._planned = calls is not None
            return calls
        screen = next((r for r in done if r.ok and r.call.name == "stock_screener"), None)
        if screen is None or len({r.call.name for r in done}) > 1 or not _FOLLOW_UP.search(query):
            return []
        found = [r["symbol"] for r in screen.value["matches"]][:FOLLOW_UP_SYMBOLS] or [
            r["symbol"] for r in screen.value.get("closest", [])
        ][:1]
        follow = [t for t in route.selected_tools if t not in ("stock_screener", "compare_symbols")]
        return self._per_symbol(query, follow, found, self._window or Qs.window(query, self._anchor(found))) or []

    def _anchor(self, symbols: list[str]) -> str:
        """The last date the symbols share: where a window the question leaves open ends."""
        syms = symbols or [s for s, v in self.store.symbols.items() if v.kind == "stock"] or list(self.store.symbols)
        return min(self.store.symbols[s].last for s in syms)

    def _calls(self, query: str, c: MarketClassification, tools: list[str]) -> list[ToolCall] | None:
        """Every routed tool's calls with arguments from the question, or None when a tool needs an argument
        the rules cannot read (the model then chooses)."""
        w = self._window = Qs.window(query, self._anchor(c.symbols))
        calls: list[ToolCall] = []
        if "stock_screener" in tools:
            screen = self._screen_call(query, c, w)
            if screen is None:
                return None
            calls.append(screen)
            if _FOLLOW_UP.search(query):  # the follow-ups wait for what the screen finds
                return calls
            tools = [t for t in tools if t not in ("stock_screener", *_COMPARED)]
        if "compare_symbols" in tools:
            if len(c.symbols) < 2:
                return None
            args = {"symbols": c.symbols, "metric": Qs.metric(query, w.point), "lowest": Qs.lowest(query)}
            args |= {"start": w.start, "end": w.end} if not w.point else {"end": w.end} if w.end else {}
            calls.append(
                ToolCall("rules-compare_symbols", "compare_symbols", {k: v for k, v in args.items() if v is not None})
            )
            tools = [t for t in tools if t != "compare_symbols"]
        rest = self._per_symbol(query, tools, c.symbols, w)
        return None if rest is None else calls + rest

    @staticmethod
    def _screen_call(query: str, c: MarketClassification, w: Qs.Window) -> ToolCall | None:
        """The screen's call from the question's conditions (or its ranking), or None when it states neither."""
        conds = Qs.conditions(query)
        field = Qs.metric(query, True)
        args: dict[str, Any] = {"conditions": conds}
        if not conds:  # "which stock has the highest RSI": every symbol's value, ranked
            if field in ("return", "volatility", "max_drawdown") or not _RANKED.search(query):
                return None
            args |= {"sort_by": field, "descending": not Qs.lowest(query)}
        if len(c.symbols) >= 2:
            args["symbols"] = c.symbols
        if w.end:
            args["date"] = w.end
        if m := re.search(r"\b(nasdaq|nyse)\b(?! composite)", query, re.IGNORECASE):
            args["exchange"] = m.group(1).upper()
        if re.search(r"\b(index|indices)\b", query, re.IGNORECASE) and "symbols" not in args:
            args["kind"] = "index"
        return ToolCall("rules-stock_screener", "stock_screener", args)

    def _per_symbol(self, query: str, tools: list[str], symbols: list[str], w: Qs.Window) -> list[ToolCall] | None:
        """One call per symbol for each tool that takes a symbol, in parallel; list_symbols once."""
        calls: list[ToolCall] = []
        for name in tools:
            if name == "list_symbols":
                calls.append(ToolCall("rules-list_symbols", name, {}))
                continue
            if not symbols:
                return None
            if name == "quote" and w.kind in ("range", "year", "month", "last_n"):
                name = "price_history"  # a period's high, low and change, not a day's
            if name == "performance" and w.point and w.end:
                name = "quote"  # a change on one day
            args = self._arguments(query, name, w)
            if name in _LOOKBACK_TOOLS and not w.point and w.start:  # the window's bars, per symbol
                calls += [
                    ToolCall(f"rules-{name}-{i}", name, {**args, "symbol": s, "lookback": self._bars(s, w)})
                    for i, s in enumerate(symbols)
                ]
                continue
            calls += expand(name, args, "symbol", symbols, prefix="rules")
        return list({(c.name, json.dumps(c.arguments, sort_keys=True)): c for c in calls}.values())

    def _bars(self, symbol: str, w: Qs.Window) -> int:
        """Trading days of `symbol` in the window (at least 1)."""
        return max(1, len(self.store.prices(symbol).loc[w.start : w.end]))

    @staticmethod
    def _arguments(query: str, name: str, w: Qs.Window) -> dict[str, Any]:
        if name in ("performance", "price_history"):
            return {k: v for k, v in (("start", w.start), ("end", w.end)) if v}
        args: dict[str, Any] = {"date": w.end} if w.end and name != "price_forecast" else {}
        if name == "technical_indicators":
            names, period = Qs.indicators(query)
            args["indicators"] = names
            if period is not None:
                args["period"] = period
        if name == "price_forecast":
            m = re.search(r"\bnext (week|month|quarter|year)\b|\bin a (week|month|quarter|year)\b", query, re.I)
            args["horizon_days"] = (
                {"week": 5, "month": 21, "quarter": 63, "year": 126}[(m.group(1) or m.group(2)).lower()] if m else 21
            )
        return args

    # -- the figures first, then at most one call for prose ----------------------------------------------------
    def observation(self, results: list[ToolResult]) -> str:
        """The tools' headlines or one-line summaries (their full JSON would cost a small model seconds to read)."""

        def line(r: ToolResult) -> str:
            if r.ok and isinstance(r.value, dict) and "summary" in r.value:
                return r.value.get("headline") or r.value["summary"]
            return f"{r.call.name} failed: {r.error or r.content}"

        return "\n".join(f"- {line(r)}" for r in results)

    def synthesize(
        self, query: str, _system: str, results: list[ToolResult], result: RouterResult, step: int
    ) -> Generator[Event, None, str]:
        lead = self._lead(results)
        if lead:
            yield Token(lead + "\n\n")  # on screen before the model writes a word
        if not self.prose or not any(r.ok for r in results):
            return ""
        config, self.config = self.config, replace(self.config, max_tokens_per_call=self.prose_tokens)
        try:  # a short system prompt, the same for every question: a model caches it
            return (yield from super().synthesize(query, PROSE_SYSTEM, results, result, step))
        finally:
            self.config = config

    def _lead(self, results: list[ToolResult]) -> str:
        """The computed answer: each tool's summary (or error), then the window's definition."""
        lines = [
            r.value["summary"]
            if r.ok and isinstance(r.value, dict) and "summary" in r.value
            else (r.error or r.content)
            for r in results
        ]
        w = self._window
        if w is not None and not w.point and any(r.ok for r in results):
            lines.append(f"Window: {w.definition}.")
        return "\n".join(f"- {x}" for x in dict.fromkeys(lines))

    def _tool_choice(self, _ctx: RunContext) -> str:
        """In the tool loop, a tool call is required until every routed tool has been called once (a small
        model otherwise stops after the screen, before analysing what it found)."""
        route = self._route
        pending = route is not None and any(t not in self._called for t in route.selected_tools)
        return "required" if pending else "auto"

    # -- schemas narrowed to the query --------------------------------------------------------------------
    def _refine(self, _ctx: RunContext, schema: dict[str, Any]) -> dict[str, Any]:
        props = schema.get("properties", {})
        syms = self._current.symbols or self._screened or list(self.store.symbols)
        if "symbol" in props:
            props["symbol"] = {"enum": syms, "description": props["symbol"].get("description", "")}
        if "symbols" in props:
            props["symbols"] = {
                "type": "array",
                "items": {"enum": list(self.store.symbols)},
                "description": props["symbols"].get("description", ""),
            }
        if "exchange" in props:
            props["exchange"] = {"enum": ["US", "NASDAQ", "NYSE"], "description": "exchange"}
        for name, wanted in _ARG_WANTED.items():
            if name in props and not wanted.search(self._query):
                props.pop(name)
        if "required" in schema:
            schema["required"] = [r for r in schema["required"] if r in props]
        return schema

    # -- phase 4: grounding, facts and the as-of line ------------------------------------------------------
    def _check(self, query: str, c: MarketClassification, result: MarketsResult) -> Generator[Event, None, None]:
        if result.status == "paused":
            return
        done = [t for t in result.tool_calls if t.ok and isinstance(t.value, dict)]
        result.facts = list(dict.fromkeys(t.value["summary"] for t in done if "summary" in t.value))
        result.as_of = {t.value["symbol"]: t.value["as_of"] for t in done if "symbol" in t.value and "as_of" in t.value}
        for t in done:
            for row in t.value.get("matches", []) + t.value.get("closest", []):
                result.as_of.setdefault(row["symbol"], row["as_of"])
            for sym, row in t.value.get("symbols", {}).items() if isinstance(t.value.get("symbols"), dict) else ():
                result.as_of.setdefault(sym, t.value.get("on") if t.value.get("metric") not in PERIOD else row["end"])
        result.prices_used = list(dict.fromkeys(t.value["price"] for t in done if "price" in t.value))
        sources = [t.content for t in result.tool_calls if t.ok] + [query, self._not_in_data(c.unknown)]
        allowed = [*STANDARD_NUMBERS, *(v for t in done for v in percents(t.value))]
        if self._planned:
            self._check_planned(c, result, sources, allowed)
            return
        answer = result.output.strip()
        bad = ungrounded(answer, sources, allowed)
        if bad:
            result.errors.append(f"ungrounded numbers {bad}; asked for a rewrite")
            answer = yield from self._rewrite(query, bad, result)
            bad = ungrounded(answer, sources, allowed)
        if bad or (not answer and result.facts):
            result.grounded, result.ungrounded = False, bad
            result.errors.append(
                f"answer still quotes numbers no tool returned ({', '.join(bad)}); replaced by the tools' summaries"
            )
            failed = list(dict.fromkeys(t.error for t in result.tool_calls if not t.ok and t.error))
            answer = (
                " ".join(result.facts)
                or " ".join(f"{e[0].upper()}{e[1:].rstrip('.')}." for e in failed)
                or _refusal(self.store)
            )
        if c.unknown:
            answer = f"{self._not_in_data(c.unknown)}\n\n{answer}"
        result.answer = answer
        parts = [answer]
        if result.facts and answer != " ".join(result.facts):
            parts.append("Figures from the tools:\n" + "\n".join(f"- {f}" for f in result.facts))
        _finish(result, parts)

    def _check_planned(
        self, c: MarketClassification, result: MarketsResult, sources: list[str], allowed: list[float]
    ) -> None:
        """The computed answer first, then the model's prose less its sentences with numbers no tool
        returned (no rewrite: one model call at most), then the data's dates."""
        prose, bad = grounded_sentences(result.output.strip(), sources, allowed)
        if bad:
            result.grounded, result.ungrounded = False, bad
            result.errors.append(f"prose sentences quoting numbers no tool returned ({', '.join(bad)}) dropped")
        kept = [s for s in re.split(r"(?<=[.!?])\s+", prose) if s and not self._misnames(s, result.tool_calls)]
        if len(kept) < len([s for s in re.split(r"(?<=[.!?])\s+", prose) if s]):
            result.errors.append("prose sentences naming only part of the leaders or matches dropped")
        prose = " ".join(kept)
        lead = self._lead(result.tool_calls) or _refusal(self.store)
        answer = "\n\n".join(x for x in (self._not_in_data(c.unknown), lead, prose) if x)
        result.answer = answer
        _finish(result, [answer])

    def _misnames(self, sentence: str, results: list[ToolResult]) -> bool:
        """A sentence that names symbols but leaves out a computed leader (a comparison's winners) or match
        (a screen's): the small model often names the first one only."""
        named = set(self.store.find_in_text(sentence))
        if not named:
            return False
        for r in results:
            if not r.ok or not isinstance(r.value, dict):
                continue
            must = (
                r.value.get("winner")
                if r.call.name == "compare_symbols"
                else [m["symbol"] for m in r.value.get("matches", [])]
                if r.call.name == "stock_screener"
                else []
            )
            if must and not set(must) <= named:
                return True
        return False

    def _rewrite(self, query: str, bad: list[str], result: MarketsResult) -> Generator[Event, None, str]:
        facts = "\n".join(f"- {f}" for f in result.facts) or "(no tool results)"
        messages = [
            Message("system", self._system),
            Message(
                "user",
                f"Question: {query}\nResults:\n{facts}\n\nYour draft answer quoted "
                f"{', '.join(bad)}, which are not in the results. Answer the question again "
                "using only numbers from the results.",
            ),
        ]
        try:
            text = yield from synthesize(
                self.model, messages, usage=result.usage, max_tokens=self.config.max_tokens_per_call
            )
            return text.strip()
        except ModelError as exc:  # the facts stand in for the answer; the failure is recorded
            result.errors.append(f"rewrite failed: {exc}")
            return ""

    def _not_in_data(self, unknown: list[str]) -> str:
        if not unknown:
            return ""
        avail = ", ".join(f"{s.symbol} (to {s.last})" for s in self.store.symbols.values())
        return (
            f"{', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not in the data. Symbols available: "
            f"{avail}. Add others with `orrery markets import FILE`."
        )


def _finish(result: MarketsResult, parts: list[str]) -> None:
    """The output: the answer's parts, then the data's last date(s) and the price used."""
    if result.as_of:
        dates = sorted(set(result.as_of.values()))
        when = dates[-1] if len(dates) == 1 else ", ".join(f"{s} {d}" for s, d in result.as_of.items())
        parts.append(f"Data as of {when}; prices: {' and '.join(result.prices_used)}.")
    result.output = "\n\n".join(parts)
    if result.status in ("max_rounds", "invalid"):
        result.status = "completed"


def percents(value: Any) -> list[float]:
    """Numbers a tool result states as percentages (`*_pct` fields, "61.8%" keys): an answer may write
    them with a % sign."""
    if isinstance(value, list):
        return [p for v in value for p in percents(v)]
    if not isinstance(value, dict):
        return []
    out = []
    for k, v in value.items():
        if k.endswith("_pct") and isinstance(v, int | float):
            out.append(float(v))
        elif k.endswith("%"):
            out.append(float(k[:-1]))
        out += percents(v)
    return out


def _refusal(store: Any) -> str:
    return (
        "I answer questions about the market data in the local store ("
        + ", ".join(store.symbols)
        + "): prices, indicators, patterns, screens, comparisons and forecasts."
    )


def markets_agent(
    model: str | Model | None = None,
    *,
    store: Any = None,
    store_dir: str | Path | None = None,
    on_event: Iterable[Callable[[Event], None]] = (),
    approve_tools: bool = False,
    llm: str | Model | None = None,
    **options: Any,
) -> MarketsAgent:
    """The app's factory (`APP.agent`): `markets_agent("local").run("Is Apple oversold?")`. `approve_tools`: every
    tool call waits for a person's approval (the web app's input; `approve=(names...)` picks tools); `llm`: the
    deprecated name of `model`."""
    from orrery.markets.store import Store
    from orrery.markets.tools import TOOLS

    if approve_tools:
        options["approve"] = [t.name for t in options.get("tools") or TOOLS]

    store = store if store is not None else Store(store_dir)
    config = RouterConfig(
        max_tokens_per_call=options.pop("max_tokens_per_call", 400), max_turns=options.pop("max_turns", 6)
    )
    return MarketsAgent(resolve_model(model_argument(model, llm)), store, config=config, on_event=on_event, **options)
