"""Forecasting: statsforecast models behind typed tool functions, and the result they build.

    from orrery.forecast import load, analysis
    data = load("sales.csv", date="month", target="units")
    cv = analysis.cross_validate(data, ["AutoETS", "AutoTheta"])
"""

from orrery.forecast.data import SeriesData, load
from orrery.forecast.models import REGISTRY, available, resolve
from orrery.forecast.result import ForecastResult

__all__ = ["REGISTRY", "ForecastResult", "SeriesData", "available", "load", "resolve"]
