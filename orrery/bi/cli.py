"""`orrery bi`: ask, chat, describe, connect; approve / reject an answer, the approved examples (memory)."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Questions about a database, answered step by step with read-only SQL.",
)
console = Console()
DB = Annotated[
    str,
    typer.Option("--db", help="tpch | chinook | superstore | a registered name | PostgreSQL URL | DuckDB/SQLite file"),
]
LLM = Annotated[str | None, typer.Option("--llm", help="local | openai:MODEL | ollama:MODEL | http://host:port/v1")]
SESSION = Annotated[str | None, typer.Option("--session", help="continue this conversation (default: a new one)")]


def _printer(quiet: bool) -> Any:
    """An event handler that shows the rewrite, the TODO list and each step as it finishes."""
    from orrery.bi.agent import Reiterated
    from orrery.events import Planned, TodoUpdate

    def show(event: Any) -> None:
        if quiet:
            return
        if isinstance(event, Reiterated):
            console.print(f"[bold]Request:[/] {event.request} [dim]({event.plan_kind})[/]")
        elif isinstance(event, Planned):
            for i, t in enumerate(event.todos, 1):
                console.print(f"  [dim]{i}. {t['key']}: {t['description']} ({t['tool']})[/]")
        elif isinstance(event, TodoUpdate):
            mark = {"done": "[green]done[/]", "paused": "[yellow]needs an answer[/]"}.get(
                event.status, "[red]failed[/]"
            )
            console.print(f"  {event.key}: {mark}")

    return show


def _agent(db: str, llm: str | None, session: str | None, clarify: bool, quiet: bool) -> Any:
    from orrery.bi.agent import bi_agent

    return bi_agent(
        llm, db=db, session_id=session or uuid.uuid4().hex[:12], clarify=clarify, on_event=[_printer(quiet)]
    )


def _show(answer: Any) -> None:
    if answer.sql:
        console.print(f"[dim]{answer.sql}[/]")
    if answer.columns:
        table = Table(*answer.columns)
        for row in answer.rows[:30]:
            table.add_row(*("" if v is None else str(v) for v in row))
        console.print(table)
        if len(answer.rows) > 30:
            console.print(f"[dim]... {len(answer.rows) - 30} more rows[/]")
    if answer.chart:
        console.print(f"[dim]chart: {answer.chart['png']}[/]")
    style = {"completed": "", "paused": "yellow", "declined": "magenta"}.get(answer.status, "red")
    console.print(f"[{style}]{answer.answer}[/]" if style else answer.answer)


@app.command()
def ask(
    question: str,
    db: DB = "tpch",
    llm: LLM = None,
    session: SESSION = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="print {status, answer, sql, columns, rows, clarification} and exit")
    ] = False,
    no_clarify: Annotated[
        bool, typer.Option("--no-clarify", help="take the most likely reading and say which instead of asking")
    ] = False,
) -> None:
    """Answer one question; asks its clarifying questions in the terminal."""
    agent = _agent(db, llm, session, not no_clarify, as_json)
    answer = agent.ask(question)
    if as_json:
        print(json.dumps({**answer.to_dict(), "run": agent.session.id}, default=str))
        raise typer.Exit(1 if answer.status == "error" else 0)
    while answer.status == "paused" and answer.clarification and sys.stdin.isatty():
        _show(answer)
        answer = agent.ask(console.input("[bold]answer> [/]"))
    _show(answer)
    _offer_approval(agent.session.id, answer)
    raise typer.Exit(1 if answer.status == "error" else 0)


def _offer_approval(run: str, answer: Any) -> None:
    if answer.status == "completed" and answer.sql:
        console.print(
            f"[dim]run {run}: `orrery bi approve {run}` keeps this question and its SQL as an example "
            f"for later questions on this database; if the SQL is wrong, `orrery bi approve {run} --sql "
            '"SELECT ..."` keeps your correction instead[/]'
        )
    elif answer.status in ("declined", "error"):
        console.print(
            f'[dim]run {run}: if the data answers it, `orrery bi approve {run} --sql "SELECT ..."` keeps the '
            "question with your SQL as an example for later questions on this database[/]"
        )


@app.command()
def chat(
    db: DB = "tpch",
    llm: LLM = None,
    session: SESSION = None,
    message: Annotated[list[str] | None, typer.Option("-m", help="say this and exit (repeatable)")] = None,
) -> None:
    """A conversation: follow-up questions, answers to clarifications, 'analyze these results'."""
    agent = _agent(db, llm, session, True, False)
    console.print(f"[dim]session {agent.session.id} on {db}; 'exit' to leave[/]")
    lines = iter(message) if message else None
    while True:
        text = next(lines, None) if lines is not None else console.input("[bold]you> [/]")
        if text is None or text.strip() in ("exit", "quit"):
            return
        if text.strip():
            answer = agent.ask(text)
            _show(answer)
            _offer_approval(agent.session.id, answer)


@app.command()
def describe(db: Annotated[str, typer.Argument(help="a built-in or registered name, a URL or a file")]) -> None:
    """Draft the semantic layer YAML of a database for an analyst to edit (never overwrites one)."""
    from orrery.bi.data import open_engine
    from orrery.bi.semantic import write_draft

    engine = open_engine(db)
    path = write_draft(engine.name, engine)
    console.print(
        f"wrote {path}: describe the tables and columns, add synonyms and terms; the agent reads it on its next start"
    )


@app.command()
def connect(
    url: Annotated[str, typer.Argument(help="postgresql://user@host/db or a DuckDB/SQLite file")],
    name: Annotated[str | None, typer.Option(help="the name to use with --db")] = None,
) -> None:
    """Register a DuckDB/SQLite file or a PostgreSQL URL (use a read-only role) under a name."""
    from orrery.bi.data import connect as register

    registered = register(url, name)
    console.print(f"registered [bold]{registered}[/]; ask with --db {registered}")


STORE = Annotated[
    str | None,
    typer.Option(
        "--store", help="the session database (a path or postgresql:// URL; default: the data folder's sessions.db)"
    ),
]
RUN = Annotated[str, typer.Argument(help="the run id `orrery bi ask` printed (its session)")]


SQL_FILE_BYTES = 64 * 2**10  # a corrected query's file: a query, never a dump


@app.command()
def approve(
    run: RUN,
    store: STORE = None,
    sql: Annotated[
        str | None, typer.Option("--sql", help="keep the question with this corrected SQL instead of the agent's")
    ] = None,
    sql_file: Annotated[
        Path | None, typer.Option("--sql-file", help="the corrected SQL, read from this file (at most 64 KiB)")
    ] = None,
    db: Annotated[
        str | None, typer.Option("--db", help="where to check the corrected SQL, when --db of ask was a file or URL")
    ] = None,
) -> None:
    """Keep the run's last answered question and its SQL as an example for similar questions on its database;
    with --sql / --sql-file, a correction: the question is kept with your SQL once it passes the read-only guard
    and plans on the run's database."""
    from orrery.bi.examples import last_answer, last_correctable, open_examples
    from orrery.sessions import open_store

    fix = _corrected_text(sql, sql_file)
    if fix is None:
        connection, question, kept = last_answer(open_store(store), run)
        example = open_examples(store).approve(connection, question, kept)
        console.print(f"approved example {example} for {connection}: {question}\n[dim]{kept}[/]")
        return
    connection, question, agent_sql = last_correctable(open_store(store), run)
    kept = _checked_correction(connection, db, fix)
    example = open_examples(store).approve(connection, question, kept)
    console.print(f"approved example {example} for {connection}, corrected: {question}", markup=False)
    console.print(f"  the agent's SQL: {agent_sql or '(none: no query ran)'}\n  kept instead:    {kept}", markup=False)


