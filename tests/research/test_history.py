"""A series' own history in the question bank, recalled at a question's date bound, as base-rate terms."""

from __future__ import annotations

import math
import random
from datetime import UTC, date, datetime
from typing import Any

import pytest

from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.research import baserates
from orrery.research.agent import ResearchAgent
from orrery.research.baserates import CANDIDATE_SETS, RECALL_TERMS, TERMS, SeriesCase, fit_base_rates, series_case
from orrery.research.calibration import Calibrator, rate_rows
from orrery.research.history import SeriesHistory, direction, recall_terms
from orrery.research.search import SqliteIndex
from orrery.research.types import Document

SETS = ("2025-10-26", "2025-11-23", "2025-12-21", "2026-01-18")  # forecast dates; freeze ten days before
HORIZONS = (7, 30, 90, 180)


def station_rows(sid: str, temperature: Any, source: str = "dbnomics") -> list[dict[str, Any]]:
    """Every question set asks whether the station is warmer ``h`` days on; resolved by ``temperature(day)``."""
    rows = []
    for s in SETS:
        start = date.fromisoformat(s)
        freeze = date.fromordinal(start.toordinal() - 10)
        for h in HORIZONS:
            end = date.fromordinal(start.toordinal() + h)
            rows.append(
                {
                    "id": f"{s}/{source}/{sid}/{end}",
                    "source": source,
                    "source_id": sid,
                    "question": f"Will the temperature at {sid} be higher on {end} than on {s}?",
                    "question_set": s,
                    "forecast_due_date": s,
                    "freeze_date": freeze.isoformat(),
                    "freeze_value": temperature(freeze),
                    "resolution_date": end.isoformat(),
                    "resolution": float(temperature(end) > temperature(start)),
                }
            )
    return rows


def northern(day: date) -> float:  # coldest mid-January
    return 12 - 8 * math.cos(2 * math.pi * (day.timetuple().tm_yday - 15) / 365.25)


def southern(day: date) -> float:  # the same curve half a year on
    return 24 - northern(day)


def last_set(rows: list[dict[str, Any]], horizon: int = 90) -> dict[str, Any]:
    return next(r for r in rows if r["question_set"] == SETS[-1] and r["id"].endswith(str(_end(SETS[-1], horizon))))


def _end(start: str, h: int) -> date:
    return date.fromordinal(date.fromisoformat(start).toordinal() + h)


def test_a_southern_station_gets_its_own_seasonal_direction() -> None:
    south, north = station_rows("S", southern), station_rows("N", northern)
    history = SeriesHistory(south + north)
    for rows, sign in ((south, -1), (north, 1)):
        row = last_set(rows)  # 2026-01-18 -> 2026-04-18: the north warms, the south cools
        memory = history.recall(row)
        assert sign * direction(memory) > 0.5
        case = series_case("dbnomics", row, memory=memory)
        assert case.season > 0 and sign * case.recall_season > 0  # the north's curve, signed by the series
        assert case.recall_season * (2 * row["resolution"] - 1) > 0  # and it points the way the row resolved


def test_nothing_dated_after_the_bound_is_recalled() -> None:
    rows = station_rows("S", southern)
    row = last_set(rows)
    memory = SeriesHistory(rows).recall(row)  # bound: its freeze date, 2026-01-08
    bound = date(2026, 1, 8)
    assert [d for d, _ in memory.values] == [date(2025, 10, 16), date(2025, 11, 13), date(2025, 12, 11), bound]
    assert memory.outcomes and all(end < bound for _, end, _ in memory.outcomes)
    # changing every value and outcome dated after the bound changes nothing recalled
    later = [
        {
            **r,
            "freeze_value": -99.0 if r["freeze_date"] > "2026-01-08" else r["freeze_value"],
            "resolution": 1 - r["resolution"] if r["resolution_date"] >= "2026-01-08" else r["resolution"],
        }
        for r in rows
    ]
    later.append({**row, "id": "future", "freeze_date": "2026-03-01", "freeze_value": 99.0, "question_set": "x"})
    assert SeriesHistory(later).recall(row) == memory
    # a later bound sees more; the first set's questions recall only their own freeze value
    assert len(SeriesHistory(rows).recall(row, "2026-06-01").outcomes) > len(memory.outcomes)
    first = SeriesHistory(rows).recall(rows[0])
    assert first.values == ((date(2025, 10, 16), rows[0]["freeze_value"]),) and first.outcomes == ()
    assert recall_terms(first, date(2025, 10, 26), date(2025, 11, 2)).share == 0.0


