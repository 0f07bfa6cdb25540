"""`orrery demo`'s analysis with the embedded model, call by call: prompt tokens processed and reused from
llama.cpp's prompt cache, completion tokens, seconds. Appends one run to bench/results/local_model.json.

    python bench/local_model_demo.py --label before               # what the agent loop passes today
    python bench/local_model_demo.py --label after --catalogue    # the agent's whole tool catalogue passed

`--catalogue` passes every tool of the forecast workflow as `catalogue=` on each call (what the agent loop
does once it passes its catalogue): the system prompt then stays the same while gating changes the
callable tools. Runs against whichever `orrery` is first on sys.path, so an older checkout can be measured
the same way (`PYTHONPATH=/path/to/old python bench/local_model_demo.py --label main`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from orrery.forecast.agent import ForecastAgent, workflow_tools  # noqa: E402
from orrery.forecast.cli import SAMPLE  # noqa: E402
from orrery.llm.local import LocalModel  # noqa: E402
from orrery.messages import Message, ModelResponse, ToolSpec  # noqa: E402

HERE = Path(__file__).parent
SAMPLE_IS_PANEL = False  # AirPassengers is one series
QUERY = "Forecast the next two years of passengers and explain the result."


class Recording:
    """Wraps the model: records llama.cpp's timings of every call, and passes the catalogue if given."""

    def __init__(self, model: LocalModel, catalogue: Sequence[ToolSpec] | None):
        self.model, self.catalogue, self.name = model, catalogue, model.name
        self.calls: list[dict[str, Any]] = []
        self._timings: dict[str, Any] = {}
        if not hasattr(model, "last_timings"):  # an older LocalModel: read the timings off its raw replies
            chat = model.chat

            def recording_chat(request: dict[str, Any]) -> dict[str, Any]:
                result = chat(request)
                self._timings = result.get("timings", {})
                return result

            model.chat = recording_chat  # type: ignore[method-assign]

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), **kw: Any) -> ModelResponse:
        if self.catalogue is not None:
            kw["catalogue"] = self.catalogue
        t0 = time.perf_counter()
        resp = self.model.complete(messages, tools, **kw)
        timings = getattr(self.model, "last_timings", None) or self._timings
        self.calls.append(
            {
                "tools": [t.name for t in tools],
                "prompt_tokens": resp.usage.prompt_tokens,
                "cached_tokens": timings.get("cache_n", 0),
                "processed_tokens": timings.get("prompt_n", 0),
                "completion_tokens": resp.usage.completion_tokens,
                "seconds": round(time.perf_counter() - t0, 2),
                "reply": (resp.tool_calls[0].name if resp.tool_calls else "answer"),
                "content": resp.content[:400],
            }
        )
        return resp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--label", required=True)
    parser.add_argument("--catalogue", action="store_true")
    args = parser.parse_args()
    model = LocalModel()
    model.load()
    catalogue = [t.spec() for t in workflow_tools(SAMPLE_IS_PANEL)] if args.catalogue else None
    recording = Recording(model, catalogue)
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    result = ForecastAgent(recording).analyze(SAMPLE, query=QUERY)
    wall = time.perf_counter() - t0
    calls = recording.calls
    run = {
        "label": args.label,
        "date": dt.date.today().isoformat(),
        "catalogue": args.catalogue,
        "wall_s": round(wall, 1),
        "model_s": round(sum(c["seconds"] for c in calls), 1),
        "status": result.status,
        "best_model": result.best_model,
        "completed_workflow": result.status == "completed" and result.best_model is not None,
        "prompt_tokens": sum(c["prompt_tokens"] for c in calls),
        "processed_tokens": sum(c["processed_tokens"] for c in calls),
        "cached_tokens": sum(c["cached_tokens"] for c in calls),
        "completion_tokens": sum(c["completion_tokens"] for c in calls),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "calls": calls,
    }
    out = HERE / "results" / "local_model.json"
    data = json.loads(out.read_text()) if out.is_file() else {}
    data.setdefault("demo_runs", []).append(run)
    out.write_text(json.dumps(data, indent=2) + "\n")
    print(json.dumps({k: v for k, v in run.items() if k != "calls"}, indent=1))
    for c in calls:
        print(c)


if __name__ == "__main__":
    main()