def _corrected_text(sql: str | None, sql_file: Path | None) -> str | None:
    from orrery.errors import DataError

    if sql is not None and sql_file is not None:
        raise DataError("give the corrected SQL once: --sql or --sql-file, not both")
    if sql_file is None:
        return sql
    if not sql_file.is_file():
        raise DataError(f"--sql-file {str(sql_file)!r} is not a file; name the file that holds the corrected SELECT")
    with sql_file.open("rb") as f:
        raw = f.read(SQL_FILE_BYTES + 1)
    if len(raw) > SQL_FILE_BYTES:
        raise DataError(f"--sql-file {str(sql_file)!r} is over {SQL_FILE_BYTES} bytes; it should hold one SELECT")
    return raw.decode("utf-8", errors="replace")


def _checked_correction(connection: str, db: str | None, sql: str) -> str:
    """The corrected SQL as kept (`examples.correction`), checked on the run's database: `--db` when given
    (it must be the run's), else the database of that name."""
    from orrery.bi.examples import correction_on
    from orrery.errors import ConfigError

    try:
        return correction_on(db or connection, sql, connection)
    except ConfigError as exc:
        if db is not None:
            raise
        raise ConfigError(f"{exc}; for a run on a file or URL, name it again with --db") from None


@app.command()
def reject(
    run: RUN,
    store: STORE = None,
    withdraw: Annotated[bool, typer.Option("--withdraw", help="also remove the same pair if it was approved")] = False,
) -> None:
    """Mark the run's answer as wrong: nothing is stored (with --withdraw, an approval of it is removed)."""
    from orrery.bi.examples import last_answer, open_examples
    from orrery.sessions import open_store

    connection, question, sql = last_answer(open_store(store), run)
    removed = open_examples(store, embedder=None).reject(connection, question, sql) if withdraw else 0
    console.print(f"not stored; {removed} approved example(s) withdrawn" if withdraw else "not stored")


memory_app = typer.Typer(no_args_is_help=True, help="The approved examples of a database.")
app.add_typer(memory_app, name="memory")
CONNECTION = Annotated[str, typer.Option("--db", help="the database's name (as --db of ask)")]


@memory_app.command("list")
def memory_list(db: CONNECTION = "tpch", store: STORE = None) -> None:
    """The approved question -> SQL pairs of a database, and the answers people gave to the field question
    (term -> column, or not held), newest first."""
    from orrery.bi.examples import check_id, field_answers, open_examples

    examples = open_examples(store, embedder=None)
    found = examples.list(check_id("database name", db))
    answers = field_answers(examples, db)
    if not found:
        console.print(f"no approved examples for {db}; approve an answer with `orrery bi approve RUN`")
    else:
        table = Table("id", "question", "sql")
        for e in found:
            table.add_row(str(e.id), e.question, e.sql)
        console.print(table)
    if answers:
        fields = Table("id", "term", "column (a person's answer to the field question)")
        for a in answers:
            fields.add_row(str(a.id), a.term, a.column or "not held (the data does not hold it)")
        console.print(fields)


@memory_app.command("remove")
def memory_remove(
    example: Annotated[int, typer.Argument(help="the id `bi memory list` shows")],
    db: CONNECTION = "tpch",
    store: STORE = None,
) -> None:
    """Remove one approved example, or one kept answer to the field question, of a database."""
    from orrery.bi.examples import check_id, open_examples
    from orrery.errors import DataError

    if not open_examples(store, embedder=None).remove(check_id("database name", db), example):
        raise DataError(f"{db} has no approved example {example}; `orrery bi memory list --db {db}` shows them")
    console.print(f"removed example {example} of {db}")
