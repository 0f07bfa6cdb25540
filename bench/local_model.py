"""Tool choice with the embedded model: accuracy and seconds per call, with and without gating.

Gated: only the 2-3 tools that make sense in that state are offered (what a workflow does).
Ungated: all six tools every time. A case is right when the model calls the expected tool,
and its arguments are valid when they also match the schema and carry the values asked for.

    OMP_WAIT_POLICY=passive python bench/local_model.py
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from orrery.errors import ModelError  # noqa: E402
from orrery.llm.local import LocalModel  # noqa: E402
from orrery.messages import Message, ModelResponse, ToolCall, ToolSpec  # noqa: E402

HERE = Path(__file__).parent


def _obj(required: list[str], **props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required}


STR, NUM, INT = {"type": "string"}, {"type": "number"}, {"type": "integer"}
TOOLS = {t.name: t for t in [
    ToolSpec("calculate", "Evaluate an arithmetic expression and return the number.", _obj(["expression"], expression=STR)),
    ToolSpec("get_weather", "Current weather for a city.", _obj(["city"], city=STR)),
    ToolSpec("convert_units", "Convert a value from one unit to another (length, mass, temperature).",
             _obj(["value", "from_unit", "to_unit"], value=NUM, from_unit=STR, to_unit=STR)),
    ToolSpec("web_search", "Search the web and return the top results for a query.", _obj(["query"], query=STR)),
    ToolSpec("forecast", "Forecast the next `horizon` values of a named time series from the data set.",
             _obj(["series", "horizon"], series=STR, horizon=INT)),
    ToolSpec("submit", "Submit the final answer to the user once the results are known.", _obj(["answer"], answer=STR)),
]}


@dataclass
class Case:
    prompt: str
    expected: str
    gated: list[str]
    check: Callable[[dict[str, Any]], bool]
    history: list[Message] = field(default_factory=list)


def has(*words: str) -> Callable[[dict[str, Any]], bool]:
    """Arguments mention every word (case-insensitive, spaces ignored)."""
    def check(args: dict[str, Any]) -> bool:
        text = re.sub(r"\s", "", json.dumps(args).lower())
        return all(re.sub(r"\s", "", w.lower()) in text for w in words)
    return check


def after(question: str, name: str, args: dict[str, Any], result: str) -> list[Message]:
    """History where `name` was already called for `question` and returned `result`."""
    call = ToolCall(f"call_{name}", name, args)
    return [Message("user", question), Message("assistant", "", [call]),
            Message("tool", result, tool_call_id=call.id, name=name)]


CASES = [
    Case("What is 17*23?", "calculate", ["calculate", "web_search"], has("17", "23")),
    Case("How much is 1234 divided by 8, plus 19?", "calculate", ["calculate", "convert_units"], has("1234", "8", "19")),
    Case("What's the weather like in Paris right now?", "get_weather", ["get_weather", "forecast"], has("paris")),
    Case("Do I need an umbrella in Tokyo today?", "get_weather", ["get_weather", "web_search"], has("tokyo")),
    Case("Convert 5 miles to kilometers.", "convert_units", ["convert_units", "calculate"],
         lambda a: a.get("value") == 5 and "mi" in str(a.get("from_unit")).lower() and "k" in str(a.get("to_unit")).lower()),
    Case("How many pounds is 72 kg?", "convert_units", ["convert_units", "calculate"],
         lambda a: a.get("value") == 72 and "k" in str(a.get("from_unit")).lower()),
    Case("Who won the 2018 FIFA World Cup?", "web_search", ["web_search", "calculate"], has("2018", "world cup")),
    Case("Find recent news about the James Webb Space Telescope.", "web_search", ["web_search", "get_weather"],
         has("webb")),
    Case("Forecast the next 12 months of the 'sales' series.", "forecast", ["forecast", "calculate"],
         lambda a: "sales" in str(a.get("series")).lower() and a.get("horizon") == 12),
    Case("Predict daily visitors for the coming 7 days (series: visitors).", "forecast", ["forecast", "web_search"],
         lambda a: "visitor" in str(a.get("series")).lower() and a.get("horizon") == 7),
    Case("", "submit", ["submit", "calculate"], has("391"),
         after("What is 17*23?", "calculate", {"expression": "17*23"}, "391")),
    Case("", "submit", ["submit", "get_weather"], has("18"),
         after("What's the weather in Oslo?", "get_weather", {"city": "Oslo"}, '{"temp_c": 18, "sky": "cloudy"}')),
    Case("", "submit", ["submit", "forecast", "calculate"], has("120"),
         after("Forecast next month's sales (series: sales).", "forecast", {"series": "sales", "horizon": 1},
               '{"series": "sales", "forecast": [120.5]}')),
    Case("I have 3 boxes of 14 apples each. How many apples in total?", "calculate", ["calculate", "submit"],
         has("3", "14")),
]


def schema_ok(tool: ToolSpec, args: dict[str, Any]) -> bool:
    types = {"string": str, "number": (int, float), "integer": int}
    props = tool.parameters["properties"]
    return (set(tool.parameters["required"]) <= set(args) <= set(props)
            and all(isinstance(args[k], types[props[k]["type"]]) for k in args))


def run(model: LocalModel, gated: bool) -> dict[str, Any]:
    rows = []
    for case in CASES:
        tools = [TOOLS[n] for n in case.gated] if gated else list(TOOLS.values())
        messages = case.history + ([Message("user", case.prompt)] if case.prompt else [])
        t0 = time.perf_counter()
        try:
            resp, error = model.complete(messages, tools), None
        except ModelError as exc:  # a reply cut at max_tokens counts as a miss
            resp, error = ModelResponse(), str(exc)
        seconds = time.perf_counter() - t0
        call = resp.tool_calls[0] if resp.tool_calls else None
        right = call is not None and call.name == case.expected
        valid = right and schema_ok(TOOLS[call.name], call.arguments) and case.check(call.arguments)
        rows.append({"prompt": case.prompt or messages[0].content, "expected": case.expected,
                     "got": call.name if call else None, "arguments": call.arguments if call else None,
                     "content": resp.content, "error": error, "right_tool": right, "valid_arguments": valid,
                     "seconds": round(seconds, 2), "prompt_tokens": resp.usage.prompt_tokens,
                     "completion_tokens": resp.usage.completion_tokens})
    n = len(rows)
    return {"tools_offered": "gated (2-3)" if gated else f"all ({len(TOOLS)})",
            "cases": n, "right_tool": sum(r["right_tool"] for r in rows),
            "right_tool_and_valid_arguments": sum(r["valid_arguments"] for r in rows),
            "seconds_per_call": round(sum(r["seconds"] for r in rows) / n, 2),
            "mean_prompt_tokens": round(sum(r["prompt_tokens"] for r in rows) / n),
            "rows": rows}


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    return f"{cpu}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"


def main() -> None:
    model = LocalModel(max_tokens=128)
    t0 = time.perf_counter()
    model.load()
    load_s = time.perf_counter() - t0
    model.complete([Message("user", "Hi")], max_tokens=4)  # warm-up, not measured
    results = {"date": dt.date.today().isoformat(), "machine": machine(), "model": str(model.path),
               "n_threads": model.n_threads, "n_ctx": model.n_ctx, "load_seconds": round(load_s, 2),
               "runs": [run(model, gated=True), run(model, gated=False)]}
    out = HERE / "results" / "local_model.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    (HERE / "local_model.md").write_text(markdown(results))
    print(markdown(results))


def markdown(r: dict[str, Any]) -> str:
    lines = ["## Embedded model: tool choice (`bench/local_model.py`)", "",
             f"{r['date']}, {r['machine']}; Qwen2.5-Coder-0.5B-Instruct Q4_K_M in-process via xllamacpp, "
             f"n_threads {r['n_threads']}, n_ctx {r['n_ctx']}, temperature 0, replies constrained by a JSON-schema "
             f"grammar, no examples in the prompt. Load: {r['load_seconds']} s.", "",
             "| tools offered | cases | right tool | right tool + valid arguments | s / call | prompt tokens |",
             "|---|---|---|---|---|---|"]
    for run_ in r["runs"]:
        lines.append(f"| {run_['tools_offered']} | {run_['cases']} | {run_['right_tool']} "
                     f"| {run_['right_tool_and_valid_arguments']} | {run_['seconds_per_call']} "
                     f"| {run_['mean_prompt_tokens']} |")
    lines += ["", "Valid arguments: match the schema and carry the values asked for (city, numbers, horizon). "
              "Per-case replies: `bench/results/local_model.json`.",
              "Gated calls can be slower per call: each case's tool list differs, so the prompt prefix cache "
              "rarely hits, while the ungated list is the same every time. Timings were taken with other jobs "
              "on the machine.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
