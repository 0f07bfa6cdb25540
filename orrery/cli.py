"""The `orrery` command: chat, replay, serve-model, and the apps' commands."""

from __future__ import annotations

import copy
import json
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from orrery.errors import ConfigError, OrreryError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="LLM agents that call tools, plan, check their work and forecast. Offline by default.",
)
console = Console()
MODEL = Annotated[str | None, typer.Option("--model", help="local | openai:MODEL | ollama:MODEL | http://host:port/v1")]
OLD_LLM = Annotated[str | None, typer.Option("--llm", hidden=True, help="The old name of --model")]


@app.callback()
def options(
    otel: Annotated[
        str | None,
        typer.Option(
            "--otel",
            metavar="URL",
            help="Export OpenTelemetry spans of every run over OTLP/HTTP to this collector "
            "(e.g. http://127.0.0.1:4318; needs the otel extra)",
        ),
    ] = None,
) -> None:
    """LLM agents that call tools, plan, check their work and forecast. Offline by default."""
    if otel:
        from orrery.otel import setup

        setup(otel)


@app.command()
def chat(
    model: MODEL = None,
    llm: OLD_LLM = None,
    react: Annotated[bool, typer.Option(help="Use the JSON ReAct format")] = False,
    trace: Annotated[Path | None, typer.Option(help="JSONL trace (default .orrery/traces/chat-TIME.jsonl)")] = None,
    message: Annotated[list[str] | None, typer.Option("-m", help="Ask this and exit (repeatable)")] = None,
    ask: Annotated[list[str] | None, typer.Option(help="Ask y/n before each call of this tool (repeatable)")] = None,
    remember: Annotated[
        str | None,
        typer.Option(
            help="Keep this thread's long-term memory (in the session database) and show the model what is relevant"
        ),
    ] = None,
    mcp: Annotated[
        list[str] | None,
        typer.Option(
            "--mcp",
            help="Also use the tools of this MCP server: a "
            'command line ("uvx mcp-server-time") or an http(s) URL '
            "(repeatable)",
        ),
    ] = None,
) -> None:
    """Chat with the generic agent (calculator and fact tools, and any MCP server's) in the terminal."""
    from orrery.chat import chat_agent

    trace = trace or Path(".orrery/traces") / f"chat-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
    console.print(f"[dim]trace: {trace} (replay with `orrery replay {trace} --app chat`)[/]")
    hook = None
    if remember is not None:
        from orrery.recall import LongTermMemory, RecallContext

        memory = LongTermMemory.open(app="chat", thread=remember)
        hook = RecallContext(memory)
    agent = chat_agent(
        model or llm,
        mcp_servers=mcp or (),
        format="react" if react else "auto",
        verbose=True,
        trace=trace,
        context=hook,
    )
    if hook is not None:
        agent.handlers.append(hook.memory.recorder())
    for name in ask or ():
        require_approval(agent, name)
    with ExitStack() as held:  # one connection to each MCP server for the whole conversation
        for server in agent.tools.providers:
            server.open()
            held.callback(server.close)
        _chat_loop(agent, message)


def _chat_loop(agent: Any, message: list[str] | None) -> None:
    questions = iter(message) if message else None
    failed = 0
    while True:
        q = next(questions, None) if questions is not None else console.input("[bold]you> [/]")
        if q is None or q.strip() in ("exit", "quit"):
            break
        if q.strip():
            result = agent.query(q)
            while result.status == "paused" and result.approvals:
                result = agent.resume({a.id: approve(a) for a in result.approvals})
            failed += result.status == "error"
    if failed:  # a script asking with -m must see that the model could not answer
        raise typer.Exit(1)


def require_approval(agent: Any, name: str) -> None:
    """Put one of the agent's tools behind a y/n (a copy: the shared tool objects stay as they are)."""
    tools = agent.tools.tools
    if name not in tools:
        raise ConfigError(f"--ask {name!r}: no such tool; the tools are {', '.join(tools)}")
    tools[name] = copy.copy(tools[name])
    tools[name].requires_approval = True


def approve(pending: Any) -> bool:
    """Ask the person at the terminal whether a pending call may run; no answer (end of input) is no."""
    args = json.dumps(pending.arguments, default=str)
    try:
        answer = console.input(f"[bold yellow]Run {pending.tool}({escape(args)})? [y/N] [/]")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


