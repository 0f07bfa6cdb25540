"""Worked examples for the SQL-parts call drafted from the connected database's own layer.

The 0.5B model copies its examples' surface: shown a Course / Enrollment schema it wrote `Enrollment.TakenOn` on
databases that have no such column, and shown `year(<a date>) = 2023` it made up a date column where the year is a
number (`inv_annual.fy`): bench/bi.md, round 33. The same six shapes (a filter and a year, a top one by count, a top
one by a measure's total, an average per group, a count, a HAVING) are written here on the database's own tables, columns and values, chosen by fixed
rules, its year the way it keeps years, so what the model copies is real.
"""

from __future__ import annotations

import json
import re
from typing import Any

from orrery.bi.context import BIContext
from orrery.bi.decline import year_ranges
from orrery.bi.joins import join_columns, sides
from orrery.bi.names import key_like
from orrery.bi.profile import quote
from orrery.bi.semantic import NUMERIC, Semantic, words
from orrery.messages import Message

_WHOLE = re.compile(r"INT", re.I)
_ROWS = 50  # the rows of the last years read for the filter-and-year example's value
MORE_THAN = 10  # the HAVING example's threshold: the shape matters, not the number


def drafted_shots(bi: BIContext) -> list[Message]:
    """The worked examples for `bi`'s database as user / assistant turns (none where its layer holds no
    text column with indexed values to filter and group by), drafted once per layer."""
    return bi.derived("shots", lambda: _turns(_shots(bi)))


def _turns(shots: list[tuple[str, dict[str, Any]]]) -> list[Message]:
    return [m for user, reply in shots for m in (Message("user", user), Message("assistant", json.dumps(reply)))]


def _shots(bi: BIContext) -> list[tuple[str, dict[str, Any]]]:
    layer = bi.semantic
    years = _year_columns(bi)
    anchor = years[0][0] if years else next((t for t in layer.tables if _measures(layer, t)), None)
    label = _label(bi, anchor) if anchor else None
    if label is None:
        return []
    table, column, value, join = label
    group, on = f"{table}.{column}", [(table, column)]
    noun, said = _plural(words(anchor)), words(column)
    out = []
    if years:
        _, year_col, year, number = years[0]
        value, year = _latest(bi, anchor, year_col, label) or (value, year)
        when = f"{anchor}.{year_col} = {year}" if number else f"year({anchor}.{year_col}) = {year}"
        out.append(
            _shot(
                layer,
                [(anchor, year_col), *on],
                join,
                f"How many {noun} with {said} {value} in {year}?",
                {"select": ["count(*)"], "where": [f"{group} = '{value}'", when]},
                known=f"{value!r} is {group} = {value!r}",
            )
        )
    top = {"select": [group], "group_by": [group], "order_by": ["count(*) DESC"], "limit": 1}
    out.append(_shot(layer, on, join, f"Which {said} has the most {noun}?", top))
    if measure := next(iter(_measures(layer, anchor)), None):
        # a ranking by an amount beside the ranking by count: shown only the count, the model ranked 'the highest
        # sales' by `count(*)` (bench/bi_memory.md round 16 (B), bench/bi.md, round 38)
        ranked = {**top, "order_by": [f"sum({anchor}.{measure}) DESC"]}
        amount = words(measure) if "total" in words(measure).split() else f"total {words(measure)}"
        total = f"Which {said} has the highest {amount}?"
        out.append(_shot(layer, [(anchor, measure), *on], join, total, ranked))
        average = {"select": [group, f"avg({anchor}.{measure})"], "group_by": [group]}
        out.append(
            _shot(layer, [(anchor, measure), *on], join, f"What is the average {words(measure)} per {said}?", average)
        )
    counted = on if table == anchor else [(anchor, next(iter(layer.tables[anchor]["columns"])))]
    out.append(_shot(layer, counted, None, f"How many {noun} are there?", {"select": ["count(*)"]}))
    having = {"select": [group], "group_by": [group], "having": [f"count(*) > {MORE_THAN}"]}
    out.append(_shot(layer, on, join, f"Which {said} has more than {MORE_THAN} {noun}?", having))
    return out


def _shot(
    layer: Semantic,
    used: list[tuple[str, str]],
    join: str | None,
    question: str,
    reply: dict[str, Any],
    known: str = "",
) -> tuple[str, dict[str, Any]]:
    """One example: a schema of only the columns it uses (and its join's), the Known line of a resolved value as
    the SQL step writes it, the question, and the reply with every part present."""
    keep: dict[str, list[str]] = {}
    for table, column in [*used, *(join_columns(join) if join else ())]:
        keep.setdefault(table, []).append(column)
    tables = {
        t: {
            "description": layer.tables[t].get("description", ""),
            "columns": {c: layer.tables[t]["columns"][c] for c in dict.fromkeys(cols)},
        }
        for t, cols in keep.items()
    }
    schema = Semantic(layer.database, tables, [join] if join else []).render(list(tables))
    parts = {"select": [], "where": [], "group_by": [], "having": [], "order_by": [], "limit": None} | reply
    user = f"Schema:\n{schema}\n\n" + (f"Known:\n- {known}\n\n" if known else "") + f"Question: {question}"
    return user, parts


