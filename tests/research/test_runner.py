"""Batch runs: trajectories, resume after a crash or Ctrl-C, the shared rate limit, Dask, Brier."""

from __future__ import annotations

import io
import json
import re
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from orrery.llm.scripted import call
from orrery.messages import Message, ModelResponse, ToolSpec, Usage
from orrery.research.batch import RateLimiter, load_trajectory, trajectory_path
from orrery.research.runner import RateLimitedModel, replay_trajectory, run_batch, trace_path
from orrery.research.search import SqliteIndex
from orrery.research.types import Document

DOCS = [
    Document(
        f"d{i}", f"Topic {w} report", f"News about topic {w}: things happened.", datetime(2024, 1, 1 + i, tzinfo=UTC)
    )
    for i, w in enumerate(["alpha", "bravo", "charlie", "delta"])
]
QUESTIONS = [
    {
        "id": "q/alpha",
        "question": "Will topic alpha grow?",
        "freeze_date": "2024-02-01",
        "resolution": 1.0,
        "market_value": 0.9,
    },
    {
        "id": "q/bravo",
        "question": "Will topic bravo grow?",
        "freeze_date": "2024-02-01",
        "resolution": 0.0,
        "market_value": 0.3,
    },
    {
        "id": "q/charlie",
        "question": "Will topic charlie grow?",
        "freeze_date": "2024-02-01",
        "resolution": 0.0,
        "market_value": None,
    },
    {"id": "q/delta", "question": "Will topic delta grow?", "freeze_date": "2024-02-01", "resolution": None},
]


class PolicyModel:
    """A thread-safe scripted model: search the question, keep the first hit, submit `p`.
    Records when each call happened and which questions it saw; `interrupt_on` raises Ctrl-C."""

    name = "policy"

    def __init__(self, p: float = 0.8, interrupt_on: str | None = None) -> None:
        self.p = p
        self.interrupt_on = interrupt_on
        self.times: list[float] = []
        self.questions: list[str] = []
        self._lock = threading.Lock()

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSpec] = (), **_: Any) -> ModelResponse:
        question = messages[1].content.splitlines()[0].removeprefix("Question: ")
        with self._lock:
            self.times.append(time.monotonic())
            self.questions.append(question)
        if self.interrupt_on and self.interrupt_on in question:
            raise KeyboardInterrupt
        last = messages[-1]
        if last.role == "tool" and last.name == "search" and (m := re.search(r"id=(\S+)", last.content)):
            c = call("add_source", id=m.group(1), why="on topic")
        elif last.role == "tool" and last.name == "add_source":
            c = call("submit", probability=self.p, rationale="The report [1].")
        else:
            c = call("search", query=question)
        return ModelResponse("", [c], Usage(10, 5))


@pytest.fixture
def index(tmp_path: Path) -> Path:
    SqliteIndex.create(tmp_path / "index.sqlite", DOCS)
    return tmp_path / "index.sqlite"


def quiet(**kwargs: Any) -> dict[str, Any]:
    """No progress bar, and the loop alone (one trial) unless a test asks for more."""
    return {"progress": False, "trials": 1, **kwargs}


def test_batch_writes_one_trajectory_and_trace_per_question(tmp_path: Path, index: Path) -> None:
    model = PolicyModel()
    result = run_batch(QUESTIONS, tmp_path / "out", model, workers=2, index=index, **quiet())
    assert sorted(result.ran) == sorted(q["id"] for q in QUESTIONS) and result.skipped == []
    for q in QUESTIONS:
        traj = load_trajectory(trajectory_path(tmp_path / "out", q["id"]))
        assert traj["probability"] == 0.8 and traj["status"] == "completed" and traj["question_id"] == q["id"]
        assert traj["sources"][0]["title"] == f"Topic {q['id'][2:]} report"
        events = [json.loads(x) for x in trace_path(tmp_path / "out", q["id"]).read_text().splitlines()]
        assert events[0]["kind"] == "run_start" and events[-1]["kind"] == "final"
        assert replay_trajectory(traj, index).probability == 0.8
    assert len(model.times) == 3 * len(QUESTIONS)


def test_resume_skips_finished_questions_and_ignores_torn_files(tmp_path: Path, index: Path) -> None:
    out = tmp_path / "out"
    run_batch(QUESTIONS[:2], out, PolicyModel(p=0.8), index=index, **quiet())
    finished = trajectory_path(out, "q/alpha").read_bytes()
    trajectory_path(out, "q/bravo").write_text('{"question_id": "q/bravo", "probab')  # a torn legacy write
    stale = out / f".{trajectory_path(out, 'q/charlie').name}.x1y2.tmp.json"
    stale.write_text('{"probability": 0.1')  # a temp file left by a killed atomic write
    older = out / f".{trajectory_path(out, 'q/delta').name}.x1y2.tmp"  # as an older version named it
    older.write_text('{"probability": 0.1')
    model = PolicyModel(p=0.3)
    result = run_batch(QUESTIONS, out, model, index=index, **quiet())
    assert result.skipped == ["q/alpha"]
    assert sorted(result.ran) == ["q/bravo", "q/charlie", "q/delta"]
    assert not any("alpha" in q for q in model.questions)
    assert trajectory_path(out, "q/alpha").read_bytes() == finished
    assert not stale.exists() and not older.exists()
    assert {r["id"]: r["probability"] for r in result.summary["rows"]} == {
        "q/alpha": 0.8,
        "q/bravo": 0.3,
        "q/charlie": 0.3,
        "q/delta": 0.3,
    }


