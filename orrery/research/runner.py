"""Batch forecasting: many questions, worker threads or a Dask cluster, one shared rate limit,
one trajectory file per question, resumable, and a Brier summary.

Layout of ``out_dir``:

* ``<id>.json`` - the trajectory (:meth:`ResearchResult.to_dict`, top-level ``probability``),
  written atomically when the question ends, so a crash or Ctrl-C never leaves a torn file;
* ``<id>.trace.jsonl`` - the event trace (:class:`orrery.trace.TraceWriter`), restarted when a
  question is rerun;
* ``summary.json`` - per-question rows, status counts and the Brier summary.

A question is finished when its trajectory has a final status other than ``error`` (a
submitted forecast or a clean limit); :func:`run_batch` skips finished questions.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from orrery.errors import DataError
from orrery.files import read_text
from orrery.llm import resolve_model
from orrery.llm.base import Model, profile_of
from orrery.llm.scripted import ScriptedModel
from orrery.messages import Message, ModelResponse, ToolSpec
from orrery.research.agent import (
    ResearchAgent,
    ResearchResult,
    default_index,
    model_id,
    resolve_calibration,
    resolve_index,
)
from orrery.research.batch import (
    BrierSummary,
    RateLimiter,
    brier_summary,
    check_questions,
    load_trajectory,
    score_questions,
    trajectory_path,
    write_json_atomic,
)
from orrery.research.calibration import Calibrator
from orrery.research.search import SearchBackend

SUMMARY_FILE = "summary.json"
FIGURES = ("raw", "pooled", "calibrated")  # a trajectory's figures, from the loop's submit to the calibrated one
IndexLike = SearchBackend | str | Path
LlmLike = Model | str | None


class BatchCancelled(Exception):  # noqa: N818 - control flow: the batch was interrupted
    """Raised inside a worker's model call once the batch is stopping (Ctrl-C)."""


class RateLimitedModel:
    """A model whose every ``complete`` first takes a token from a limiter shared by all workers."""

    def __init__(self, model: Model, limiter: RateLimiter | None, stop: threading.Event | None = None):
        self.model, self.limiter, self.stop = model, limiter, stop
        self.name = model.name
        # The catalogue is passed on, so the embedded model keeps one prompt prefix across steps (its cache holds);
        # replies come whole from `complete`.
        self.profile = replace(profile_of(model), streams=False)

    def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] = (),
        *,
        tool_choice: str = "auto",
        schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        catalogue: Sequence[ToolSpec] | None = None,
    ) -> ModelResponse:
        if self.stop is not None and self.stop.is_set():
            raise BatchCancelled("the batch was interrupted")
        if self.limiter is not None:
            self.limiter.acquire()
        extra = {"catalogue": catalogue} if catalogue is not None and self.profile.takes_catalogue else {}
        return self.model.complete(
            messages, tools, tool_choice=tool_choice, schema=schema, max_tokens=max_tokens, **extra
        )


# --------------------------------------------------------------------------- indexes


def index_ref(index: IndexLike | None) -> IndexLike:
    """What to hand a worker: a path where there is one (a path travels; an open index may not)."""
    if index is None:
        return default_index()
    if isinstance(index, str | Path):
        return index
    path = getattr(index, "path", None)
    return path if isinstance(path, Path) else index


# --------------------------------------------------------------------------- one question


def is_finished(trajectory: Mapping[str, Any] | None) -> bool:
    return trajectory is not None and trajectory.get("status") not in (None, "error")


def trace_path(out_dir: Path, question_id: str) -> Path:
    return trajectory_path(out_dir, question_id).with_suffix(".trace.jsonl")


def run_question(
    row: Mapping[str, Any], out_dir: Path, llm: Model, index: IndexLike, agent_kwargs: Mapping[str, Any]
) -> dict[str, Any]:
    """Forecast one question row and write its trajectory; returns the trajectory."""
    trace = trace_path(out_dir, row["id"])
    trace.unlink(missing_ok=True)
    agent = ResearchAgent(llm, index, trace=trace, **agent_kwargs)
    result = agent.run(row, question_id=row["id"])
    trajectory = result.to_dict()
    write_json_atomic(trajectory_path(out_dir, row["id"]), trajectory)
    return trajectory


# --------------------------------------------------------------------------- the batch


@dataclass
class BatchResult:
    out_dir: Path
    ran: list[str]  # question ids run now
    skipped: list[str]  # already finished before this call
    summary: dict[str, Any]