@app.command()
def replay(
    trace: Path,
    tools: Annotated[
        str | None, typer.Option(help="module:attr of the tools to run (your choice: a trace never picks code)")
    ] = None,
    app_name: Annotated[str | None, typer.Option("--app", help="Use the tools of this installed app")] = None,
) -> None:
    """Re-run a trace with its recorded model outputs; report tool results that differ (exit 1)."""
    from orrery.replay import app_tools, load_tools
    from orrery.replay import replay as run_replay

    chosen = load_tools(tools) if tools else app_tools(app_name) if app_name else None
    report = run_replay(trace, chosen)
    for d in report.differences:
        console.print(f"[red]differs[/] #{d['index']} {d['tool']}: recorded {d['recorded']!r} now {d['replayed']!r}")
    console.print(f"{report.tool_results} tool results replayed, {len(report.differences)} differences")
    raise typer.Exit(0 if report.identical else 1)


@app.command("apps")
def list_apps() -> None:
    """The installed apps: what each does, what its message is and the inputs it takes (`orrery run APP ...`)."""
    from orrery.apps import discover

    for a in discover().values():
        console.print(Text.assemble((a.name, "bold"), f": {a.description}"), soft_wrap=True)
        for key, what in a.describe()["inputs"].items():
            console.print(Text(f"  {key}: {what}", style="dim" if key == "message" else ""), soft_wrap=True)


@app.command("run")
def run_app(
    name: Annotated[str, typer.Argument(help="An installed app (`orrery apps` lists them)")],
    message: Annotated[str, typer.Argument(help="Your words: the run's message")],
    given: Annotated[
        list[str] | None,
        typer.Option("-i", "--input", help="An input of the app as NAME=VALUE (repeatable; a file input takes a path)"),
    ] = None,
    model: MODEL = None,
    llm: OLD_LLM = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print status, output, data and views as JSON")] = False,
) -> None:
    """Run any installed app once on a message; print its answer and its views (tables, charts, boards)."""
    from orrery.apps import get
    from orrery.results import Result

    target = get(name)
    options, inputs = target.split(_inputs(target, given or []))
    result = target.make_agent(model or llm, **options).run(message, **inputs)
    if not isinstance(result, Result):
        raise ConfigError(
            f"app {name!r} ended without an orrery result (it gave {type(result).__name__}); "
            "its agent must return one (orrery.results.Result)"
        )
    _show(result, as_json)
    raise typer.Exit(0 if result.status in ("completed", "paused", "declined") else 1)


def _inputs(target: Any, given: list[str]) -> dict[str, Any]:
    """NAME=VALUE pairs validated by the app's input model; a file input (an upload id on the server) takes a path
    here, checked as the user's file."""
    from pydantic import ValidationError

    from orrery.apps import upload_fields
    from orrery.errors import DataError
    from orrery.files import input_file

    pairs = dict(p.partition("=")[::2] for p in given)
    if bad := [p for p in given if "=" not in p]:
        raise DataError(f"-i {bad[0]!r}: give an input as NAME=VALUE (`orrery apps` lists each app's inputs)")
    files = {k: str(input_file(v, what=f"input {k!r}")) for k, v in pairs.items() if k in upload_fields(target.inputs)}
    try:  # the model checks the file inputs as ids: each stands in as "file" while the others are checked
        checked = target.inputs.model_validate({**pairs, **dict.fromkeys(files, "file")})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "inputs"
        if first.get("type") == "extra_forbidden":
            raise DataError(
                f"app {target.name!r} takes no input {where!r}; it takes: "
                f"{', '.join(target.inputs.model_fields) or 'only the message'}"
            ) from None
        raise DataError(
            f"input {where!r} of app {target.name!r}: {first.get('msg', 'invalid')} "
            "(`orrery apps` lists each app's inputs)"
        ) from None
    return checked.model_dump(mode="json", exclude_none=True) | files


def _show(result: Any, as_json: bool) -> None:
    """The result as a person reads it (the output, then each view), or as JSON."""
    from orrery.results import jsonable, text_of

    if as_json:
        print(
            json.dumps(
                {
                    "status": result.status,
                    "output": text_of(result),
                    "data": jsonable(result.data),
                    "views": [v.model_dump(mode="json") for v in result.views()],
                },
                indent=2,
            )
        )
        return
    if text := text_of(result):
        console.print(Text(text))
    for view in result.views():
        console.print(_view(view))
    if result.status != "completed":
        console.print(f"[dim]status: {result.status}[/]")


