"""Forecasting: statsforecast models behind typed tool functions, the agent, and the result they build.

    from orrery.forecast import ForecastAgent
    result = ForecastAgent(model="local").analyze("sales.csv", date="month", target="units")

Names load lazily (PEP 562) so `orrery --help` does not import statsforecast.
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "ForecastAgent": "agent",
    "FollowUpAnswer": "agent",
    "ForecastResult": "result",
    "SeriesData": "data",
    "load": "data",
    "REGISTRY": "models",
    "available": "models",
    "resolve": "models",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'orrery.forecast' has no attribute {name!r}")
    return getattr(import_module(f"orrery.forecast.{_EXPORTS[name]}"), name)
