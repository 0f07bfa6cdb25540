"""The BI app's registration (kept light: nothing heavy is imported here)."""

from typing import Annotated

from pydantic import AfterValidator, Field, StrictBool

from orrery.apps import App, Inputs, Name


def registered(name: str) -> str:
    """Only a database the operator set up: a built-in, or one registered with `orrery bi connect`."""
    from orrery.bi.data import BUILTIN, connections

    known = [*BUILTIN, *connections()]
    if name not in known:
        raise ValueError(
            f"no database named {name!r}; use one of {', '.join(known)} "
            "(the operator registers others with `orrery bi connect`)"
        )
    return name


class BIInputs(Inputs):
    db: Annotated[Name, AfterValidator(registered)] = Field(
        "tpch", description="tpch | chinook | superstore | a name registered with `orrery bi connect`"
    )
    approve_sql: StrictBool = Field(
        False, description="approve each SQL query before it runs", json_schema_extra={"approval": True}
    )  # a pause to resume: served, not over MCP


APP = App(
    name="bi",
    description="Questions about a database answered step by step: a TODO plan shown first, "
    "clarifying questions when a name or field is ambiguous, read-only SQL on DuckDB, PostgreSQL "
    "or SQLite, analysis and charts over the results.",
    agent="orrery.bi.agent:bi_agent",
    inputs=BIInputs,
    message="a question about the data",
    cli="orrery.bi.cli:app",
    extra="bi",
)
