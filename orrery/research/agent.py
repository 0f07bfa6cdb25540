"""The judgmental-forecasting agent: "Will X happen by D?" -> a probability with cited sources.

A forecast is an aggregate: the loop below builds the board and submits once (trial 1), then
:mod:`orrery.research.trials` draws ``trials - 1`` more submit samples on the same board; they are pooled in
logit space (their spread is the forecast's uncertainty), and a calibrator fitted on resolved questions
(:mod:`orrery.research.calibration`) maps the pooled figure, with any market/crowd anchor or data-series base
rate the sources hold (:mod:`orrery.research.anchors`), to the probability given. The trajectory keeps all
three figures (``raw``, ``pooled``, ``calibrated``).

:class:`ResearchAgent` composes the core :class:`~orrery.agent.loop.Agent`: one tool call per
step (``max_calls_per_step=1``), the source board re-injected at message index 2 every step
(``board=``), and a :class:`~orrery.memory.SlidingWindow` that runs before the re-injection and
keeps the search history in its truncation notice. The run ends at ``submit`` or at a limit
(steps, tokens, wall time). Run options such as the date bound go from
``agent.run(question, before=...)`` through ``ctx.options`` to the search backend.
"""

from __future__ import annotations

import functools
import json
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from orrery import results
from orrery.agent.calls import EventSource
from orrery.agent.loop import Agent, AgentConfig, RunResult
from orrery.errors import DataError
from orrery.events import Event, Final, StateChanged, Status
from orrery.files import cache_dir, remove
from orrery.llm import model_argument, resolve_model
from orrery.llm.base import Model, profile_of
from orrery.memory import SlidingWindow
from orrery.messages import Message, Usage
from orrery.research.anchors import find_anchors
from orrery.research.board import Source
from orrery.research.calibration import Calibrator, Features, load_calibrator, pool
from orrery.research.corpus import DATA_DIR, demo_index, load_questions
from orrery.research.history import SeriesHistory, SeriesMemory
from orrery.research.prompts import (
    BACKGROUND_CHARS,
    BRIEF_CHARS,
    NOT_SUBMITTED,
    SUBMIT_PROMPT,
    SYSTEM_PROMPT,
    question_prompt,
)
from orrery.research.search import INDEX_FORMAT, SearchBackend, open_index
from orrery.research.tools import ResearchState, research_tools, search_filters, submit
from orrery.research.trials import MAX_TRIALS, Trial, run_trial, trial_messages
from orrery.research.types import DateLike, Document, to_utc
from orrery.tools.core import RunContext

TOOLS_REF = "orrery.research.tools:research_tools"
DEFAULT_TRIALS = 1  # measured in bench/research_calibration.py: see orrery/research/README.md
SHIPPED_CALIBRATION = DATA_DIR.parent / "calibration-local.json"  # fitted for the embedded model
ANCHOR_K = 10  # documents the anchor search looks through
BOARDS = ("loop", "search")  # who builds the board: the agent's loop, or the search for the question alone


