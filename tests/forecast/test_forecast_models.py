import numpy as np
import pandas as pd
import pytest

from orrery.forecast import models as reg

REQUIRED = [
    "AutoARIMA",
    "AutoETS",
    "AutoTheta",
    "DynamicOptimizedTheta",
    "AutoCES",
    "MSTL",
    "AutoTBATS",
    "SES",
    "Holt",
    "HoltWinters",
    "CrostonOptimized",
    "ADIDA",
    "IMAPA",
    "TSB",
    "Naive",
    "SeasonalNaive",
    "RandomWalkWithDrift",
    "HistoricAverage",
]


def test_registry_has_required_models():
    assert set(REQUIRED) <= set(reg.REGISTRY)
    assert len(reg.REGISTRY) >= 16


def test_build_aliases_match_names():
    built = reg.build(REQUIRED, m=12, h=6)
    assert [b.alias for b in built] == REQUIRED


def test_no_native_intervals_get_conformal():
    for model in reg.build(["SES", "CrostonOptimized", "ADIDA", "IMAPA", "TSB"], m=12, h=6):
        assert model.prediction_intervals is not None and model.prediction_intervals.h == 6
    assert reg.build(["Naive"], m=12, h=6)[0].prediction_intervals is None


def test_seasonal_models_need_m():
    assert "MSTL" not in reg.available(1) and "HoltWinters" not in reg.available(1)
    assert "MSTL" in reg.available(12)
    with pytest.raises(ValueError, match="m > 1"):
        reg.build(["HoltWinters"], m=1, h=3)


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("ets", "AutoETS"),
        ("SNaive", "SeasonalNaive"),
        ("ARIMA", "AutoARIMA"),
        ("combo", "Combo"),
        ("Croston", "CrostonOptimized"),
    ],
)
def test_resolve(alias, name):
    assert reg.resolve(alias) == name


def test_resolve_unknown_lists_choices():
    with pytest.raises(KeyError, match="unknown model 'Prophet'.*AutoETS"):
        reg.resolve("Prophet")


def test_combine_mean_and_median_with_intervals():
    f = pd.DataFrame(
        {
            "A": [1.0, 2.0],
            "B": [3.0, 4.0],
            "C": [8.0, 0.0],
            "A-lo-80": [0.0, 0.0],
            "B-lo-80": [2.0, 2.0],
            "A-hi-80": [2.0, 3.0],
            "B-hi-80": [4.0, 5.0],
        }
    )
    mean = reg.combine(f, ["A", "B"], "mean", levels=[80])
    assert mean["Combo"].tolist() == [2.0, 3.0]
    assert mean["Combo-lo-80"].tolist() == [1.0, 1.0] and mean["Combo-hi-80"].tolist() == [3.0, 4.0]
    median = reg.combine(f, ["A", "B", "C"], "median")
    assert np.allclose(median["Combo"], [3.0, 2.0])


def test_describe_lists_models():
    text = reg.describe(1)
    assert "- AutoETS:" in text and "HoltWinters" not in text
