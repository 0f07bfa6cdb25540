import threading
import time

import pytest

from orrery.errors import ToolError
from orrery.messages import ToolCall
from orrery.tools import RunContext, Toolset, after, tool
from orrery.tools.builtin import calculate, safe_eval


@tool
def add(a: int, b: int = 2) -> int:
    """Add two integers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


def run(ts, name, **args):
    return ts.run([ToolCall("c1", name, args)], RunContext())[0]


def test_schema_comes_from_signature_and_docstring():
    spec = add.spec()
    assert spec.description == "Add two integers."
    props = spec.parameters["properties"]
    assert props["a"] == {"type": "integer", "description": "the first number"}
    assert props["b"]["default"] == 2
    assert spec.parameters["required"] == ["a"]
    assert spec.parameters["additionalProperties"] is False


def test_wrong_argument_types_become_an_observation_with_the_schema():
    r = run(Toolset([add]), "add", a="seven")
    assert not r.ok
    assert "invalid arguments for 'add'" in r.content and "a:" in r.content and '"integer"' in r.content


def test_unexpected_and_missing_arguments_are_reported():
    ts = Toolset([add])
    assert "Field required" in run(ts, "add").content
    assert "Extra inputs" in run(ts, "add", a=1, c=3).content


def test_unknown_tool_lists_the_available_tools():
    r = run(Toolset([add, calculate]), "multiply", a=1)
    assert not r.ok and "does not exist" in r.content and "add, calculate" in r.content


def test_malformed_json_arguments_become_an_observation():
    call = ToolCall.from_json("x", "add", '{"a": 1,,}')
    assert call.error
    r = Toolset([add]).run([call], RunContext())[0]
    assert not r.ok and "malformed" in r.content and "JSON" in r.content


def test_a_tool_that_raises_is_an_observation_not_a_crash():
    @tool
    def boom() -> str:
        """Always fails."""
        raise RuntimeError("disk on fire")

    r = run(Toolset([boom]), "boom")
    assert not r.ok and "RuntimeError: disk on fire" in r.content


def test_tool_error_message_reaches_the_model_verbatim():
    @tool
    def picky(x: int) -> int:
        """Refuses odd numbers."""
        if x % 2:
            raise ToolError("x must be even; try x=2")
        return x

    assert run(Toolset([picky]), "picky", x=3).content == "Error: x must be even; try x=2"


def test_a_hanging_tool_times_out():
    release = threading.Event()

    @tool(timeout=0.2)
    def hang() -> str:
        """Never returns in time."""
        release.wait(5)
        return "late"

    t0 = time.monotonic()
    r = run(Toolset([hang]), "hang")
    release.set()
    assert not r.ok and "timed out after 0.2s" in r.content
    assert time.monotonic() - t0 < 2


def test_calls_in_one_turn_run_in_parallel():
    barrier = threading.Barrier(3, timeout=5)

    @tool
    def wait(i: int) -> int:
        """Waits for the others."""
        barrier.wait()  # raises BrokenBarrierError if the calls ran one after another
        return i

    ts = Toolset([wait], max_workers=4)
    results = ts.run([ToolCall(str(i), "wait", {"i": i}) for i in range(3)], RunContext())
    assert [r.value for r in results] == [0, 1, 2] and all(r.ok for r in results)


def test_result_cache_honours_ttl():
    calls = []

    @tool(cache_ttl=0.3)
    def slow(x: int) -> int:
        """Counted."""
        calls.append(x)
        return x * 2

    ts = Toolset([slow])
    assert run(ts, "slow", x=1).value == 2
    second = run(ts, "slow", x=1)
    assert second.cached and calls == [1]
    time.sleep(0.35)
    assert not run(ts, "slow", x=1).cached and calls == [1, 1]


def test_gated_tools_are_hidden_until_their_prerequisite_succeeds():
    @tool(available=after("add"))
    def report() -> str:
        """Only after add."""
        return "done"

    ts, ctx = Toolset([add, report]), RunContext()
    assert [s.name for s in ts.specs(ctx)] == ["add"]
    r = ts.run([ToolCall("1", "report", {})], ctx)[0]
    assert not r.ok and "not available yet" in r.content
    ts.run([ToolCall("2", "add", {"a": 1})], ctx)
    assert [s.name for s in ts.specs(ctx)] == ["add", "report"]


def test_refine_rebuilds_the_schema_from_state():
    @tool(refine=lambda ctx, s: {**s, "properties": {"model": {"enum": ctx.state["models"]}}})
    def pick(model: str) -> str:
        """Pick a model."""
        return model

    ctx = RunContext(state={"models": ["ETS", "Theta"]})
    assert pick.spec(ctx).parameters["properties"]["model"]["enum"] == ["ETS", "Theta"]


def test_context_parameter_is_injected_and_hidden_from_the_schema():
    @tool
    def where(ctx: RunContext, q: str) -> str:
        """Uses run options."""
        return f"{q}<{ctx.options['before']}"

    assert "ctx" not in where.spec().parameters["properties"]
    ctx = RunContext(options={"before": "2024-01-01"})
    assert Toolset([where]).run([ToolCall("1", "where", {"q": "x"})], ctx)[0].value == "x<2024-01-01"


@pytest.mark.parametrize(
    "expr,value",
    [("25*4", 100), ("2^10", 1024), ("-3 + 4/2", -1.0), ("sqrt(16)", 4.0), ("round(pi, 2)", 3.14), ("7 % 3", 1)],
)
def test_calculator(expr, value):
    assert safe_eval(expr) == value


@pytest.mark.parametrize(
    "expr", ["__import__('os').system('ls')", "open('x')", "(1).__class__", "x + 1", "9 ** 9 ** 9", "1/0", "2 +"]
)
def test_calculator_refuses_anything_but_arithmetic(expr):
    with pytest.raises(ToolError):
        safe_eval(expr)


def test_gated_copy_has_its_own_gate_and_cache():
    calls = []

    @tool(cache_ttl=60)
    def twice(x: int) -> int:
        """Doubles."""
        calls.append(x)
        return 2 * x

    hidden = twice.gated(lambda ctx: False)
    assert twice.available is None and hidden.available(RunContext()) is False
    run(Toolset([twice]), "twice", x=1)
    assert not run(Toolset([twice.gated(None)]), "twice", x=1).cached and calls == [1, 1]
