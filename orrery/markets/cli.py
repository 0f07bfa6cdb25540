"""`orrery markets`: ask a question (live steps), list the symbols, import CSV/Parquet files, remove an imported
symbol, fetch prices from HTTP providers (only with --provider-url / ORRERY_MARKETS_URL or --provider fmp)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    name="markets",
    no_args_is_help=True,
    add_completion=False,
    help="Market analysis on the local price store: ask, symbols, import, remove, fetch.",
)
console = Console()
KIND = Annotated[str, typer.Option(help="stock | index | etf | crypto")]
EXCHANGE = Annotated[str, typer.Option(help="exchange label, e.g. NASDAQ")]
STORE = Annotated[Path | None, typer.Option("--store", help="Store folder (default ~/.cache/orrery/markets)")]


@app.command()
def ask(
    query: str,
    model: Annotated[str | None, typer.Option("--model", help="local | openai:MODEL | ollama:MODEL | URL")] = None,
    llm: Annotated[str | None, typer.Option("--llm", hidden=True, help="The old name of --model")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON (no live steps)")] = False,
    store: STORE = None,
) -> None:
    """Answer a question about the market data, showing each step live."""
    from orrery.console import ConsoleView
    from orrery.markets.agent import markets_agent

    agent = markets_agent(model or llm, store_dir=store, on_event=[] if as_json else [ConsoleView()])
    result = agent.run(query)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), default=str, indent=2))
    else:
        console.print(
            f"[bold]{result.status}[/] · route {', '.join(result.route.selected_tools) if result.route else '-'}"
            f" ({result.route_source}) · {result.usage.total} tokens · {result.duration:.1f}s"
        )
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
def import_(
    files: Annotated[
        list[Path],
        typer.Argument(help="CSV or Parquet: symbol, date, open, high, low, close, volume (adj_close optional)"),
    ],
    kind: KIND = "stock",
    exchange: EXCHANGE = "OTHER",
    store: STORE = None,
    max_mb: Annotated[
        float, typer.Option("--max-mb", min=0.001, help="Refuse a file larger than this before reading it")
    ] = 256.0,
) -> None:
    """Add symbols from files: every row is checked first; any bad row refuses the whole import."""
    from orrery.markets.store import Store

    _check_kind(kind)
    s = Store(store)
    _report(s, s.import_files(files, kind=kind, exchange=exchange.upper(), max_bytes=int(max_mb * 2**20)))


@app.command()
def remove(
    symbol: Annotated[str, typer.Argument(help="a symbol added with `import` or `fetch`")], store: STORE = None
) -> None:
    """Undo an import or fetch: take the symbol out of the store (the shipped symbols cannot be removed)."""
    from orrery.markets.store import Store

    gone = Store(store).remove(symbol)
    console.print(f"removed {gone.symbol} ({gone.rows:,} rows, {gone.first} to {gone.last}, from {gone.source})")


@app.command()
def fetch(
    symbols: Annotated[list[str], typer.Argument(help="symbols not yet in the store, e.g. TSLA NVDA")],
    provider_url: Annotated[
        list[str] | None,
        typer.Option(
            "--provider-url",
            help="Base URL of a price "
            "provider (or ORRERY_MARKETS_URL); repeat for a fallback chain, tried in order; "
            "see orrery/markets/provider.py",
        ),
    ] = None,
    provider: Annotated[
        list[str] | None,
        typer.Option("--provider", help="fmp: Financial Modeling Prep (key in FMP_API_KEY), tried before the URLs"),
    ] = None,
    kind: KIND = "stock",
    exchange: EXCHANGE = "OTHER",
    retries: Annotated[int, typer.Option(min=0, max=10, help="Retries on 429/5xx/network errors")] = 2,
    timeout: Annotated[float, typer.Option(min=0.1, help="Seconds one whole request may take (body included)")] = 10.0,
    max_mb: Annotated[float, typer.Option("--max-mb", min=0.001, help="Refuse a reply larger than this")] = 32.0,
    cache_hours: Annotated[
        float, typer.Option("--cache-hours", min=0, help="Reuse a provider's reply this recent (0: always ask)")
    ] = 12.0,
    store: STORE = None,
) -> None:
    """Download daily prices from HTTP providers (off unless you name one); all symbols or none are added."""
    from orrery.errors import ConfigError
    from orrery.markets import provider as p
    from orrery.markets.store import Store

    _check_kind(kind)
    bounds = {"timeout": timeout, "max_retries": retries, "max_bytes": int(max_mb * 2**20)}
    sources: list[p.PriceSource] = []
    for name in provider or []:
        if name.lower() != "fmp":
            raise ConfigError(f"--provider {name!r}: the named providers are: fmp (others: --provider-url)")
        sources.append(p.FmpProvider(**bounds))
    urls = provider_url or ([p.provider_url()] if os.environ.get(p.ENV) or not sources else [])
    sources += [p.HttpProvider(url, **bounds) for url in urls]
    s = Store(store)
    chain = p.Chain(
        [p.Cached(src, ttl=cache_hours * 3600, folder=s.root / "provider-cache" / p.cache_key(src)) for src in sources]
    )
    _report(s, p.fetch(s, symbols, chain, kind=kind, exchange=exchange.upper()))


def _check_kind(kind: str) -> None:
    from orrery.errors import DataError

    if kind not in ("stock", "index", "etf", "crypto"):
        raise DataError(f"--kind {kind!r}: use stock, index, etf or crypto")


def _report(s, added: list[str]) -> None:
    console.print(f"imported {', '.join(f'{a} ({s.symbols[a].first} to {s.symbols[a].last})' for a in added)}")
