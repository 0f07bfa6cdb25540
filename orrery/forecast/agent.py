"""ForecastAgent: Heval's architecture. Native tool rounds inside validation retries; the best model
must beat SeasonalNaive and every number in the narrative must come from a tool result."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from orrery.agent.calls import EventSource, consume
from orrery.agent.loop import Agent, AgentConfig, RunResult
from orrery.errors import OrreryError
from orrery.events import Event, Final, Progress, RunStart, relay
from orrery.forecast import models as reg
from orrery.forecast import prompts
from orrery.forecast.analysis import PanelFit
from orrery.forecast.data import SeriesData, load
from orrery.forecast.result import ForecastResult
from orrery.forecast.tools import (
    Ctx,
    ForecastDeps,
    analyze_features,
    compare_models,
    cross_validate,
    decompose,
    detect_anomalies,
    generate_forecast,
    panel_analyze,
    panel_fit,
    result_from_deps,
    unit_root_test,
)
from orrery.grounding import grounded_sentences, ungrounded
from orrery.llm import Model, model_argument, resolve_model
from orrery.tools import Tool

REDO_ON_RETRY = ("cross_validate", "generate_forecast", "detect_anomalies", "panel_fit")


def _done(ctx: Ctx, name: str) -> bool:
    return name in ctx.succeeded


def _followup(ctx: Ctx) -> bool:
    return ctx.deps.phase == "followup"


def _cv_models(ctx: Ctx) -> list[str]:
    cv = ctx.deps.cv
    return list(cv.mean_mase()) if cv is not None else []  # best first


def _refine_candidates(ctx: Ctx, schema: dict[str, Any]) -> dict[str, Any]:
    names = reg.available(ctx.deps.data.m)
    schema["properties"]["models"] = {
        "type": "array",
        "items": {"enum": names},
        "minItems": 2,
        "description": "models to compare",
    }
    return schema


def _refine_panel(ctx: Ctx, schema: dict[str, Any]) -> dict[str, Any]:
    schema = _refine_candidates(ctx, schema)
    if ctx.deps.panel_retry:  # the retry asks for policy 'best'; a small model sends {} unless made to
        schema["properties"]["policy"] = {"enum": ["best"], "description": "each series keeps its own CV winner"}
        schema["required"] = [*schema.get("required", []), "policy"]
    return schema


def _refine_cv(ctx: Ctx, schema: dict[str, Any]) -> dict[str, Any]:
    schema = _refine_candidates(ctx, schema)
    data = ctx.deps.data
    shortest = int(data.df.groupby("unique_id").size().min())
    most = max(1, min(5, (shortest - max(3, data.m)) // data.h))
    # Small models take the first enum value, so only the sound default is offered.
    schema["properties"]["n_windows"] = {"enum": [min(3, most)], "description": "number of CV windows of length h"}
    schema["properties"]["combo_k"] = {
        "enum": [0, 2, 3, 4],
        "default": 0,
        "description": "size of the best-k combination (0 for none)",
    }
    return schema


def _refine_chosen(ctx: Ctx, schema: dict[str, Any]) -> dict[str, Any]:
    if names := _cv_models(ctx):
        schema["properties"]["model"] = {"enum": names, "description": "a cross-validated model, best first"}
    return schema


def _single_series(refine: Callable | None) -> Callable:
    """With one series, the optional `series` argument only invites small models to fill it with junk."""

    def apply(ctx: Ctx, schema: dict[str, Any]) -> dict[str, Any]:
        schema = refine(ctx, schema) if refine else schema
        if not ctx.deps.data.is_panel:
            schema["properties"].pop("series", None)
        return schema

    return apply


def _gated(t: Tool, available: Callable[[Ctx], bool], refine: Callable | None = None) -> Tool:
    """A copy of a tool with its workflow gate (the module-level tool stays ungated, for direct calls)."""
    return t.gated(
        lambda ctx: ctx.deps.phase != "commentary" and (_followup(ctx) or available(ctx)), _single_series(refine)
    )


def _refine_anomalies(ctx: Ctx, schema: dict[str, Any]) -> dict[str, Any]:
    schema = _refine_chosen(ctx, schema)
    schema["properties"]["level"] = {"enum": [90, 95, 99], "default": 99, "description": "interval level in percent"}
    return schema


def _tool_choice(ctx: Ctx) -> str:
    """Until the workflow is complete the model must call a tool; after it, it may answer."""
    return "auto" if _followup(ctx) or _workflow_done(ctx) else "required"


def _workflow_done(ctx: Ctx) -> bool:
    return _done(ctx, "panel_fit" if ctx.deps.data.is_panel else "detect_anomalies")


def workflow_tools(panel: bool) -> list[Tool]:
    """The tools, gated by workflow state so even a 0.5B model walks features -> CV -> forecast -> anomalies:
    each step is offered once its prerequisite succeeded and hidden once it is done."""
    if panel:
        return [
            _gated(panel_analyze, lambda c: not _done(c, "panel_analyze")),
            _gated(panel_fit, lambda c: _done(c, "panel_analyze") and not _done(c, "panel_fit"), _refine_panel),
        ]

    def before_cv(name: str) -> Callable[[Any], bool]:
        return lambda c: _done(c, "analyze_features") and not _done(c, "cross_validate") and not _done(c, name)

    return [
        _gated(analyze_features, lambda c: not _done(c, "analyze_features")),
        _gated(cross_validate, lambda c: _done(c, "analyze_features") and not _done(c, "cross_validate"), _refine_cv),
        _gated(
            generate_forecast,
            lambda c: _done(c, "cross_validate") and not _done(c, "generate_forecast"),
            _refine_chosen,
        ),
        _gated(
            detect_anomalies,
            lambda c: _done(c, "generate_forecast") and not _done(c, "detect_anomalies"),
            _refine_anomalies,
        ),
        _gated(decompose, before_cv("decompose")),
        _gated(unit_root_test, before_cv("unit_root_test")),
        _gated(compare_models, before_cv("compare_models")),
    ]


class FollowUpAnswer(str):
    """A follow-up answer: a plain string that also renders in rich and Jupyter."""

    def __rich__(self) -> Any:
        from rich.panel import Panel

        return Panel(str(self), title="answer", border_style="cyan")

    def _repr_html_(self) -> str:
        import html

        return f"<div style='border:1px solid #0aa;padding:8px;white-space:pre-wrap'>{html.escape(str(self))}</div>"


COMMENTARY_TOKENS = 160  # four sentences; a runaway commentary went to the 400-token cap


class ForecastAgent(EventSource):
    """`ForecastAgent(model="local").run(data, h=12)` -> ForecastResult (`analyze` is the same call); `stream(data)`
    yields the workflow's and the commentary's events, the last carrying the ForecastResult; `query()` follows up."""

    def __init__(
        self,
        model: str | Model | None = None,
        *,
        max_retries: int = 3,
        max_rounds: int = 20,
        verbose: bool = False,
        n_jobs: int = 1,
        client: Any = None,
        trace: str | None = None,
        on_event: Iterable[Callable[[Event], None]] = (),
        max_tokens_per_call: int | None = 400,
        llm: str | Model | None = None,
    ):
        self.model = resolve_model(model_argument(model, llm))  # llm: the deprecated name of model
        self.settings = {"max_retries": max_retries, "max_rounds": max_rounds}
        self.options = {"n_jobs": n_jobs, "client": client}
        self.handlers = list(on_event)
        if verbose:
            from orrery.console import ConsoleView

            self.handlers.append(ConsoleView())
        if trace:
            from orrery.trace import TraceWriter

            self.handlers.append(TraceWriter(trace))
        self.max_tokens_per_call = max_tokens_per_call
        self.agent: Agent | None = None
        self.deps: ForecastDeps | None = None  # the analysis the inner agent's tools share
        self.events: list[dict[str, Any]] = []
        self.result: ForecastResult | None = None
        self._asked: list[str] = []
        self._commentary: tuple[str, list[str]] = ("", [])

    def stream(
        self,
        task: Any = None,
        *,
        data: Any = None,
        h: int | None = None,
        m: int | None = None,
        query: str | None = None,
        groupby: str | list[str] | None = None,
        date: str | None = None,
        target: str | None = None,
        missing: str = "impute",
    ) -> Iterator[Event]:
        """`stream("forecast the next year", data="sales.csv", h=12)`, or `stream(data)` with the data as the task
        (then `query=` is the question)."""
        if data is None:
            data, task = task, None
        query = query or task or None
        series = (
            data
            if isinstance(data, SeriesData)
            else load(data, date=date, target=target, groupby=groupby, m=m, h=h, missing=missing)
        )  # type: ignore[arg-type]
        self.events = []
        config = AgentConfig(
            system_prompt=prompts.system_prompt(series),
            tool_choice=_tool_choice,
            max_tokens_per_call=self.max_tokens_per_call,
            validators=[self._beats_baseline],
            finish=lambda ctx: prompts.summary_from_deps(ctx.deps) if _workflow_done(ctx) else None,
            **self.settings,
        )
        self.agent = Agent(self.model, workflow_tools(series.is_panel), config, deps_type=ForecastDeps, name="forecast")
        deps = self.deps = ForecastDeps(series, **self.options)
        task = prompts.task_prompt(series, query)
        self._asked = [task]
        run = yield from relay(self.agent.stream(task, deps=deps), tap=self._record)
        comment = None
        if run.status in ("completed", "invalid"):
            # The workflow wrote the facts; the model adds a few sentences, kept only if every number is grounded,
            # with one rewrite (then the facts stand alone).
            deps.phase = "commentary"
            commentary = {
                "validators": [self._partly_grounded, _concise],
                "finish": None,
                "max_retries": 1,
                "max_tokens_per_call": COMMENTARY_TOKENS,
            }
            ask = prompts.PANEL_COMMENTARY if series.is_panel else prompts.COMMENTARY
            comment = yield from relay(
                self.agent.query_stream(ask, settings=commentary), drop=(RunStart,), tap=self._record
            )
            deps.phase = "followup"
        self.result = self._result(run, comment)
        yield Final(self.result.status, self.result.narrative, self.result)  # type: ignore[arg-type]

    def analyze(self, data: Any, **inputs: Any) -> ForecastResult:
        """The forecasting workflow on `data` (a path, a frame, a list...): `run(data=data, ...)`."""
        return self.run(None, data=data, **inputs)

    def _record(self, event: Event) -> None:
        """An inner run's events go to the report (not its progress)."""
        if not isinstance(event, Progress):
            self.events.append(event.to_dict())

    def query(self, question: str) -> FollowUpAnswer:
        """A follow-up on the whole conversation; every tool is available again."""
        if self.agent is None or self.deps is None:
            raise OrreryError("call run() or analyze() before query(): there is no analysis to follow up on")
        self.deps.phase = "followup"
        self._asked.append(question)
        followup = {"validators": [self._grounded], "finish": None}
        run = consume(self.agent.query_stream(question, settings=followup), self._seen)
        if self.result is not None:
            self.result.trace = self.events
        if run.status == "invalid":  # still quoting numbers no tool returned after the retries
            return FollowUpAnswer(f"{run.output}\n\n(Unverified: this answer quotes numbers that no tool returned.)")
        return FollowUpAnswer(run.output)

    def clear_history(self) -> None:
        self.agent, self.deps, self.result, self.events = None, None, None, []

    def _seen(self, event: Event) -> None:
        self.events.append(event.to_dict())
        self.emit(event)

    # -- validators ----------------------------------------------------------------------------------
    def _beats_baseline(self, _output: str, ctx: Ctx) -> str | None:
        if _followup(ctx):
            return None
        cv, fit = ctx.deps.cv, ctx.deps.panel
        if fit is not None:
            return _panel_retry(fit, ctx)
        if cv is None:
            return "You have not cross-validated any model yet: call cross_validate first."
        means = cv.mean_mase()
        best = cv.best()
        if best is None or (best != reg.BASELINE and means[best] < means[reg.BASELINE]):
            return None  # nothing to retry on a series too short to cross-validate: the result says so
        ctx.succeeded[:] = [n for n in ctx.succeeded if n not in REDO_ON_RETRY]
        untried = [n for n in reg.available(ctx.deps.data.m) if n not in means]
        return prompts.baseline_retry(best, means[best], means[reg.BASELINE], untried)

    def _sources(self) -> list[str]:
        assert self.agent is not None
        # Tool results and what the user wrote; not the retry messages, which quote the bad numbers.
        return [m.content for m in self.agent.current_run.memory.messages if m.role == "tool"] + self._asked

    @staticmethod
    def _allowed(ctx: Ctx) -> tuple[float, ...]:
        data = ctx.deps.data
        return 80, 95, data.h, data.m

    def _grounded(self, output: str, ctx: Ctx) -> str | None:
        bad = ungrounded(output, self._sources(), allowed=self._allowed(ctx))
        return prompts.grounding_retry(bad) if bad else None

    def _partly_grounded(self, output: str, ctx: Ctx) -> str | None:
        """A commentary is rewritten only when no sentence of it is grounded: the others are dropped in `_result`
        (the rewrite of the 0.5B model was rarely better than what it had right the first time)."""
        kept, bad = grounded_sentences(output, self._sources(), allowed=self._allowed(ctx))
        self._commentary = (kept, bad)  # what `_result` writes: the check that accepted the last commentary
        return None if kept else prompts.grounding_retry(bad)

    # -- result --------------------------------------------------------------------------------------
    def _result(self, run: RunResult, comment_run: RunResult | None) -> ForecastResult:
        assert self.deps is not None
        facts = prompts.summary_from_deps(self.deps)
        comment, warnings, omitted = "", [], None
        if comment_run is not None and comment_run.status == "completed":
            comment, bad = self._commentary
            if bad:
                warnings.append(f"commentary: sentences quoting numbers no tool returned left out ({', '.join(bad)})")
        elif comment_run is not None:
            why = re.split(r"(?<=[.!?])\s", "; ".join(comment_run.errors[-1:]))[0]  # the finding, not the retry prompt
            omitted = f"the model's rewrite was rejected ({comment_run.status}): {why or 'no reason given'}"
        if run.status not in ("completed", "invalid"):
            warnings.append(f"the agent stopped early ({run.status}): {'; '.join(run.errors[-1:])}")
        result = result_from_deps(self.deps, "\n\n".join(p for p in (facts, comment) if p), self.events)
        result.warnings += warnings
        result.status, result.usage, result.commentary_omitted = run.status, run.usage, omitted
        return result


def _panel_retry(fit: PanelFit, ctx: Ctx) -> str | None:
    """A panel whose forecasts lose to the baseline in CV is refitted once with policy 'best' (every series keeps
    its own CV winner, the baseline included); after that there is nothing better to try, and the result says so."""
    a = fit.summary().attrs
    if not a["series_scored"] or fit.beats_baseline() or fit.policy == "best":
        return None
    ctx.succeeded[:] = [n for n in ctx.succeeded if n not in REDO_ON_RETRY]
    ctx.deps.panel_retry = True
    return prompts.panel_baseline_retry(fit.policy, a["mase_selected"], a["mase_baseline"])


def _concise(output: str, _ctx: Ctx) -> str | None:
    if len(re.findall(r"[A-Za-z]{2,}", output)) < 3:  # the 0.5B model sometimes answers a bare "10."
        return "Write two to four plain sentences about the result, not a bare number."
    sentences = [s.strip().lower() for s in re.split(r"(?<=[.!?])\s+", output.strip()) if s.strip()]
    if len(sentences) > 6 or len(set(sentences)) < len(sentences):
        return "Too long or repetitive: write at most four different sentences."
    return None
