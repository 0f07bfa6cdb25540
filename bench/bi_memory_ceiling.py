"""The ceiling of approved examples (bench/bi_memory.md, "round 8"), read mechanically with sqlglot: what a query
uses (tables, columns resolved to their tables, join conditions) and its template (literals abstracted), and the
class of an empty-memory miss against its database's approved pairs: (a) `template`, an approved query is the
miss's gold with other literals (a value swap could answer it); (b) `parts`, every table, join condition and column
the gold uses is in approved SQL of that database (the model would have to combine them); (c) `neither`.
No model, no database: bench/bi_memory.py's `ceiling` reads the runs and the schemas."""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import traverse_scope


def sql_facts(sql: str, schema: dict[str, dict[str, str]], dialect: str) -> dict[str, Any] | None:
    """What a query uses, its columns resolved to their tables: `tables`, `columns` ((table, column)), `joins`
    (an equality of two tables' columns, either way round) and `template` (the SQL with every literal a
    placeholder, every table by its own name, no aliases); None when sqlglot cannot read or resolve it."""
    try:
        tree = qualify(
            sqlglot.parse_one(sql, read=dialect), schema=schema, dialect=dialect, validate_qualify_columns=False
        )
    except sqlglot.errors.SqlglotError:
        return None
    real: dict[int, tuple[str, str]] = {}  # a column node's id -> (table, column)
    for scope in traverse_scope(tree):
        for col in scope.columns:
            source = scope.sources.get(col.table)
            if isinstance(source, exp.Table):
                real[id(col)] = (source.name.lower(), col.name.lower())
    joins = {
        frozenset((real[id(eq.left)], real[id(eq.right)]))
        for eq in tree.find_all(exp.EQ)
        if id(eq.left) in real and id(eq.right) in real and real[id(eq.left)][0] != real[id(eq.right)][0]
    }
    tables = {t.name.lower() for t in tree.find_all(exp.Table)} - {
        c.alias_or_name.lower() for c in tree.find_all(exp.CTE)
    }
    facts = {"tables": tables, "columns": set(real.values()), "joins": joins}
    return facts | {"template": _template(tree, real, dialect)}


def _template(tree: exp.Expression, real: dict[int, tuple[str, str]], dialect: str) -> str:
    """The query (changed in place) with every literal a placeholder, each column by its table's own name, no
    table or output aliases, each equality's sides in one order."""
    for col in list(tree.find_all(exp.Column)):
        col.set("table", exp.to_identifier(real[id(col)][0]) if id(col) in real else None)
    for node in [*tree.find_all(exp.Literal), *tree.find_all(exp.TableAlias), *tree.find_all(exp.Alias)]:
        if isinstance(node, exp.Literal):
            node.replace(exp.Placeholder())
        elif isinstance(node, exp.TableAlias):
            node.pop()
        else:
            node.replace(node.this)
    for eq in tree.find_all(exp.EQ):  # `a = b` is `b = a`
        left, right = eq.left, eq.right
        if left.sql() > right.sql():
            eq.set("this", right.copy())
            eq.set("expression", left.copy())
    return tree.sql(dialect=dialect, normalize=True).lower()


def ceiling_class(gold: dict[str, Any], approved: list[dict[str, Any]]) -> str:
    """'template', 'parts' or 'neither' (above) for a gold query's facts against its database's approved ones."""
    if any(gold["template"] in a["templates"] for a in approved):
        return "template"
    held = {key: set().union(*(a[key] for a in approved)) for key in ("tables", "columns", "joins")}
    return "parts" if all(gold[key] <= held[key] for key in held) else "neither"


def pair_facts(pair: dict[str, Any], schema: dict[str, dict[str, str]], dialect: str) -> dict[str, Any] | None:
    """An approved pair's facts (`sql_facts` of its SQL) and `templates`: its SQL's and its gold's (the approved
    SQL gives the gold's result, so a question of the gold's template is answered by the pair's values swapped)."""
    facts = sql_facts(pair["sql"], schema, dialect)
    gold = sql_facts(pair["gold"], schema, dialect)
    if facts is None:
        return None
    return facts | {"templates": {facts["template"]} | ({gold["template"]} if gold else set())}


def same_question(a: str, b: str) -> bool:
    return " ".join(a.lower().rstrip("?").split()) == " ".join(b.lower().rstrip("?").split())


def in_one_pair(gold: dict[str, Any], approved: list[dict[str, Any]]) -> bool:
    """Whether one approved query alone uses every table, join condition and column the gold uses."""
    return any(all(gold[key] <= a[key] for key in ("tables", "columns", "joins")) for a in approved)
