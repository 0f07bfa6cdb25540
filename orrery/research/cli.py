"""`orrery research`: build an index, ask one question with the live step view, run a batch.

Registered in ``orrery/cli.py`` with ``app.add_typer(research_app, name="research")``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

app = typer.Typer(name="research", no_args_is_help=True, add_completion=False,
                  help="Judgmental forecasting: 'Will X happen by D?' -> a probability with cited sources.")
console = Console()
LLM = Annotated[str | None, typer.Option("--llm", help="local | openai:MODEL | ollama:MODEL | http://host:port/v1")]
INDEX = Annotated[Path | None, typer.Option("--index", help="An index from `orrery research index` "
                                                              "(default: the shipped ForecastBench demo corpus)")]
STEPS = Annotated[int, typer.Option("--steps", help="Step limit (one tool call per step)")]


@app.command()
def index(src: Annotated[list[Path], typer.Argument(help="JSONL, Markdown or HTML files or folders")],
          out: Annotated[Path, typer.Option("--out", help="The index: a file (sqlite) or a folder (tantivy)")],
          backend: Annotated[str, typer.Option(help="sqlite | tantivy")] = "sqlite",
          mtime_dates: Annotated[bool, typer.Option(help="Date undated Markdown/HTML by file mtime")] = False) -> None:
    """Build a dated search index from documents."""
    from orrery.research.search import build_index

    built = build_index(src, out, backend=backend, mtime_dates=mtime_dates)
    console.print(f"indexed {len(built):,} documents into {out} ({backend})")


@app.command()
def ask(question: str, index: INDEX = None, before: Annotated[str | None, typer.Option(
            "--before", help="Date bound (YYYY-MM-DD): no document after it is searched")] = None,
        llm: LLM = None, steps: STEPS = 12,
        wall_time: Annotated[float | None, typer.Option(help="Seconds before the run stops")] = None,
        out: Annotated[Path | None, typer.Option("--out", help="Save the trajectory JSON here "
                                                                 "(and the event trace beside it)")] = None) -> None:
    """Forecast one question, showing each step live."""
    from orrery.console import ConsoleView
    from orrery.research.agent import ResearchAgent
    from orrery.research.batch import write_json_atomic

    trace = None if out is None else out.with_suffix(".trace.jsonl")
    agent = ResearchAgent(llm, index, max_steps=steps, wall_time=wall_time,
                          on_event=[ConsoleView()], trace=trace)
    result = agent.run(question, before=before)
    if out is not None:
        write_json_atomic(out, result.to_dict())
    p = "-" if result.probability is None else f"{result.probability:.3f}"
    console.print(f"[bold]{result.status}[/] probability {p} · {result.steps} steps · "
                  f"{result.usage.total} tokens · {result.duration:.1f}s")
    for n, s in enumerate(result.sources, 1):
        console.print(f"  [{n}] {s.title} ({s.date or 'undated'}) - {s.why}")


@app.command()
def batch(questions: Annotated[Path, typer.Argument(help="Question rows (JSONL: id, question, freeze_date, "
                                                          "optionally resolution and market_value)")],
          out: Annotated[Path, typer.Option("--out", help="Folder for trajectories and summary.json")],
          workers: Annotated[int, typer.Option(help="Worker threads")] = 4,
          rpm: Annotated[float | None, typer.Option(help="Model requests per minute, shared by all workers")] = None,
          llm: LLM = None, index: INDEX = None,
          limit: Annotated[int | None, typer.Option(help="Only the first N questions")] = None,
          scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address (e.g. tcp://host:8786)")] = None,
          steps: STEPS = 12) -> None:
    """Forecast many questions (resumable: finished questions in --out are skipped)."""
    from orrery.research.runner import run_batch

    rows = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    if scheduler is None:
        run_batch(rows, out, llm, workers=workers, rpm=rpm, index=index, limit=limit, max_steps=steps)
        return
    from distributed import Client

    with Client(scheduler) as client:
        run_batch(rows, out, llm, workers=workers, rpm=rpm, index=index, limit=limit, client=client,
                  max_steps=steps)
