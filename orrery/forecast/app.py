"""The forecasting app's registration (kept light: nothing heavy is imported here)."""

from pydantic import Field

from orrery.apps import App, Column, Inputs, UploadId


class ForecastInputs(Inputs):
    data: UploadId = Field(description="a CSV/Parquet file (uploaded; its id)")
    h: int | None = Field(None, ge=1, le=10_000, description="horizon (default 2 seasons)")
    date: Column | None = Field(None, description="date column")
    target: Column | None = Field(None, description="value column")
    groupby: Column | None = Field(None, description="series id column for panels")


APP = App(
    name="forecast",
    description="Time-series forecasting: features, cross-validation against SeasonalNaive, forecasts with "
    "80/95% intervals, anomalies. Upload a CSV/Parquet with a date and a value column.",
    agent="orrery.forecast.agent:ForecastAgent",
    inputs=ForecastInputs,
    message="what to forecast",
    cli_commands=("orrery.forecast.cli:demo", "orrery.forecast.cli:forecast"),
    extra="forecast",
)
