"""A tool's `ctx.progress` reaches the agent's event stream as Progress events while the tool runs."""

import threading

from orrery import events as ev
from orrery.agent.loop import Agent
from orrery.console import ConsoleView
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.tools import RunContext, tool


def test_progress_is_streamed_while_the_tool_runs():
    seen_live = threading.Event()

    @tool
    def crunch(ctx: RunContext, n: int) -> str:
        """Work through n items."""
        for i in range(1, n + 1):
            ctx.progress("items", i, n)
        assert seen_live.wait(5), "the first report was not yielded while the tool was still running"
        return "done"

    agent = Agent(ScriptedModel([turn(call("crunch", n=3)), "ok"]), [crunch])
    events = []
    for e in agent.stream("go"):
        events.append(e)
        if isinstance(e, ev.Progress):
            seen_live.set()
    progress = [(e.label, e.done, e.total) for e in events if isinstance(e, ev.Progress)]
    assert progress == [("items", 1, 3), ("items", 2, 3), ("items", 3, 3)]
    kinds = [e.kind for e in events]
    assert kinds.index("tool_call") < kinds.index("progress") < kinds.index("tool_result") < kinds.index("final")
    assert events[-1].status == "completed" and agent.ctx.reporter is None


def test_a_tool_without_context_runs_inline_and_progress_is_a_no_op_outside_a_run():
    @tool
    def echo(text: str) -> str:
        """Echo text."""
        return f"{text} from {threading.current_thread().name}"

    agent = Agent(ScriptedModel([turn(call("echo", text="hi")), "ok"]), [echo])
    result = agent.run("go")
    assert result.tool_calls[0].content.endswith(threading.current_thread().name)
    RunContext().progress("nothing listens", 1, 2)  # no reporter: nothing happens, nothing raises


def test_a_tool_error_in_the_worker_reaches_the_model_as_an_observation():
    @tool
    def broken(ctx: RunContext) -> str:
        """Always fails."""
        ctx.progress("step", 0, 1)
        raise ValueError("boom")

    result = Agent(ScriptedModel([turn(call("broken")), "ok"]), [broken]).run("go")
    assert not result.tool_calls[0].ok and "boom" in result.tool_calls[0].content


def test_the_console_prints_the_start_and_a_line_per_quarter_of_progress():
    from rich.console import Console

    console = Console(record=True, width=80)
    view = ConsoleView(console)
    for i in range(1, 101):
        view(ev.Progress("series", i, 100))
    lines = [line for line in console.export_text().splitlines() if line.startswith("series")]
    assert lines == ["series: 1/100", "series: 25/100", "series: 50/100", "series: 75/100", "series: 100/100"]
