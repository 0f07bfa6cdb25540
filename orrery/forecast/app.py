"""The forecasting app's registration (kept light: nothing heavy is imported here)."""

from orrery.apps import App

APP = App(
    name="forecast",
    description="Time-series forecasting: features, cross-validation against SeasonalNaive, forecasts with "
                "80/95% intervals, anomalies. Upload a CSV/Parquet with a date and a value column.",
    agent="orrery.forecast.agent:ForecastAgent",
    inputs={"data": "CSV/Parquet file or path", "h": "horizon (default 2 seasons)", "date": "date column",
            "target": "value column", "groupby": "series id column for panels"},
    cli_commands=("orrery.forecast.cli:demo", "orrery.forecast.cli:forecast"),
    extra="forecast",
)
