"""Round 76, measured and NOT wired into the BI steps (bench/bi_r76.md: its model sample lost 2 right answers and
gained none); kept for bench/bi_r76_replay.py and the next round. Reply schemas whose SQL can name only the slice's
real tables and columns (PICARD-style constrained decoding): every string of SQL carries a `pattern` whose
identifiers are the slice's `table.column`, column and table names, so the grammar the model decodes under
(llguidance) never lets it write a column no table has; the model, not a string match, picks among the real ones.
Aggregates, operators, literals and output aliases (`AS total`) stay free.

The regex keeps two words from touching (`Na` + `me` would spell any name): a token that ends in a word character
is followed by one that starts with another. Plain regex syntax only (no flags, no lookaround)."""

from __future__ import annotations

import copy
import re
from typing import Any

from orrery.bi.semantic import Semantic

KEYWORDS = [
    "SELECT",
    "DISTINCT",
    "FROM",
    "WHERE",
    "JOIN",
    "INNER",
    "LEFT",
    "RIGHT",
    "FULL",
    "OUTER",
    "CROSS",
    "ON",
    "USING",
    "GROUP",
    "ORDER",
    "BY",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "ASC",
    "DESC",
    "AND",
    "OR",
    "NOT",
    "IN",
    "IS",
    "NULL",
    "LIKE",
    "ILIKE",
    "GLOB",
    "BETWEEN",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "UNION",
    "ALL",
    "EXISTS",
    "TRUE",
    "FALSE",
    "WITH",
    "OVER",
    "PARTITION",
    "FILTER",
    "ESCAPE",
    "COLLATE",
    "NOCASE",
    "EXCEPT",
    "INTERSECT",
]
FUNCTIONS = [
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "TOTAL",
    "ROUND",
    "ABS",
    "CAST",
    "COALESCE",
    "IFNULL",
    "NULLIF",
    "IIF",
    "LOWER",
    "UPPER",
    "LENGTH",
    "SUBSTR",
    "SUBSTRING",
    "TRIM",
    "REPLACE",
    "INSTR",
    "STRFTIME",
    "DATE",
    "DATETIME",
    "JULIANDAY",
    "YEAR",
    "MONTH",
    "DAY",
    "EXTRACT",
    "PRINTF",
    "GROUP_CONCAT",
    "STRING_AGG",
    "DATE_PART",
    "DATE_TRUNC",
    "DATEDIFF",
    "CONCAT",
    "MEDIAN",
    "STDDEV",
    "FLOOR",
    "CEIL",
    "CEILING",
    "POWER",
    "SQRT",
    "LN",
    "LOG",
    "EXP",
]
_WORD = r"[A-Za-z_][A-Za-z0-9_]*"
_SHORT_ALIAS = r"[A-Za-z][A-Za-z]?[0-9]?"  # the table aliases a model writes over the schema: T1, c, ar
_PLAIN = re.compile(_WORD)


def _any(names: list[str]) -> str:
    return "(" + "|".join(re.escape(n) for n in dict.fromkeys(names)) + ")"


def _cases(words: list[str]) -> list[str]:
    return [f for w in words for f in (w, w.lower())]


def sql_pattern(semantic: Semantic, tables: list[str], aliases: bool) -> str | None:
    """A regex of SQL text whose identifiers are `tables`' names and columns (`aliases`: also short table aliases
    qualifying a column, for SQL written with its own FROM). None when a name is not a plain identifier (it would
    need quotes, which the JSON string escapes)."""
    columns = {t: list(semantic.tables[t]["columns"]) for t in tables}
    if not all(_PLAIN.fullmatch(n) for t in tables for n in (t, *columns[t])):
        return None
    every = [c for t in tables for c in columns[t]]
    qualified = [f"{re.escape(t)}\\.{_any(columns[t])}" for t in tables if columns[t]]
    if aliases:
        qualified.append(f"{_SHORT_ALIAS}\\.{_any(every)}")
    words = [  # tokens that begin and end with a word character
        *qualified,
        _any([*every, *tables, *_cases(KEYWORDS)]),
        r"[0-9]+(\.[0-9]+)?",
        rf"(AS|as)[ ]+{_WORD}",  # an output alias, or CAST's type
        r"(NULLS|nulls)[ ]+(FIRST|LAST|first|last)",
        r"(YEAR|MONTH|DAY|year|month|day)[ ]+(FROM|from)",  # EXTRACT(YEAR FROM ...): no bare `year` column
        *([_SHORT_ALIAS] if aliases else []),
    ]
    opening = _any(_cases(FUNCTIONS)) + r"[ ]?\("  # begins with a word, ends without one
    others = r"[ ]|[-+*/%<>=!|,()]|'([^'\"\\]|'')*'"  # neither: spaces, operators, a literal
    word = "(" + "|".join(words) + ")"
    return f"^(({others})|{opening}|{word}({others}))*{word}?$"


def constrained(schema: dict[str, Any], pattern: str | None) -> dict[str, Any]:
    """A copy of `schema` whose strings of SQL (every string but a `cannot_answer`) match `pattern`."""
    out = copy.deepcopy(schema)
    if pattern is None:
        return out
    for node in _strings(out):
        node["pattern"] = pattern
    return out


def _strings(schema: Any, key: str = "") -> list[dict[str, Any]]:
    if isinstance(schema, list):
        return [s for item in schema for s in _strings(item, key)]
    if not isinstance(schema, dict) or key == "cannot_answer":
        return []
    own = [schema] if schema.get("type") == "string" else []
    return own + [
        s
        for k, v in schema.items()
        for s in (
            [n for name, sub in v.items() for n in _strings(sub, name)] if k == "properties" else _strings(v, key)
        )
    ]
