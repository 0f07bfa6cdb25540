"""The verbose console view: a rich rendering of run events."""

from __future__ import annotations

import json

from rich.console import Console
from rich.panel import Panel

from orrery import events as ev


class ConsoleView:
    def __init__(self, console: Console | None = None, max_chars: int = 600):
        self.console = console or Console(stderr=True)
        self.max_chars = max_chars
        self._quarters: dict[str, int] = {}

    def _short(self, text: str) -> str:
        return text if len(text) <= self.max_chars else text[: self.max_chars] + f" … ({len(text)} chars)"

    def __call__(self, event: ev.Event) -> None:
        c = self.console
        match event:
            case ev.RunStart(task=task):
                c.rule(f"[bold]Agent starting[/]: {self._short(task)}")
            case ev.ModelCall(round=rnd, attempt=attempt, tools=tools):
                c.print(f"[dim]round {rnd + 1} (attempt {attempt + 1}) · tools: {', '.join(tools) or 'none'}[/]")
            case ev.Thought(text=text):
                c.print(f"[cyan]Thought:[/] {self._short(text)}")
            case ev.ToolCallEvent(call=call):
                c.print(f"[yellow]Tool:[/] {call.name} {json.dumps(call.arguments, default=str)}")
            case ev.ToolResultEvent(ok=ok, content=content, seconds=s, cached=cached):
                style = "green" if ok else "red"
                c.print(f"[{style}]Result[/] ({s:.2f}s{', cached' if cached else ''}): {self._short(content)}")
            case ev.Progress(label=label, done=done, total=total):
                quarter = 4 * done // max(total, 1)
                if quarter != self._quarters.get(label):  # a line per quarter done, not one per report
                    self._quarters[label] = quarter
                    c.print(f"[dim]{label}: {done}/{total}[/]")
            case ev.Retry(attempt=a, message=m):
                c.print(f"[magenta]Retry {a}:[/] {self._short(m)}")
            case ev.Clarification(question=q):
                c.print(Panel(q, title="Clarification needed", border_style="yellow"))
            case ev.ApprovalRequired(approvals=pending):
                calls = "\n".join(f"{a['tool']} {json.dumps(a['arguments'], default=str)}" for a in pending)
                c.print(Panel(self._short(calls), title="Approval needed", border_style="yellow"))
            case ev.ApprovalDecision(tool=name, approved=yes, arguments=args):
                verdict = "[green]Approved[/]" if yes else "[red]Denied[/]"
                c.print(f"{verdict}: {name} {self._short(json.dumps(args, default=str))}")
            case ev.ErrorEvent(message=m):
                c.print(f"[bold red]Error:[/] {m}")
            case ev.Final(status=status, output=output):
                c.print(Panel(output or "(no output)", title=f"Final · {status}",
                              border_style="green" if status == "completed" else "red"))