@dataclass
class Trajectory:
    """A replayable run: the messages kept in history and every event (model replies included)."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ResearchResult:
    question_id: str
    probability: float | None
    rationale: str
    sources: list[Source]
    notes: str
    status: Status  # completed: a forecast was submitted; invalid: the run ended without one; or a limit
    steps: int
    usage: Usage
    duration: float  # the loop's seconds (each further trial's are in `trials`)
    trajectory: Trajectory = field(default_factory=Trajectory)
    question: str = ""
    before: str | None = None  # the date bound (ISO, UTC) every search was held to
    row: dict[str, Any] = field(default_factory=dict)  # the question row asked (for replay)
    errors: list[str] = field(default_factory=list)
    ungrounded: list[str] = field(default_factory=list)  # numbers the rationale quotes that no source holds
    model: str = ""  # the model's name (a calibrator is fitted for one)
    trials: list[dict[str, Any]] = field(default_factory=list)  # every submit sample (Trial.to_dict)
    raw: float | None = None  # trial 1: the loop's own submit
    pooled: float | None = None  # the valid trials pooled in logit space
    spread: float | None = None  # the standard deviation of their logits
    calibrated: float | None = None  # the calibrator's figure (then it is `probability`)
    anchors: dict[str, Any] = field(default_factory=dict)  # Anchors.to_dict
    calibration: str | None = None  # which calibrator, if any
    timings: dict[str, float] = field(default_factory=dict)  # seconds: anchor search, board, model calls
    # where `probability` comes from: "trials" (the valid trials, pooled and calibrated), "anchors" (no trial was
    # valid: the calibrator's figure from the anchors and base rate alone), None (no figure)
    figure_source: str | None = None

    @property
    def submitted(self) -> bool:
        return self.probability is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON-able, with ``probability`` at the top level (what batch resume looks for)."""
        return json.loads(json.dumps(asdict(self), default=str))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ResearchResult:
        return cls(
            **{
                **d,
                "sources": [Source(**s) for s in d["sources"]],
                "usage": Usage(**d["usage"]),
                "trajectory": Trajectory(**d["trajectory"]),
            }
        )

    # -- the result protocol (orrery.results) --
    @property
    def output(self) -> str:
        if self.figure_source == "anchors":
            return f"Probability: {self.probability:.2f}, {ANCHORS_ONLY} (no valid trial)."
        if self.probability is not None:
            return f"Probability: {self.probability:.2f}. {self.rationale}".strip()
        return self.rationale or "; ".join(self.errors[-1:])

    @property
    def data(self) -> dict[str, Any]:
        return self.to_dict()

    def views(self) -> list[results.View]:
        board = [results.Source(**asdict(s)) for s in self.sources]
        return [results.Board(sources=board, notes=self.notes, probability=self.probability)]

    def files(self) -> dict[str, Callable[[Path], Any]]:
        return {}


def sliding_window(max_tokens: int = 2500, max_messages: int = 24) -> SlidingWindow:
    """The default context manager: its truncation notice lists the search queries made so far."""
    return SlidingWindow(max_tokens=max_tokens, max_messages=max_messages, describe_calls=search_queries)


def search_queries(m: Message) -> list[str]:
    return [f"search({json.dumps(c.arguments.get('query', ''))})" for c in m.tool_calls if c.name == "search"]


def render_board(ctx: RunContext) -> str:
    return ctx.deps.board.render()


def default_index(backend: str = "sqlite") -> Path:
    """The shipped demo corpus, indexed once into the cache folder (built under a temporary name)."""
    name = f"demo-v{INDEX_FORMAT}"  # a new format gets a new cache entry; the old one stays readable by old code
    path = cache_dir() / "research" / (f"{name}.sqlite" if backend == "sqlite" else f"{name}-tantivy")
    if not path.exists():
        tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
        demo_index(tmp, backend=backend)
        try:
            tmp.rename(path)
        except OSError:  # a folder cannot be renamed over one another process has just built
            if not path.exists():
                raise
            remove(tmp)
    return path


def resolve_index(index: SearchBackend | str | Path | None) -> SearchBackend:
    """A backend as is; a path opened (a folder is tantivy, a file SQLite); None: the demo corpus."""
    if index is None:
        index = default_index()
    return open_index(index) if isinstance(index, str | Path) else index


