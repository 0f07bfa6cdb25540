"""`orrery forecast FILE` and `orrery demo`."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from orrery import events as ev
from orrery.errors import ConfigError, OrreryError
from orrery.files import write_atomic

if TYPE_CHECKING:  # the forecasting stack (statsforecast) loads only when a command runs
    from orrery.forecast.result import ForecastResult

SAMPLE = Path(__file__).parent / "samples" / "air_passengers.csv"
WORKFLOW_STEPS = 5  # features, CV, forecast, anomalies, the written analysis
OUT_FORMATS = (".json", ".html", ".htm", ".png")
INTERRUPTED = 130  # the shell's code for a run stopped by Ctrl-C

console = Console()


class AnalysisFailed(OrreryError):
    """The agent stopped without forecasts (the report, if asked for, was still written): a failed run."""

    exit_code = 1


class ProgressView:
    """A progress bar over the workflow, and one over series while a panel is fitted (its Progress events)."""

    def __init__(self, progress: Progress, n_series: int):
        self.progress, self.n_series = progress, n_series
        self.task = progress.add_task("starting", total=WORKFLOW_STEPS)
        self.series: dict[str, int] = {}

    def __call__(self, event: ev.Event) -> None:
        match event:
            case ev.ToolCallEvent(call=call):
                models = call.arguments.get("models")
                what = f" ({len(models) + 1} models x {self.n_series} series)" if models else ""
                self.progress.update(self.task, description=f"{call.name}{what}")
            case ev.ToolResultEvent(ok=True):
                self.progress.advance(self.task)
            case ev.ModelCall(tools=[]):
                self.progress.update(self.task, description="writing the analysis")
            case ev.Retry(attempt=a):
                self.progress.update(self.task, description=f"retry {a}", completed=1)
            case ev.Progress(label=label, done=done, total=total):  # series done in a stage of a panel fit
                if label not in self.series:
                    self.series[label] = self.progress.add_task(f"  {label}", total=total)
                self.progress.update(self.series[label], completed=done, total=total)
            case ev.Final():
                self.progress.update(self.task, completed=WORKFLOW_STEPS, description="done")


def check_outputs(outs: list[Path], overwrite: bool) -> None:
    """Refuse, before any work, an --out that cannot be written: unknown format, a folder, an existing file,
    or a folder without write permission."""
    for out in outs:
        if out.suffix.lower() not in OUT_FORMATS:
            raise ConfigError(
                f"--out {out}: unknown format {out.suffix or '(none)'!r}; use a .json, .html or .png file name"
            )
        if out.is_dir():
            raise ConfigError(f"--out {out} is a folder; name a file in it, e.g. {out / ('report' + '.json')}")
        if out.exists() and not overwrite:
            raise ConfigError(f"--out {out} exists; pass --overwrite to replace it, or name a new file")
        parent = next(p for p in [out.parent, *out.parent.parents] if p.exists())
        if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            raise ConfigError(f"--out {out}: cannot write in {parent}; choose a writable folder")


def write_outputs(result: ForecastResult, outs: list[Path]) -> None:
    """Each file is written beside its target and renamed over it, so a failure never leaves half a report."""
    for out in outs:
        if out.suffix.lower() == ".json":
            write_atomic(out, result.to_json())
        elif out.suffix.lower() == ".png":
            write_atomic(out, result.plot)
        else:
            write_atomic(
                out, f"<!doctype html><meta charset='utf-8'><title>orrery forecast</title>{result._repr_html_()}"
            )
        console.print(f"wrote {out}")


SCHEDULER_WAIT_S = 10  # to reach the scheduler and see a first worker


@contextmanager
def dask_client(scheduler: str | None) -> Iterator[Any]:
    """A distributed.Client on `scheduler` (None: no cluster), refused in one line when the address is not a
    Dask one or no worker shows up within SCHEDULER_WAIT_S."""
    if scheduler is None:
        yield None
        return
    if not re.fullmatch(r"(tcp|tls|ucx|ws|wss)://[\w.\-\[\]:]+", scheduler):
        raise ConfigError(f"--scheduler {scheduler!r} is not a Dask scheduler address; e.g. tcp://host:8786")
    from distributed import Client

    from orrery.forecast.plan import ClusterError

    try:
        client = Client(scheduler, timeout=f"{SCHEDULER_WAIT_S}s", set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {scheduler} ({type(exc).__name__}); start it "
            "(dask scheduler) or check the address"
        ) from None
    with client:
        try:
            client.wait_for_workers(1, timeout=SCHEDULER_WAIT_S)
        except TimeoutError:
            raise ClusterError(
                f"the Dask scheduler at {scheduler} has no worker; start one (dask worker {scheduler})"
            ) from None
        yield client


def run_forecast(
    data: str | Path,
    *,
    h: int | None,
    m: int | None,
    date: str | None,
    target: str | None,
    groupby: list[str] | None,
    model: str | None,
    query: list[str] | None,
    outs: list[Path],
    verbose: bool,
    n_jobs: int,
    overwrite: bool = False,
    scheduler: str | None = None,
) -> ForecastResult:
    check_outputs(outs, overwrite)
    from orrery.forecast.agent import ForecastAgent
    from orrery.forecast.data import load

    series = load(data, date=date, target=target, groupby=groupby or None, m=m, h=h)
    try:
        with (
            dask_client(scheduler) as client,
            Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
                disable=verbose,
            ) as progress,
        ):
            view = ProgressView(progress, len(series.ids))
            agent = ForecastAgent(model, verbose=verbose, n_jobs=n_jobs, client=client, on_event=[view])
            result = agent.analyze(series, query=query[0] if query else None)
        console.print(result.summary())
        for q in (query or [])[1:]:
            console.print(f"[bold]> {q}[/]")
            console.print(agent.query(q))
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]: nothing was written")
        raise typer.Exit(INTERRUPTED) from None
    write_outputs(result, outs)
    if result.forecasts.empty or result.status not in ("completed", "invalid"):
        raise AnalysisFailed(
            f"the analysis stopped ({result.status}) without a forecast for every series: "
            f"{'; '.join(result.warnings[-1:]) or 'see the report'}"
        )
    return result


def forecast(
    file: Path,
    h: Annotated[int | None, typer.Option(help="forecast horizon (default 2*m)")] = None,
    m: Annotated[int | None, typer.Option(help="seasonal period (default: from the frequency)")] = None,
    date: Annotated[str | None, typer.Option(help="date column (default 'date')")] = None,
    target: Annotated[str | None, typer.Option(help="target column (default 'value')")] = None,
    groupby: Annotated[list[str] | None, typer.Option(help="id column(s) of a panel")] = None,
    model: Annotated[str | None, typer.Option(help="local | openai:MODEL | ollama:MODEL | URL")] = None,
    llm: Annotated[str | None, typer.Option(hidden=True, help="The old name of --model")] = None,
    query: Annotated[list[str] | None, typer.Option(help="the request; repeat for follow-ups")] = None,
    out: Annotated[list[Path] | None, typer.Option(help="report.json | report.html | plot.png")] = None,
    overwrite: Annotated[bool, typer.Option(help="replace --out files that exist")] = False,
    verbose: Annotated[bool, typer.Option(help="show every step")] = False,
    n_jobs: Annotated[int, typer.Option(help="processes for panels (-1: all cores)")] = 1,
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address (e.g. tcp://host:8786): fit the panel on that cluster")
    ] = None,
) -> None:
    """Forecast a CSV or Parquet file with the forecasting agent."""
    run_forecast(
        file,
        h=h,
        m=m,
        date=date,
        target=target,
        groupby=groupby,
        model=model or llm,
        query=query,
        outs=out or [],
        verbose=verbose,
        n_jobs=n_jobs,
        overwrite=overwrite,
        scheduler=scheduler,
    )


DEMO_DIR = Path("orrery-demo")


def demo(
    model: Annotated[str | None, typer.Option(help="default: the embedded local model")] = None,
    llm: Annotated[str | None, typer.Option(hidden=True, help="The old name of --model")] = None,
    out_dir: Annotated[Path, typer.Option(help="where the report, page and plot go")] = DEMO_DIR,
    overwrite: Annotated[bool, typer.Option(help="replace files of that name in --out-dir")] = False,
    verbose: Annotated[bool, typer.Option(help="show every step")] = True,
) -> None:
    """The forecasting agent on bundled monthly airline passengers (1949-1960), offline."""
    console.print(
        f"[bold]orrery demo[/]: forecasting {SAMPLE.name} with "
        f"{model or llm or 'the embedded local model (first run prepares it, about 490 MB)'}"
    )
    run_forecast(
        SAMPLE,
        h=None,
        m=None,
        date=None,
        target=None,
        groupby=None,
        model=model or llm,
        query=["Forecast the next two years of passengers and explain the result."],
        outs=[out_dir / "report.json", out_dir / "report.html", out_dir / "forecast.png"],
        verbose=verbose,
        n_jobs=1,
        overwrite=overwrite or out_dir == DEMO_DIR,
    )  # its own folder: a rerun replaces its files
