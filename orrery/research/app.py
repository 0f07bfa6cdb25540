"""The research app's registration (kept light: nothing heavy is imported here)."""

from orrery.apps import App

APP = App(
    name="research",
    description="Judgmental forecasting: 'Will X happen by D?' -> a probability, from a dated search index "
                "with a source board, one action per step.",
    agent="orrery.research.agent:ResearchAgent",
    inputs={"question": "a yes/no question about the future", "before": "freeze date YYYY-MM-DD"},
    cli="orrery.research.cli:app",
    extra="research",
)
