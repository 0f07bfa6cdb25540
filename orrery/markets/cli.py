"""`orrery markets`: ask a question (live steps), list the symbols, import CSV/Parquet files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(name="markets", no_args_is_help=True, add_completion=False,
                  help="Market analysis on the local price store: ask, symbols, import.")
console = Console()
STORE = Annotated[Path | None, typer.Option("--store", help="Store folder (default ~/.cache/orrery/markets)")]


@app.command()
def ask(query: str,
        llm: Annotated[str | None, typer.Option("--llm", help="local | openai:MODEL | ollama:MODEL | URL")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON (no live steps)")] = False,
        store: STORE = None) -> None:
    """Answer a question about the market data, showing each step live."""
    from orrery.console import ConsoleView
    from orrery.markets.agent import markets_agent

    agent = markets_agent(llm, store_dir=store, on_event=[] if as_json else [ConsoleView()])
    result = agent.run(query)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), default=str, indent=2))
    else:
        console.print(f"[bold]{result.status}[/] · route {', '.join(result.route.selected_tools) if result.route else '-'}"
                      f" ({result.route_source}) · {result.usage.total} tokens · {result.duration:.1f}s")
    if result.status not in ("completed", "paused"):
        raise typer.Exit(1)


@app.command()
def symbols(store: STORE = None) -> None:
    """List the symbols in the store with their date ranges."""
    from orrery.markets.store import Store

    s = Store(store)
    table = Table("symbol", "name", "kind", "exchange", "first", "last", "rows", title=f"market data in {s.root}")
    for sym in s.symbols.values():
        table.add_row(sym.symbol, sym.name, sym.kind, sym.exchange, sym.first, sym.last, f"{sym.rows:,}")
    console.print(table)


@app.command("import")
def import_(files: Annotated[list[Path], typer.Argument(help="CSV or Parquet: symbol, date, open, high, low, "
                                                             "close, volume (adj_close optional)")],
            kind: Annotated[str, typer.Option(help="stock | index | etf")] = "stock",
            exchange: Annotated[str, typer.Option(help="exchange label, e.g. NASDAQ")] = "OTHER",
            store: STORE = None) -> None:
    """Add symbols from files: every row is checked first; any bad row refuses the whole import."""
    from orrery.errors import DataError
    from orrery.markets.store import Store

    if kind not in ("stock", "index", "etf"):
        raise DataError(f"--kind {kind!r}: use stock, index or etf")
    s = Store(store)
    added = s.import_files(files, kind=kind, exchange=exchange.upper())
    console.print(f"imported {', '.join(f'{a} ({s.symbols[a].first} to {s.symbols[a].last})' for a in added)}")
