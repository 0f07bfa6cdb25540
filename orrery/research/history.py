"""A data series' own history in the question bank: what earlier questions on the same series said, and how
they resolved, as known at a question's forecast date.

Question sets ask about the same series (``source`` + ``source_id``) again and again: each earlier set carries
the series' value on its freeze date, and each earlier question that has resolved says whether the series rose
between two dates. So at a question's date bound the bank holds a short history of the series; nothing in it is
dated after the bound (:meth:`SeriesHistory.recall`):

* values: the freeze values of questions whose ``freeze_date`` is on or before the bound (the question's own is
  stated in the question);
* outcomes: the resolutions of questions whose ``resolution_date`` is strictly before the bound.

From it :func:`recall_terms` draws three terms for the base-rate model (:mod:`orrery.research.baserates`): the
share of Yes of the series' earlier questions, its own seasonal direction (a southern or tropical station warms
when the north cools: the sign is learned from the series, not assumed), and its change per day.

A plain lookup over the question rows rather than :mod:`orrery.recall`: that store searches text for the items
of a scope; this is an exact key (the series) and a date filter over numbers, with no text to rank.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

SERIES_KEY = ("source", "source_id")


def day_of(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value)[:10])
    except ValueError:
        return None


def season_at(day: date) -> float:
    """A northern-hemisphere seasonal curve: -1 mid-January, +1 mid-July."""
    return -math.cos(2 * math.pi * (day.timetuple().tm_yday - 15) / 365.25)


@dataclass(frozen=True)
class SeriesMemory:
    """What the bank knew of one series at a date: its dated values and its resolved questions."""

    values: tuple[tuple[date, float], ...] = ()  # oldest first, one per day
    outcomes: tuple[tuple[date, date, float], ...] = ()  # (forecast date, resolution date, resolution)


def _key(row: Mapping[str, Any]) -> tuple[str, str] | None:
    source, sid = row.get("source"), row.get("source_id")
    return (str(source), str(sid)) if source and sid else None


class SeriesHistory:
    """The question rows indexed by series; :meth:`recall` answers for one question at its date bound."""

    def __init__(self, rows: Iterable[Mapping[str, Any]]) -> None:
        self._by_series: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
        for row in rows:
            if (key := _key(row)) is not None:
                self._by_series.setdefault(key, []).append(row)

    def recall(self, row: Mapping[str, Any], at: Any = None) -> SeriesMemory:
        """The series' memory as of ``at`` (default: the row's freeze date; a date or ISO text)."""
        bound = day_of(at if at is not None else row.get("freeze_date"))
        key = _key(row)
        if bound is None or key is None:
            return SeriesMemory()
        values: dict[date, float] = {}
        outcomes = set()
        for other in self._by_series.get(key, []):
            frozen, value = day_of(other.get("freeze_date")), other.get("freeze_value")
            if frozen is not None and frozen <= bound and _number(value):
                values[frozen] = float(value)  # type: ignore[arg-type]
            start = day_of(other.get("forecast_due_date") or other.get("freeze_date"))
            end, resolution = day_of(other.get("resolution_date")), other.get("resolution")
            if start is not None and end is not None and end < bound and _number(resolution):
                outcomes.add((start, end, float(resolution)))  # type: ignore[arg-type]
        return SeriesMemory(tuple(sorted(values.items())), tuple(sorted(outcomes)))


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True)
class RecallTerms:
    share: float = 0.0  # logit of the share of Yes of earlier resolved questions (one pseudo-count each way)
    season: float = 0.0  # the series' own seasonal direction in [-1, 1] times this question's seasonal change
    slope: float = 0.0  # relative change per day over the known values, times the horizon, in [-1, 1]


def direction(memory: SeriesMemory) -> float:
    """How the series moves with the northern seasonal curve, in [-1, 1]: each known rise or fall (between two
    known values, or an earlier question's Yes or No) votes with the curve's change over the same days."""
    votes = [
        (math.copysign(1.0, b - a) if b != a else 0.0, season_at(d2) - season_at(d1))
        for (d1, a), (d2, b) in zip(memory.values, memory.values[1:], strict=False)
    ]
    votes += [(2 * y - 1, season_at(end) - season_at(start)) for start, end, y in memory.outcomes]
    weight = sum(abs(change) for _, change in votes)
    return 0.0 if weight == 0 else max(-1.0, min(1.0, sum(s * c for s, c in votes) / weight))


def slope(memory: SeriesMemory, horizon_days: float) -> float:
    """The relative change per day from the first known value to the last, carried over the horizon."""
    if len(memory.values) < 2 or horizon_days <= 0:
        return 0.0
    (d1, first), (d2, last) = memory.values[0], memory.values[-1]
    scale = abs(first) + abs(last)
    if scale == 0 or d2 <= d1:
        return 0.0
    return max(-1.0, min(1.0, 2 * (last - first) / scale / (d2 - d1).days * horizon_days))


def recall_terms(memory: SeriesMemory | None, start: date | None, end: date | None) -> RecallTerms:
    """The three terms for a question from ``start`` (its forecast date) to ``end`` (its resolution date)."""
    if memory is None or start is None or end is None or end < start:
        return RecallTerms()
    yes, n = sum(y for _, _, y in memory.outcomes), len(memory.outcomes)
    share = 0.0 if n == 0 else math.log((yes + 1) / (n - yes + 1))
    return RecallTerms(
        share,
        direction(memory) * (season_at(end) - season_at(start)),
        slope(memory, (end - start).days),
    )
