"""`orrery memory`: what the long-term memory holds, searched, and removed; the approved examples of a connection."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from orrery.errors import DataError
from orrery.recall.examples import ApprovedExamples
from orrery.recall.store import Item, Scope, open_memory

app = typer.Typer(no_args_is_help=True, help="The long-term memory: list, search and remove items; approved examples.")
console = Console()
DB = Annotated[
    str | None, typer.Option("--db", help="SQLite path or postgresql:// URL (default: the session database)")
]
USER = Annotated[str, typer.Option(help="whose memory")]
APP = Annotated[str, typer.Option("--app", help="which app's")]
THREAD = Annotated[str, typer.Option(help="which thread (conversation)")]


def _table(items: list[Item]) -> None:
    table = Table("id", "when", "kind", "tool", "content")
    for i in items:
        when = dt.datetime.fromtimestamp(i.created, dt.UTC).strftime("%Y-%m-%d %H:%M")
        table.add_row(str(i.id), when, i.kind, i.tool or "", " ".join(i.content.split())[:120])
    console.print(table)


@app.command("list")
def list_items(
    db: DB = None,
    user: USER = "local",
    app_name: APP = "chat",
    thread: THREAD = "default",
    all_threads: Annotated[bool, typer.Option(help="the user's other threads of the app too")] = False,
    limit: int = 50,
) -> None:
    """The newest items of a scope."""
    _table(open_memory(db).items(Scope(user, app_name, thread), threads="all" if all_threads else "one", limit=limit))


@app.command()
def search(
    query: str, db: DB = None, user: USER = "local", app_name: APP = "chat", thread: THREAD = "default", k: int = 5
) -> None:
    """The k items of a scope most relevant to QUERY (full text)."""
    _table(open_memory(db).search(Scope(user, app_name, thread), query, k, mode="fts"))


@app.command()
def remove(
    item_id: int, db: DB = None, user: USER = "local", app_name: APP = "chat", thread: THREAD = "default"
) -> None:
    """Remove one item of a scope."""
    if not open_memory(db).remove(Scope(user, app_name, thread), item_id):
        raise DataError(f"no item {item_id} in {user}/{app_name}/{thread}; `orrery memory list` shows the ids")
    console.print(f"removed item {item_id}")


@app.command()
def examples(connection: str, db: DB = None) -> None:
    """The approved question -> SQL examples of a connection."""
    table = Table("id", "question", "sql")
    for e in ApprovedExamples(db).list(connection):
        table.add_row(str(e.id), e.question, e.sql)
    console.print(table)


@app.command("remove-example")
def remove_example(connection: str, example_id: int, db: DB = None) -> None:
    """Withdraw one approved example of a connection."""
    if not ApprovedExamples(db).remove(connection, example_id):
        raise DataError(f"no example {example_id} for {connection!r}; `orrery memory examples {connection}` lists them")
    console.print(f"removed example {example_id}")
