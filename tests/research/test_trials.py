"""A forecast as an aggregate: k submit trials on one board, pooled, calibrated, all figures in the trajectory;
anchors from the sources beside the agent's figure; batches with trials; `orrery research calibrate`."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from orrery.cli import app as cli_app
from orrery.errors import DataError
from orrery.llm.local import LocalModel
from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.messages import Message, ModelResponse, ToolSpec, Usage
from orrery.research.agent import ResearchAgent
from orrery.research.anchors import Anchors
from orrery.research.batch import load_trajectory, trajectory_path
from orrery.research.calibration import GUARDS, CalibrationError, Calibrator, Features, load_calibrator, pool
from orrery.research.prompts import BRIEF_CHARS, SUBMIT_PROMPT, SYSTEM_PROMPT
from orrery.research.runner import replay_trajectory, run_batch
from orrery.research.search import SqliteIndex
from orrery.research.types import Document

QUESTION = "Will the bridge reopen by 2024-07-01?"
DOCS = [
    Document(
        "news",
        "Bridge repairs on schedule",
        "Engineers say the bridge repairs are on schedule.",
        datetime(2024, 5, 1, tzinfo=UTC),
    ),
    Document(
        "mkt",
        f"Example market on 2024-05-20: {QUESTION}",
        f'On 2024-05-20 the Example market for "{QUESTION}" stood at 0.300 (30.0% chance of Yes).',
        datetime(2024, 5, 20, tzinfo=UTC),
    ),
    Document(
        "late-mkt",
        f"Example market on 2024-06-20: {QUESTION}",
        f'On 2024-06-20 the Example market for "{QUESTION}" stood at 0.950 (95.0% chance of Yes).',
        datetime(2024, 6, 20, tzinfo=UTC),
    ),
]
BOUND = "2024-06-01"


@pytest.fixture
def index(tmp_path: Path) -> SqliteIndex:
    return SqliteIndex.create(tmp_path / "index.sqlite", DOCS)


def script(*trial_ps: float, rationale: str = "Repairs on schedule [1].") -> list:
    return [
        turn(call("search", query="bridge repairs")),
        turn(call("add_source", id="news", why="on schedule")),
        turn(call("submit", probability=0.9, rationale="Repairs on schedule [1].")),
    ] + [turn(call("submit", probability=p, rationale=rationale)) for p in trial_ps]


def calibrator(model: str = "scripted") -> Calibrator:
    # calibrated = sigmoid(0.5 * logit(pooled) + 1.0 * logit(market)) when a market figure is known
    return Calibrator(model, "platt", {"agent": 0.5, "market": 1.0}, {})


def test_trials_are_pooled_calibrated_and_all_figures_are_in_the_trajectory(index) -> None:
    model = ScriptedModel(script(0.2, 0.6))  # trial 2 is asked for the chance of No: 0.2 -> 0.8
    result = ResearchAgent(model, index, trials=3, calibration=calibrator()).run(QUESTION, before=BOUND)
    assert [t["probability"] for t in result.trials] == pytest.approx([0.9, 0.8, 0.6])
    assert [t["inverted"] for t in result.trials] == [False, True, False]
    expected = pool([0.9, 0.8, 0.6])
    assert result.raw == 0.9
    assert (result.pooled, result.spread) == (pytest.approx(expected.probability), pytest.approx(expected.spread))
    assert result.anchors["market"]["probability"] == 0.3  # the figure dated after the bound is never seen
    z = 0.5 * _logit(expected.probability) + _logit(0.3)
    assert result.calibrated == pytest.approx(1 / (1 + 2.718281828459045**-z), rel=1e-6)
    assert result.probability == result.calibrated and result.calibration.startswith("platt for scripted")
    saved = result.to_dict()
    state = [e for e in saved["trajectory"]["events"] if e["kind"] == "state" and e["name"] == "forecast"]
    assert state and {k: state[-1]["value"][k] for k in ("raw", "pooled", "calibrated")} == {
        "raw": 0.9,
        "pooled": result.pooled,
        "calibrated": result.calibrated,
    }
    # the trials saw the board and the anchor, and could only submit
    trial_request = model.requests[3]
    assert trial_request["tools"] == ["submit"]
    assert "[1] Bridge repairs on schedule" in trial_request["messages"][2].content
    assert "0.300" in trial_request["messages"][-1].content and "NO" in trial_request["messages"][-1].content
    # the loop's submit showed the anchor beside the agent's figure
    submit_reply = [m for m in result.trajectory.messages if m["role"] == "tool"][-1]["content"]
    assert submit_reply.startswith("Submitted 0.900. Beside it:") and "0.300" in submit_reply


def _logit(p: float) -> float:
    import math

    return math.log(p / (1 - p))


def test_a_trial_that_cites_nothing_or_quotes_an_unsourced_number_stays_out_of_the_pool(index) -> None:
    model = ScriptedModel(
        script(0.3, rationale="No citation here.")
        + [turn(call("submit", probability=0.5, rationale="About 42 percent done [1]."))]
    )
    result = ResearchAgent(model, index, trials=3, calibration=False).run(QUESTION, before=BOUND)
    errors = [t["error"] for t in result.trials]
    assert errors[0] == "" and "cites no board source" in errors[1] and "42" in errors[2]
    assert result.pooled == result.raw == result.probability == 0.9
    assert result.calibrated is None and result.calibration is None


def test_a_run_without_a_submit_draws_no_trials(index) -> None:
    model = ScriptedModel([turn(call("search", query="bridge")), turn(call("add_source", id="news", why="x"))])
    result = ResearchAgent(model, index, trials=3, max_rounds=2, calibration=False).run(QUESTION, before=BOUND)
    assert result.status == "max_rounds" and result.probability is None and result.trials == []
    assert len(model.requests) == 2


def test_the_replay_of_a_pooled_trajectory_gives_the_same_figures(index) -> None:
    result = ResearchAgent(ScriptedModel(script(0.2, 0.6)), index, trials=3, calibration=False).run(
        QUESTION, before=BOUND
    )
    again = replay_trajectory(result.to_dict(), index, trials=3, calibration=False)

    def figures(r):
        return r.raw, r.pooled, [{k: v for k, v in t.items() if k != "seconds"} for t in r.trials]

    assert figures(again) == figures(result)


def test_a_calibrator_for_another_model_is_refused_before_any_work(index, tmp_path) -> None:
    path = calibrator("local").save(tmp_path / "calib.json")
    model = ScriptedModel(script())
    with pytest.raises(CalibrationError, match="fitted for model 'local', not 'scripted'"):
        ResearchAgent(model, index, calibration=path)
    with pytest.raises(CalibrationError, match="fitted for model 'local'"):
        run_batch(
            [{"id": "q", "question": QUESTION, "freeze_date": BOUND}],
            tmp_path / "out",
            model,
            index=index,
            calibration=str(path),
            progress=False,
        )
    assert model.requests == [] and not (tmp_path / "out" / "q.json").exists()


class TrialPolicy:
    """Thread-safe: search, keep the first hit, submit `p`; asked for the chance of No, submit 1 - p."""

    name = "policy"

    def __init__(self, p: dict[str, float]) -> None:
        self.p, self.threads = p, set()
        self._lock = threading.Lock()

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), **_: Any) -> ModelResponse:
        with self._lock:
            self.threads.add(threading.current_thread().name)
        question = messages[1].content.splitlines()[0]
        p = next(v for k, v in self.p.items() if k in question)
        last = messages[-1]
        if [t.name for t in tools] == ["submit"] or (last.role == "tool" and last.name == "add_source"):
            p = 1 - p if "resolves NO" in last.content else p
            c = call("submit", probability=p, rationale="The report [1].")
        elif last.role == "tool" and last.name == "search" and (m := re.search(r"id=(\S+)", last.content)):
            c = call("add_source", id=m.group(1), why="on topic")
        else:
            c = call("search", query="topic report")
        return ModelResponse("", [c], Usage(10, 5))


def test_batch_trials_run_in_the_workers_and_calibrate_fits_from_the_batch(tmp_path: Path) -> None:
    docs = [
        Document(f"d{i}", f"Topic {i} report", f"News about topic {i}.", datetime(2024, 1, 1, tzinfo=UTC))
        for i in range(30)
    ]
    SqliteIndex.create(tmp_path / "idx.sqlite", docs)
    # question i is said to be 0.8 likely; the even ones happen
    rows = [
        {
            "id": f"q{i}",
            "question": f"Will topic {i} grow?",
            "freeze_date": "2024-02-01",
            "resolution": float(i % 2 == 0),
            "source": "polymarket",
            "source_id": str(i),
        }
        for i in range(30)
    ]
    model = TrialPolicy({f"topic {i} ": 0.8 if i % 2 == 0 else 0.7 for i in range(30)})
    result = run_batch(
        rows,
        tmp_path / "out",
        model,
        workers=2,
        index=tmp_path / "idx.sqlite",
        trials=3,
        calibration=False,
        progress=False,
    )
    assert result.summary["statuses"] == {"completed": 30}
    assert model.threads <= {"orrery-research_0", "orrery-research_1"}  # trials ran in the batch's workers
    traj = json.loads((tmp_path / "out" / "q0.json").read_text())
    assert [t["probability"] for t in traj["trials"]] == pytest.approx([0.8, 0.8, 0.8])
    assert set(result.summary["brier_by_figure"]) == {"raw", "pooled"}
    qfile = tmp_path / "questions.jsonl"
    qfile.write_text("".join(json.dumps(r) + "\n" for r in rows))
    runner = CliRunner()
    out = tmp_path / "calib.json"
    res = runner.invoke(
        cli_app, ["research", "calibrate", str(qfile), "--runs", str(tmp_path / "out"), "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    calib = load_calibrator(out, "policy")
    assert calib.trials == 3 and calib.fitted_on["questions"] == 30
    raw_brier = (15 * 0.2**2 + 15 * 0.7**2) / 30
    assert calib.fitted_on["cv_brier"][calib.method] < raw_brier  # 0.7 means No here: it learns that
    assert f"guard {calib.guard_rule}" in " ".join(res.output.split())
    assert set(calib.fitted_on["cv_guard"]) == set(calib.fitted_on["cv_risk"]) == set(GUARDS)
    again = runner.invoke(
        cli_app, ["research", "calibrate", str(qfile), "--runs", str(tmp_path / "out"), "--out", str(out)]
    )
    assert isinstance(again.exception, DataError)  # orrery's main prints it in one line and exits 2
    assert "exists" in str(again.exception) and "\n" not in str(again.exception)
    assert load_calibrator(out).to_dict() == calib.to_dict()  # nothing was changed


def test_a_search_board_skips_the_loop_and_every_trial_is_a_submit_sample(index) -> None:
    model = ScriptedModel(
        [
            turn(call("submit", probability=0.4, rationale="The market [1].")),
            turn(call("submit", probability=0.7, rationale="The market [1].")),
        ]
    )
    result = ResearchAgent(model, index, trials=2, board="search", max_sources=1, calibration=False).run(
        QUESTION, before=BOUND
    )
    assert [s.id for s in result.sources] == ["mkt"]  # the document stating the anchor goes first
    assert [r["tools"] for r in model.requests] == [["submit"], ["submit"]]
    # the anchor line names the stating document by its board number, so repeating it cites it
    assert "Source [1] states the Example market at 0.300" in model.requests[0]["messages"][-1].content
    assert result.status == "completed" and result.steps == 0
    assert [t["probability"] for t in result.trials] == pytest.approx([0.4, 0.3])  # trial 2 asked for No
    assert result.raw == 0.4 and result.pooled == pytest.approx(pool([0.4, 0.3]).probability)
    system = model.requests[0]["messages"][0]
    assert system.role == "system" and system.content == SUBMIT_PROMPT  # no loop rules for a submit-only call
    assert set(result.timings) == {"search", "model_calls", "total"} and result.timings["total"] >= 0
    with pytest.raises(Exception, match="board must be one of loop, search"):
        ResearchAgent(model, index, board="magic")


def test_the_shipped_calibrator_applies_by_default_for_the_embedded_model_only(index) -> None:
    from orrery.research.agent import SHIPPED_CALIBRATION

    shipped = load_calibrator(SHIPPED_CALIBRATION, "local")
    assert set(shipped.fitted_on["question_sets"]) == {"2025-10-26", "2025-11-23", "2025-12-21", "2026-01-18"}

    class Embedded(LocalModel):  # the embedded model's type, with scripted replies
        def __init__(self) -> None:
            super().__init__()
            self.script = ScriptedModel([turn(call("submit", probability=0.9, rationale="The market [1]."))] * 3)

        def complete(self, messages, tools=(), **kwargs):
            kwargs.pop("catalogue", None)
            return self.script.complete(messages, tools, **kwargs)

        profile = replace(LocalModel.profile, streams=False)  # replies come whole from complete

    local = Embedded()
    result = ResearchAgent(local, index).run(QUESTION, before=BOUND)
    assert result.calibration == shipped.label and result.calibrated == result.probability
    assert ResearchAgent(local, index, calibration="none").calibrator is None
    assert ResearchAgent(ScriptedModel([]), index).calibrator is None  # another model: no default
    endpoint = ScriptedModel([])
    endpoint.name = "local"  # an OpenAI-compatible endpoint given without a model name is called so too
    agent = ResearchAgent(endpoint, index)
    assert (agent.calibrator, agent.board, agent.model_id) == (None, "loop", "local-endpoint")


def test_a_trial_quoting_a_figure_only_a_board_source_states_cites_it(index) -> None:
    model = ScriptedModel(
        [
            turn(call("submit", probability=0.35, rationale="The market stood at 0.300 in May.")),
            turn(call("submit", probability=0.5, rationale="It will reopen by 2024-07-01.")),
        ]
    )
    result = ResearchAgent(model, index, trials=2, board="search", max_sources=1, calibration=False).run(
        QUESTION, before=BOUND
    )
    assert [t["probability"] for t in result.trials] == [0.35, None]  # a date from the question cites nothing
    assert "cites no board source" in result.trials[1]["error"]


def test_the_search_boards_brief_prompt_cuts_the_background_and_can_be_turned_off(index) -> None:
    row = {"id": "q/brief", "question": QUESTION, "background": "word " * 300, "freeze_date": BOUND}
    prompts = {}
    for brief in (True, False):
        model = ScriptedModel([turn(call("submit", probability=0.4, rationale="The market [1]."))])
        ResearchAgent(model, index, trials=1, board="search", max_sources=1, calibration=False, brief=brief).run(row)
        system, user = model.requests[0]["messages"][:2]
        prompts[brief] = (system.content, user.content)
    assert prompts[True][0] == SUBMIT_PROMPT and prompts[False][0] == SYSTEM_PROMPT
    background = {
        b: next(line for line in p[1].splitlines() if line.startswith("Background: ")) for b, p in prompts.items()
    }
    assert len(background[True]) <= len("Background: ") + BRIEF_CHARS < len(background[False])


def never_valid(n: int = 40) -> ScriptedModel:
    """A model whose every submit cites nothing, so no trial is ever valid."""
    return ScriptedModel([turn(call("submit", probability=0.99, rationale="Surely."))] * n)


def test_without_a_valid_trial_the_figure_is_the_calibrators_from_anchors_alone(index) -> None:
    calib = Calibrator("scripted", "platt", {"intercept": -0.4, "agent": 2.0, "market": 1.0}, {})
    result = ResearchAgent(never_valid(), index, trials=2, board="search", calibration=calib).run(
        QUESTION, before=BOUND
    )
    assert all(t["probability"] is None for t in result.trials) and len(result.trials) == 2
    assert result.status == "invalid" and result.raw is None and result.pooled is None  # the status says what happened
    expected = 1 / (1 + 2.718281828459045 ** -(-0.4 + _logit(0.3)))  # no agent term: the market anchor and intercept
    assert result.probability == result.calibrated == pytest.approx(expected, rel=1e-6)
    assert result.figure_source == "anchors" and result.calibration == calib.label
    assert "no valid trial" in result.errors[-1] and "anchors and base rate alone" in result.output
    saved = result.to_dict()
    forecast = [e for e in saved["trajectory"]["events"] if e["kind"] == "state" and e["name"] == "forecast"][-1]
    assert forecast["value"]["figure_source"] == "anchors" and forecast["value"]["probability"] == result.probability
    assert (
        saved["trajectory"]["events"][-1]["kind"] == "final"
        and "no valid trial" in saved["trajectory"]["events"][-1]["output"]
    )
    valid = ResearchAgent(ScriptedModel(script()), index, calibration=calib).run(QUESTION, before=BOUND)
    assert valid.figure_source == "trials" and valid.status == "completed"


def test_without_a_valid_trial_and_without_a_calibrator_there_is_no_figure(index) -> None:
    result = ResearchAgent(never_valid(), index, trials=2, board="search", calibration=False).run(
        QUESTION, before=BOUND
    )
    assert result.probability is None and result.figure_source is None and result.status == "invalid"


def test_a_batch_and_ask_give_every_question_a_figure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import orrery.research.agent as agent_module
    import orrery.research.runner as runner_module
    from orrery.research.cli import app

    SqliteIndex.create(tmp_path / "idx.sqlite", DOCS)
    calib = Calibrator("scripted", "platt", {"intercept": -0.4, "market": 1.0}, {}).save(tmp_path / "calib.json")
    rows = [{"id": "q1", "question": QUESTION, "freeze_date": BOUND, "resolution": 0.0}]
    result = run_batch(
        rows,
        tmp_path / "out",
        never_valid(),
        index=tmp_path / "idx.sqlite",
        board="search",
        calibration=str(calib),
        progress=False,
    )
    assert result.summary["statuses"] == {"invalid": 1} and result.summary["figure_sources"] == {"anchors": 1}
    p = result.summary["rows"][0]["probability"]
    assert p is not None and result.summary["brier"]["brier"] == pytest.approx(p**2)
    for module in (agent_module, runner_module):
        monkeypatch.setattr(module, "resolve_model", lambda spec: never_valid())
    asked = CliRunner().invoke(
        app,
        [
            "ask",
            QUESTION,
            "--index",
            str(tmp_path / "idx.sqlite"),
            "--before",
            BOUND,
            "--board",
            "search",
            "--calibration",
            str(calib),
        ],
    )
    assert asked.exit_code == 0, asked.output
    said = " ".join(asked.output.split())  # rich wraps lines
    assert f"invalid probability {p:.3f}" in said and "anchors and base rate alone" in said


def test_the_calibrators_guard_applies_to_a_rows_source_in_ask_and_batch(index, tmp_path: Path) -> None:
    """A source whose guard keeps none of the departure gets its base rate, whatever the agent and anchors say;
    a row of another source keeps the calibrator's own figure."""
    calib = replace(calibrator(), guard={"fred": {"target": 0.62, "keep": 0.0}}, guard_rule="best")
    assert "guard best" in calib.label
    rows = [
        {"id": f"q/{s}", "question": QUESTION, "freeze_date": BOUND, "source": s, "resolution": 1.0}
        for s in ("fred", "acled")
    ]
    got = {}
    for row in rows:
        result = ResearchAgent(ScriptedModel(script(0.2)), index, trials=1, calibration=calib).run(row)
        got[row["source"]] = result
    assert got["fred"].probability == pytest.approx(0.62) and got["fred"].calibration == calib.label
    assert got["acled"].probability == pytest.approx(calibrator().apply(_features_of(got["acled"])), rel=1e-9)
    assert got["acled"].probability != pytest.approx(0.62, abs=0.01)
    path = calib.save(tmp_path / "calib.json")
    model = ScriptedModel(script(0.2) + script(0.2))
    run_batch(rows, tmp_path / "out", model, index=index, calibration=str(path), workers=1, trials=1, progress=False)
    saved = {r["id"]: load_trajectory(trajectory_path(tmp_path / "out", r["id"])) for r in rows}
    assert saved["q/fred"]["probability"] == pytest.approx(0.62) and "guard best" in saved["q/fred"]["calibration"]
    assert saved["q/acled"]["probability"] == pytest.approx(got["acled"].probability)


def _features_of(result: Any) -> Features:
    return Features.of(result.pooled, Anchors.from_dict(result.anchors), "acled", {"question": QUESTION})
