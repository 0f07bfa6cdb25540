"""A tool's `ctx.progress` reaches the agent's event stream as Progress events while the tool runs, and stops the
tool once the stream's consumer has stopped."""

import threading

import pytest

from orrery import events as ev
from orrery.agent.loop import Agent
from orrery.console import ConsoleView
from orrery.errors import Cancelled
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.messages import ToolCall
from orrery.tools import RunContext, Toolset, tool


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
    assert events[-1].status == "completed" and agent.current_run.ctx.reporter is None


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


def counting_tool(permits, log, go=None, **options):
    """A tool that reports progress once per permit (or each time `go` is set), counting its iterations; `log`
    gets how it ended."""

    def crunch(ctx: RunContext) -> str:
        """Work until stopped."""
        try:
            for i in range(1, 1001):
                log["iterations"] = i
                ctx.progress("items", i, 1000)
                # bounded, so a run that is never stopped still ends
                if not (go.wait(10) if go is not None else permits.acquire(timeout=10)):
                    return "not let go"
            return "done"
        except Cancelled:
            log["cancelled"] = True
            raise
        finally:
            log["stopped"].set()

    return tool(**options)(crunch) if options else tool(crunch)


def unblock_when_cancelled(ctx, permits):
    """Gives the tool 100 permits once the run is cancelled: without cancellation it would run 100 more steps."""
    cancellation = ctx.cancellation
    threading.Thread(target=lambda: cancellation.wait(10) and permits.release(100), daemon=True).start()


def test_closing_the_stream_stops_the_tool_at_its_next_progress_report():
    permits, log = threading.Semaphore(0), {"stopped": threading.Event()}
    agent = Agent(ScriptedModel([turn(call("crunch")), "ok"]), [counting_tool(permits, log)])
    stream = agent.stream("go")
    for e in stream:
        if isinstance(e, ev.Progress):
            if e.done == 3:
                break
            permits.release()
    unblock_when_cancelled(agent.current_run.ctx, permits)
    stream.close()  # as a web client leaving does: GeneratorExit in the stream
    assert log["stopped"].wait(10) and log == {"iterations": 4, "cancelled": True, "stopped": log["stopped"]}
    assert agent.current_run.ctx.cancelled and agent.current_run.ctx.reporter is None


def test_a_handler_that_stops_a_run_stops_its_tool():
    permits, log = threading.Semaphore(0), {"stopped": threading.Event()}

    class Interrupt(Exception):
        pass

    def stop_at_three(event):  # a handler that raises, as the server's does for a client gone
        if isinstance(event, ev.Progress):
            if event.done == 3:
                unblock_when_cancelled(agent.current_run.ctx, permits)
                raise Interrupt
            permits.release()

    agent = Agent(ScriptedModel([turn(call("crunch")), "ok"]), [counting_tool(permits, log)], on_event=[stop_at_three])
    with pytest.raises(Interrupt) as interrupted:
        agent.run("go")
    assert log["stopped"].wait(10) and log["iterations"] == 4 and log["cancelled"]
    assert interrupted.traceback  # kept, and so the stream with it: `run` closed the stream itself


def test_a_tool_that_polls_cancelled_stops_when_the_stream_is_closed():
    polls, stopped = [], threading.Event()

    @tool
    def poll(ctx: RunContext) -> str:
        """Work until stopped, reporting only once."""
        ctx.progress("started", 0, 1)
        while not ctx.cancelled and len(polls) < 10_000:
            polls.append(1)
            threading.Event().wait(0.001)
        stopped.set()
        return "stopped"

    agent = Agent(ScriptedModel([turn(call("poll")), "ok"]), [poll])
    stream = agent.stream("go")
    next(e for e in stream if isinstance(e, ev.Progress))
    stream.close()
    assert stopped.wait(30) and len(polls) < 10_000


def test_a_normal_run_is_not_cancelled_and_a_cancelled_context_stops_progress():
    permits, log = threading.Semaphore(1000), {"stopped": threading.Event()}
    agent = Agent(ScriptedModel([turn(call("crunch")), "ok"]), [counting_tool(permits, log)])
    result = agent.run("go")
    assert result.status == "completed" and result.tool_calls[0].content == "done" and log["iterations"] == 1000
    assert not agent.current_run.ctx.cancelled and "cancelled" not in log
    ctx = RunContext()
    ctx.cancellation.set()
    with pytest.raises(Cancelled, match="items 2/5"):
        ctx.progress("items", 2, 5)


def test_a_timed_out_tool_is_stopped_at_its_next_progress_report():
    go, log = threading.Event(), {"stopped": threading.Event()}
    slow = counting_tool(None, log, go, timeout=0.1)
    result = Toolset([slow]).run([ToolCall("1", "crunch", {})], RunContext())[0]
    assert "timed out" in result.content
    go.set()  # let go after its timeout: it stops at its next report instead of running on unseen
    assert log["stopped"].wait(10) and log["iterations"] == 2 and log["cancelled"]
