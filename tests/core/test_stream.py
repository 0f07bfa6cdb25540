"""The streaming agent shape: stream() is the loop, run() consumes it; per-run settings; sessions."""

import subprocess
import sys
import textwrap

import pytest

from orrery import Agent, AgentConfig, ScriptedModel
from orrery import events as ev
from orrery.agent.loop import consume
from orrery.agent.planner import PlanAgent
from orrery.errors import ConfigError
from orrery.llm.base import ModelProfile
from orrery.llm.scripted import call, turn
from orrery.sessions import Session, SessionConflict, open_store
from orrery.tools import NeedsClarification, RunContext, tool
from orrery.tools.builtin import DEFAULT_TOOLS


def describe(events):
    """The run as (kind, detail) pairs, detail naming what makes an event differ from its kind's others."""
    out = []
    for e in events:
        match e:
            case ev.StepStart(step=n) | ev.StepEnd(step=n):
                out.append((e.kind, n))
            case ev.Token(text=t):
                out.append(("token", t))
            case ev.ToolCallEvent(call=c) | ev.ToolResultEvent(call=c):
                out.append((e.kind, c.name))
            case ev.Retry(attempt=a):
                out.append(("retry", a))
            case ev.Final(status=s):
                out.append(("final", s))
            case _:
                out.append((e.kind, None))
    return out


def test_the_event_sequence_of_parallel_calls_and_a_retry_is_the_documented_one():
    model = ScriptedModel([turn(call("calculate", expression="2+2"), call("get_fact", topic="pi")), "two", "It is 4."])
    only_digits = lambda out, ctx: None if any(ch.isdigit() for ch in out) else "Give the number as digits."  # noqa: E731
    agent = Agent(model, DEFAULT_TOOLS, AgentConfig(validators=[only_digits]))
    events = list(agent.stream("2+2, and pi?"))
    assert describe(events) == [
        ("run_start", None),
        ("step_start", 1),
        ("model_call", None),
        ("tool_call_delta", None),
        ("tool_call_delta", None),
        ("model_reply", None),
        ("tool_call", "calculate"),
        ("tool_call", "get_fact"),
        ("tool_result", "calculate"),
        ("tool_result", "get_fact"),
        ("step_end", 1),
        ("step_start", 2),
        ("model_call", None),
        ("token", "two"),
        ("model_reply", None),
        ("step_end", 2),
        ("retry", 1),
        ("step_start", 3),
        ("model_call", None),
        ("token", "It "),
        ("token", "is "),
        ("token", "4."),
        ("model_reply", None),
        ("step_end", 3),
        ("final", "completed"),
    ]
    result = events[-1].result
    assert result.output == "It is 4." and result.retries == 1 and result.steps == 3


def test_run_returns_what_the_final_event_carries_and_handlers_see_every_event():
    seen = []
    agent = Agent(
        ScriptedModel([turn(call("calculate", expression="6*7")), "42"]), DEFAULT_TOOLS, on_event=[seen.append]
    )
    result = agent.run("6*7?")
    assert seen[-1].kind == "final" and seen[-1].result is result and seen[-1].output == result.output == "42"
    assert "result" not in seen[-1].to_dict()  # traces keep status and output, not the object


def test_closing_the_stream_stops_the_run_before_the_next_model_call():
    model = ScriptedModel([turn(call("calculate", expression="1+1")), "2"])
    stream = Agent(model, DEFAULT_TOOLS).stream("1+1?")
    for e in stream:
        if e.kind == "tool_result":
            break
    stream.close()
    assert len(model.requests) == 1


def test_settings_override_one_run_without_touching_the_config():
    model = ScriptedModel([turn(call("calculate", expression="1+1")), turn(call("calculate", expression="2+2"))])
    agent = Agent(model, DEFAULT_TOOLS, AgentConfig(max_rounds=20))
    result = agent.run("count", settings={"max_rounds": 1})
    assert result.status == "max_rounds" and result.steps == 1 and agent.config.max_rounds == 20
    with pytest.raises(ConfigError, match="max_round"):
        agent.run("count", settings={"max_round": 1})


