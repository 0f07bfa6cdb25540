"""The series base-rate model: templates, horizon/season and the series' values, learned per source."""

from __future__ import annotations

import random

import pytest

from orrery.research import baserates
from orrery.research.anchors import Series
from orrery.research.baserates import (
    TERM_SETS,
    SeriesCase,
    block_of,
    fit_base_rates,
    fit_source,
    logit,
    masked,
    series_case,
    template_of,
)

ACLED_MORE = "Will there be more 'Riots' in {c} for the 30 days before 2025-11-02 compared to the 30-day average?"
ACLED_TEN = (
    "Will there be more than ten times as many 'Riots' in {c} for the 30 days before 2025-11-02 compared to "
    "one plus the 30-day average?"
)


def test_a_template_masks_names_quoted_terms_numbers_and_dates() -> None:
    tmo = "Will TMO's market close price on 2025-11-02 be higher than its market close price on 2025-10-26?\n\nSplits"
    aapl = "Will AAPL's market close price on 2026-01-24 be higher than its market close price on 2025-12-21?"
    assert template_of(tmo) == template_of(aapl)
    assert template_of(ACLED_MORE.format(c="Mozambique")) == template_of(ACLED_MORE.format(c="South Sudan"))
    assert template_of(ACLED_MORE.format(c="Chad")) != template_of(ACLED_TEN.format(c="Chad"))


def test_a_rows_case_has_its_horizon_season_and_the_series_trend() -> None:
    row = {
        "question": "What is the probability that the temperature at Abbeville will be higher?",
        "forecast_due_date": "2025-11-23",
        "resolution_date": "2026-05-22",
    }
    case = series_case("dbnomics", row, Series("dbnomics", [("2025-10-16", 10.0), ("2025-11-13", 6.0)]))
    assert case.season > 1.0  # November to May warms up (northern hemisphere)
    assert 0.8 < case.horizon < 0.95 and case.trend == -1.0 and case.momentum == pytest.approx(-0.5)
    winter = series_case("dbnomics", {**row, "resolution_date": "2025-12-23"})
    assert winter.season < 0 and winter.trend == 0.0 and winter.momentum == 0.0
    assert series_case("fred", {"question": "Will X rise?"}).horizon == 0.0  # no dates: nothing known


def acled_rows(n: int, seed: int = 1) -> list[tuple[str, SeriesCase, float]]:
    """Half the questions ask for ten times as many events (never Yes), half for more than the average (half Yes)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        template = ACLED_TEN if i % 2 else ACLED_MORE
        outcome = 0.0 if i % 2 else float(rng.random() < 0.5)
        rows.append((f"acled/{i}", SeriesCase("acled", template_of(template.format(c=f"C{i}"))), outcome))
    return rows


def test_the_template_share_separates_questions_one_share_per_source_cannot() -> None:
    model = fit_base_rates(acled_rows(200))
    ten = SeriesCase("acled", template_of(ACLED_TEN.format(c="Chad")))
    more = SeriesCase("acled", template_of(ACLED_MORE.format(c="Chad")))
    assert "template" in model.terms["acled"]
    assert model.rate(ten) < 0.1 and 0.35 < model.rate(more) < 0.65
    assert model.rate(SeriesCase("acled", "an unseen template")) == pytest.approx(model.shares["acled"], abs=0.1)


def test_the_season_is_learned_where_it_decides_the_outcome() -> None:
    rng = random.Random(2)
    rows = []
    for i in range(200):
        season = rng.uniform(-2, 2)
        rows.append(
            (f"d/{i}", SeriesCase("dbnomics", "t", 0.5, season), float(rng.random() < (0.9 if season > 0 else 0.1)))
        )
    model = fit_base_rates(rows)
    assert "season" in model.terms["dbnomics"]
    assert (
        model.rate(SeriesCase("dbnomics", "t", 0.5, 1.5))
        > 0.75
        > 0.25
        > model.rate(SeriesCase("dbnomics", "t", 0.5, -1.5))
    )


def test_noise_terms_are_left_out_of_a_source_they_do_not_help() -> None:
    rng = random.Random(3)
    rows = [
        (
            f"y/{i}",
            SeriesCase("yfinance", "t", rng.random(), rng.uniform(-2, 2), rng.choice([-1.0, 1.0]), rng.uniform(-1, 1)),
            float(rng.random() < 0.6),
        )
        for i in range(300)
    ]
    model = fit_base_rates(rows)
    assert model.terms["yfinance"] in ([], ["template"])
    assert model.rate(rows[0][1]) == pytest.approx(0.6, abs=0.07)


def test_a_rows_own_question_is_left_out_of_its_templates_share_while_fitting() -> None:
    """A template asked by one question only would otherwise predict that question's outcome perfectly."""
    rows = [(f"q{i}", SeriesCase("fred", "common"), float(i % 2)) for i in range(40)]
    rows += [("lone", SeriesCase("fred", "lone template"), 1.0)] * 4
    model = fit_source(rows, TERM_SETS[1])
    own = model.templates["fred"]["lone template"]
    assert model.row(rows[-1][1], own)[1] == pytest.approx(logit(model.shares["fred"]))
    assert masked(SeriesCase("fred", "x", 0.3, 1.0, 1.0, 0.2), ["trend"]) == SeriesCase("fred", "", 0.0, 0.0, 1.0, 0.0)


def test_block_of_reads_a_weather_stations_wmo_block_and_nothing_else() -> None:
    assert block_of("meteofrance_TEMPERATURE_celsius.61972.D") == "61"
    assert block_of("meteofrance_TEMPERATURE_celsius.07005.D") == "07"
    assert block_of("CCLACBW027SBOG") == block_of(None) == ""


def station_cases(n: int, seed: int) -> list[tuple[str, SeriesCase, float]]:
    """Stations of block 07 warm with the northern curve, those of block 61 against it."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        block, season = rng.choice(["07", "61"]), rng.uniform(-2, 2)
        along = season if block == "07" else -season
        outcome = float(rng.random() < (0.9 if along > 0 else 0.1))
        rows.append((f"station/{i % 40}", SeriesCase("dbnomics", "t", 0.5, season, block=block), outcome))
    return rows


def test_each_block_learns_its_own_seasonal_direction(monkeypatch) -> None:
    monkeypatch.setattr(baserates, "TERM_SETS", baserates.CANDIDATE_SETS)
    model = fit_base_rates(station_cases(240, 4))
    assert "block_season" in model.terms["dbnomics"]
    north, south = (SeriesCase("dbnomics", "t", 0.5, 1.5, block=b) for b in ("07", "61"))
    assert model.block_direction(north) > 0.5 > -0.5 > model.block_direction(south)
    assert model.rate(north) > 0.7 > 0.3 > model.rate(south)
    assert model.block_direction(SeriesCase("dbnomics", "t", 0.5, 1.5)) == 0.0  # no block, no direction
    again = baserates.BaseRates.from_dict(model.to_dict())
    assert again.rate(south) == pytest.approx(model.rate(south))


def test_a_rows_own_series_is_left_out_of_its_blocks_direction() -> None:
    lone = [("only/1", SeriesCase("dbnomics", "t", 0.5, s, block="61"), float(s > 0)) for s in (-1.5, -0.5, 0.5, 1.5)]
    model = fit_source(lone, ("template", "horizon", "season", "block_season"))
    own = model.blocks["dbnomics"]["61"]
    assert model.block_direction(lone[0][1], own) == 0.0  # the block holds nothing but the row's own series
    assert model.row(lone[0][1], (0.0, 0.0), own)[-1] == 0.0
