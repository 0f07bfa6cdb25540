"""The BI app's registration (kept light: nothing heavy is imported here)."""

from orrery.apps import App

APP = App(
    name="bi",
    description="Questions about a database answered step by step (seed 003): a TODO plan shown first, "
                "clarifying questions when a name or field is ambiguous, read-only SQL on DuckDB, PostgreSQL "
                "or SQLite, analysis and charts over the results.",
    agent="orrery.bi.agent:bi_agent",
    inputs={"message": "a question about the data", "db": "tpch | chinook | superstore | a registered name | URL"},
    cli="orrery.bi.cli:app",
    extra="bi",
)
