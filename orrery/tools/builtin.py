"""The generic agent's tools: a safe calculator, a fact lookup and a fact search."""

from __future__ import annotations

import ast
import math
import operator
import time

from orrery.errors import ToolError
from orrery.tools.core import tool

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_FUNCS = {
    "sqrt": math.sqrt,
    "log": math.log,
    "log10": math.log10,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
}
_CONSTS = {"pi": math.pi, "e": math.e}


MAX_CHARS = 500  # expression length: bounds how many operations one call can ask for
MAX_INT_BITS = 4096  # about 1,200 digits: every integer operation on numbers this size takes microseconds
MAX_SECONDS = 1.0
MAX_ROUND_DIGITS = 1000  # round(x, -10**9) would compute 10**(10**9)


def _too_large(kind: str) -> ToolError:
    return ToolError(
        f"{kind} too large (integers are limited to {MAX_INT_BITS} bits, about 1,200 digits); "
        "use floats (up to about 1e308) or smaller numbers"
    )


def _apply(op: type[ast.operator], a: float | int, b: float | int) -> float | int:
    """One binary operation, refused before it runs when its integer result would be too large."""
    if isinstance(a, int) and isinstance(b, int):
        if op is ast.Pow and b > 0 and abs(a) > 1 and (abs(a).bit_length() - 1) * b > MAX_INT_BITS:
            raise _too_large("result")
        if op is ast.Mult and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
            raise _too_large("result")
    value = _BINARY[op](a, b)
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise _too_large("result")
    return value


def _call(name: str, args: list[float | int]) -> float | int:
    if name == "round" and len(args) == 2 and isinstance(args[1], int) and abs(args[1]) > MAX_ROUND_DIGITS:
        raise ToolError(f"round() takes at most {MAX_ROUND_DIGITS} digits")
    return _FUNCS[name](*args)


def _parse(expression: str) -> ast.Expression:
    if len(expression) > MAX_CHARS:
        raise ToolError(f"expression is {len(expression)} characters; the limit is {MAX_CHARS}")
    try:
        return ast.parse(expression.replace("^", "**"), mode="eval")
    except SyntaxError as exc:
        raise ToolError(f"cannot parse {expression!r}: {exc.msg}. Write plain arithmetic such as '25 * 4'.") from exc


def _number(v: int | float) -> int | float:
    if isinstance(v, int) and v.bit_length() > MAX_INT_BITS:
        raise _too_large("number")
    return v


class _Evaluator:
    """Walks one expression's AST within its deadline."""

    def __init__(self, expression: str):
        self.expression, self.deadline = expression, time.monotonic() + MAX_SECONDS

    def value(self, node: ast.AST) -> float | int:
        if time.monotonic() > self.deadline:
            raise ToolError(f"{self.expression!r} takes more than {MAX_SECONDS}s; simplify it")
        match node:
            case ast.Expression(body=body):
                return self.value(body)
            case ast.Constant(value=v) if isinstance(v, int | float) and not isinstance(v, bool):
                return _number(v)
            case ast.BinOp(left=l, op=op, right=r) if type(op) in _BINARY:
                return _apply(type(op), self.value(l), self.value(r))
            case ast.UnaryOp(op=op, operand=x) if type(op) in _UNARY:
                return _UNARY[type(op)](self.value(x))
            case ast.Name(id=name) if name in _CONSTS:
                return _CONSTS[name]
            case ast.Call(func=ast.Name(id=f), args=args, keywords=[]) if f in _FUNCS:
                return _call(f, [self.value(a) for a in args])
        raise ToolError(
            f"unsupported element {ast.dump(node)[:60]} in {self.expression!r}; "
            f"allowed: numbers, + - * / // % **, {', '.join(sorted(_FUNCS))}, pi, e"
        )


def safe_eval(expression: str) -> float | int:
    """Evaluate arithmetic by walking the AST: numbers, + - * / // % **, a few math functions.
    No eval(): names, attributes and calls outside the allow-list are refused. Bounded: at most
    MAX_CHARS characters, integers of at most MAX_INT_BITS bits (checked before each operation
    runs), MAX_SECONDS of work."""
    tree = _parse(expression)
    try:
        return _Evaluator(expression).value(tree)
    except ZeroDivisionError as exc:
        raise ToolError(f"division by zero in {expression!r}") from exc
    except OverflowError as exc:
        raise ToolError(f"{expression!r} overflows: {exc}") from exc
    except (ValueError, TypeError) as exc:  # math domain errors (sqrt(-1), log(0)), wrong argument counts
        raise ToolError(f"cannot evaluate {expression!r}: {exc}") from exc
    except RecursionError as exc:
        raise ToolError(f"{expression!r} is nested too deeply") from exc


@tool
def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression and return the number.

    Args:
        expression: arithmetic such as "25 * 4" or "sqrt(2) / 3"
    """
    value = safe_eval(expression)
    return str(int(value) if isinstance(value, float) and value.is_integer() else value)


FACTS = {
    "speed of light": "The speed of light in vacuum is 299,792,458 metres per second.",
    "earth radius": "The mean radius of the Earth is about 6,371 km.",
    "boiling point of water": "Water boils at 100 °C at standard sea-level pressure.",
    "python": "Python is a programming language created by Guido van Rossum, first released in 1991.",
    "moon distance": "The average distance from the Earth to the Moon is about 384,400 km.",
    "everest": "Mount Everest is 8,849 metres above sea level.",
    "pi": "Pi is approximately 3.14159.",
}


@tool
def get_fact(topic: str) -> str:
    """Look up a stored fact by its exact topic.

    Args:
        topic: one of the known topics, e.g. "speed of light"
    """
    fact = FACTS.get(topic.lower().strip())
    if fact is None:
        raise ToolError(f"no fact stored for {topic!r}. Known topics: {', '.join(sorted(FACTS))}")
    return fact


@tool(cache_ttl=300)
def search(query: str) -> list[str]:
    """Search the stored facts for any of the query's words.

    Args:
        query: a few keywords
    """
    words = {w for w in query.lower().split() if len(w) > 2}
    return [f for topic, f in FACTS.items() if words & set(topic.split()) or words & set(f.lower().split())]


DEFAULT_TOOLS = [calculate, get_fact, search]
