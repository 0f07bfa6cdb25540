"""One real forecasting question with the embedded model, end to end (structural checks only)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from orrery.llm.local import LocalModel  # noqa: E402
from orrery.research.agent import ResearchAgent  # noqa: E402
from orrery.research.corpus import demo_index, load_questions  # noqa: E402
from orrery.research.types import to_utc  # noqa: E402

pytestmark = pytest.mark.integration


def test_one_question_with_the_embedded_model(tmp_path: Path) -> None:
    index = demo_index(tmp_path / "demo.sqlite")
    row = next(q for q in load_questions() if q["source"] == "manifold" and q["resolution"] is not None)
    agent = ResearchAgent(
        LocalModel(), index, max_rounds=5, wall_time=45, k=3, trace=tmp_path / "run.jsonl", board="loop", trials=2
    )
    result = agent.run(row)

    assert result.status in ("completed", "max_rounds", "timeout"), result.errors
    assert 1 <= result.steps <= 5
    assert result.usage.prompt_tokens > 0
    kinds = [e["kind"] for e in result.trajectory.events]
    assert kinds[0] == "run_start" and kinds[-1] == "final" and "tool_call" in kinds
    bound = to_utc(row["freeze_date"])
    returned = {
        i for e in result.trajectory.events if e["kind"] == "tool_result" for i in re.findall(r"id=(\S+)", e["content"])
    }
    for doc_id in returned:
        assert index.get(doc_id).date <= bound
    if result.status == "completed":
        assert 0.0 <= result.probability <= 1.0
        assert result.sources and all(s.id in returned for s in result.sources)
        # an aggregate: the loop's submit and one more trial on its board, pooled, then the shipped calibrator
        assert len(result.trials) == 2 and result.trials[0]["probability"] == result.raw
        assert result.pooled is not None and result.spread is not None
        assert result.calibrated == result.probability and result.calibration.endswith("questions)")
    assert result.anchors["market"]["probability"] == pytest.approx(row["market_value"], abs=1e-3)


def test_a_search_board_forecast_with_the_embedded_model_is_pooled_and_calibrated(tmp_path: Path) -> None:
    index = demo_index(tmp_path / "demo.sqlite")
    row = next(q for q in load_questions() if q["source"] == "polymarket" and q["resolution"] is not None)
    agent = ResearchAgent(LocalModel(), index, trace=tmp_path / "run.jsonl", trials=2)  # the default board: search
    result = agent.run(row)
    assert result.steps == 0 and len(result.trials) == 2
    assert result.sources[0].id == result.anchors["market"]["doc_id"]
    if result.status == "completed":
        assert result.pooled is not None and result.calibrated == result.probability
        assert result.calibration is not None and result.calibration.startswith(("platt", "isotonic"))
    assert (tmp_path / "run.jsonl").read_text().count("\n") == len(result.trajectory.events)
