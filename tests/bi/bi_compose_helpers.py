"""Helpers the compose tests share: a query's rows in a comparable order, the parts composed over a drafted layer,
and a resolved value as entity resolution writes it."""

from __future__ import annotations

from orrery.bi.compose import QueryParts, compose
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft


def rows(engine: SQLiteEngine, sql: str) -> list[tuple]:
    return sorted(map(tuple, engine.execute(sql).rows))


def compose_sql(engine, tables, question, resolved=(), **parts) -> str:
    return compose(QueryParts(**parts), draft(engine), tables, list(resolved), "sqlite", question)


def value(table: str, column: str, v: str) -> dict[str, str]:
    return {"mention": v, "table": table, "column": column, "value": v}
