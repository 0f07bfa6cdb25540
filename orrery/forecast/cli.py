"""`orrery forecast FILE` and `orrery demo`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from orrery import events as ev

if TYPE_CHECKING:  # the forecasting stack (statsforecast) loads only when a command runs
    from orrery.forecast.result import ForecastResult

SAMPLE = Path(__file__).parent / "samples" / "air_passengers.csv"
WORKFLOW_STEPS = 5  # features, CV, forecast, anomalies, the written analysis

console = Console()


class ProgressView:
    """A progress bar over the workflow; the CV step names how many models x series it fits."""

    def __init__(self, progress: Progress, n_series: int):
        self.progress, self.n_series = progress, n_series
        self.task = progress.add_task("starting", total=WORKFLOW_STEPS)

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
            case ev.Final():
                self.progress.update(self.task, completed=WORKFLOW_STEPS, description="done")


def write_outputs(result: ForecastResult, outs: list[Path]) -> None:
    for out in outs:
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.suffix == ".json":
            result.to_json(out)
        elif out.suffix in (".html", ".htm"):
            out.write_text(f"<!doctype html><meta charset='utf-8'><title>orrery forecast</title>{result._repr_html_()}")
        elif out.suffix == ".png":
            result.plot(out)
        else:
            raise typer.BadParameter(f"--out {out}: use a .json, .html or .png file name")
        console.print(f"wrote {out}")


def run_forecast(data: str | Path, *, h: int | None, m: int | None, date: str | None, target: str | None,
                 groupby: list[str] | None, llm: str | None, query: list[str] | None, outs: list[Path],
                 verbose: bool, n_jobs: int) -> ForecastResult:
    from orrery.forecast.agent import ForecastAgent
    from orrery.forecast.data import load

    series = load(data, date=date, target=target, groupby=groupby or None, m=m, h=h)
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=verbose) as progress:
        agent = ForecastAgent(llm, verbose=verbose, n_jobs=n_jobs,
                              on_event=[ProgressView(progress, len(series.ids))])
        result = agent.analyze(series, query=query[0] if query else None)
    console.print(result)
    for q in (query or [])[1:]:
        console.print(f"[bold]> {q}[/]")
        console.print(agent.query(q))
    write_outputs(result, outs)
    return result


def forecast(file: Path, h: Annotated[int | None, typer.Option(help="forecast horizon (default 2*m)")] = None,
             m: Annotated[int | None, typer.Option(help="seasonal period (default: from the frequency)")] = None,
             date: Annotated[str | None, typer.Option(help="date column (default 'date')")] = None,
             target: Annotated[str | None, typer.Option(help="target column (default 'value')")] = None,
             groupby: Annotated[list[str] | None, typer.Option(help="id column(s) of a panel")] = None,
             llm: Annotated[str | None, typer.Option(help="local | openai:MODEL | ollama:MODEL | URL")] = None,
             query: Annotated[list[str] | None, typer.Option(help="the request; repeat for follow-ups")] = None,
             out: Annotated[list[Path] | None, typer.Option(help="report.json | report.html | plot.png")] = None,
             verbose: Annotated[bool, typer.Option(help="show every step")] = False,
             n_jobs: Annotated[int, typer.Option(help="processes for panels (-1: all cores)")] = 1) -> None:
    """Forecast a CSV or Parquet file with the forecasting agent."""
    run_forecast(file, h=h, m=m, date=date, target=target, groupby=groupby, llm=llm, query=query,
                 outs=out or [], verbose=verbose, n_jobs=n_jobs)


def demo(llm: Annotated[str | None, typer.Option(help="default: the embedded local model")] = None,
         out_dir: Annotated[Path, typer.Option(help="where the report, page and plot go")] = Path("orrery-demo"),
         verbose: Annotated[bool, typer.Option(help="show every step")] = True) -> None:
    """The forecasting agent on bundled monthly airline passengers (1949-1960), offline."""
    console.print(f"[bold]orrery demo[/]: forecasting {SAMPLE.name} with "
                  f"{llm or 'the embedded local model (first run prepares it, about 490 MB)'}")
    run_forecast(SAMPLE, h=None, m=None, date=None, target=None, groupby=None, llm=llm,
                 query=["Forecast the next two years of passengers and explain the result."],
                 outs=[out_dir / "report.json", out_dir / "report.html", out_dir / "forecast.png"],
                 verbose=verbose, n_jobs=1)