def test_the_share_of_yes_counts_only_earlier_resolved_questions_of_the_same_series() -> None:
    always = station_rows("A", lambda d: d.toordinal())  # rising: every question resolves Yes
    never = station_rows("B", lambda d: -d.toordinal(), source="fred")
    history = SeriesHistory(always + never)
    up, down = history.recall(last_set(always)), history.recall(last_set(never))
    assert len(up.outcomes) == len(down.outcomes) > 0
    start, end = date(2026, 1, 18), date(2026, 4, 18)
    assert recall_terms(up, start, end).share > 1.0 and recall_terms(down, start, end).share < -1.0
    assert recall_terms(up, start, end).slope > 0 > recall_terms(down, start, end).slope


def test_rate_rows_recall_each_rows_history_from_the_question_file_and_never_its_own_outcome() -> None:
    rows = station_rows("S", southern)
    flipped = [{**r, "resolution": 1 - r["resolution"]} if r is last_set(rows) else r for r in rows]
    cases = [c for _, c, _ in rate_rows(rows)]
    cases_flipped = [c for _, c, _ in rate_rows(flipped)]
    i = rows.index(last_set(rows))
    assert cases[i] == cases_flipped[i]  # its own outcome is not in its case
    assert cases[0].recall_share == 0.0 and any(c.recall_season for c in cases)


def test_a_history_term_enters_the_base_rate_model_where_it_decides_the_outcome(monkeypatch) -> None:
    shipped = baserates.TERM_SETS
    monkeypatch.setattr(baserates, "TERM_SETS", CANDIDATE_SETS)  # every history term a candidate
    rng = random.Random(3)
    rows = []
    for i in range(240):  # the season says nothing (half the stations are southern); the series' own sign does
        season, own = rng.uniform(-2, 2), rng.choice([-1.0, 1.0])
        outcome = float(rng.random() < (0.9 if own * season > 0 else 0.1))
        rows.append((f"d/{i}", SeriesCase("dbnomics", "t", 0.5, season, recall_season=own * season), outcome))
    model = fit_base_rates(rows)
    assert "recall_season" in model.terms["dbnomics"]
    warm = SeriesCase("dbnomics", "t", 0.5, 1.5, recall_season=1.5)
    cold = SeriesCase("dbnomics", "t", 0.5, 1.5, recall_season=-1.5)
    assert model.rate(warm) > 0.7 > 0.3 > model.rate(cold)
    monkeypatch.setattr(baserates, "TERM_SETS", shipped)  # the shipped sets: none holds a history term
    assert not set(fit_base_rates(rows).terms["dbnomics"]) & set(RECALL_TERMS)


def test_a_series_without_history_leaves_the_terms_at_zero() -> None:
    case = series_case("fred", {"question": "Will X rise?", "forecast_due_date": "2025-10-26"})
    assert (case.recall_share, case.recall_season, case.recall_slope) == (0.0, 0.0, 0.0)
    assert SeriesHistory([]).recall({"source": "fred", "source_id": "X", "freeze_date": "2025-10-16"}).values == ()
    assert SeriesHistory([]).recall({"question": "no series"}).outcomes == ()
    assert direction(SeriesHistory([]).recall({})) == 0.0


def test_the_agent_recalls_the_rows_series_history_at_its_bound_and_the_calibrator_uses_it(tmp_path) -> None:
    rows = station_rows("S", southern)
    row = last_set(rows)
    doc = Document("temps", "Station S temperatures", "Station S reads 19.9 degrees.", datetime(2026, 1, 5, tzinfo=UTC))
    index = SqliteIndex.create(tmp_path / "index.sqlite", [doc])
    rates = {
        "shares": {"dbnomics": 0.5},
        "weights": {"dbnomics": [2.0 if t == "recall_season" else 0.0 for t in TERMS]},
        "terms": {"dbnomics": ["recall_season"]},
    }
    calib = Calibrator("scripted", "platt", {"has_series": 0.0, "base_rate": 1.0}, rates)

    def run(history: Any) -> Any:
        model = ScriptedModel([turn(call("submit", probability=0.9, rationale="It reads 19.9 [1]."))])
        return ResearchAgent(model, index, board="search", calibration=calib, history=history).run(row)

    result = run(SeriesHistory(rows))
    recalled = result.anchors["history"]
    assert [d for d, _ in recalled["values"]][-1] == row["freeze_date"]  # nothing after the bound
    assert recalled["outcomes"] and all(end < row["freeze_date"] for _, end, _ in recalled["outcomes"])
    assert result.calibrated < 0.2  # the south cools from January to April; the base rate says so
    blind = run(False)
    assert blind.anchors["history"] is None and blind.calibrated == pytest.approx(0.5)