def _year_columns(bi: BIContext) -> list[tuple[str, str, int, bool]]:
    """(table, column, its last year, kept as a number) of each column that holds years, those of a table
    with an amount first (`_rank`), then four-digit years before two-digit ones, then the layer's order."""
    layer = bi.semantic
    spans = year_ranges(bi) or {(t, c): span for t, c, info in layer.columns() if (span := _drafted_years(info))}
    found = [
        (t, c, last, bool(NUMERIC.search(str(layer.tables[t]["columns"][c].get("type", "")))))
        for (t, c), (_, last) in spans.items()
    ]
    return sorted(found, key=lambda y: (_rank(layer, y[0]), y[2] < 1000))


def _drafted_years(info: dict[str, Any]) -> tuple[int, int] | None:
    """A whole-number column the drafted layer says runs between two years ('fy; from 1935 to 1954'), which
    `year_ranges` leaves out when its name says no unit of time."""
    m = re.search(r"from (\d{4}) to (\d{4})$", info.get("description") or "")
    span = (int(m.group(1)), int(m.group(2))) if m and _WHOLE.search(str(info.get("type", ""))) else None
    return span if span and 1800 <= span[0] <= span[1] <= 2100 else None


def _rank(layer: Semantic, table: str) -> int:
    """0 for a table with a fractional measure (an amount), 1 with a whole-number one, 2 with none."""
    measures = _measures(layer, table)
    return (
        2
        if not measures
        else int(bool(_WHOLE.search(str(layer.tables[table]["columns"][measures[0]].get("type", "")))))
    )


def _measures(layer: Semantic, table: str) -> list[str]:
    """A table's number columns that are not keys, codes or years, fractional ones first."""
    joined = {f"{t}.{c}" for j in layer.joins for t, c in join_columns(j)}
    out = [
        c
        for c, info in layer.tables[table]["columns"].items()
        if NUMERIC.search(str(info.get("type", "")))
        and f"{table}.{c}" not in joined
        and not key_like(c)
        and not re.search(r"year|date|time|yr", c, re.I)
    ]
    return sorted(out, key=lambda c: bool(_WHOLE.search(str(layer.tables[table]["columns"][c].get("type", "")))))


def _label(bi: BIContext, anchor: str) -> tuple[str, str, str, str | None] | None:
    """(table, column, a value, the join to it or None) of the text column to filter and group `anchor`'s rows
    by: of the indexed columns of `anchor` and of the tables one join away, the one with the fewest distinct
    values (two or more: a category, 'region' rather than 'country'), counting values with a letter and no quote;
    its value the middle one of them sorted."""
    held: dict[tuple[str, str], set[str]] = {}
    for c in bi.index():
        if _plain(c.value):
            held.setdefault((c.table, c.column), set()).add(str(c.value))
    found = [
        (len(values), table, column, sorted(values)[len(values) // 2], join)
        for join in [None, *(j for j in bi.semantic.joins if anchor in sides(j))]
        for (table, column), values in held.items()
        if len(values) > 1 and table in ({anchor} if join is None else sides(join) - {anchor})
    ]
    return min(found, key=lambda f: f[0])[1:] if found else None


def _latest(
    bi: BIContext, anchor: str, year_col: str, label: tuple[str, str, str, str | None]
) -> tuple[str, int] | None:
    """A value of the label column and the year of the same row, of the rows with the last years, so that the
    filter-and-year example finds rows (the middle value and the last year may never meet)."""
    table, column, _, join = label
    name = lambda t, c: f"{quote(bi.engine, t)}.{quote(bi.engine, c)}"  # noqa: E731
    source = quote(bi.engine, anchor)
    if join:
        (a, x), (b, y) = join_columns(join)
        source += f" JOIN {quote(bi.engine, table)} ON {name(a, x)} = {name(b, y)}"
    rows = bi.engine.execute(
        f"SELECT {name(table, column)}, {name(anchor, year_col)} FROM {source} WHERE {name(table, column)} IS NOT NULL"
        f" AND {name(anchor, year_col)} IS NOT NULL ORDER BY 2 DESC, 1 LIMIT {_ROWS}",
        max_rows=_ROWS,
    ).rows
    for value, when in rows:
        year = re.search(r"^\d{2}$|\d{4}", str(when).split(".")[0])
        if _plain(value) and year:
            return str(value), int(year.group(0))
    return None


def _plain(value: object) -> bool:
    """A value with a letter (a name, not a code) and no quote (written as SQL text as is)."""
    return bool(re.search(r"[^\W\d_]", str(value))) and not re.search(r"['\"]", str(value))


def _plural(noun: str) -> str:
    return noun if noun.endswith("s") else noun + "s"
