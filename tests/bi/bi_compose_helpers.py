"""Helpers the compose tests share: a small SQLite database with no declared keys, a query's rows in a comparable
order, the parts composed over a drafted layer, a resolved value as entity resolution writes it, and the column
field mapping picks for a term."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from orrery.bi.compose import QueryParts, compose
from orrery.bi.engines import SQLiteEngine
from orrery.bi.semantic import draft
from orrery.bi.tools import field_mapping
from orrery.tools.core import RunContext


def sqlite_engine(path: Path, schema: str, tables: dict[str, list[tuple]]) -> SQLiteEngine:
    """A database at `path` made by `schema` (CREATE TABLE statements) and filled with each table's rows."""
    with sqlite3.connect(path) as con:
        con.executescript(schema)
        for table, data in tables.items():
            con.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(data[0]))})", data)
    return SQLiteEngine(path.stem, path)


def rows(engine: SQLiteEngine, sql: str) -> list[tuple]:
    return sorted(map(tuple, engine.execute(sql).rows))


def compose_sql(engine, tables, question, resolved=(), **parts) -> str:
    return compose(QueryParts(**parts), draft(engine), tables, list(resolved), "sqlite", question)


def value(table: str, column: str, v: str) -> dict[str, str]:
    return {"mention": v, "table": table, "column": column, "value": v}


def mapped(bi, question: str, term: str) -> str:
    """`table.column` that field mapping picks for `term`, asked in `question`."""
    bi.question = question
    (field,) = field_mapping(RunContext(deps=bi, options={}), [term])["fields"]
    return f"{field['table']}.{field['column']}"
