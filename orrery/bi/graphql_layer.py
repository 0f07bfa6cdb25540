"""A small read-only GraphQL layer over any engine (graphql-core): one query field per table, one optional
equality argument per column plus `limit`, and no mutations. Resolvers build SQL with sqlglot and run
it through the engine's guarded `execute`, so GraphQL inherits every read-only layer beneath SQL.

    { nation(n_name: "GERMANY") { n_nationkey n_name } }
"""

from __future__ import annotations

import re
import time
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from graphql import (
    GraphQLArgument,
    GraphQLField,
    GraphQLFloat,
    GraphQLInt,
    GraphQLList,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLString,
    graphql_sync,
)
from sqlglot import exp

from orrery.bi.engines import Column, Engine, QueryError, QueryResult


def gql_name(name: str) -> str:
    n = re.sub(r"\W", "_", name).lower()
    return f"_{n}" if n[0].isdigit() else n


# GraphQL's Int is 32-bit; database keys are often 64-bit.
Long = GraphQLScalarType(
    "Long", serialize=int, parse_value=int, parse_literal=lambda node, _variables=None: int(node.value)
)


def _scalar(dtype: str) -> Any:
    t = dtype.upper()
    if re.match(r"(BIG|HUGE)INT|INT8", t):
        return Long
    if re.match(r"(SMALL|TINY)?INT|INTEGER", t):
        return GraphQLInt
    if re.match(r"DECIMAL|NUMERIC|DOUBLE|REAL|FLOAT", t):
        return GraphQLFloat
    return GraphQLString


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


class GraphQLLayer:
    def __init__(self, engine: Engine):
        self.engine = engine
        self.tables = engine.tables()
        self.schema = GraphQLSchema(
            GraphQLObjectType("Query", {gql_name(t): self._field(t, cols) for t, cols in self.tables.items()})
        )

    def _field(self, table: str, cols: list[Column]) -> GraphQLField:
        names = {gql_name(c.name): c for c in cols}
        row = GraphQLObjectType(
            f"{gql_name(table).title().replace('_', '')}Row",
            {n: GraphQLField(_scalar(c.type)) for n, c in names.items()},
        )
        args = {n: GraphQLArgument(_scalar(c.type)) for n, c in names.items()} | {"limit": GraphQLArgument(GraphQLInt)}

        def resolve(_root: Any, _info: Any, limit: int | None = None, **filters: Any) -> list[dict[str, Any]]:
            query = exp.select(*[exp.column(c.name, quoted=True) for c in cols]).from_(exp.to_table(table, quoted=True))
            for n, value in filters.items():
                query = query.where(exp.column(names[n].name, quoted=True).eq(exp.convert(value)))
            if limit is not None:
                query = query.limit(max(0, limit))
            result = self.engine.execute(query.sql(self.engine.dialect))
            return [{gql_name(k): _plain(v) for k, v in rec.items()} for rec in result.records()]

        return GraphQLField(GraphQLList(row), args=args, resolve=resolve)

    def execute(self, query: str) -> QueryResult:
        """Run a GraphQL query; the first field's rows come back as a QueryResult."""
        t0 = time.perf_counter()
        out = graphql_sync(self.schema, query)
        if out.errors:
            raise QueryError("GraphQL: " + "; ".join(e.message for e in out.errors))
        data = out.data or {}
        rows = next(iter(data.values()), None) or []
        columns = list(rows[0]) if rows else []
        return QueryResult(
            query,
            columns,
            [tuple(r[c] for c in columns) for r in rows],
            self.engine.name,
            seconds=time.perf_counter() - t0,
        )

    def lookup_query(self, table: str, column: str, value: Any, limit: int = 20) -> str:
        """The GraphQL query for 'the rows of `table` whose `column` is `value`' (names matched regardless of
        case: the semantic layer says Artist.Name, PostgreSQL keeps artist.name)."""
        table = next((t for t in self.tables if t.lower() == table.lower()), table)
        fields = " ".join(gql_name(c.name) for c in self.tables[table])
        literal = value if isinstance(value, int | float) else '"' + str(value).replace('"', '\\"') + '"'
        return f"{{ {gql_name(table)}({gql_name(column)}: {literal}, limit: {limit}) {{ {fields} }} }}"
