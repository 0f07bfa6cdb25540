"""The verbose console view: a rich rendering of run events."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.rule import Rule

from orrery import events as ev


class ConsoleView:
    def __init__(self, console: Console | None = None, max_chars: int = 600):
        self.console = console or Console(stderr=True)
        self.max_chars = max_chars
        self._quarters: dict[str, int] = {}

    def _short(self, text: str) -> str:
        return text if len(text) <= self.max_chars else text[: self.max_chars] + f" … ({len(text)} chars)"

    def __call__(self, event: ev.Event) -> None:
        render = next((_RENDER[t] for t in type(event).__mro__ if t in _RENDER), None)
        shown = render(self, event) if render is not None else None
        if shown is not None:
            self.console.print(shown)

    def _result(self, e: ev.ToolResultEvent) -> str:
        style = "green" if e.ok else "red"
        return f"[{style}]Result[/] ({e.seconds:.2f}s{', cached' if e.cached else ''}): {self._short(e.content)}"

    def _progress(self, e: ev.Progress) -> str | None:
        quarter = 4 * e.done // max(e.total, 1)
        if quarter == self._quarters.get(e.label):  # a line per quarter done, not one per report
            return None
        self._quarters[e.label] = quarter
        return f"[dim]{e.label}: {e.done}/{e.total}[/]"

    def _approvals(self, e: ev.ApprovalRequired) -> Panel:
        calls = "\n".join(f"{a['tool']} {json.dumps(a['arguments'], default=str)}" for a in e.approvals)
        return Panel(self._short(calls), title="Approval needed", border_style="yellow")

    def _decision(self, e: ev.ApprovalDecision) -> str:
        verdict = "[green]Approved[/]" if e.approved else "[red]Denied[/]"
        return f"{verdict}: {e.tool} {self._short(json.dumps(e.arguments, default=str))}"


def _final(e: ev.Final) -> Panel:
    return Panel(
        e.output or "(no output)",
        title=f"Final · {e.status}",
        border_style="green" if e.status == "completed" else "red",
    )


Renderable = str | Panel | Rule | None
# One line (or panel) per event type; events not listed are not shown.
_RENDER: dict[type, Callable[[ConsoleView, Any], Renderable]] = {
    ev.RunStart: lambda v, e: Rule(f"[bold]Agent starting[/]: {v._short(e.task)}"),
    ev.ModelCall: lambda _, e: (
        f"[dim]round {e.round + 1} (attempt {e.attempt + 1}) · tools: {', '.join(e.tools) or 'none'}[/]"
    ),
    ev.Thought: lambda v, e: f"[cyan]Thought:[/] {v._short(e.text)}",
    ev.ToolCallEvent: lambda _, e: f"[yellow]Tool:[/] {e.call.name} {json.dumps(e.call.arguments, default=str)}",
    ev.ToolResultEvent: ConsoleView._result,
    ev.Progress: ConsoleView._progress,
    ev.Retry: lambda v, e: f"[magenta]Retry {e.attempt}:[/] {v._short(e.message)}",
    ev.Clarification: lambda _, e: Panel(e.question, title="Clarification needed", border_style="yellow"),
    ev.ApprovalRequired: ConsoleView._approvals,
    ev.ApprovalDecision: ConsoleView._decision,
    ev.ErrorEvent: lambda _, e: f"[bold red]Error:[/] {e.message}",
    ev.Final: lambda _, e: _final(e),
}
