"""`orrery markets`: ask a question (live steps), list the symbols, import CSV/Parquet files, fetch prices
from an HTTP provider (only with --provider-url or ORRERY_MARKETS_URL)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(name="markets", no_args_is_help=True, add_completion=False,
                  help="Market analysis on the local price store: ask, symbols, import, fetch.")
console = Console()
KIND = Annotated[str, typer.Option(help="stock | index | etf | crypto")]
EXCHANGE = Annotated[str, typer.Option(help="exchange label, e.g. NASDAQ")]
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
            kind: KIND = "stock", exchange: EXCHANGE = "OTHER", store: STORE = None) -> None:
    """Add symbols from files: every row is checked first; any bad row refuses the whole import."""
    from orrery.markets.store import Store

    _check_kind(kind)
    s = Store(store)
    _report(s, s.import_files(files, kind=kind, exchange=exchange.upper()))


@app.command()
def fetch(symbols: Annotated[list[str], typer.Argument(help="symbols not yet in the store, e.g. TSLA NVDA")],
          provider_url: Annotated[str | None, typer.Option("--provider-url", help="Base URL of the price "
                                  "provider (or ORRERY_MARKETS_URL); see orrery/markets/provider.py")] = None,
          kind: KIND = "stock", exchange: EXCHANGE = "OTHER",
          retries: Annotated[int, typer.Option(help="Retries on 429/5xx/network errors")] = 2,
          timeout: Annotated[float, typer.Option(help="Seconds per request")] = 10.0,
          store: STORE = None) -> None:
    """Download daily prices from an HTTP provider (off unless you give its URL); all symbols or none are added."""
    from orrery.markets import provider as p
    from orrery.markets.store import Store

    _check_kind(kind)
    source = p.HttpProvider(p.provider_url(provider_url), timeout=timeout, max_retries=retries)
    s = Store(store)
    _report(s, p.fetch(s, symbols, source, kind=kind, exchange=exchange.upper()))


def _check_kind(kind: str) -> None:
    from orrery.errors import DataError

    if kind not in ("stock", "index", "etf", "crypto"):
        raise DataError(f"--kind {kind!r}: use stock, index, etf or crypto")


def _report(s, added: list[str]) -> None:
    console.print(f"imported {', '.join(f'{a} ({s.symbols[a].first} to {s.symbols[a].last})' for a in added)}")
