"""Batch forecasting plumbing that needs no model: rate limiting, trajectory files, scoring.

* :class:`RateLimiter` - token bucket shared by worker threads (requests per minute).
* :func:`write_json_atomic` / :func:`trajectory_path` / :func:`pending_questions` -
  one JSON trajectory per question, written atomically, so a killed batch
  resumes by skipping questions whose file is complete.
* :func:`brier_summary` - Brier score with the always-0.5 and market baselines.
* :func:`check_questions` - every question row checked before the first model call.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from orrery.errors import DataError
from orrery.files import read_lines, write_atomic
from orrery.research.types import to_utc

# --------------------------------------------------------------------------- rate limiting


class RateLimiter:
    """Token bucket: ``per_minute`` sustained, up to ``burst`` at once, shared across threads.

    :meth:`acquire` reserves a token under the lock (the balance may go negative,
    which queues later callers behind earlier ones) and sleeps outside it, so
    waiting threads never block each other's bookkeeping.
    """

    def __init__(
        self,
        per_minute: float,
        burst: int = 1,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if per_minute <= 0 or burst < 1:
            raise ValueError("per_minute must be > 0 and burst >= 1")
        self.rate = per_minute / 60.0  # tokens per second
        self.burst = burst
        self._clock = clock
        self._sleep = sleep
        self._tokens = float(burst)
        self._last = clock()
        self._lock = threading.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now

    def reserve(self) -> float:
        """Take a token now; return the seconds the caller must wait before using it."""
        with self._lock:
            self._refill()
            self._tokens -= 1.0
            return max(0.0, -self._tokens / self.rate)

    def acquire(self) -> float:
        """Block until a request may go out; returns the time waited."""
        wait = self.reserve()
        if wait > 0:
            self._sleep(wait)
        return wait

    def try_acquire(self) -> bool:
        """Take a token only if one is available right now."""
        with self._lock:
            self._refill()
            if self._tokens < 1.0:
                return False
            self._tokens -= 1.0
            return True


# --------------------------------------------------------------------------- trajectory files

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def write_json_atomic(path: str | Path, obj: Any) -> Path:
    """Write JSON so readers see the old file or the new one, never a torn one (serialised before the temp file
    is made: data that cannot be written leaves nothing behind)."""
    return write_atomic(path, json.dumps(obj, ensure_ascii=False, indent=1))


def trajectory_path(out_dir: str | Path, question_id: str) -> Path:
    """``out_dir/<safe id>.json``; ids that needed escaping get a hash suffix so none collide."""
    safe = _UNSAFE.sub("_", question_id).strip("._") or "q"
    if safe != question_id:
        safe = f"{safe[:120]}-{hashlib.sha1(question_id.encode('utf-8')).hexdigest()[:10]}"
    return Path(out_dir) / f"{safe}.json"


def has_forecast(trajectory: Mapping[str, Any]) -> bool:
    """Default completeness test: the trajectory carries a probability in [0, 1]."""
    p = trajectory.get("probability")
    return isinstance(p, int | float) and not isinstance(p, bool) and 0.0 <= p <= 1.0


def load_trajectory(path: Path) -> dict[str, Any] | None:
    """The trajectory at ``path``, or None when missing or unreadable (e.g. a torn legacy write)."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def is_complete(path: Path, done: Callable[[Mapping[str, Any]], bool] = has_forecast) -> bool:
    trajectory = load_trajectory(path)
    return trajectory is not None and done(trajectory)


def pending_questions(
    questions: Iterable[Mapping[str, Any]],
    out_dir: str | Path,
    done: Callable[[Mapping[str, Any]], bool] = has_forecast,
) -> list[Mapping[str, Any]]:
    """Questions (rows with an ``id``) whose trajectory file is not complete yet."""
    return [q for q in questions if not is_complete(trajectory_path(out_dir, q["id"]), done)]


# --------------------------------------------------------------------------- Brier scores


def brier(probability: float, outcome: float) -> float:
    return (probability - outcome) ** 2


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


@dataclass(frozen=True)
class Scored:
    id: str
    probability: float
    outcome: float
    market_value: float | None = None


