"""The market-analysis app's registration (kept light: nothing heavy is imported here)."""

from pydantic import Field, StrictBool

from orrery.apps import App, Inputs


class MarketsInputs(Inputs):
    approve_tools: StrictBool = Field(
        False, description="approve each tool call before it runs", json_schema_extra={"approval": True}
    )  # a pause to resume: served, not over MCP


APP = App(
    name="markets",
    description="Market analysis on a local OHLCV store (AAPL, IBM, MSFT, GOOG, FB to 2013; S&P 500 and NASDAQ "
    "Composite to 2018): prices, ta-lib indicators, patterns, support/resistance, Fibonacci, a "
    "screener, comparisons and forecasts. Answers are checked against the tools' numbers.",
    agent="orrery.markets.agent:markets_agent",
    inputs=MarketsInputs,
    message="a question about the stocks or indices in the store",  # the store is the operator's, never a client's
    cli="orrery.markets.cli:app",
)