def test_a_forced_answer_does_not_carry_into_the_next_query():
    # the run ends (max_rounds) right after a repeated call set the forced-answer flag
    model = ScriptedModel(
        [
            turn(call("calculate", expression="1+1")),
            turn(call("calculate", expression="1+1")),
            turn(call("calculate", expression="3+3")),
            "6",
        ]
    )
    agent = Agent(model, DEFAULT_TOOLS, AgentConfig(max_rounds=2))
    assert agent.run("1+1?").status == "max_rounds"
    agent.query("and 3+3?")
    assert model.requests[2]["tools"] == ["calculate", "get_fact", "search"]


def test_reset_keeps_the_state_given_to_the_constructor():
    agent = Agent(ScriptedModel(["ok"]), DEFAULT_TOOLS, state={"dataset": "sales"})
    agent.current_run.ctx.state["scratch"] = 1
    agent.reset()
    assert agent.current_run.ctx.state == {"dataset": "sales"}


@pytest.mark.integration  # a real subprocess
def test_a_conversation_saved_in_one_process_is_resumed_in_another(tmp_path):
    db = tmp_path / "sessions.db"
    agent = Agent(
        ScriptedModel([turn(call("calculate", expression="6*7")), "42"]), DEFAULT_TOOLS, state={"user": "ada"}
    )
    agent.run("6*7?")
    store = open_store(db)
    store.save(Session("t1", "chat", agent.snapshot()))
    script = textwrap.dedent(f"""
        from orrery import Agent, ScriptedModel
        from orrery.sessions import open_store
        from orrery.tools.builtin import DEFAULT_TOOLS
        model = ScriptedModel(["You asked 6*7; it is 42."])
        agent = Agent(model, DEFAULT_TOOLS)
        agent.restore(open_store({str(db)!r}).load("t1").data)
        print(agent.query("what did I ask?").output, agent.current_run.ctx.state["user"], len(model.requests[0]["messages"]))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()
    # system, user, assistant(tool call), tool, assistant, user: the whole history came back
    assert out[-2:] == ["ada", "6"] and "42." in out


def test_two_writers_on_one_session_get_a_conflict_not_a_lost_update(tmp_path):
    store = open_store(tmp_path / "s.db")
    first = store.save(Session("t", "chat", {"n": 1}))
    store.save(Session("t", "chat", {"n": 2}, version=first.version))
    with pytest.raises(SessionConflict, match="another writer"):
        store.save(Session("t", "chat", {"n": 3}, version=first.version))
    with pytest.raises(SessionConflict):
        store.save(Session("t", "chat", {"n": 4}))  # a second creator
    assert store.load("t").data == {"n": 2} and store.load("t").version == 2


@tool
def lookup(ctx: RunContext, city: str = "") -> str:
    """Population of the city the user named."""
    city = ctx.options.get("clarification") or city
    if not city:
        raise NeedsClarification("Which city?")
    return {"Oslo": "709,000", "Bergen": "291,000"}.get(city, "unknown")


def plan(city=""):
    return {
        "request": "population",
        "todos": [
            {"key": "find", "description": "look it up", "tool": "lookup", "arguments": {"city": city} if city else {}}
        ],
    }


def test_two_plan_agents_on_one_session_one_conflicts_and_nothing_is_lost(tmp_path):
    db = tmp_path / "plans.db"
    a = PlanAgent(ScriptedModel([plan(), {"intent": "exact_answer"}, "Oslo: 709,000."]), [lookup], db, "s")
    assert a.run("How many people live there?").status == "paused"
    b = PlanAgent(ScriptedModel([{"intent": "exact_answer"}, "Bergen: 291,000."]), [lookup], db, "s")
    c = PlanAgent(ScriptedModel([{"intent": "exact_answer"}, "never"]), [lookup], db, "s")
    assert b.run("Bergen").status == "completed"
    late = c.run("Oslo")  # c loaded the paused plan before b saved its answer
    assert late.status == "error" and "another writer" in late.output
    assert c.state.summary == "Bergen: 291,000." == open_store(db).load("s").data["plan"]["summary"]
    assert [m["output"] for m in open_store(db).load("s").data["plan"]["memory"]] == ["Which city?", "291,000"]


def test_planner_and_router_stream_step_and_state_events(tmp_path):
    agent = PlanAgent(ScriptedModel([plan("Oslo"), "Oslo has 709,000 people."]), [lookup], tmp_path / "p.db", "x")
    events = list(agent.stream("population of Oslo"))
    kinds = [e.kind for e in events]
    assert kinds[0] == "run_start" and events[0].agent == "planner" and kinds[-1] == "final"
    plans = [e.value for e in events if isinstance(e, ev.StateChanged) and e.name == "plan"]
    assert [t["status"] for p in plans for t in p["todos"]] == ["pending", "done"]
    assert ("step_start", 1) in describe(events) and consume(iter(events)).output == "Oslo has 709,000 people."


IMPORTS = """
import sys
{block}
for name in {modules!r}:
    __import__(name)
print(",".join(sorted(m for m in sys.modules if m.startswith("orrery"))))
"""

BLOCK_EXTRAS = """
import importlib.abc
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"numpy", "pandas", "statsforecast", "xllamacpp", "fastapi", "uvicorn", "tantivy",
                                  "duckdb", "talib", "sqlglot", "psycopg", "matplotlib", "polars", "dask"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Block())
