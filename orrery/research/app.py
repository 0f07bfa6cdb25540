"""The research app's registration (kept light: nothing heavy is imported here)."""

import datetime

from pydantic import Field

from orrery.apps import App, Inputs


class ResearchInputs(Inputs):
    before: datetime.date | None = Field(None, description="freeze date YYYY-MM-DD")


APP = App(
    name="research",
    description="Judgmental forecasting: 'Will X happen by D?' -> a probability, from a dated search index "
    "with a source board, one action per step.",
    agent="orrery.research.agent:ResearchAgent",
    inputs=ResearchInputs,
    message="a yes/no question about the future",
    cli="orrery.research.cli:app",
    extra="research",
)
