"""Per-run state: each `stream()` makes a `Run`; one agent serves two runs at once, interleaved or threaded."""

import threading

from orrery import Agent, AgentConfig
from orrery import events as ev
from orrery.llm import ScriptedModel
from orrery.llm.scripted import call, turn
from orrery.tools import RunContext, tool


@tool
def lookup(ctx: RunContext, word: str) -> str:
    """Look a word up."""
    return f"{word}:{ctx.options['tag']}"


def answer_per_conversation(messages):
    """Calls `lookup` with the task's word, then answers with what the tool gave: each turn is decided by the
    messages of its own conversation alone, so runs that shared state would answer wrongly."""
    task = next(m.content for m in messages if m.role == "user")
    done = [m.content for m in messages if m.role == "tool"]
    return f"answer {done[-1]}" if done else turn(call("lookup", word=task))


def agent(n_turns=8, **config):
    return Agent(ScriptedModel([answer_per_conversation] * n_turns), [lookup], AgentConfig(**config))


def test_two_interleaved_streams_of_one_agent_keep_their_own_conversation():
    a = agent(board=lambda ctx: f"board {ctx.options['tag']}")
    first, second = a.stream("alpha", tag="A"), a.stream("beta", tag="B")
    finals = {}
    while len(finals) < 2:
        for name, s in (("first", first), ("second", second)):
            if name not in finals and isinstance(e := next(s), ev.Final):
                finals[name] = e.result
    assert finals["first"].output == "answer alpha:A" and finals["second"].output == "answer beta:B"
    assert [len(r.tool_calls) for r in finals.values()] == [1, 1]
    assert finals["first"].usage.total == finals["second"].usage.total == 30  # two model calls each
    # the latest run is the agent's current one: its memory holds its conversation only
    assert [m.content for m in a.current_run.memory.messages if m.role == "user"] == ["beta"]


def test_two_threads_run_one_agent_at_once():
    a, results, go = agent(n_turns=40), {}, threading.Barrier(4)

    def work(word):
        go.wait()
        results[word] = a.run(word, tag=word.upper())

    threads = [threading.Thread(target=work, args=(w,)) for w in ("one", "two", "three", "four")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert {w: r.output for w, r in results.items()} == {
        w: f"answer {w}:{w.upper()}" for w in ("one", "two", "three", "four")
    }
    assert all(r.status == "completed" and r.steps == 2 for r in results.values())


def test_a_run_holds_what_it_owns_and_the_agent_only_its_configuration():
    a = agent()
    stream = a.stream("alpha", tag="A", settings={"max_rounds": 5})
    run = a.current_run
    assert run.config.max_rounds == 5 and a.config.max_rounds == 20 and run.ctx.options == {"tag": "A"}
    final = list(stream)[-1]
    assert final.result is run.result and run.done_calls == {'lookup:{"word": "alpha"}'}
    assert not {
        "_done_calls",
        "_force_answer",
        "_board",
        "_pending",
        "_output",
        "_task",
        "memory",
        "ctx",
        "run_config",
    } & set(vars(a))
    assert not {"memory", "ctx", "run_config"} & set(dir(Agent))  # a run's state is read from the Run only
    follow = a.query("and beta?")
    assert follow.output == "answer alpha:A" and a.current_run is not run and a.current_run.memory is run.memory


def test_an_architecture_drives_a_run_one_public_step_at_a_time():
    a = agent()
    run = a.begin("alpha", tag="A")
    assert a.current_run is run and [m.role for m in run.memory.messages] == ["system", "user"]
    events = []
    step = a.step(run=run)
    try:
        while True:
            events.append(next(step))
    except StopIteration as stop:
        results = stop.value
    assert [r.content for r in results] == ["alpha:A"] and run.result.tool_calls == results
    assert any(isinstance(e, ev.ToolResultEvent) for e in events)
    assert run.result.usage.total == 15 and run.done_calls == {'lookup:{"word": "alpha"}'}