def test_ctrl_c_leaves_only_whole_files_and_resume_finishes_the_rest(tmp_path: Path, index: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_batch(QUESTIONS, out, PolicyModel(interrupt_on="charlie"), workers=1, index=index, **quiet())
    assert not list(out.glob(".*.tmp*"))
    written = sorted(p.name for p in out.glob("*.json"))
    assert trajectory_path(out, "q/charlie").name not in written
    for p in out.glob("*.json"):
        assert json.loads(p.read_text())["status"] == "completed"
    model = PolicyModel()
    result = run_batch(QUESTIONS, out, model, workers=2, index=index, **quiet())
    assert len(result.skipped) == len(written) >= 2
    assert set(model.questions) == {q["question"] for q in QUESTIONS if q["id"] in result.ran}
    assert result.summary["statuses"] == {"completed": 4}


def test_limit_status_counts_as_finished(tmp_path: Path, index: Path) -> None:
    out = tmp_path / "out"
    run_batch(QUESTIONS[:1], out, PolicyModel(), index=index, max_rounds=2, **quiet())
    assert load_trajectory(trajectory_path(out, "q/alpha"))["status"] == "max_rounds"
    again = run_batch(QUESTIONS[:1], out, PolicyModel(), index=index, **quiet())
    assert again.ran == [] and again.skipped == ["q/alpha"]


def test_rate_limit_is_shared_across_workers(tmp_path: Path, index: Path) -> None:
    model = PolicyModel()
    rpm = 600  # one call every 100 ms across all 4 workers: 12 calls span >= 1.1 s (unlimited: a few ms)
    run_batch(QUESTIONS, tmp_path / "out", model, workers=4, rpm=rpm, index=index, **quiet())
    times = sorted(model.times)
    interval = 60 / rpm
    assert len(times) == 12
    assert times[-1] - times[0] >= 11 * interval - 0.1  # scheduling jitter may delay the first call
    # never 3 calls in one interval: calls two apart are 2 intervals apart with one shared limiter, ~0 s with one
    # limiter per worker; half an interval of margin for a worker whose sleep ends late on a loaded machine
    assert all(b - a >= interval / 2 for a, b in zip(times, times[2:], strict=False))


def test_rate_limited_model_takes_a_token_per_call_from_the_shared_limiter() -> None:
    now, slept = [0.0], []
    limiter = RateLimiter(60, clock=lambda: now[0], sleep=slept.append)
    a, b = RateLimitedModel(PolicyModel(), limiter), RateLimitedModel(PolicyModel(), limiter)
    q = [Message("system", ""), Message("user", "Question: Will it?")]
    for m in (a, b, a):
        m.complete(q)
    assert slept == [1.0, 2.0]  # the second and third calls queue behind the first


def test_brier_summary_with_both_baselines(tmp_path: Path, index: Path) -> None:
    buf = io.StringIO()
    result = run_batch(
        QUESTIONS, tmp_path / "out", PolicyModel(p=0.8), index=index, console=Console(file=buf, width=120)
    )
    b = result.summary["brier"]
    assert b["n"] == 3  # q/delta is unresolved
    assert b["brier"] == pytest.approx((0.2**2 + 0.8**2 + 0.8**2) / 3)
    assert b["always_half"] == pytest.approx(0.25)
    assert b["n_market"] == 2
    assert b["brier_on_market"] == pytest.approx((0.2**2 + 0.8**2) / 2)
    assert b["market"] == pytest.approx((0.1**2 + 0.3**2) / 2)
    saved = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert saved["brier"] == b and saved["statuses"] == {"completed": 4}
    table = buf.getvalue()
    assert "always 0.5" in table and "market value" in table and "0.4400" in table


@pytest.mark.integration
def test_batch_on_a_dask_local_cluster(tmp_path: Path, index: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        result = run_batch(
            QUESTIONS, tmp_path / "out", PolicyModel(p=0.6), index=index, client=client, rpm=6000, **quiet()
        )
    assert sorted(result.ran) == sorted(q["id"] for q in QUESTIONS)
    assert result.summary["statuses"] == {"completed": 4}
    assert all(r["probability"] == 0.6 for r in result.summary["rows"])


# --------------------------------------------------------------------------- the CLI


def test_cli_index_ask_and_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    import orrery.research.agent as agent_module
    import orrery.research.runner as runner_module
    from orrery.research.cli import app

    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps(d.to_json()) + "\n" for d in DOCS))
    cli = CliRunner()
    built = cli.invoke(app, ["index", str(docs), "--out", str(tmp_path / "i.sqlite")])
    assert built.exit_code == 0 and "indexed 4 documents" in built.output

    for module in (agent_module, runner_module):
        monkeypatch.setattr(module, "resolve_model", lambda spec: PolicyModel(p=0.35))
    asked = cli.invoke(
        app,
        [
            "ask",
            "Will topic alpha grow?",
            "--index",
            str(tmp_path / "i.sqlite"),
            "--before",
            "2024-01-02",
            "--out",
            str(tmp_path / "ask.json"),
        ],
    )
    assert asked.exit_code == 0, asked.output
    assert "completed probability 0.350" in asked.output
    saved = json.loads((tmp_path / "ask.json").read_text())
    assert saved["probability"] == 0.35 and saved["before"].startswith("2024-01-02")
    assert (tmp_path / "ask.trace.jsonl").exists()

    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    ran = cli.invoke(
        app,
        [
            "batch",
            str(questions),
            "--out",
            str(tmp_path / "b"),
            "--workers",
            "2",
            "--index",
            str(tmp_path / "i.sqlite"),
            "--limit",
            "2",
        ],
    )
    assert ran.exit_code == 0, ran.output
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["questions"] == 2 and summary["statuses"] == {"completed": 2}
