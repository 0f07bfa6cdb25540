import json

import pytest

from orrery.forecast.data import load
from orrery.forecast.tools import TOOLS, ForecastDeps, result_from_deps
from orrery.messages import ToolCall
from orrery.tools import RunContext, Toolset


@pytest.fixture
def run(frame):
    ctx = RunContext(ForecastDeps(load(frame, h=6)))
    tools = Toolset(TOOLS)

    def call(name: str, **args):
        result = tools.run([ToolCall(f"c{len(ctx.succeeded)}", name, args)], ctx)[0]
        return result, ctx

    return call, tools, ctx


def test_single_series_workflow(run):
    call, tools, ctx = run
    names = {t.name for t in tools.available(ctx)}
    assert "generate_forecast" not in names and "panel_fit" not in names  # gated
    r, _ = call("analyze_features")
    assert r.ok and r.value["seasonality"] == "strong"
    r, _ = call("cross_validate", models=["ETS", "Naive"], n_windows=2)
    assert r.ok and r.value["best"] == "AutoETS" and r.value["beats_baseline"]
    assert "SeasonalNaive" in json.loads(r.content)["mase"]
    r, _ = call("generate_forecast", model="AutoETS")
    fc, bands = r.value["forecasts"], r.value["intervals"]
    assert r.ok and set(fc) == {"ds", "mean"} and all(len(v) == 6 for v in fc.values())
    assert bands["ds"] == [fc["ds"][0], fc["ds"][-1]] and {"lo_80", "hi_80", "lo_95", "hi_95"} <= set(bands)
    ends = [fc["mean"][0], fc["mean"][-1]]
    assert all(lo < mid < hi for lo, mid, hi in zip(bands["lo_95"], ends, bands["hi_95"], strict=True))
    r, _ = call("detect_anomalies")
    assert r.ok and r.value["level"] == 99 and len(r.value["largest"]["ds"]) == min(r.value["count"], 10)
    for name, args in [("decompose", {}), ("unit_root_test", {}), ("compare_models", {"models": ["ETS", "Naive"]})]:
        assert call(name, **args)[0].ok
    res = result_from_deps(ctx.deps, narrative="done", trace=[{"tool": t} for t in ctx.succeeded])
    assert res.best_model == "AutoETS" and res.beats_baseline and len(res.forecasts) == 6
    assert res.to_dict()["trace"][0] == {"tool": "analyze_features"}


def test_errors_become_observations(run):
    call, _, _ = run
    r, _ = call("cross_validate", models=["Prophet"])
    assert not r.ok and "unknown model 'Prophet'" in r.content
    assert call("cross_validate", models=["Naive"], n_windows=2)[0].ok
    r, _ = call("generate_forecast", model="Combo")
    assert not r.ok and "combo_k >= 2" in r.content


def test_panel_tools(panel):
    ctx = RunContext(ForecastDeps(load(panel, groupby="store", h=6)))
    tools = Toolset(TOOLS)
    assert {"panel_analyze", "panel_fit"} <= {t.name for t in tools.available(ctx)}
    r = tools.run([ToolCall("a", "panel_analyze", {})], ctx)[0]
    assert r.ok and r.value["series"] == 3
    r = tools.run([ToolCall("b", "panel_fit", {"models": ["AutoETS", "Naive"], "n_windows": 2})], ctx)[0]
    assert r.ok and sum(r.value["wins"].values()) == 3
    res = result_from_deps(ctx.deps)
    assert len(res.panel) == 3 and len(res.forecasts) == 18
