from orrery import Agent, AgentConfig, ScriptedModel, tool
from orrery.llm.scripted import call, turn
from orrery.tools.builtin import DEFAULT_TOOLS
from orrery.trace import read_trace, replay


def test_every_event_is_written_and_replay_reproduces_tool_results(tmp_path):
    path = tmp_path / "run.jsonl"
    a = Agent(ScriptedModel([turn(call("calculate", expression="6*7")), "42"]), DEFAULT_TOOLS,
              AgentConfig(trace=path), tools_ref="orrery.tools.builtin:DEFAULT_TOOLS")
    a.run("6*7?")
    kinds = [e["kind"] for e in read_trace(path)]
    assert kinds[0] == "run_start" and kinds[-1] == "final" and "tool_result" in kinds
    report = replay(path, DEFAULT_TOOLS)
    assert report.identical and report.tool_results == 1


def test_replay_reports_a_tool_whose_result_changed(tmp_path):
    path = tmp_path / "run.jsonl"
    state = {"v": 1}

    @tool
    def counter() -> int:
        """Returns a changing value."""
        return state["v"]

    Agent(ScriptedModel([turn(call("counter")), "done"]), [counter], AgentConfig(trace=path)).run("q")
    state["v"] = 2
    report = replay(path, [counter])
    assert not report.identical
    assert report.differences[0]["recorded"] == "1" and report.differences[0]["replayed"] == "2"