"""


def _imports(modules, block=""):
    code = IMPORTS.format(block=block, modules=modules)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(",")


@pytest.mark.integration  # a real subprocess
def test_the_core_imports_with_only_the_core_dependencies():
    core = [
        "orrery",
        "orrery.agent",
        "orrery.sessions",
        "orrery.trace",
        "orrery.console",
        "orrery.apps",
        "orrery.chat",
        "orrery.llm",
        "orrery.tools.builtin",
        "orrery.cli",
    ]
    assert "orrery.agent.loop" in _imports(core, BLOCK_EXTRAS)


@pytest.mark.integration  # a real subprocess
def test_consumers_of_events_do_not_load_the_agent_package():
    for consumer in ("orrery.trace", "orrery.console", "orrery.events"):
        loaded = _imports([consumer])
        assert not any(m.startswith(("orrery.agent", "orrery.apps")) for m in loaded), (consumer, loaded)


@pytest.mark.integration  # a real subprocess
def test_every_module_imports_first_without_a_cycle():
    """A cycle shows as an ImportError (partially initialized module) when its second member loads first."""
    code = """
import importlib, pkgutil, sys
import orrery
names = [m.name for m in pkgutil.walk_packages(orrery.__path__, "orrery.") if ".__main__" not in m.name]
for name in names:
    for loaded in [m for m in sys.modules if m.startswith("orrery.")]:
        del sys.modules[loaded]
    importlib.import_module(name)
print(len(names))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout) > 40


def test_astream_gives_the_same_events_and_stops_the_run_when_the_consumer_leaves():
    import asyncio
    import time

    async def collect(agent, stop_after=None):
        kinds = []
        async for e in agent.astream("6*7?"):
            kinds.append(e.kind)
            if e.kind == stop_after:
                break
        return kinds

    def fresh():
        return Agent(ScriptedModel([turn(call("calculate", expression="6*7")), "42"]), DEFAULT_TOOLS)

    assert asyncio.run(collect(fresh())) == [e.kind for e in fresh().stream("6*7?")]
    agent = fresh()
    assert asyncio.run(collect(agent, stop_after="tool_result"))[-1] == "tool_result"
    time.sleep(0.2)  # the worker thread notices at its next event
    assert len(agent.model.requests) == 1


def test_a_model_that_takes_the_catalogue_gets_every_tool_while_gating_narrows_the_offer():
    from orrery.tools import after

    class CatalogueModel(ScriptedModel):
        profile = ModelProfile(streams=True, takes_catalogue=True)
        catalogues: list = []

        def stream(self, messages, tools=(), *, catalogue=None, **kw):
            self.catalogues.append([t.name for t in catalogue])
            return super().stream(messages, tools, **kw)

    @tool
    def first() -> str:
        """Step one."""
        return "one"

    @tool(available=after("first"))
    def second() -> str:
        """Step two."""
        return "two"

    model = CatalogueModel([turn(call("first")), turn(call("second")), "done"])
    Agent(model, [first, second]).run("go")
    assert [r["tools"] for r in model.requests] == [["first"], ["first", "second"], ["first", "second"]]
    assert model.catalogues == [["first", "second"]] * 3
