"""Anomaly flags are calibrated: about (100 - L)% of a clean series at level L, and none on degenerate series."""

import numpy as np
import pandas as pd

from orrery.forecast import analysis as A
from orrery.forecast.cli import SAMPLE
from orrery.forecast.data import load


def test_air_passengers_at_95_flags_about_5_percent():
    an = A.detect_anomalies(load(SAMPLE), "AutoCES", level=95)
    assert 3 <= int(an["anomaly"].sum()) <= 9  # 5% of 144 is 7; the uncalibrated band flagged 19-21
    assert not an[an["anomaly"]]["ds"].dt.year.eq(1949).any()  # the first season is the model's start-up
    assert int(A.detect_anomalies(load(SAMPLE), "AutoETS", level=99)["anomaly"].sum()) <= 3


def test_a_clean_series_flags_about_100_minus_level_percent():
    rng = np.random.default_rng(0)
    sd = load(list(50 + 0.1 * np.arange(500) + rng.normal(0, 1, 500)))
    for level, low, high in [(90, 0.07, 0.12), (95, 0.03, 0.065), (99, 0.0, 0.02)]:
        share = A.detect_anomalies(sd, "AutoETS", level=level)["anomaly"].mean()
        assert low <= share <= high, (level, share)


def test_noise_growing_with_the_level_is_not_flagged_where_the_level_is_high():
    rng = np.random.default_rng(1)
    level = np.linspace(10, 200, 240)
    sd = load(list(level * (1 + rng.normal(0, 0.05, 240))))
    flagged = A.detect_anomalies(sd, "Naive", level=95)["anomaly"].to_numpy()
    assert flagged.mean() <= 0.065 and flagged[120:].sum() <= 2 * max(1, flagged[:120].sum()) + 2


def test_constant_and_mostly_zero_series_are_reported_not_flagged(frame):
    zeros = frame.assign(value=0.0, id="zeros")
    zeros.loc[zeros.index[::12], "value"] = 7.0
    sd = load(pd.concat([frame.assign(id="ok"), frame.assign(value=3.0, id="flat"), zeros]), groupby="id", h=6)
    an = A.detect_anomalies(sd, "Naive", level=95)
    flagged = an[an["anomaly"]]
    assert set(flagged["unique_id"]) <= {"ok"}
    assert sd.flags == {"flat": "constant", "zeros": "mostly zero"}