class ResearchAgent(EventSource):
    """``ResearchAgent(llm="local", index="demo.sqlite").run("Will X happen by D?", before="2025-10-16")``.

    ``index`` is a :class:`SearchBackend` or an index path (default: the shipped demo corpus).
    One agent runs one question at a time; use one agent per thread.

    ``guided`` (default: on for the embedded model) narrows the tools offered each step so a
    small model makes progress: after a search that found documents only add_source is offered
    (not another search), and once ``max_sources`` are on the board only edit_note and submit.

    ``trials`` submit samples are pooled (see the module doc); ``calibration`` is a :class:`Calibrator`, a
    calibrator file, ``False``/``"none"`` for none, or None: the shipped one for the embedded model.
    ``board="search"`` (default for the embedded model, else ``"loop"``) skips the loop: the board is the anchor
    search's first ``max_sources`` documents and every trial is a submit sample on it (``trials`` model calls).
    ``brief`` (default: on for the search board) gives those calls a submit-only prompt: the short
    ``SUBMIT_PROMPT``, criteria and background cut to ``BRIEF_CHARS``, and only submit in the tool block.
    ``history`` is where a question row's series history is recalled from at its date bound (default: the shipped
    question sets; ``False``: none): what the calibrator's base rate sees of the series' earlier questions."""

    def __init__(
        self,
        model: Model | str | None = None,
        index: SearchBackend | str | Path | None = None,
        *,
        max_rounds: int = 12,
        max_tokens: int | None = None,
        wall_time: float | None = None,
        k: int = 5,
        context: SlidingWindow | None = None,
        system_prompt: str = SYSTEM_PROMPT,
        max_tokens_per_call: int | None = 256,
        tool_choice: str = "required",
        guided: bool | None = None,
        max_sources: int = 2,
        trials: int = DEFAULT_TRIALS,
        board: str | None = None,
        calibration: Calibrator | str | Path | None | bool = None,
        brief: bool | None = None,
        history: SeriesHistory | None | bool = None,
        on_event: Iterable[Callable[[Event], None]] = (),
        trace: str | Path | None = None,
        llm: Model | str | None = None,
    ):  # llm: the deprecated name of model
        if not 1 <= trials <= MAX_TRIALS:
            raise DataError(f"trials must be from 1 to {MAX_TRIALS}, got {trials}")
        if board is not None and board not in BOARDS:
            raise DataError(f"board must be one of {', '.join(BOARDS)}, got {board!r}")
        self.index = resolve_index(index)
        self.k = k
        self.max_sources = max_sources
        self.trials = trials
        model = resolve_model(model_argument(model, llm))
        self.model = model
        self.model_id = model_id(model)
        self.calibrator = resolve_calibration(calibration, self.model_id)
        self.history = shipped_history() if history is None or history is True else history or None
        # The embedded model's loop costs minutes a question and often ends without a submit citing a source
        # (bench/research_calibration.md); its shipped calibrator is fitted on search boards.
        self.board = board or ("search" if self.model_id == "local" else "loop")
        self.brief = self.board == "search" if brief is None else brief
        self.guided = profile_of(model).narrow_tools if guided is None else guided
        self.config = AgentConfig(
            system_prompt=system_prompt,
            max_rounds=max_rounds,
            max_retries=0,
            max_tokens=max_tokens,
            max_tokens_per_call=max_tokens_per_call,
            wall_time=wall_time,
            max_calls_per_step=1,
            tool_choice=tool_choice,
            validators=[require_submit],
            context=context or sliding_window(),
            board=render_board,
            answer_on_repeat=False,
            trace=trace,
        )
        self.events: list[dict[str, Any]] = []
        self.agent = Agent(model, research_tools(), self.config, deps_type=ResearchState, tools_ref=TOOLS_REF)
        self.handlers = [*self.agent.handlers, *on_event]  # the console view and trace writer the config asked for

    def stream(
        self,
        question: str | Mapping[str, Any],
        before: DateLike | None = None,
        *,
        question_id: str | None = None,
        **options: Any,
    ) -> Iterator[Event]:
        """Forecast one question (text, or a question row with ``question``/``id``/``freeze_date``), yielding the
        run's events; the last carries the ResearchResult. ``before`` (default: the row's ``freeze_date``, else
        now) bounds every search of the run."""
        row: Mapping[str, Any] = {"question": question} if isinstance(question, str) else question
        bound = date_bound(before if before is not None else row.get("freeze_date"))
        state = ResearchState(
            self.index, self.k, guided=self.guided, max_sources=self.max_sources, question=str(row["question"])
        )
        t0 = time.monotonic()
        found = self._anchors(state, row, bound)
        timings = {"search": time.monotonic() - t0}
        self.events = []
        run, final, trials = None, None, []
        if self.board == "search":
            run = yield from self._search_trials(state, row, bound, found, trials)
        else:
            task = question_prompt(row, bound.date().isoformat())
            for event in self.agent.stream(task, deps=state, before=bound.isoformat(), **options):
                if isinstance(event, Final):
                    run, final = event.result, event.to_dict()
                else:
                    self.events.append(event.to_dict())
                    yield event
            trials = [Trial(1, state.probability, state.rationale)] if state.probability is not None else []
            if trials:  # the pool draws on a board the loop submitted on; a run a limit stopped has no forecast
                yield from self._more_trials(state, trials, self.agent.current_run.memory.messages[:2], first=2)
        result = self._result(run, state, question_id or str(row.get("id", "")), dict(row), bound.isoformat())
        self._aggregate(result, state, trials, row)
        result.timings = {**timings, "model_calls": sum(t.seconds for t in trials), "total": time.monotonic() - t0}
        event = StateChanged("forecast", {k: getattr(result, k) for k in FORECAST_STATE})
        end = Final(result.status, result.rationale or "; ".join(result.errors[-1:]), result)
        self.events += [event.to_dict(), final or end.to_dict()]  # the loop's own end last, as in the trace
        result.trajectory.events = list(self.events)
        yield event
        yield end

    def _search_trials(
        self, state: ResearchState, row: Mapping[str, Any], bound: datetime, found: list[Document], trials: list[Trial]
    ) -> Iterator[Event]:
        """The search board's run: the board built once, then every trial a submit call on it (returns the
        RunResult)."""
        t0 = time.monotonic()
        self._search_board(state, found)
        task = question_prompt(row, bound.date().isoformat(), chars=BRIEF_CHARS if self.brief else BACKGROUND_CHARS)
        prefix = [Message("system", SUBMIT_PROMPT if self.brief else self.config.system_prompt), Message("user", task)]
        yield from self._more_trials(state, trials, prefix, first=1)
        ok = any(t.probability is not None for t in trials)
        return RunResult(
            "completed" if ok else "invalid",
            "",
            errors=[] if ok else ["no trial was valid"],
            duration=time.monotonic() - t0,
        )

    def _search_board(self, state: ResearchState, found: list[Document]) -> None:
        """The cheap board: the anchor search's documents, those stating an anchor first, up to ``max_sources``."""
        anchor_ids = {d.id for d in state.anchor_docs}
        for doc in sorted(found, key=lambda d: d.id not in anchor_ids)[: self.max_sources]:
            state.seen[doc.id] = doc
            state.board.add_document(doc, "found by searching the question")

    def _anchors(self, state: ResearchState, row: Mapping[str, Any], bound: datetime) -> list[Document]:
        """A search with the question itself, held to the run's bound like every search, for a market figure or
        a series' values the sources state for this very question."""
        docs = self.index.search(str(row["question"]), ANCHOR_K, **search_filters({"before": bound.isoformat()}))
        state.anchors = find_anchors(str(row["question"]), docs, source=row.get("source"))
        ids = {a.doc_id for a in [state.anchors.market] if a} | set(
            state.anchors.series.doc_ids if state.anchors.series else ()
        )
        state.anchor_docs = [d for d in docs if d.id in ids]
        return docs

    def _more_trials(
        self, state: ResearchState, trials: list[Trial], prefix: list[Message], first: int
    ) -> Iterator[Event]:
        """Trials first..k: one submit call each on the final board (see :mod:`orrery.research.trials`)."""
        if not len(state.board):
            return
        board, spec = state.board.render(), submit.spec(RunContext(deps=state))
        catalogue = [spec] if self.brief else [t.spec() for t in research_tools()]
        for n in range(first, self.trials + 1):
            messages = trial_messages(prefix, board, n, state.anchors.describe(state.board.numbers()))
            trial, reply = run_trial(self.agent.model, messages, spec, state, n, catalogue=catalogue)
            self.events.append(reply.to_dict())
            yield reply
            trials.append(trial)

    def _aggregate(
        self, result: ResearchResult, state: ResearchState, trials: list[Trial], row: Mapping[str, Any]
    ) -> None:
        """Pool the valid trials (the loop's own submit always among them), calibrate, and set the figures."""
        result.trials = [t.to_dict() for t in trials]
        memory = self.history.recall(row, result.before) if self.history is not None else None
        result.anchors = {**state.anchors.to_dict(), "history": None if memory is None else memory_dict(memory)}
        valid = [t for t in trials if t.probability is not None]
        if not valid:
            self._anchors_only(result, Features.of(None, state.anchors, row.get("source"), row, memory))
            return
        pooled = pool([t.probability for t in valid])  # type: ignore[misc]
        result.raw = trials[0].probability
        result.pooled, result.spread = pooled.probability, pooled.spread
        if self.calibrator is not None:
            result.calibrated = self.calibrator.apply(
                Features.of(pooled.probability, state.anchors, row.get("source"), row, memory)
            )
            result.calibration = self.calibrator.label
        result.probability = result.calibrated if result.calibrated is not None else result.pooled
        result.status = "completed"  # a valid trial is a submitted forecast (the loop's own, or a search board's)
        result.rationale = result.rationale or valid[0].rationale
        result.figure_source = "trials"

    def _anchors_only(self, result: ResearchResult, features: Features) -> None:
        """No valid trial: the calibrator's figure without an agent figure (what it learned from the anchors and the
        base rates), labelled as such; the status still says the run gave no valid trial. Without a calibrator
        there is no figure (never a silent 0.5)."""
        if self.calibrator is None:
            return
        result.calibrated = self.calibrator.apply(features)
        result.calibration = self.calibrator.label
        result.probability, result.figure_source = result.calibrated, "anchors"
        result.errors.append(f"no valid trial: the probability is {ANCHORS_ONLY}")

    def _result(
        self, run: RunResult, st: ResearchState, qid: str, row: dict[str, Any], before: str | None
    ) -> ResearchResult:
        status: Status = (
            "completed" if st.probability is not None else "invalid" if run.status == "completed" else run.status
        )
        return ResearchResult(
            question_id=qid,
            probability=st.probability,
            rationale=st.rationale,
            sources=list(st.board.sources),
            notes=st.board.notes,
            status=status,
            steps=run.steps,
            usage=run.usage,
            duration=run.duration,
            trajectory=Trajectory(
                [m.to_dict() for m in self.agent.current_run.memory.messages] if self.board == "loop" else [],
                list(self.events),
            ),
            question=str(row["question"]),
            before=before,
            row=row,
            errors=list(run.errors),
            ungrounded=list(st.ungrounded),
            model=self.model_id,
        )


