from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from orrery.research.batch import (
    RateLimiter,
    Scored,
    brier_summary,
    forecasts_from_dir,
    pending_questions,
    score_questions,
    trajectory_path,
    write_json_atomic,
)


class FakeClock:
    """Time that only moves when told to (sleep advances it), guarded for threads."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.slept.append(seconds)


def test_burst_then_steady_rate() -> None:
    clock = FakeClock()
    limiter = RateLimiter(per_minute=60, burst=3, clock=clock, sleep=clock.sleep)
    assert [limiter.acquire() for _ in range(5)] == [0.0, 0.0, 0.0, 1.0, 2.0]
    assert clock.slept == [1.0, 2.0]


def test_idle_time_refills_only_up_to_burst() -> None:
    clock = FakeClock()
    limiter = RateLimiter(per_minute=30, burst=2, clock=clock, sleep=clock.sleep)
    assert limiter.try_acquire() and limiter.try_acquire() and not limiter.try_acquire()
    clock.now += 2.0  # 30/min = one token per 2 s
    assert limiter.try_acquire() and not limiter.try_acquire()
    clock.now += 3600.0
    assert [limiter.reserve() for _ in range(3)] == [0.0, 0.0, 2.0]


def test_threads_share_one_bucket() -> None:
    """40 workers at once against 120/min, burst 1: reservations queue 0, 0.5, 1.0, ... s apart."""
    clock = FakeClock()
    limiter = RateLimiter(per_minute=120, burst=1, clock=clock, sleep=clock.sleep)
    waits: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(40)

    def worker() -> None:
        start.wait()
        wait = limiter.acquire()
        with lock:
            waits.append(wait)

    threads = [threading.Thread(target=worker) for _ in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(waits) == pytest.approx([i * 0.5 for i in range(40)])


def test_rate_limiter_rejects_bad_settings() -> None:
    with pytest.raises(ValueError):
        RateLimiter(per_minute=0)


def test_atomic_write_keeps_old_file_when_replace_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "t.json"
    write_json_atomic(target, {"v": 1})

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk gone"):
        write_json_atomic(target, {"v": 2})
    assert json.loads(target.read_text()) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["t.json"]  # no temp file left behind


def test_atomic_write_does_not_swallow_unserialisable_data(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        write_json_atomic(tmp_path / "t.json", {"v": object()})
    assert list(tmp_path.iterdir()) == []


def test_trajectory_paths_are_safe_and_distinct(tmp_path: Path) -> None:
    ids = ["2025-10-26/fred/DAAA/2025-11-02", "2025-10-26_fred_DAAA_2025-11-02", "a b", "a_b", "plain-id.1"]
    paths = [trajectory_path(tmp_path, i) for i in ids]
    assert len(set(paths)) == len(ids)
    assert all(p.parent == tmp_path and p.suffix == ".json" for p in paths)
    assert paths[-1].name == "plain-id.1.json"


def test_resume_skips_only_complete_trajectories(tmp_path: Path) -> None:
    questions = [{"id": f"q/{i}"} for i in range(6)]
    write_json_atomic(trajectory_path(tmp_path, "q/0"), {"probability": 0.3, "steps": []})
    write_json_atomic(trajectory_path(tmp_path, "q/1"), {"probability": None, "steps": [1]})  # unfinished
    trajectory_path(tmp_path, "q/2").write_text('{"probability": 0.')  # torn write from a crash
    write_json_atomic(trajectory_path(tmp_path, "q/3"), {"probability": 1.5})  # invalid probability
    write_json_atomic(trajectory_path(tmp_path, "q/4"), {"probability": 0})
    assert [q["id"] for q in pending_questions(questions, tmp_path)] == ["q/1", "q/2", "q/3", "q/5"]
    assert forecasts_from_dir(questions, tmp_path) == {"q/0": 0.3, "q/4": 0.0}
    custom = pending_questions(questions, tmp_path, done=lambda t: "steps" in t)
    assert [q["id"] for q in custom] == ["q/2", "q/3", "q/4", "q/5"]


def test_brier_summary_values() -> None:
    items = [
        Scored("a", 0.9, 1.0, market_value=0.8),
        Scored("b", 0.2, 0.0, market_value=0.4),
        Scored("c", 0.6, 0.0),
        Scored("d", 0.5, 1.0),
    ]
    s = brier_summary(items)
    assert s.n == 4 and s.n_market == 2
    assert s.brier == pytest.approx((0.01 + 0.04 + 0.36 + 0.25) / 4)
    assert s.always_half == pytest.approx(0.25)
    assert s.brier_on_market == pytest.approx((0.01 + 0.04) / 2)
    assert s.market == pytest.approx((0.04 + 0.16) / 2)
    assert set(s.to_dict()) == {"n", "brier", "always_half", "n_market", "brier_on_market", "market"}


def test_brier_summary_edge_cases() -> None:
    empty = brier_summary([])
    assert empty.n == 0 and empty.brier is None and empty.market is None
    assert brier_summary([Scored("a", 1.0, 1.0)]).brier == 0.0
    with pytest.raises(ValueError):
        brier_summary([Scored("a", 1.2, 1.0)])
    with pytest.raises(ValueError):
        brier_summary([Scored("a", 0.5, 0.3)])


def test_score_questions_joins_and_skips_unresolved() -> None:
    questions = [
        {"id": "a", "resolution": 1.0, "market_value": 0.7},
        {"id": "b", "resolution": None, "market_value": 0.2},
        {"id": "c", "resolution": 0.0, "market_value": None},
        {"id": "d", "resolution": 0.0},
    ]
    scored = score_questions(questions, {"a": 0.6, "b": 0.5, "c": 0.1})
    assert scored == [Scored("a", 0.6, 1.0, 0.7), Scored("c", 0.1, 0.0, None)]