def _view(view: Any) -> Any:
    """A view in the terminal: tables as tables, a forecast as its rows, a board as its sources; other views (charts
    and any an app adds) as one line naming them."""
    from rich.table import Table as RichTable

    from orrery.results import Board, Forecast, Table

    match view:
        case Table(rows=rows, columns=columns, title=title):
            cols = columns or (list(rows[0]) if rows else [])
            table = RichTable(*cols, title=title or None)
            for row in rows[:50]:
                table.add_row(*[str(c) for c in (row if isinstance(row, list) else [row.get(k) for k in cols])])
            return table
        case Forecast(forecasts=rows, best_model=best):
            return _view(
                Table(
                    title=f"Forecast ({best})",
                    rows=[{k: r.get(k) for k in ("unique_id", "ds", "mean", "lo_95", "hi_95")} for r in rows],
                )
            )
        case Board(sources=sources, probability=p):
            return Text("\n".join([f"Sources (P = {p}):", *(f"- {s.date or ''} {s.title}: {s.why}" for s in sources)]))
    return Text(f"[{view.view} view: see it in `orrery serve`'s web app or with --json]", style="dim")


@app.command("serve-model")
def serve_model(
    host: str = "127.0.0.1",
    port: int = 8080,
    model_path: Annotated[Path | None, typer.Option(help="A GGUF file (default: the embedded model)")] = None,
    token: Annotated[
        str | None, typer.Option(envvar="ORRERY_TOKEN", help="Bearer token; required off loopback")
    ] = None,
    n_ctx: Annotated[int, typer.Option("--n-ctx", help="Context size; longer prompts get 400")] = 8192,
    timeout: Annotated[float, typer.Option(help="Seconds one generation may take (504 past it)")] = 300.0,
) -> None:
    """Serve the embedded model as an OpenAI-compatible HTTP server."""
    from orrery.llm.server import serve

    serve(host=host, port=port, model_path=model_path, token=token, n_ctx=n_ctx, timeout_s=timeout)


@app.command()
def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    model: MODEL = None,
    llm: OLD_LLM = None,
    token: Annotated[str | None, typer.Option(help="Bearer token (or ORRERY_TOKEN); required off loopback")] = None,
    db: Annotated[str | None, typer.Option(help="Threads: a SQLite path or postgresql://... URL")] = None,
    cors: Annotated[list[str] | None, typer.Option(help="Allow this browser origin (repeatable)")] = None,
    allowed_host: Annotated[list[str] | None, typer.Option(help="Also answer to this Host name (repeatable)")] = None,
    max_upload_mb: float = 20,
    max_body_mb: float = 1,
    run_timeout: float = 600,
) -> None:
    """Serve every app's agent over AG-UI (SSE) with the web app at http://HOST:PORT/."""
    from orrery.serve.app import serve as run

    run(
        host,
        port,
        model=model or llm,
        token=token,
        db=db,
        cors=tuple(cors or ()),
        allowed_hosts=tuple(allowed_host or ()),
        max_upload_bytes=int(max_upload_mb * 2**20),
        max_body_bytes=int(max_body_mb * 2**20),
        run_timeout=run_timeout,
    )


def _mount_mcp() -> None:
    """`orrery mcp`, or a command that says which extra to install."""
    from importlib.util import find_spec

    if find_spec("mcp") is None:
        _unavailable("mcp", "mcp", ModuleNotFoundError("No module named 'mcp'", name="mcp"))
        return
    from orrery.mcp.cli import mcp

    app.command()(mcp)


def _mount_apps() -> None:
    """Each installed app's commands: `orrery <app> ...` from `App.cli`, top-level ones from `App.cli_commands`.
    An app whose optional dependencies are missing gets commands that say which extra to install."""
    from orrery.apps import discover, load_ref

    for a in discover().values():
        if a.cli:
            try:
                app.add_typer(load_ref(a.cli), name=a.name, help=a.description)
            except ModuleNotFoundError as exc:
                _unavailable(a.name, a.extra, exc)
        for ref in a.cli_commands:
            try:
                app.command()(load_ref(ref))
            except ModuleNotFoundError as exc:
                _unavailable(ref.rpartition(":")[2], a.extra, exc)


def _unavailable(name: str, extra: str, exc: ModuleNotFoundError) -> None:
    hint = f"pip install 'orrery[{extra or name}]'"

    @app.command(
        name,
        help=f"(not installed: {hint})",
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    )
    def missing() -> None:
        raise ConfigError(f"`orrery {name}` needs {exc.name!r}, which is not installed: {hint}")


_mount_apps()
from orrery.recall.cli import app as _memory  # noqa: E402 - light: typer and the store (numpy only for vectors)

app.add_typer(_memory, name="memory")
_mount_mcp()


def main() -> None:
    try:
        app()
    except OrreryError as exc:  # one line, never wrapped, the message's brackets not taken as markup
        Console(stderr=True).print(Text.assemble(("error: ", "bold red"), str(exc)), soft_wrap=True)
        sys.exit(exc.exit_code)


if __name__ == "__main__":
    main()
