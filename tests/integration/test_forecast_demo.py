"""The README's main job, end to end: `orrery demo` with the embedded model, offline."""

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.integration


@pytest.mark.timeout(900)  # the subprocess's own limit: on a loaded 2-core machine the model takes over 5 min
def test_demo_runs_the_whole_workflow_with_the_embedded_model(tmp_path):
    env = {**os.environ, "OMP_WAIT_POLICY": "passive", "ORRERY_LLM": "local"}
    proc = subprocess.run(
        [sys.executable, "-m", "orrery", "demo", "--out-dir", str(tmp_path), "--no-verbose"],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((tmp_path / "report.json").read_text())
    called = [e["call"]["name"] for e in report["trace"] if e["kind"] == "tool_call"]
    for step in ("analyze_features", "cross_validate", "generate_forecast", "detect_anomalies"):
        assert step in called
    assert called.index("cross_validate") < called.index("generate_forecast") < called.index("detect_anomalies")
    assert report["best_model"] and report["best_model"] != "SeasonalNaive"
    assert report["beats_baseline"] is True and report["status"] == "completed" and "PASS" in proc.stdout
    assert len(report["forecasts"]) == 24
    assert all(f["lo_95"] <= f["lo_80"] <= f["mean"] <= f["hi_80"] <= f["hi_95"] for f in report["forecasts"])
    assert "Best model by cross-validation" in report["narrative"]
    assert (tmp_path / "forecast.png").stat().st_size > 10_000
    assert "<table" in (tmp_path / "report.html").read_text()