FORECAST_STATE = (
    "raw",
    "pooled",
    "spread",
    "calibrated",
    "probability",
    "calibration",
    "figure_source",
    "anchors",
)  # what the "forecast" state event carries
ANCHORS_ONLY = "the calibrator's figure from the anchors and base rate alone"


def model_id(model: Model) -> str:
    """The name a calibrator is fitted for: ``local`` only for the embedded model (an OpenAI-compatible endpoint
    given without a model name is also called ``local``; it becomes ``local-endpoint``)."""
    from orrery.llm.local import LocalModel

    inner = getattr(model, "model", model)  # a batch's rate-limited wrapper
    return "local-endpoint" if model.name == "local" and not isinstance(inner, LocalModel) else model.name


def resolve_calibration(calibration: Calibrator | str | Path | None | bool, model: str) -> Calibrator | None:
    """None: the shipped calibrator for the embedded model (none for another model); False or "none": none;
    a path: that file, refused in one line when it was fitted for another model."""
    if calibration is False or calibration == "none":
        return None
    if calibration is None or calibration is True:
        return load_calibrator(SHIPPED_CALIBRATION) if model == "local" and SHIPPED_CALIBRATION.exists() else None
    if isinstance(calibration, Calibrator):
        calibration.check_model(model)
        return calibration
    return load_calibrator(calibration, model)


@functools.cache
def shipped_history() -> SeriesHistory:
    """The shipped question sets as a series history (read once a process: a batch builds an agent a question)."""
    return SeriesHistory(load_questions())


def memory_dict(memory: SeriesMemory) -> dict[str, Any]:
    """The recalled history as the trajectory keeps it."""
    return {
        "values": [[d.isoformat(), v] for d, v in memory.values],
        "outcomes": [[a.isoformat(), b.isoformat(), y] for a, b, y in memory.outcomes],
    }


def date_bound(value: DateLike | None) -> datetime:
    """The run's date bound: the given one, or now. Never None, so what the prompt calls
    today is what every search is held to."""
    if value is None:
        return datetime.now(UTC)
    try:
        return to_utc(value)
    except ValueError as exc:
        raise DataError(f"date bound: {exc}") from None


def require_submit(_output: str, ctx: RunContext) -> str | None:
    """A validator: a prose reply instead of ``submit`` ends the run as ``no_submit`` (no retry, so
    ``max_rounds`` bounds the whole run; ``tool_choice="required"`` makes this rare)."""
    return None if ctx.deps.probability is not None else NOT_SUBMITTED