def pending(questions: Sequence[Mapping[str, Any]], out_dir: Path) -> list[Mapping[str, Any]]:
    return [q for q in questions if not is_finished(load_trajectory(trajectory_path(out_dir, q["id"])))]


def output_dir(out: Path) -> Path:
    """``out`` as a writable folder (made if missing), checked before any work is done."""
    if out.exists() and not out.is_dir():
        raise DataError(f"--out {out} is a file; batch output is a folder: choose a folder path")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataError(f"cannot create the output folder {out}: {exc.strerror}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise DataError(f"the output folder {out} is not writable; choose another --out")
    return out


def check_not_foreign(rows: Sequence[Mapping[str, Any]], out: Path) -> None:
    """Refuse to run when a file the batch would write (a trajectory, a trace, summary.json) exists and
    was not written by a research batch: --out may be a folder of the user's own files."""
    from orrery.trace import is_trace

    def foreign(path: Path, ours: Callable[[dict[str, Any]], bool]) -> bool:
        if not path.exists():
            return False
        if not path.is_file():
            return True
        try:
            data = json.loads(read_text(path, what="output"))
        except json.JSONDecodeError:
            return False  # a torn write of ours (before writes were atomic): rerun it
        return not (isinstance(data, dict) and ours(data))

    found = []
    for q in rows:
        trajectory, trace = trajectory_path(out, q["id"]), trace_path(out, q["id"])
        if foreign(trajectory, lambda d, qid=q["id"]: d.get("question_id") == qid):
            found.append(trajectory)
        if trace.exists() and not is_trace(trace):
            found.append(trace)
    if foreign(out / SUMMARY_FILE, lambda d: {"questions", "statuses"} <= set(d)):
        found.append(out / SUMMARY_FILE)
    if found:
        shown = ", ".join(p.name for p in found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        raise DataError(
            f"--out {out} holds files a batch would replace that it did not write ({shown}); "
            "choose another folder (nothing was changed)"
        )


def remove_stale_temp_files(out_dir: Path) -> None:
    """Temp files left by a trajectory write that was killed (``orrery.files.write_atomic`` names them
    ``.<id>.json.<random>.tmp.json``; older versions ``.<id>.json.<random>.tmp``); nothing else is touched."""
    for pattern in (".*.json.*.tmp.json", ".*.json.*.tmp"):
        for tmp in out_dir.glob(pattern):
            tmp.unlink(missing_ok=True)


def run_batch(
    questions: Iterable[Mapping[str, Any]],
    out_dir: str | Path,
    llm: LlmLike = None,
    *,
    workers: int = 4,
    rpm: float | None = None,
    index: IndexLike | None = None,
    client: Any = None,
    limit: int | None = None,
    progress: bool = True,
    console: Console | None = None,
    skip_invalid: bool = False,
    **agent_kwargs: Any,
) -> BatchResult:
    """Forecast every question not finished yet in ``out_dir``; then summarise all of them.

    ``workers`` threads share one model and one ``rpm`` limit. With ``client`` (a
    ``distributed.Client``) each question is one Dask task instead. ``agent_kwargs`` go to
    :class:`ResearchAgent` (``max_rounds``, ``wall_time``...). Every row is checked first
    (:func:`check_questions`): a bad row stops the batch before any model call, unless
    ``skip_invalid``, which runs the good rows only."""
    rows, _ = check_questions(enumerate(questions, 1), skip_invalid=skip_invalid)
    rows = rows[:limit]
    agent_kwargs = {**agent_kwargs, "calibration": batch_calibration(agent_kwargs.get("calibration"), llm)}
    out = output_dir(Path(out_dir))
    check_not_foreign(rows, out)
    remove_stale_temp_files(out)
    todo = pending(rows, out)
    console = console or Console(stderr=True)
    with Progress(
        TextColumn("[bold]forecasting"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
        disable=not progress,
    ) as bar:
        task = bar.add_task("", total=len(todo))

        def done(traj: Mapping[str, Any]) -> None:
            p = traj.get("probability")
            bar.update(
                task,
                advance=1,
                description=f"{traj['question_id'][:40]} -> {traj['status']}" + ("" if p is None else f" p={p:.2f}"),
            )

        if client is not None:
            run_dask(client, todo, out, llm, index_ref(index), rpm, agent_kwargs, done)
        else:
            run_threads(todo, out, llm, index_ref(index), workers, rpm, agent_kwargs, done)
    summary = summarize(rows, out)
    write_json_atomic(out / SUMMARY_FILE, summary)
    if progress:
        console.print(summary_table(summary))
    ids = {q["id"] for q in todo}
    return BatchResult(out, [q["id"] for q in todo], [q["id"] for q in rows if q["id"] not in ids], summary)


def batch_calibration(calibration: Any, llm: LlmLike) -> Calibrator | bool:
    """The calibrator every question of the batch gets, checked against the model before any work (False: none)."""
    model = llm if llm is not None and not isinstance(llm, str) else resolve_model(llm)
    return resolve_calibration(calibration, model_id(model)) or False


def run_threads(
    todo: Sequence[Mapping[str, Any]],
    out: Path,
    llm: LlmLike,
    index: IndexLike,
    workers: int,
    rpm: float | None,
    agent_kwargs: Mapping[str, Any],
    done: Callable[[Mapping[str, Any]], None],
) -> None:
    """Worker threads over one shared model, index and limiter; Ctrl-C stops cleanly."""
    stop = threading.Event()
    model = RateLimitedModel(resolve_model(llm), RateLimiter(rpm) if rpm else None, stop)
    shared_index = resolve_index(index)
    pool = ThreadPoolExecutor(max(1, workers), thread_name_prefix="orrery-research")
    futures = [pool.submit(run_question, q, out, model, shared_index, agent_kwargs) for q in todo]
    try:
        for f in as_completed(futures):
            done(f.result())
    except BaseException:
        stop.set()  # running questions stop at their next model call; their files are not written
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()


# --------------------------------------------------------------------------- Dask

_WORKER_LIMITERS: dict[str, RateLimiter] = {}
_WORKER_INDEXES: dict[str, SearchBackend] = {}
_WORKER_MODELS: dict[str, Model] = {}
_IN_PROCESS: dict[str, Any] = {}  # objects handed to in-process Dask workers by reference
_WORKER_LOCK = threading.Lock()


@dataclass(frozen=True)
class InProcess:
    """A picklable reference to an object that cannot travel (a model holding a lock, an open
    index): it resolves only on workers in this process (``LocalCluster(processes=False)``)."""

    key: str

    def get(self) -> Any:
        if self.key not in _IN_PROCESS:
            raise LookupError(
                "this Dask worker runs in another process: pass llm as a spec string (e.g. 'local') and index as a path"
            )
        return _IN_PROCESS[self.key]


def by_reference(obj: Any, token: str, name: str) -> Any:
    """Strings, paths and None travel as they are; other objects by an :class:`InProcess` key."""
    if obj is None or isinstance(obj, str | Path):
        return obj
    _IN_PROCESS[f"{token}/{name}"] = obj
    return InProcess(f"{token}/{name}")


def _worker_limiter(token: str, rpm: float | None) -> RateLimiter | None:
    """One limiter per batch per worker process (shared by every task in that process)."""
    if not rpm:
        return None
    with _WORKER_LOCK:
        return _WORKER_LIMITERS.setdefault(token, RateLimiter(rpm))


def _worker_index(index: IndexLike | InProcess) -> SearchBackend:
    if isinstance(index, InProcess):
        return index.get()
    with _WORKER_LOCK:
        if str(index) not in _WORKER_INDEXES:
            _WORKER_INDEXES[str(index)] = resolve_index(index)
        return _WORKER_INDEXES[str(index)]


def _worker_model(llm: str | None | InProcess) -> Model:
    if isinstance(llm, InProcess):
        return llm.get()
    with _WORKER_LOCK:
        if (llm or "") not in _WORKER_MODELS:
            _WORKER_MODELS[llm or ""] = resolve_model(llm)
        return _WORKER_MODELS[llm or ""]


def dask_task(
    row: Mapping[str, Any],
    out_dir: str,
    llm: str | None | InProcess,
    index: IndexLike | InProcess,
    rpm: float | None,
    token: str,
    agent_kwargs: Mapping[str, Any],
) -> dict[str, Any]:
    """One question on a Dask worker: the model, index and limiter are per worker process."""
    model = RateLimitedModel(_worker_model(llm), _worker_limiter(token, rpm))
    return run_question(row, Path(out_dir), model, _worker_index(index), agent_kwargs)


def run_dask(
    client: Any,
    todo: Sequence[Mapping[str, Any]],
    out: Path,
    llm: LlmLike,
    index: IndexLike,
    rpm: float | None,
    agent_kwargs: Mapping[str, Any],
    done: Callable[[Mapping[str, Any]], None],
) -> None:
    """One Dask task per question. On a multi-process cluster pass ``llm`` as a spec string and
    ``index`` as a path; the ``rpm`` limit then holds per worker process."""
    from distributed import as_completed as dask_completed

    token = uuid.uuid4().hex
    llm_ref, index_ref_ = by_reference(llm, token, "llm"), by_reference(index, token, "index")
    futures: list[Future] = [
        client.submit(
            dask_task,
            dict(q),
            str(out),
            llm_ref,
            index_ref_,
            rpm,
            token,
            dict(agent_kwargs),
            key=f"research-{token[:8]}-{i}",
            pure=False,
        )
        for i, q in enumerate(todo)
    ]
    try:
        for f in dask_completed(futures):
            done(f.result())
    except BaseException:
        client.cancel(futures)
        raise
    finally:
        _IN_PROCESS.pop(f"{token}/llm", None)
        _IN_PROCESS.pop(f"{token}/index", None)


# --------------------------------------------------------------------------- summary


def market_value(row: Mapping[str, Any]) -> float | None:
    v = row.get("market_value")
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def summary_rows(questions: Sequence[Mapping[str, Any]], out: Path) -> list[dict[str, Any]]:
    rows = []
    for q in questions:
        traj = load_trajectory(trajectory_path(out, q["id"])) or {}
        rows.append(
            {
                "id": q["id"],
                "status": traj.get("status", "pending"),
                "probability": traj.get("probability"),
                "resolution": q.get("resolution"),
                "market_value": market_value(q),
                "steps": traj.get("steps"),
                "seconds": traj.get("duration"),
                "figure_source": traj.get("figure_source"),
                **{f: traj.get(f) for f in FIGURES},
            }
        )
    return rows


def summarize(questions: Sequence[Mapping[str, Any]], out: Path) -> dict[str, Any]:
    """Status counts, seconds per question and, for resolved questions, the Brier summary."""
    rows = summary_rows(questions, out)
    statuses: dict[str, int] = {}
    for r in rows:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    forecasts = {r["id"]: r["probability"] for r in rows if r["probability"] is not None}
    scored = score_questions([{**q, "market_value": market_value(q)} for q in questions], forecasts)
    seconds = [r["seconds"] for r in rows if r["seconds"] is not None]
    by_figure = {}  # the same questions scored on each figure the trajectories hold
    for f in FIGURES:
        figure = {r["id"]: r[f] for r in rows if r["probability"] is not None and r[f] is not None}
        if len(figure) == len(forecasts) and (fs := score_questions(questions, figure)):
            by_figure[f] = brier_summary(fs).brier
    sources = {str(s): sum(r["figure_source"] == s for r in rows) for s in {r["figure_source"] for r in rows}}
    return {
        "questions": len(rows),
        "statuses": statuses,
        "figure_sources": sources,
        "seconds_per_question": sum(seconds) / len(seconds) if seconds else None,
        "brier": brier_summary(scored).to_dict() if scored else None,
        "brier_by_figure": by_figure,
        "rows": rows,
    }


def _fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.4f}"


def summary_table(summary: Mapping[str, Any]) -> Table:
    anchors = (summary.get("figure_sources") or {}).get("anchors")
    table = Table(
        title=f"{summary['questions']} questions · "
        + ", ".join(f"{k}: {v}" for k, v in sorted(summary["statuses"].items()))
        + (f" · {anchors} figure(s) from the anchors and base rate alone" if anchors else "")
    )
    table.add_column("forecaster")
    table.add_column("questions", justify="right")
    table.add_column("Brier (lower is better)", justify="right")
    b = summary["brier"]
    if b is None:
        table.add_row("agent", "0", "no resolved questions")
        return table
    s = BrierSummary(**b)
    table.add_row("agent", str(s.n), _fmt(s.brier))
    table.add_row("always 0.5", str(s.n), _fmt(s.always_half))
    table.add_row("agent (market subset)", str(s.n_market), _fmt(s.brier_on_market))
    table.add_row("market value", str(s.n_market), _fmt(s.market))
    return table


# --------------------------------------------------------------------------- replay


def replay_trajectory(
    trajectory: Mapping[str, Any] | str | Path, index: IndexLike, **agent_kwargs: Any
) -> ResearchResult:
    """Re-run a saved trajectory with its recorded model replies against ``index``."""
    traj = load_trajectory(Path(trajectory)) if isinstance(trajectory, str | Path) else trajectory
    if traj is None:
        raise DataError(f"{trajectory} is not a readable trajectory; give a .json file written by a research run")
    replies = [
        ModelResponse.from_dict(e["response"]) for e in traj["trajectory"]["events"] if e["kind"] == "model_reply"
    ]
    agent = ResearchAgent(ScriptedModel(replies), index, **agent_kwargs)
    return agent.run(traj["row"], before=traj.get("before"), question_id=traj["question_id"])