@dataclass(frozen=True)
class BrierSummary:
    n: int
    brier: float | None
    always_half: float | None
    n_market: int  # resolved questions that have a market value
    brier_on_market: float | None  # the forecaster on that same subset
    market: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def brier_summary(items: Iterable[Scored]) -> BrierSummary:
    """Mean Brier of the forecasts vs always-0.5 (same questions) and vs the market value
    (only on questions that have one, with the forecaster re-scored on that subset)."""
    items = list(items)
    for it in items:
        if not (0.0 <= it.probability <= 1.0 and it.outcome in (0.0, 1.0)):
            raise ValueError(f"bad forecast {it}: probability must be in [0,1], outcome 0 or 1")
    marketed = [it for it in items if it.market_value is not None and math.isfinite(it.market_value)]
    return BrierSummary(
        n=len(items),
        brier=_mean([brier(it.probability, it.outcome) for it in items]),
        always_half=_mean([brier(0.5, it.outcome) for it in items]),
        n_market=len(marketed),
        brier_on_market=_mean([brier(it.probability, it.outcome) for it in marketed]),
        market=_mean([brier(it.market_value, it.outcome) for it in marketed if it.market_value is not None]),
    )


def score_questions(questions: Iterable[Mapping[str, Any]], forecasts: Mapping[str, float]) -> list[Scored]:
    """Join question rows (``id, resolution, market_value``) with forecasts by id.
    Unresolved questions and questions without a forecast are left out."""
    return [
        Scored(q["id"], float(forecasts[q["id"]]), float(q["resolution"]), q.get("market_value"))
        for q in questions
        if q.get("resolution") is not None and q["id"] in forecasts
    ]


def forecasts_from_dir(questions: Iterable[Mapping[str, Any]], out_dir: str | Path) -> dict[str, float]:
    """Probabilities of every complete trajectory in ``out_dir`` (see :func:`has_forecast`)."""
    found = {}
    for q in questions:
        trajectory = load_trajectory(trajectory_path(out_dir, q["id"]))
        if trajectory is not None and has_forecast(trajectory):
            found[q["id"]] = float(trajectory["probability"])
    return found


# --------------------------------------------------------------------------- question rows


def read_question_file(path: str | Path) -> tuple[list[tuple[int, Any]], list[str]]:
    """``(line number, parsed row)`` of a JSONL question file, and the lines that are not JSON."""
    rows, problems = [], []
    for n, line in read_lines(path, what="question file"):
        if line.strip():
            try:
                rows.append((n, json.loads(line)))
            except json.JSONDecodeError as exc:
                problems.append(f"line {n}: not JSON ({exc.msg})")
    return rows, problems


def row_problem(row: Any) -> str | None:
    """What is wrong with one question row, or None. A batch needs a freeze date on every row:
    without one a question would be researched with the answer in reach."""
    if not isinstance(row, dict):
        return "not a JSON object"
    qid, question = row.get("id"), row.get("question")
    if not isinstance(qid, str) or not qid.strip():
        return f"id must be a non-empty string, got {qid!r}"
    if not isinstance(question, str) or not question.strip():
        return f"question must be a non-empty string, got {question!r}"
    if row.get("freeze_date") in (None, ""):
        return "freeze_date is missing: a batch question needs a date bound (YYYY-MM-DD)"
    try:
        to_utc(row["freeze_date"])
    except ValueError as exc:
        return f"freeze_date: {exc}"
    resolution = row.get("resolution")
    if resolution is not None and (isinstance(resolution, bool) or resolution not in (0, 1)):
        return f"resolution must be 0, 1 or null, got {resolution!r}"
    mv = row.get("market_value")
    if isinstance(mv, int | float) and not isinstance(mv, bool) and not 0.0 <= mv <= 1.0:
        return f"market_value must be a probability between 0 and 1, got {mv!r}"
    return None


def check_questions(
    numbered: Iterable[tuple[int, Any]], problems: Sequence[str] = (), *, skip_invalid: bool = False
) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows that can run and one ``line N: ...`` message per bad row (duplicate ids included:
    the first row with an id wins). Raises DataError listing the bad rows unless ``skip_invalid``."""
    good, bad, first = [], list(problems), {}
    for n, row in numbered:
        problem = row_problem(row)
        if problem is None and row["id"] in first:
            problem = f"duplicate id {row['id']!r} (first on line {first[row['id']]})"
        if problem is None:
            first[row["id"]] = n
            good.append(row)
        else:
            bad.append(f"line {n}: {problem}")
    if bad and not skip_invalid:
        shown = "; ".join(bad[:10]) + (f"; and {len(bad) - 10} more" if len(bad) > 10 else "")
        raise DataError(
            f"{len(bad)} bad question row(s), nothing was run: {shown}. "
            "Fix them, or pass --skip-invalid to run the others"
        )
    return good, bad
