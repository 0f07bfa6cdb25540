"""`orrery research`: build an index, ask one question with the live step view, run a batch.

Registered in ``orrery/cli.py`` with ``app.add_typer(research_app, name="research")``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.text import Text

from orrery.errors import DataError

app = typer.Typer(
    name="research",
    no_args_is_help=True,
    add_completion=False,
    help="Judgmental forecasting: 'Will X happen by D?' -> a probability with cited sources.",
)
console = Console()
LLM = Annotated[str | None, typer.Option("--llm", help="local | openai:MODEL | ollama:MODEL | http://host:port/v1")]
INDEX = Annotated[
    Path | None,
    typer.Option(
        "--index", help="An index from `orrery research index` (default: the shipped ForecastBench demo corpus)"
    ),
]
STEPS = Annotated[int, typer.Option("--steps", min=1, help="Step limit (one tool call per step)")]
TRIALS = Annotated[
    int,
    typer.Option(
        "--trials",
        min=1,
        max=5,
        help="Submit samples pooled per question (on one board). Default 1: after calibration a second trial bought "
        "less than 0.005 Brier on the bench, for a quarter to a third more time a question",
    ),
]
BOARD = Annotated[
    str | None,
    typer.Option(
        "--board",
        help="Who builds the board: 'loop' (the agent searches and "
        "picks) or 'search' (the search for the question alone, "
        "cheaper; default for the embedded model)",
    ),
]
CALIBRATION = Annotated[
    str | None,
    typer.Option(
        "--calibration",
        help="A calibrator file from `orrery research calibrate`, or 'none' (default: the shipped "
        "one for the embedded model, none for other models)",
    ),
]


@app.command()
def index(
    src: Annotated[list[Path], typer.Argument(help="JSONL, Markdown or HTML files or folders")],
    out: Annotated[Path, typer.Option("--out", help="The index: a file (sqlite) or a folder (tantivy)")],
    backend: Annotated[str, typer.Option(help="sqlite | tantivy")] = "sqlite",
    mtime_dates: Annotated[bool, typer.Option(help="Date undated Markdown/HTML by file mtime")] = False,
) -> None:
    """Build a dated search index from documents."""
    from orrery.research.search import build_index

    built = build_index(src, out, backend=backend, mtime_dates=mtime_dates)
    console.print(f"indexed {len(built):,} documents into {out} ({backend})")


@app.command()
def ask(
    question: str,
    index: INDEX = None,
    before: Annotated[
        str | None,
        typer.Option("--before", help="Date bound (YYYY-MM-DD): no document after it is searched (default: now)"),
    ] = None,
    llm: LLM = None,
    steps: STEPS = 12,
    trials: TRIALS = 1,
    calibration: CALIBRATION = None,
    board: BOARD = None,
    wall_time: Annotated[float | None, typer.Option(min=0.0, help="Seconds before the run stops")] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Save the trajectory JSON here (and the event trace beside it)")
    ] = None,
) -> None:
    """Forecast one question, showing each step live. Exits 1 when the run ends without a forecast."""
    from orrery.console import ConsoleView
    from orrery.research.agent import ResearchAgent, date_bound
    from orrery.research.batch import write_json_atomic

    bound = date_bound(before)  # a bad --before fails here, before any work
    trace = None if out is None else check_outputs(out)
    agent = ResearchAgent(
        llm,
        index,
        max_rounds=steps,
        wall_time=wall_time,
        trials=trials,
        calibration=calibration,
        board=board,
        on_event=[ConsoleView()],
        trace=trace,
    )
    result = agent.run(question, before=bound)
    if out is not None:
        write_json_atomic(out, result.to_dict())
    p = "-" if result.probability is None else f"{result.probability:.3f}"
    console.print(
        f"[bold]{result.status}[/] probability {p} · {result.steps} steps · "
        f"{result.usage.total} tokens · {result.duration:.1f}s"
    )
    if result.pooled is not None:
        console.print(figures_line(result))
    if result.figure_source == "anchors":
        console.print(f"  {result.errors[-1]} ({result.calibration})")
    for n, s in enumerate(result.sources, 1):
        console.print(f"  [{n}] {s.title} ({s.date or 'undated'}) - {s.why}")
    if result.status == "error":
        fail(f"the run failed: {'; '.join(result.errors) or 'unknown'}")
    if not result.submitted:  # the command's answer is a probability: a run without one failed
        fail(
            f"no forecast: the run ended with status {result.status}"
            + (f" ({result.errors[-1]})" if result.errors else "")
            + "; raise --steps or --wall-time"
        )


def figures_line(result: Any) -> str:
    """raw (the loop's submit) -> pooled (with the trials' spread) -> calibrated, and any anchor."""
    raw = "-" if result.raw is None else f"{result.raw:.3f}"
    line = (
        f"  raw {raw} · pooled {result.pooled:.3f} over {sum(t['probability'] is not None for t in result.trials)}"
        f" of {len(result.trials)} trials (logit spread {result.spread:.2f})"
    )
    if result.calibrated is not None:
        line += f" · calibrated {result.calibrated:.3f} ({result.calibration})"
    market = (result.anchors or {}).get("market")
    return line + (f" · {market['label']} {market['probability']:.3f}" if market else "")


def fail(message: str) -> NoReturn:
    """A run that failed (not bad input): one line on stderr, exit 1."""
    Console(stderr=True).print(Text.assemble(("error: ", "bold red"), message), soft_wrap=True)
    raise typer.Exit(1)


def check_outputs(out: Path) -> Path:
    """Refuse an --out that cannot be written or would replace a file orrery did not write, before
    the run rather than after it. Returns the trace path beside it, emptied for this run."""
    from orrery.research.batch import load_trajectory
    from orrery.trace import is_trace

    if out.suffix != ".json":
        raise DataError(f"--out {out}: the trajectory is JSON; give a path ending in .json")
    parent = out.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise DataError(f"--out {out}: {parent} is not a writable folder; choose another path")
    if out.exists() and not {"question_id", "trajectory"} <= set(load_trajectory(out) or {}):
        raise DataError(f"--out {out} exists and is not a research trajectory; choose a new path (nothing was changed)")
    trace = out.with_suffix(".trace.jsonl")
    if trace.exists() and not is_trace(trace):
        raise DataError(f"{trace} (the trace beside --out) exists and is not an orrery trace; choose another --out")
    trace.unlink(missing_ok=True)  # the previous run's trace, replaced like its trajectory
    return trace


@app.command()
def batch(
    questions: Annotated[
        Path,
        typer.Argument(help="Question rows (JSONL: id, question, freeze_date, optionally resolution and market_value)"),
    ],
    out: Annotated[Path, typer.Option("--out", help="Folder for trajectories and summary.json")],
    workers: Annotated[int, typer.Option(min=1, help="Worker threads")] = 4,
    rpm: Annotated[
        float | None,
        typer.Option(min=0.0, help="Model requests per minute, shared by all workers (unset or 0: no limit)"),
    ] = None,
    llm: LLM = None,
    index: INDEX = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N questions")] = None,
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address (e.g. tcp://host:8786)")] = None,
    skip_invalid: Annotated[
        bool, typer.Option(help="Run the valid rows when some are bad (default: refuse the batch)")
    ] = False,
    steps: STEPS = 12,
    trials: TRIALS = 1,
    calibration: CALIBRATION = None,
    board: BOARD = None,
) -> None:
    """Forecast many questions (resumable: finished questions in --out are skipped).
    Every row is checked before the first model call; exits 1 when a question failed."""
    from orrery.research.batch import check_questions, read_question_file
    from orrery.research.runner import run_batch

    rows, bad = check_questions(*read_question_file(questions), skip_invalid=skip_invalid)
    for problem in bad:
        console.print(f"[yellow]skipped[/] {problem}")
    options = {
        "workers": workers,
        "rpm": rpm,
        "index": index,
        "limit": limit,
        "max_rounds": steps,
        "trials": trials,
        "calibration": calibration,
        "board": board,
    }
    if scheduler is None:
        result = run_batch(rows, out, llm, **options)
    else:
        from distributed import Client

        with Client(scheduler) as client:
            result = run_batch(rows, out, llm, client=client, **options)
    failed = result.summary["statuses"].get("error", 0)
    if failed:
        fail(f"{failed} question(s) failed; see their trajectories in {out}")


@app.command()
def calibrate(
    questions: Annotated[Path, typer.Argument(help="The batch's question rows (JSONL with resolution)")],
    runs: Annotated[Path, typer.Option("--runs", help="The batch's --out folder (its trajectories)")],
    out: Annotated[Path, typer.Option("--out", help="The calibrator file to write (JSON)")],
    overwrite: Annotated[bool, typer.Option(help="Replace an existing --out")] = False,
) -> None:
    """Fit a calibrator (Platt, isotonic or hierarchical Platt with per-source weights, whichever cross-validates
    better on its worst source, then overall) from a batch's forecasts and the questions' resolutions;
    `ask`/`batch --calibration FILE` apply it."""
    from orrery.research.batch import read_question_file
    from orrery.research.calibration import calibrate_runs

    if out.exists() and not overwrite:
        raise DataError(f"--out {out} exists; choose a new path or pass --overwrite (nothing was changed)")
    if not runs.is_dir():
        raise DataError(f"--runs {runs} is not a folder; give the --out folder of `orrery research batch`")
    numbered, problems = read_question_file(questions)
    if problems:
        raise DataError(f"{questions}: {problems[0]}; fix the question file")
    rows = [r for _, r in numbered if isinstance(r, dict) and "id" in r]
    calib = calibrate_runs(rows, runs)
    calib.save(out)
    cv, worst = calib.fitted_on["cv_brier"], calib.fitted_on["cv_worst_source"]
    console.print(
        f"{calib.label}: cross-validated Brier (worst source) "
        + ", ".join(f"{m} {cv[m]:.4f} ({worst[m]:.4f})" for m in cv)
        + f"; guard {calib.guard_rule}"
        + "".join(f", {s} keeps {g['keep']:g} of its departure" for s, g in sorted(calib.guard.items()))
        + f" -> {out}"
    )
