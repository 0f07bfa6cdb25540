"""SQL from parts: the model fills in SELECT / WHERE / GROUP BY / HAVING / ORDER BY / LIMIT with qualified
columns, and the FROM clause with its JOINs is derived here from the semantic layer's join paths, plus the
resolved values' equality filters. A 0.5B model writes wrong joins far more often than wrong columns
(measured on dev questions: with free SQL it filtered on Genre.Name with no Genre in FROM), so the part it
gets wrong is not asked of it."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

import pydantic
import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from orrery.bi.decline import named_years
from orrery.bi.guard import parse_lenient
from orrery.bi.joins import join_columns, join_ends, sides
from orrery.bi.names import KEY_WORDS, key_like, names_table, said_words, singular, yes_no
from orrery.bi.relax import conjuncts, extreme, outer_filters
from orrery.bi.semantic import (
    GENERIC,
    NUMERIC,
    UNITS,
    Semantic,
    abbreviates,
    named_year,
    rank_fields,
    schema_words,
    stems,
    table_year,
    two_digit_year,
    words,
)
from orrery.errors import ToolError
from orrery.grounding import NUMBER_WORDS, number_words, writes_a_number


class UnknownField(ToolError):
    """The query names a column no table has: a mistake to repair, or a field the data does not hold."""

    def __init__(self, names: list[str], hints: list[str] = (), layer: str = ""):
        hint = f" (the closest are {', '.join(hints)})" if hints else ""
        super().__init__(
            f"no table has a column named {', '.join(map(repr, names))}; use only the columns listed{hint}"
        )
        self.names = names
        self.layer = layer  # the whole layer's nearest columns (`_layer_hints`), shown to the repair round


class BadPart(ToolError):
    """A part that is not valid SQL: repaired once like an unknown column."""


class NoJoinPath(ToolError):
    """The layer has no join connecting the tables the query needs."""


class AmbiguousJoin(ToolError):
    """Two or more joins connect the same two tables (routes to airports by source and by destination)."""

    def __init__(self, options: list[str]):
        super().__init__(f"the tables can be joined on {' or '.join(options)}")
        self.options = options


class QueryParts(pydantic.BaseModel):
    select: list[str] = []
    where: list[str] = []
    group_by: list[str] = []
    having: list[str] = []
    order_by: list[str] = []
    limit: int | None = None
    cannot_answer: str | None = None


HINTED = 60  # a column of the whole layer scoring this for a name no table has is named in the repair
_LIST = {"type": "array", "items": {"type": "string"}}
# One shape only: offered a {"cannot_answer"} alternative, the 0.5B model took it for every dev question
# (5 of 5); an empty select is how it declines instead.
PARTS_SCHEMA = {
    "type": "object",
    "required": ["select", "where", "group_by", "having", "order_by", "limit"],
    "properties": {
        "select": _LIST,
        "where": _LIST,
        "group_by": _LIST,
        "having": _LIST,
        "order_by": _LIST,
        "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    },
    "additionalProperties": False,
}

# How each part is parsed: as a select expression, a condition, or an ORDER BY item.
_WRAP = {
    "select": "SELECT {}",
    "group_by": "SELECT {}",
    "where": "SELECT 1 WHERE {}",
    "having": "SELECT 1 HAVING {}",
    "order_by": "SELECT 1 ORDER BY {}",
}


def _parse(part: str, text: str, dialect: str) -> exp.Expression:
    try:
        trees = [t for t in parse_lenient(_WRAP[part].format(text), dialect) if t is not None]
    except SqlglotError as exc:
        raise BadPart(f"{part} item {text!r} is not valid SQL: {str(exc).splitlines()[0]}") from exc
    if len(trees) != 1:
        raise BadPart(f"{part} item {text!r} is not valid SQL: one expression, no ';'")
    tree = trees[0]
    if part in ("select", "group_by"):
        return tree.expressions[0]
    if part == "order_by":
        return tree.args["order"].expressions[0]
    return tree.args[part].this


def _qualify(
    node: exp.Expression, semantic: Semantic, slice_tables: list[str], used: list[str], unknown: list[str]
) -> None:
    """Give every column its table (the one named, else the first table of the slice that has it); collect
    the names no table has."""
    names = {t.lower(): t for t in semantic.tables}
    for col in node.find_all(exp.Column):
        if col.table and col.table.lower() not in names:  # a table no schema has ('imdb.Year'): the column decides
            col.set("table", None)
        if col.table:
            table = names.get(col.table.lower())
            if table is None or col.name.lower() not in {c.lower() for c in semantic.tables[table]["columns"]}:
                if (mended := _mended(semantic, col, slice_tables, used)) is None:
                    unknown.append(f"{table or col.table}.{col.name}")
                    continue
                table = mended
        else:
            owners = [
                t
                for t in [*used, *slice_tables, *semantic.tables]
                if col.name.lower() in {c.lower() for c in semantic.tables[t]["columns"]}
            ]
            if not owners and (mended := _mended(semantic, col, slice_tables, used)) is not None:
                owners = [mended]
            if not owners:
                unknown.append(col.name)  # an output alias (ORDER BY total) is taken out by the caller
                continue
            table = owners[0]
            col.set("table", exp.to_identifier(table))
        if table not in used:
            used.append(table)


def _mended(semantic: Semantic, col: exp.Column, slice_tables: list[str], used: list[str]) -> str | None:
    """The table of the one column a name no table holds can only mean, `col` set to it; None when none or two.
    `tomatoes.Year`: the one table joined to the named one that holds `Year` (`omdb`); a made-up year or date
    (`cars.year`, `co_date`): the one column of years (a number column of years, a DATE /
    TIMESTAMP) of the query's and slice's tables and those a join away (`cars.yr`, `inv_annual.fy`)."""
    graph = semantic.join_graph()
    named = next((t for t in graph if col.table and t.lower() == col.table.lower()), None)
    near = [t for t in [named, *used, *slice_tables] if t in graph]
    tables = list(dict.fromkeys([*near, *(n for t in near for n in sorted(graph[t]))]))
    if named is not None:
        joined = _component(graph, named)
        holders = [
            t
            for t in semantic.tables
            if t.lower() in joined and col.name.lower() in {c.lower() for c in semantic.tables[t]["columns"]}
        ]
        if len(holders) == 1:
            col.set("table", exp.to_identifier(holders[0]))
            return holders[0]
    if not (named_year(col.name) or re.search(r"\bdates?\b", words(col.name))):
        return None
    years = [
        (t, c)
        for t in tables
        for c, info in semantic.tables[t]["columns"].items()
        if _a_number_of_years(c, info) or _DATED.search(str(info.get("type")))
    ]
    if len(years) != 1:
        return None
    col.set("this", exp.to_identifier(years[0][1]))
    col.set("table", exp.to_identifier(years[0][0]))
    return years[0][0]


def _map_unknown(
    node: exp.Expression, semantic: Semantic, slice_tables: list[str], aliases: set[str], dialect: str
) -> exp.Expression:
    """A column no table has but that one field of the semantic layer clearly names ('priority' ->
    orders.o_orderpriority, 'total_amount' -> Invoice.Total) is that field; anything less clear stays unknown
    (repaired, then declined). Output aliases are left alone."""
    for col in list(node.find_all(exp.Column)):
        if col.name.lower() in aliases or _owner(semantic, col) is not None:
            continue
        field = _clear_field(semantic, col.name, slice_tables)
        if field is None:
            continue
        new = (
            exp.paren(sqlglot.parse_one(field["sql"], read=dialect))
            if "sql" in field
            else exp.column(field["column"], table=field["table"])
        )
        if col is node:
            return new
        col.replace(new)
    return node


def _owner(semantic: Semantic, col: exp.Column) -> str | None:
    """The table that has `col` (the one it names, else any), or None."""
    tables = [t for t in semantic.tables if not col.table or t.lower() == col.table.lower()]
    return next((t for t in tables if col.name.lower() in {c.lower() for c in semantic.tables[t]["columns"]}), None)


def _clear_field(semantic: Semantic, name: str, slice_tables: list[str]) -> dict[str, Any] | None:
    """The one field scoring >= 90 for `name`, preferring the slice's tables; None when none or a tie."""
    ranked = [r for r in rank_fields(semantic, words(name)) if r[0] >= 90]
    inside = [r for r in ranked if r[2].get("table") in slice_tables] or ranked
    if not inside or (len(inside) > 1 and inside[1][0] == inside[0][0]):
        return None
    return inside[0][2]


def _hints(semantic: Semantic, names: list[str], slice_tables: list[str]) -> list[str]:
    """The slice's columns most like the unknown names, for the repair round ('BillingDate' -> InvoiceDate)."""
    out: list[str] = []
    for name in names:
        ranked = [r for r in rank_fields(semantic, words(name.split(".")[-1])) if r[2].get("table") in slice_tables]
        out += [f"{r[2]['table']}.{r[2]['column']}" for r in ranked[:2] if "column" in r[2]]
        if re.search(r"date|time|day|year|month", name, re.I):
            out += [
                f"{t}.{c}"
                for t in slice_tables
                for c, info in semantic.tables[t]["columns"].items()
                if _DATED.match(str(info.get("type", "")))
            ][:2]
    return list(dict.fromkeys(out))


def _layer_hints(semantic: Semantic, names: list[str], slice_tables: list[str]) -> str:
    """For each name no table has, the two columns of the whole layer that rank first for it (`_hints` ranks the
    slice's tables only, which may lack it: 'lifespan' is `indicators.life_expectancy` when the query reads
    `countries`), each with its table and, outside the slice's tables, the join that reaches it."""
    lines = []
    for name in names:
        ranked = rank_fields(semantic, words(name.split(".")[-1]))
        for _, _, f in [r for r in ranked if "column" in r[2] and r[0] >= HINTED][:2]:
            joins = [j for j in semantic.joins if f["table"] in sides(j) and sides(j) & set(slice_tables)]
            reach = f", joined by {joins[0]}" if f["table"] not in slice_tables and joins else ""
            lines.append(f"{name!r} may be {f['table']}.{f['column']}{reach}")
    return "Columns of the whole schema most like them:\n" + "\n".join(f"- {x}" for x in lines) + "\n" if lines else ""


def _join_condition(cond: exp.Expression, semantic: Semantic) -> bool:
    """'orders.o_custkey = customer.c_custkey' written as a filter, or a key no table has matched to a
    subquery ('orders.o_nationkey = (SELECT n_nationkey ...)'): the joins are derived, so it goes (a value
    it meant to filter on is resolved and filters anyway)."""
    if not isinstance(cond, exp.EQ):
        return False
    sides = [cond.this, cond.expression]
    keys = [c for c in sides if isinstance(c, exp.Column) and c.name.lower().endswith(("id", "key"))]
    if len(keys) == 2:
        return True
    return any(_owner(semantic, k) is None for k in keys) and any(
        isinstance(c, exp.Subquery | exp.Column) for c in sides
    )


def _expand_terms(node: exp.Expression, semantic: Semantic, dialect: str) -> exp.Expression:
    """A column named like a semantic-layer term ('delay', 'revenue') is the term's formula."""
    terms = {
        re.sub(r"[\s_]+", " ", name.lower()): info["sql"] for name, info in semantic.terms.items() if "sql" in info
    }
    for col in list(node.find_all(exp.Column)):
        formula = terms.get(re.sub(r"[\s_]+", " ", col.name.lower()))
        if formula is not None and not col.table:
            replacement = exp.paren(sqlglot.parse_one(formula, read=dialect))
            if col is node:
                return replacement
            col.replace(replacement)
    return node


def _column_info(semantic: Semantic, col: exp.Column) -> dict[str, Any]:
    table = next((t for t in semantic.tables if t.lower() == col.table.lower()), None)
    info = semantic.tables[table]["columns"] if table else {}
    return next((v for c, v in info.items() if c.lower() == col.name.lower()), {})


def _column_type(semantic: Semantic, col: exp.Column) -> str:
    return str(_column_info(semantic, col).get("type", ""))


def _year_filters(node: exp.Expression, semantic: Semantic, question: str = "") -> exp.Expression:
    """`date_column = '1995'` means the year 1995 (DuckDB and PostgreSQL both reject it as a date), and so
    does `date_column = '1995-01-01'` when the question gives only the year."""
    for eq in list(node.find_all(exp.EQ, exp.Like)):
        col, lit = eq.this, eq.expression
        if isinstance(lit, exp.Column):
            col, lit = lit, col
        if not (isinstance(col, exp.Column) and isinstance(lit, exp.Literal)):
            continue
        year = re.fullmatch(r"%?(\d{4})(-01-01|-%|%)?", lit.this)
        if (
            year
            and year.group(2) == "-01-01"
            and (lit.this in question or not re.search(rf"\b{year.group(1)}\b", question))
        ):
            continue
        if year and _DATED.match(_column_type(semantic, col)):
            fixed = exp.EQ(
                this=exp.Extract(this=exp.var("YEAR"), expression=col.copy()),
                expression=exp.Literal.number(int(year.group(1))),
            )
            if eq is node:
                return fixed
            eq.replace(fixed)
    return node


def _year_of_a_named_table(cond: exp.Expression, trees: dict[str, list[exp.Expression]], tables: list[str]) -> bool:
    """`m100.yr = 2014` beside a table whose name carries 2014 (`sochi14_tally`, in the query or its slice): the
    year is that table's, so a condition on another table's year asks nothing more (and joins what need not)."""
    if not (
        isinstance(cond, exp.EQ) and isinstance(cond.this, exp.Column) and isinstance(cond.expression, exp.Literal)
    ):
        return False
    named = {t.lower() for t in tables} | {c.table.lower() for n in trees["select"] for c in n.find_all(exp.Column)}
    carried = {t for t in named if table_year(t) is not None and str(table_year(t)) == cond.expression.name}
    return bool(carried) and cond.this.table.lower() not in carried


def _year_on_its_column(
    cond: exp.Expression, semantic: Semantic, question: str, slice_tables: list[str], used: list[str]
) -> exp.Expression:
    """'movies released in 2009', 'the biggest hit of 2001': the year the question names ("in / of 2009", not a
    quantity: decline.named_years) set on a column that is neither a year nor a typed date (a text date,
    `Released = '2009-01-01'`; a DVD date; the box office itself) is the year of the table that has a column
    named as one (`omdb.Year = 2009`): the column's own table, else the first such of the query's, the slice's, or
    of a table joined to it."""
    col, lit = cond.this, cond.expression
    if not (
        isinstance(cond, (exp.EQ, exp.GT, exp.Like)) and isinstance(col, exp.Column) and isinstance(lit, exp.Literal)
    ):
        return cond
    year = re.match(r"%?(\d{4})(?:-\d\d-\d\d|-?%)?$", lit.this)
    named = {y for y, how in named_years(question) if how == "in"}
    if (
        not year
        or int(year.group(1)) not in named
        or named_year(col.name)
        or _DATED.search(_column_type(semantic, col))
    ):
        return cond
    near = sorted(semantic.join_graph().get(col.table, ()))
    if (at := _numeric_column(semantic, dict.fromkeys([col.table, *used, *slice_tables, *near]), named_year)) is None:
        return cond
    if at.table not in used:
        used.append(at.table)
    return at.eq(exp.Literal.number(int(year.group(1))))


def _numeric_column(semantic: Semantic, tables: Iterable[str], named: Callable[[str], bool]) -> exp.Column | None:
    """The first number column of `tables`, in their order, whose name `named` accepts."""
    for table in tables:
        for column, info in (semantic.tables.get(table) or {}).get("columns", {}).items():
            if named(column) and NUMERIC.search(str(info.get("type"))):
                return exp.column(column, table=table)
    return None


_DATED = re.compile(r"DATE|TIMESTAMP", re.I)
_RANGE = re.compile(r"; from (-?[\d.]+) to (-?[\d.]+)")


def _a_number_of_years(column: str, info: dict[str, Any]) -> bool:
    """A number column named as a year (`yr`, `acad_yr`) or whose values are years (`fy` from 1935 to 1954)."""
    rng = _RANGE.search(info.get("description") or "")
    years = bool(rng) and 1600 <= float(rng[1]) <= float(rng[2]) <= 2100
    return bool(NUMERIC.search(str(info.get("type")))) and (named_year(column) or years)


def _year_of_a_year(node: exp.Expression, semantic: Semantic) -> exp.Expression:
    """`YEAR(inv_annual.fy)` / `EXTRACT(YEAR FROM fy)` of a number column of years (`_a_number_of_years`) is
    the column itself: DuckDB has no YEAR of a number, and SQLite's STRFTIME reads one as a count of days."""
    for found in [node, *node.find_all(exp.Year, exp.Extract)]:
        part = _date_part(found)
        if not (part and part[0] == "YEAR" and isinstance(part[1], exp.Column)):
            continue
        if _a_number_of_years(part[1].name, _column_info(semantic, part[1])):
            if found is node:
                return part[1].copy()
            found.replace(part[1].copy())
    return node


def _two_digit_years(node: exp.Expression, semantic: Semantic, question: str) -> exp.Expression:
    """'after 1980' on a year column that holds two digits (its values from 70 to 82): compared with 80, not 1980,
    which no value reaches. Only a year the question writes, on a column `two_digit_year` reads so (its range from
    its description)."""
    for cmp in list(node.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
        col, lit = cmp.this, cmp.expression
        if not (
            isinstance(col, exp.Column) and isinstance(lit, exp.Literal) and re.fullmatch(r"(19|20)\d\d", lit.this)
        ):
            continue
        rng = _RANGE.search(_column_info(semantic, col).get("description") or "")
        if (
            rng
            and two_digit_year(col.name, float(rng.group(1)), float(rng.group(2)))
            and re.search(rf"\b{lit.this}\b", question)
        ):
            lit.replace(exp.Literal.number(int(lit.this) % 100))
    return node


_DATE_SPAN = re.compile(r"from (\d{4})-\d\d-\d\d to (\d{4})-\d\d-\d\d")
# a two-digit year the question writes as one: "in 97", "'97", "calendar 95", "fy 97"
_SHORT_YEAR = r"(?:\b(?:in|of|since|after|before|until|calendar|year|fy)\s+'?|')"


def _dates_year_in_full(node: exp.Expression, semantic: Semantic, question: str) -> exp.Expression:
    """'by air or rail in 97' written `YEAR(l_shipdate) = 97`: a date's year is four digits, so a two-digit year
    the question writes ("in 97", "'97") on a DATE / TIMESTAMP column is the one of the column's span in the layer
    (1992 to 1998 -> 1997), left as it is when neither century's year is in it."""
    for cmp in list(node.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
        dated, lit = _date_part(cmp.this), cmp.expression
        if not (
            dated
            and dated[0] == "YEAR"
            and isinstance(col := dated[1], exp.Column)
            and isinstance(lit, exp.Literal)
            and re.fullmatch(r"\d\d", lit.this)
            and re.search(rf"{_SHORT_YEAR}{lit.this}\b", question, re.I)
        ):
            continue
        if not _DATED.match(_column_type(semantic, col)):
            continue
        short = int(lit.this)
        if span := _DATE_SPAN.search(_column_info(semantic, col).get("description") or ""):
            full = [y for y in (1900 + short, 2000 + short) if int(span[1]) <= y <= int(span[2])]
        else:  # no span in the layer: POSIX strptime's %y pivot (69-99 -> 1900s, 00-68 -> 2000s)
            full = [1900 + short if short >= 69 else 2000 + short]
        if len(full) == 1:
            lit.replace(exp.Literal.number(full[0]))
    return node


def _short_year_on_its_column(node: exp.Expression, semantic: Semantic, question: str) -> exp.Expression:
    """ "4-cyl models in the '80 lineup" written as `origin = 80`, 'best 100m time prior to 1950' as `time_s <
    1950`: a year the question writes (two digits as "'80" / 'year 80', or four), compared with a column whose
    values never reach it (`origin` 1 to 3, `time_s` 9.6 to 12), is compared on the column of that table named
    as a year whose range holds it (`yr` 70 to 82 by two digits; `yr` 1896 to 2016)."""
    for cmp in list(node.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
        col, lit = cmp.this, cmp.expression
        if not (
            isinstance(col, exp.Column)
            and isinstance(lit, exp.Literal)
            and re.fullmatch(r"\d\d|(?:19|20)\d\d", lit.this)
        ):
            continue
        short = len(lit.this) == 2
        written = (
            re.search(rf"(?:'|\byears?\s+){lit.this}\b", question, re.I)
            if short
            else int(lit.this) in {y for y, _ in named_years(question)}  # a year, not a quantity ('than 1950')
        )
        if not written or named_year(col.name) or _holds(semantic, col, int(lit.this)):
            continue
        table = _owner(semantic, col) or ""
        for name in (semantic.tables.get(table) or {}).get("columns", {}):
            other = exp.column(name, table=table)
            rng = _RANGE.search(_column_info(semantic, other).get("description") or "")
            if (
                rng
                and named_year(name)
                and (not short or two_digit_year(name, float(rng.group(1)), float(rng.group(2))))
                and _holds(semantic, other, int(lit.this))
            ):
                col.replace(other)
                break
    return node


def _holds(semantic: Semantic, col: exp.Column, number: int) -> bool:
    """Whether `number` lies in the column's range (its description's 'from X to Y'); True when none is known."""
    rng = _RANGE.search(_column_info(semantic, col).get("description") or "")
    return not rng or float(rng.group(1)) <= number <= float(rng.group(2))


_MONTHS = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\d{4}-\d{2}|quarter|week", re.I)


def _whole_year(conds: list[exp.Expression], semantic: Semantic, question: str) -> list[exp.Expression]:
    """'in 1995' is the whole year: range filters on one date column within 1995 ('>= 1995-01-01 AND
    < 1995-12-31' drops the last day) become EXTRACT(YEAR ...) = 1995, when the question names a year
    and no month or day; a two-digit year written as one ('calendar 95', "in '95") is the year the range's
    literals write with those digits."""
    years = set(re.findall(r"\b(1[89]\d\d|20\d\d)\b", question)) or {
        short + "?" for short in re.findall(rf"{_SHORT_YEAR}(\d\d)\b", question, re.I)
    }  # 'calendar 95': the century is the one the model's range literals write
    if (
        len(years) != 1
        or _MONTHS.search(question)
        or re.search(r"\b(since|after|before|from|until|till|between)\b", question, re.I)
    ):
        return conds
    year = years.pop()
    if year.endswith("?"):
        written = {str(c.expression.this)[:4] for c in conds if isinstance(c.expression, exp.Literal)}
        full = [y for y in written if re.fullmatch(r"\d{4}", y) and y[2:] == year[:2]]
        if len(full) != 1:
            return conds
        year = full[0]
    ranges = (exp.GT, exp.GTE, exp.LT, exp.LTE)
    on: dict[str, list[exp.Expression]] = {}
    for c in conds:
        if (
            isinstance(c, ranges)
            and isinstance(c.this, exp.Column)
            and isinstance(c.expression, exp.Literal)
            and _DATED.match(_column_type(semantic, c.this))
            and c.expression.this[:4] in (year, str(int(year) + 1))
        ):
            on.setdefault(c.this.sql(), []).append(c)
    for group in on.values():
        first = conds.index(group[0])
        conds = [c for c in conds if c not in group]
        conds.insert(
            first,
            exp.EQ(
                this=exp.Extract(this=exp.var("YEAR"), expression=group[0].this.copy()),
                expression=exp.Literal.number(int(year)),
            ),
        )
    return conds


def _mention_of(semantic: Semantic, col: exp.Column, value: str, text: str) -> bool:
    """Whether `text`, set on `col`, is the user's mention of a value resolved elsewhere: a name on a number
    column holding the value's words ('Cook County' on `fips` INTEGER), or the value with its kind word on a
    text column ('Cook County' on a text `fips`, 'county' a word of the schema)."""
    if re.fullmatch(r"-?[\d.]+", text) or not set(value.split()) <= set(text.split()):
        return False
    if NUMERIC.search(_column_type(semantic, col)):
        return True
    extra = set(text.split()) - set(value.split())
    return bool(extra) and {singular(w) for w in extra} <= schema_words(semantic)


def _unasked_number(cond: exp.Expression, semantic: Semantic, question: str) -> bool:
    """`column <op> number` (a number other than 0 or 1: a sign, a flag) whose number the question does not write
    in any form (`_written_as`): a filter nobody asked for ('Average mpg of the European cars ...': the model's
    `mpg > 30`; 'quickest winning 100m time by a US sprinter': its `yr = 2012`). No gold query of any set (#1..#21)
    compares with a number its question does not write so. A column with a unit, in a question that writes a
    quantity, is left to `_quantity_in_its_unit`, which sets its number; a year beside a year the question writes
    is left as the model wrote it."""
    if not isinstance(cond, exp.EQ | exp.GT | exp.GTE | exp.LT | exp.LTE) or not question:
        return False
    lit, col = cond.expression, cond.this
    if not (isinstance(col, exp.Column) and isinstance(lit, exp.Literal)) or lit.is_string or lit.this in ("0", "1"):
        return False
    if _column_unit(semantic, col) is not None and _QUANTITY.search(question):
        return False
    if re.fullmatch(r"(?:1[89]|20)\d\d", lit.this) and named_years(question):
        return False  # another year than the one written is the model's reading of it (test_unseen_wording)
    return not any(_written_as(float(lit.this), n) for n in _written_numbers(question))


_DECADE_WORD = re.compile(r"\b(twen|thir|for|fif|six|seven|eigh|nine)ties\b", re.I)
_NUMBER_NOUNS = {"dozen": 12.0, "half": 0.5, "hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9}


def _written_numbers(question: str) -> set[float]:
    """The numbers a question writes: digits, also inside a word ('v8', '100m'), number words, 'dozen', 'million',
    a decade's word ('the nineties': 90), and a quantity in every unit of its dimension ('five minutes': 300000
    ms, '3 hrs': 180 minutes)."""
    words = re.findall(r"[a-z]+", question.lower())
    in_units = {
        float(NUMBER_WORDS.get(number.lower(), number)) * UNITS[unit.lower()][1] / size
        for number, unit in _QUANTITY.findall(question)
        for dimension, size in UNITS.values()
        if dimension == UNITS[unit.lower()][0]
    }
    return (
        {float(d) for d in re.findall(r"\d+(?:\.\d+)?", question.replace(",", ""))}
        | {float(n) for n in number_words(question)}
        | {_NUMBER_NOUNS[w] for w in words if w in _NUMBER_NOUNS}
        | {float(NUMBER_WORDS[m.lower() + "ty"]) for m in _DECADE_WORD.findall(question)}
        | in_units
    )


def _written_as(value: float, written: float) -> bool:
    """Whether `value` is the number the user wrote as `written`: times a power of ten ('50%' 0.5, '100m' 1e8), a
    year's two digits or a two-digit year in full ('97': 1997), or a year of a decade the user wrote with its end
    ('the 1950s', 'the nineties': 1990 to 2000)."""
    if any(math.isclose(value, written * 10**k, rel_tol=1e-3) for k in range(-3, 10)):
        return True
    years = {written % 100} if written >= 1000 else {1900 + written, 2000 + written}
    decades = [written] + ([1900 + written] if written < 100 else [])
    return value in years or (written % 10 == 0 and any(d <= value <= d + 10 for d in decades))


def _invented(
    cond: exp.Expression,
    semantic: Semantic,
    question: str,
    values: Callable[[str, str], set[str]] | None,
    resolved: dict[str, set[tuple[str, str]]],
) -> bool:
    """A filter the question does not ask for: a resolved value on another column than its own ('Jane' of
    the employee Jane Peacock as a customer's first name), a text value the column does not hold and the
    question does not name, or names only as a field ('Album.Title = 'Albums''), or a number on a key
    column the question does not give ('nation.n_regionkey = 5'). The 0.5B model writes such filters for
    'How many playlists are there?'."""
    if not isinstance(cond, exp.EQ | exp.In | exp.Like | exp.ILike):
        return False
    col = cond.this
    lits = [cond.expression] if not isinstance(cond, exp.In) else cond.expressions
    if not isinstance(col, exp.Column) or not lits or not all(isinstance(v, exp.Literal) for v in lits):
        return False
    q = question.lower()
    if all(not v.is_string for v in lits):
        key = col.name.lower().endswith(("id", "key"))
        return key and not any(re.search(rf"\b{re.escape(v.this)}\b", q) for v in lits)
    table = _owner(semantic, col) or ""
    texts = [v.this.strip("%").lower() for v in lits]
    if any(_mention_of(semantic, col, r, t) for r in resolved for t in texts):
        return True  # "fips = 'Cook County'" beside the resolved 'Cook': the user's words, filtered elsewhere
    if any(t in resolved for t in texts):
        return not any((table, col.name.lower()) in resolved.get(t, ()) for t in texts)
    info = semantic.tables[table]["columns"] if table else {}
    if values is None or not next((v.get("values") for c, v in info.items() if c.lower() == col.name.lower()), False):
        return False
    held = values(table, col.name)
    if any((table, col.name.lower()) in on for on in resolved.values()) and not any(t in held for t in texts):
        return True  # 'Type = 'large'' beside the resolved 'large_airport' of the same column: that one filters

    def asked(text: str) -> bool:
        """The user wrote it as a word ('AIR' in 'shipped by air', not 'SHIP' in 'shipments'); a value the
        column does not hold counts only when it is not the name of a field ('albums')."""
        said = bool(re.search(rf"(?<!\w){re.escape(text)}(?!\w)", q))
        if text in held:
            return said
        ranked = rank_fields(semantic, text)
        return said and not (ranked and ranked[0][0] >= 90)

    return not any(asked(t) for t in texts)


def _missing_group_by(trees: dict[str, list[exp.Expression]]) -> list[exp.Expression]:
    """With an aggregate in the query, every plain select column must be grouped: add the ones left out
    ('Genre.Name, count(*) ... ORDER BY count(*) DESC' groups by Genre.Name)."""
    if not any(n.find(exp.AggFunc) for part in ("select", "having", "order_by") for n in trees[part]):
        return []
    grouped = {g.sql() for g in trees["group_by"]}
    plain = [n.this if isinstance(n, exp.Alias) else n for n in trees["select"]]
    return [n.copy() for n in plain if not n.find(exp.AggFunc) and n.find(exp.Column) and n.sql() not in grouped]


def _ranked_values_only(trees: dict[str, list[exp.Expression]], limit: int | None) -> None:
    """'the lowest life expectancy': ranked by a column with a limit, the rows that have no value are no answer
    (SQLite puts NULL first in ascending order)."""
    for item in trees["order_by"] if limit is not None else []:
        col = item.this if isinstance(item, exp.Ordered) else item
        if isinstance(col, exp.Column):
            trees["where"].append(exp.Not(this=exp.Is(this=col.copy(), expression=exp.Null())))


def _groups_ranked_by_sum(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str) -> None:
    """Groups ordered by a bare numeric column of their rows ('top 3 genres by revenue': `ORDER BY
    Invoice.Total DESC` under `GROUP BY Genre.Name`, which no engine runs) are ranked by its sum; by its
    largest (or smallest) value when the superlative is an attribute of each row ('the heaviest european car'),
    also where the query sums a column of the grouped rows' own table ('the longest track': `SUM(Track.Milliseconds)`
    under `GROUP BY Track.Name` adds the lengths of two tracks of one name)."""
    grouped = {g.sql() for g in trees["group_by"]}
    extreme = _row_extreme(question)
    for item in trees["order_by"] if grouped else []:
        col = item.this if isinstance(item, exp.Ordered) else item
        if isinstance(col, exp.Column) and col.sql() not in grouped and NUMERIC.search(_column_type(semantic, col)):
            col.replace((extreme or exp.Sum)(this=col.copy()))
        elif extreme and isinstance(col, exp.Sum) and _of_the_grouped_table(col.this, trees["group_by"]):
            summed = col.sql()
            for node in [n for part in ("select", "order_by") for t in trees[part] for n in t.find_all(exp.Sum)]:
                if node.sql() == summed:
                    node.replace(extreme(this=node.this.copy()))


def _of_the_grouped_table(col: exp.Expression, group_by: list[exp.Expression]) -> bool:
    """Whether `col` is a column of the one table every group key is a column of."""
    tables = {g.table.lower() if isinstance(g, exp.Column) else None for g in group_by}
    return isinstance(col, exp.Column) and tables == {col.table.lower()} and bool(col.table)


_LOW_ADJECTIVES = ("light", "short", "young", "slow", "cheap")
_A_TOTAL = re.compile(r"\b(?:total|combined|in all|overall|sum)\b", re.I)


def _row_extreme(question: str) -> type[exp.Max] | type[exp.Min] | None:
    """MAX for 'the heaviest', 'most powerful'; MIN for 'the lightest', 'least powerful': a superlative of an
    attribute each row has (`_ADJECTIVE_NOUNS`), in a question that asks no total. None otherwise."""
    if _A_TOTAL.search(question):
        return None
    for adjective in _ADJECTIVE_NOUNS:
        for m in re.finditer(_adjective_forms(adjective), question, re.I):
            said = m.group(0).lower()
            if said.endswith("est") or said.startswith(("most", "least")):  # 'longer than' is a filter's
                low = (adjective in _LOW_ADJECTIVES) != said.startswith("least")
                return exp.Min if low else exp.Max
    return None


def compose(
    parts: QueryParts,
    semantic: Semantic,
    slice_tables: list[str],
    resolved: list[dict[str, Any]],
    dialect: str,
    question: str = "",
    values: Callable[[str, str], set[str]] | None = None,
) -> str:
    """The SQL text for `parts` (the guard and EXPLAIN check it afterwards). `question` and `values` (the
    distinct values of a `values: true` column, lower-cased) let it drop filters nobody asked for."""
    if not parts.select:
        raise ToolError("the query has no select items")  # the caller turns an empty select into cannot_answer
    # The question's own table (the slice's first) is always in FROM: "how many tracks ... Blues" counts
    # tracks, even when every written column belongs to Genre.
    used: list[str] = slice_tables[:1]
    parts = _tidy(parts, question)
    trees, unknown, aliases = _parse_parts(parts, semantic, slice_tables, used, dialect)
    resolved = [_on_a_joined_holder(r, semantic, trees, used, values) for r in resolved]
    given: dict[str, set[tuple[str, str]]] = {}
    for r in resolved:
        given.setdefault(str(r["value"]).lower(), set()).add((r["table"], r["column"].lower()))
    trees["where"] = _whole_year(
        [
            _short_year_on_its_column(
                _two_digit_years(
                    _dates_year_in_full(_year_filters(n, semantic, question), semantic, question), semantic, question
                ),
                semantic,
                question,
            )
            for n in conjuncts(*trees["where"])
            if not _invented(n, semantic, question, values, given)
            and not _unasked_number(n, semantic, question)
            and not _year_of_a_named_table(n, trees, slice_tables)
        ],
        semantic,
        question,
    )
    trees["where"] = _listed_range(
        [
            _year_span(
                _decade(
                    _listed_years(_year_on_its_column(n, semantic, question, slice_tables, used), question),
                    semantic,
                    question,
                ),
                semantic,
                question,
            )
            for n in trees["where"]
        ],
        question,
    )
    trees["where"] = list({n.sql(): n for n in trees["where"]}.values())  # both ends of a span: one BETWEEN
    _named_measure(trees, semantic, question, used)
    limit = _extreme_having(trees, question, _extreme_as_order(trees, parts.limit, question), semantic)
    _named_group(trees, semantic, question, slice_tables, used)
    _sum_how_much(trees, semantic, question)
    _count_how_many(trees, semantic, question)
    shown = {n.sql() for n in trees["select"]} | {n.this.sql() for n in trees["select"] if isinstance(n, exp.Alias)}
    if not _counts_groups(trees):
        trees["select"][:0] = [g.copy() for g in trees["group_by"] if g.sql() not in shown]  # each group's key
    _no_group_on_a_measure(trees, semantic, question)
    _bare_measure_per_group(trees, semantic)
    trees["group_by"] += _missing_group_by(trees)
    limit = _extreme_having(trees, question, limit, semantic)  # the groups are set now
    _groups_ranked_by_sum(trees, semantic, question)
    if missing := [n for n in dict.fromkeys(unknown) if n.lower() not in aliases]:
        raise UnknownField(
            missing, _hints(semantic, missing, slice_tables), _layer_hints(semantic, missing, slice_tables)
        )
    _via_lookup(trees, semantic, values, used)
    moved = _named_values(trees, resolved, question, values, used)
    resolved = [r for r in resolved if all(r is not m for m in moved)]
    _filter_resolved(trees, resolved, used, dialect)
    _named_flags(trees, semantic, question, values, used)
    _either_value(trees, question)
    _longer_value_only(trees, question)
    _count_per_listed_value(trees, semantic, question)
    _one_total(trees, question)
    _count_column_summed(trees, semantic, question)
    _measure_per_listed_value(trees, semantic)
    _share_of_measure(trees, semantic, question, used)
    _share_of_rows(trees, question)
    _ratio_over_all_rows(trees)
    _sum_of_counted_measure(trees, semantic, question, used, slice_tables)
    _amount_counted(trees, semantic, question, used, slice_tables)
    counted = (
        _settle_groups(trees, semantic, question, used)
        or _lookup_counted(trees, semantic, resolved, question)
        or _named_rows_counted(trees, semantic, question)
    )
    used += [counted] if counted and counted not in used else []
    limit = _more_of_which(trees, semantic, question, slice_tables, limit)
    _both_values_compared(trees, semantic, question)
    _groups_ranked_by_rows(trees, semantic, question)
    limit = _rank_the_measure(trees, semantic, question, limit)
    limit = _one_at_the_extreme(trees, question, _rank_by_measure(trees, semantic, question, slice_tables, limit))
    _direction_of_measure(trees, semantic, question)
    _referenced_row(trees, semantic, question, used)
    _no_blank_key(trees, semantic, question)
    _ranked_values_only(trees, limit)
    _label_beside_code(trees, semantic, used)
    _label_beside_own_code(trees, semantic)
    named = _tables_of(trees) | {r["table"].lower() for r in resolved} | {(counted or "").lower()}
    used = [t for i, t in enumerate(used) if i == 0 or t.lower() in named]
    used = _without_unused_child(semantic, used, named, question)
    used = _only_what_joins(trees, semantic, used, resolved, question)
    _in_the_unit_asked(trees, question)
    _quantity_in_its_unit(trees, semantic, question)
    return _render(trees, limit, semantic, used, slice_tables, dialect)


_LOW = re.compile(r"\b(least|lowest|smallest|shortest|fewest)\b", re.I)
# superlatives whose direction is the measure's: the fastest time is the lowest, the worst unemployment the highest
_SPEED = re.compile(r"\b(fastest|quickest|slowest)\b", re.I)
_GOOD_OR_BAD = re.compile(r"\b(best|worst)\b(?!-)", re.I)  # not 'best-selling', 'worst-hit': a compound ranks by its X
# a bad outcome that is counted or rated: the worst is the most of it (English nouns of harm, by their stems)
_HARMS = (
    "unemploy", "jobless", "mortalit", "death", "crime", "criminal", "povert", "debt", "loss", "delay", "defect",
    "error", "injur", "accident", "fatalit", "casualt", "disease", "infect", "pollut", "emission", "complaint",
    "fraud", "churn",
)  # fmt: skip
_LOW_ON = {"time": ("fastest", "quickest", "best"), "harm": ("best",)}
_HIGH_ON = {"time": ("slowest", "worst"), "harm": ("worst",)}


def _direction_of_measure(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str) -> None:
    """'the fastest 100m time', 'the best time': a time ranks low; 'the worst jobless rate', 'the worst avg
    unemployment': a rate or count of a harm ranks high (`_HARMS`, by the column's or its table's name). The
    ranking's ORDER BY and a MIN / MAX selected are set so; any other measure keeps the direction the model wrote."""
    said = {w.lower() for w in _SPEED.findall(question) + _GOOD_OR_BAD.findall(question)}
    for item in trees["order_by"] if said else []:
        inner = item.this if isinstance(item, exp.Ordered) else item
        low = _ranks_low(semantic, inner if isinstance(inner, exp.Column) else inner.this, said)
        if isinstance(item, exp.Ordered) and low is not None:
            item.set("desc", not low)
    for i, item in enumerate(trees["select"] if said else []):
        for node in list(item.find_all(exp.Max, exp.Min)):
            low = _ranks_low(semantic, node.this, said)
            if low is not None and low != isinstance(node, exp.Min):
                turned = (exp.Min if low else exp.Max)(this=node.this.copy())
                trees["select"][i] = turned if node is item else item
                node.replace(turned)


def _ranks_low(semantic: Semantic, col: exp.Expression, said: set[str]) -> bool | None:
    """Whether the superlatives `said` rank the measure column low (True), high (False), or neither or both
    (None)."""
    if not _measure_kind(semantic, col):
        return None  # a key or a year ranks nothing by its meaning ('the worst year for crime' by `crimes.year`)
    kind = "time" if _a_time(semantic, col) else "harm" if _a_harm(col) else None
    ways = {w in _LOW_ON[kind] for w in said if w in _LOW_ON[kind] + _HIGH_ON[kind]} if kind else set()
    return ways.pop() if len(ways) == 1 else None


def _a_time(semantic: Semantic, col: exp.Column) -> bool:
    """A measure of a duration: named in a unit of time (`time_s`, `Milliseconds`) or as a time."""
    unit = _column_unit(semantic, col)
    return bool({"time", "duration"} & set(words(col.name).split())) or (unit is not None and unit[0] == "time")


def _a_harm(col: exp.Column) -> bool:
    """A column whose name, or its table's, is a word of a harm (`unemployment.rate`, `deaths`)."""
    named = words(col.name).split() + words(col.table).split()
    return any(w.startswith(_HARMS) for w in named)


_IN_UNIT = re.compile(r"\bin\s+(?:the\s+)?([a-z]{2,})\b", re.I)
# the units a question writes after a number: a one-letter one ('s', 'g') and 'in' are too often something else
_WRITTEN_UNITS = "|".join(u for u in UNITS if len(u) > 1 and u != "in")


def _in_the_unit_asked(trees: dict[str, list[exp.Expression]], question: str) -> None:
    """'combined running time in minutes' over `Milliseconds`, 'heaviest adelie in kilos' over `body_mass_g`: a
    value the question asks in a unit ('in <unit>', one unit named) other than the one its column's name ends in
    (a word of at least two letters, or a one-letter last word of a longer name: `time_s`), of the same
    dimension, is converted (`SUM(Milliseconds) / 60000.0`). Not a count, nor an item the model already scaled."""
    asked = {UNITS[w.lower()] for w in _IN_UNIT.findall(question) if w.lower() in UNITS}
    if len(asked) != 1:
        return
    ((dimension, size),) = asked
    for i, item in enumerate(trees["select"]):
        body = item.unalias()
        cols = list(body.find_all(exp.Column))
        if len(cols) != 1 or body.find(exp.Count, exp.Div, exp.Mul):
            continue
        name = words(cols[0].name).split()
        unit = UNITS.get(name[-1]) if name and (len(name[-1]) > 1 or len(name) > 1) else None
        if unit is None or unit[0] != dimension or unit[1] == size:
            continue
        ratio = size / unit[1]
        new = (
            exp.Div(this=body.copy(), expression=exp.Literal.number(repr(round(ratio, 6))))
            if ratio >= 1
            else exp.Mul(this=body.copy(), expression=exp.Literal.number(repr(1 / ratio)))
        )
        trees["select"][i] = exp.alias_(new, item.alias) if isinstance(item, exp.Alias) else new


_QUANTITY = re.compile(rf"\b(\d+(?:\.\d+)?|{'|'.join(NUMBER_WORDS)})\s*({_WRITTEN_UNITS})\b", re.I)


def _column_unit(semantic: Semantic, col: exp.Column) -> tuple[str, float] | None:
    """(dimension, size) of the unit a column holds: its layer's `unit`, else its name's last word (`time_s`)."""
    name = words(col.name).split()
    last = name[-1] if name and (len(name[-1]) > 1 or len(name) > 1) else ""
    return UNITS.get(str(_column_info(semantic, col).get("unit") or last).lower())


def _quantity_in_its_unit(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str) -> None:
    """'longer than five minutes' over `Milliseconds > 50000`: the one quantity the question writes in a unit of a
    dimension, compared with a column whose unit of that dimension is known, is that quantity in the column's unit
    (300000). A column whose unit nothing says (`Runtime`) is left as written."""
    written: dict[str, float | None] = {}
    for number, unit in _QUANTITY.findall(question):
        dimension, size = UNITS[unit.lower()]
        amount = float(NUMBER_WORDS.get(number.lower(), number))
        written[dimension] = None if dimension in written else amount * size  # two quantities: no guess
    for cond in (c for n in trees["where"] for c in n.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE, exp.EQ)):
        col, lit = cond.this, cond.expression
        unit = _column_unit(semantic, col) if isinstance(col, exp.Column) else None
        if unit is None or not (isinstance(lit, exp.Literal) and not lit.is_string) or written.get(unit[0]) is None:
            continue
        value = written[unit[0]] / unit[1]
        lit.replace(exp.Literal.number(int(value) if value == int(value) else round(value, 6)))


def _only_what_joins(
    trees: dict[str, list[exp.Expression]],
    semantic: Semantic,
    used: list[str],
    resolved: list[dict[str, Any]],
    question: str,
) -> list[str]:
    """Tables the layer does not connect ('Golds won at Sochi by Norway ...': the medal table of another event,
    put first by the slice, beside the tally and the countries): the query is the connected group that holds
    the resolved values, then the one the parts name most, then the slice's first table; the filters, groups
    and orderings naming another group's tables go. Neither what is selected nor a filter on a value the question
    writes is ever dropped: either leaves the tables as they are (the join error stands, and the model writes
    the SQL over the schema)."""
    groups = _groups(semantic.join_graph(), used)
    if len(groups) < 2:
        return used
    given = {r["table"].lower() for r in resolved}
    nodes = [n for part in trees.values() for n in part]
    named = lambda g: sum(_tables_in(n) <= g for n in nodes if _tables_in(n))  # noqa: E731
    keep = max(groups, key=lambda g: (len(given & g), named(g), used[0].lower() in g))
    kept = {part: [n for n in ns if _tables_in(n) <= keep] for part, ns in trees.items()}
    gone = [n for part, ns in trees.items() for n in ns if all(n is not k for k in kept[part])]
    said = question.lower()
    if len(kept["select"]) < len(trees["select"]) or any(
        str(v.this).lower() in said for n in gone for v in n.find_all(exp.Literal) if v.is_string
    ):
        return used
    trees.update(kept)
    return [t for t in used if t.lower() in keep]


def _without_unused_child(semantic: Semantic, used: list[str], named: set[str], question: str) -> list[str]:
    """'how many urgent orders were placed in 1993?' with `lineitem` first in the slice: a child (its key refers
    to a table the parts read) that no part or resolved value names (`named`) repeats each parent row once per
    child row, so every count, sum or listing of the parent is multiplied. When the question names that parent
    and not the child, the query reads the parent alone ('how many Metallica songs' names no parent: the tracks
    are counted). A table the rest joins only through comes back on the join path."""
    child, rest = used[0], used[1:]
    said = said_words(question)
    if not rest or child.lower() in named or _begins(child, said):
        return used
    parents = {right.lower() for left, right in map(join_ends, semantic.joins) if left.lower() == child.lower()}
    if not any(t.lower() in parents and _names_table(t, said) for t in rest):
        return used
    return rest


def _begins(table: str, said: set[str]) -> bool:
    """A written word of four letters or more begins the table's name or the name begins it ('cust' of
    `customer`, 'elem' of 'elements', 'line' of `lineitem`, 'scanning' of `scans`)."""
    name = singular(words(table).replace(" ", ""))
    return any(len(w) >= 4 and len(name) >= 4 and (name.startswith(w) or w.startswith(name)) for w in said)


def _tables_in(node: exp.Expression) -> set[str]:
    return {c.table.lower() for c in node.find_all(exp.Column) if c.table}


def _groups(graph: dict[str, set[str]], tables: list[str]) -> list[set[str]]:
    """The tables split by what the join graph connects (lower-cased names)."""
    out: list[set[str]] = []
    for t in (t.lower() for t in tables):
        if not any(t in g for g in out):
            out.append(_component(graph, t) & {x.lower() for x in tables} | {t})
    return out


def _component(graph: dict[str, Any], start: str) -> set[str]:
    """The tables the join graph connects to `start`, itself included (lower-cased names)."""
    lower = {t.lower(): {n.lower() for n in ns} for t, ns in graph.items()}
    seen, todo = {start.lower()}, [start.lower()]
    while todo:
        for nxt in lower.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


# the question asks one total over the values it lists ('texas, oklahoma and kansas combined', 'Metallica and Iron
# Maiden ... between them') ('in all' / 'in total' only ending a phrase: 'in all regions' names the rows, 'in total
# sales' a measure)
_ONE_TOTAL = re.compile(
    r"\b(?:combined|together|altogether|all told|between (?:them|the two|both)|in (?:all|total)(?!\s+[a-z]))\b", re.I
)
# ... or asks how many of the rows that hold any of them ('suppliers based in germany or france - how many?')
_HOW_MANY = re.compile(r"\b(?:how many|number of|count (?:of )?the)\b", re.I)


def _one_total(trees: dict[str, list[exp.Expression]], question: str) -> None:
    """Listed values the question then takes together filter with `IN (...)` but are not one row each: the
    list column's group (compose's own, or the model's) and its column shown beside an aggregate go, unless the
    question also asks per group. A count of values joined by 'or' is one too, unless the question compares them or
    asks per group."""
    either = (
        _HOW_MANY.search(question)
        and re.search(r"\bor\b", question, re.I)
        and not re.search(rf"\b(?:{_COMPARED}|which|more|fewer|respectively|separately)\b", question, re.I)
        and not GROUPING.search(question)
    )
    total = _ONE_TOTAL.search(question) and not GROUPING.search(question)  # '... altogether, per country': each
    if not (total or either) or not any(n.find(exp.AggFunc) for n in trees["select"]):
        return
    listed = {c.sql() for c in _listed_columns(trees)}
    trees["group_by"] = [g for g in trees["group_by"] if g.sql() not in listed]
    trees["select"] = [n for n in trees["select"] if n.unalias().sql() not in listed]


# what makes a sign filter (`c = 1`, `c > 0`) the question's own: the number or the words that write it
_SIGN_WRITTEN = re.compile(r"\b(?:0|1|one|zero|no|none|any|at least|single)\b", re.I)


def _count_column_summed(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str) -> None:
    """'norway v canada gold medal count' written `COUNT(*) ... WHERE gold = 1`, 'what did customers in France
    spend in total' `COUNT(*) ... WHERE Total > 0`: a sign filter on the number column the question names, with
    nothing but a count selected (beside the group keys), counts the rows where it is set, not what it holds: the
    answer is its sum, the filter goes. Not when the question writes the sign ('at least one Oscar'), nor when it
    asks a share ('second class: share of people that survived' is a ratio of rows, `_share_of_rows`; held-out
    #15 turned it into `SUM(survived)`)."""
    aggs = [n.unalias() for n in trees["select"] if n.find(exp.AggFunc)]
    keys = {g.sql() for g in trees["group_by"]}
    if [a.sql() for a in aggs] != ["COUNT(*)"] or _SIGN_WRITTEN.search(question) or _SHARE.search(question):
        return
    if any(n.unalias().sql() not in keys for n in trees["select"] if not n.find(exp.AggFunc)):
        return
    said = set(stems(question))
    for cond in trees["where"]:
        col, lit = cond.this, cond.expression
        sign = (isinstance(cond, exp.EQ | exp.GTE) and lit.name == "1") or (
            isinstance(cond, exp.GT) and lit.name == "0"
        )
        if not (sign and isinstance(lit, exp.Literal) and _measure_kind(semantic, col)):
            continue
        if set(stems(words(col.name))) & said:
            trees["where"] = [c for c in trees["where"] if c.sql() != cond.sql()]
            trees["select"] = [exp.Sum(this=col.copy()) if n.unalias() is aggs[0] else n for n in trees["select"]]
            return


def _listed_columns(trees: dict[str, list[exp.Expression]]) -> list[exp.Column]:
    """The columns the filters compare with two or more listed values (`c IN (a, b, ...)`)."""
    return [
        c.this
        for c in trees["where"]
        if isinstance(c, exp.In) and isinstance(c.this, exp.Column) and len(c.expressions) >= 2
    ]


def _measure_kind(semantic: Semantic, col: exp.Expression) -> bool:
    """A number column that measures (not a key, a code or a year): what a group's rows add up."""
    if not isinstance(col, exp.Column) or not NUMERIC.search(_column_type(semantic, col)):
        return False
    name = col.name.lower()
    ends = {f"{t}.{c}".lower() for j in semantic.joins for t, c in join_columns(j)}
    # a year is no key, but it adds up to nothing either
    return f"{col.table.lower()}.{name}" not in ends and not key_like(col.name) and not re.search(r"(?:year|yr)$", name)


def _no_group_on_a_measure(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str) -> None:
    """'profit, broken down by region' written `GROUP BY states.region, orders.profit`: a measure grouped on beside
    another key splits each group into one row per amount; it is the group's value (`_bare_measure_per_group`),
    unless the question groups by it ('orders per profit level')."""
    keys = trees["group_by"]
    if all(_measure_kind(semantic, g) for g in keys):  # no other key to group by
        return
    trees["group_by"] = [g for g in keys if not _measure_kind(semantic, g) or _grouped_by_name(g, question)]


def _grouped_by_name(col: exp.Expression, question: str) -> bool:
    said = "|".join(re.escape(w) for w in words(col.name).split())
    return bool(said) and re.search(rf"\b(?:by|per|each|every)\s+(?:\w+\s+)?(?:{said})", question, re.I) is not None


def _bare_measure_per_group(trees: dict[str, list[exp.Expression]], semantic: Semantic) -> None:
    """Under the model's GROUP BY, a measure column selected bare and no group key is each group's value when
    the query aggregates nothing ('profit on phones, copiers and machines, each one separately': `sub_category,
    profit ... GROUP BY sub_category`: its sum) or aggregates that column elsewhere (`ORDER BY SUM(c_acctbal)`:
    that aggregate). SQLite returns any row's value for it and DuckDB refuses the query; beside another
    aggregate a bare column is a group key left out (`_missing_group_by`)."""
    keys = {g.sql() for g in trees["group_by"]}
    aggs = [a for part in ("select", "having", "order_by") for n in trees[part] for a in n.find_all(exp.AggFunc)]
    for i, n in enumerate(trees["select"] if keys else []):
        col = n.unalias()
        if col.sql() in keys or not _measure_kind(semantic, col):
            continue
        agg = next((a for a in aggs if a.this.sql() == col.sql()), None)
        if agg is None and aggs:
            continue
        new = agg.copy() if agg is not None else exp.Sum(this=col.copy())
        trees["select"][i] = exp.alias_(new, n.alias) if isinstance(n, exp.Alias) else new


def _measure_per_listed_value(trees: dict[str, list[exp.Expression]], semantic: Semantic) -> None:
    """'profit in the West vs the East region': beside two or more listed values of a lookup's column (`IN`,
    shown), a bare measure of a table that refers to that lookup (many rows per value) is summed per value, not
    listed row by row. Only when the select is the list column and such measures (a name shown beside them asks
    for rows), nothing is aggregated or grouped yet, and no filter sets a column of the measure's table equal to a
    value ('life expectancy: nigeria vs kenya, 1990': one row per country in that year, nothing to add up)."""
    if trees["group_by"] or any(n.find(exp.AggFunc) for part in trees.values() for n in part):
        return
    fixed = {c.this.table.lower() for c in trees["where"] if isinstance(c, exp.EQ) and isinstance(c.this, exp.Column)}
    shown = [n.unalias() for n in trees["select"]]
    for col in _listed_columns(trees):
        rest = [n for n in shown if n.sql() != col.sql()]
        if len(rest) == len(shown) or not rest:
            continue
        if all(
            _measure_kind(semantic, n)
            and _refers(semantic, n.table, col.table)
            and n.table.lower() not in {col.table.lower(), *fixed}
            for n in rest
        ):
            trees["select"] = [col.copy(), *(exp.Sum(this=n.copy()) for n in rest)]
            trees["group_by"] = [col.copy()]
            return


def _refers(semantic: Semantic, many: str, one: str) -> bool:
    """`many` reaches `one` by joins each written from the referring column to the referenced one (the layer's
    `a.fk = b.key`): many rows of `many` per row of `one`."""
    seen, todo = {many.lower()}, [many.lower()]
    while todo:
        at = todo.pop()
        for j in semantic.joins:
            left, right = (e.lower() for e in join_ends(j))
            if left == at and right not in seen:
                if right == one.lower():
                    return True
                seen.add(right)
                todo.append(right)
    return False


def _extreme_having(
    trees: dict[str, list[exp.Expression]], question: str, limit: int | None, semantic: Semantic
) -> int | None:
    """'Which region has the lowest average X?' written as `HAVING AVG(x) = (SELECT ...)`: a group's aggregate
    compared with a subquery (which the 0.5B model gets wrong: an AVG over every row, a COUNT of one group) is
    the ranking the superlative asks: ordered by that aggregate, one row. A bare measure column so compared
    ("Which nation's customers have the largest total account balance?": `HAVING c_acctbal = (SELECT MAX(...))`,
    which no engine runs under GROUP BY) is ranked by each group's sum, as a bare measure per group is."""
    if not (trees["group_by"] and SUPERLATIVE.search(question)):
        return limit
    for cond in trees["having"]:
        cmp = cond.unnest()
        if not isinstance(cmp, exp.EQ | exp.GT | exp.GTE | exp.LT | exp.LTE):
            continue
        agg, sub = (
            (cmp.this, cmp.expression) if isinstance(cmp.expression, exp.Subquery) else (cmp.expression, cmp.this)
        )
        if isinstance(sub, exp.Subquery) and _measure_kind(semantic, agg):
            agg = exp.Sum(this=agg.copy())
        if isinstance(sub, exp.Subquery) and isinstance(agg, exp.AggFunc):
            trees["having"] = [h for h in trees["having"] if h is not cond]
            # 'the worst / best X' says no direction by itself: the model's MAX / MIN does, else `_direction_of_measure`
            ext = sub.find(exp.Max, exp.Min) if _GOOD_OR_BAD.search(question) else None
            desc = isinstance(ext, exp.Max) if ext else not _LOW.search(question)
            trees["order_by"] = [exp.Ordered(this=agg.copy(), desc=desc)]
            return 1
    return limit


def _extreme_as_order(trees: dict[str, list[exp.Expression]], limit: int | None, question: str) -> int | None:
    """'x = (SELECT MAX(x) FROM t)' (`relax.extreme`) beside other filters compares with the maximum of every row,
    not of the rows asked about ('the highest fertility in 1970' against the highest of all years): ranked instead,
    one row. So is one whose subquery filters on its own ('the lightest bird weighed on dream': `(SELECT
    MIN(body_mass_g) ... WHERE species_id = species.id)`, the lightest of each species), for a question that asks no
    row per group: its conditions on the outer tables alone are the question's filters and stay; those that tie it
    to them go."""
    if trees["group_by"] or any(n.find(exp.AggFunc) for n in trees["select"]):
        return limit  # 'how many counties had the highest rate' counts the rows at the extreme
    for cond in trees["where"]:
        found = extreme(cond)
        if found is None or not isinstance(found[0], exp.Column):
            continue
        filtered = found[2].args.get("where") is not None
        if (filtered and _PER.search(question)) or (not filtered and len(trees["where"]) < 2):
            continue  # 'the lightest bird of each species'; alone, the maximum of every row is the question's own
        kept = outer_filters(found[2])
        trees["where"] = [c for c in trees["where"] if c is not cond]
        trees["where"] += [c for c in kept if c.sql() not in {w.sql() for w in trees["where"]}]
        trees["order_by"] = [exp.Ordered(this=found[0].copy(), desc=found[1])]
        return 1
    return limit


# words that set two values of one column side by side ('Texas vs Ohio')
_COMPARED = r"vs\.?|v\.?|versus|against|compared (?:with|to)|than"


def _either_value(trees: dict[str, list[exp.Expression]], question: str) -> None:
    """'in 1990 and in 2010', 'compare Texas and Ohio', 'Texas vs Ohio': one column equal to two values (written
    as two filters, an OR of them, or an IN) means either value when the question joins them with 'and' / 'or'
    / 'vs' / 'compared with' ('compare X with Y'), in short 'v' / 'n' / '+' ('norway v canada', 'jazz n blues'; not
    '&', often a value's own: 'Middle East & North Africa') / 'then' ('count the halogens, then the noble gases': a value
    may be written in the plural); each row shows which, and an aggregate is taken per value (GROUP BY the
    column). 'from LAX to JFK' on one airport column is a wrong join, not either value."""
    compared = _COMPARED + "|then" + ("|with" if re.search(r"\bcompar", question, re.I) else "")
    for col, conds, values in _values_per_column(trees["where"]):
        # an IN or OR the model wrote with the question's 'or' is one total over both values: left as written;
        # two filters ANDed (never both true) are two values even joined by '&' ('rock & metal tracks, each')
        both = all(isinstance(c, exp.EQ) for c in conds)
        joined, signs = compared + ("|and|n|or" if both else "|and|n"), r"\s\+\s" + (r"|\s&\s" if both else "")
        said = "|".join(_value_said(str(v.this)) for v in values)
        if len({str(v.this) for v in values}) < 2 or not re.search(
            rf"\b({said})\b.*(?:\b(?:{joined})\b|{signs}).*\b({said})\b", question, re.I
        ):
            continue
        at = next(i for i, c in enumerate(trees["where"]) if c is conds[0])
        trees["where"] = [c for c in trees["where"] if all(c is not g for g in conds)]
        trees["where"].insert(at, exp.In(this=col.copy(), expressions=[v.copy() for v in values]))
        _shown_per_value(trees, col)


def _longer_value_only(trees: dict[str, list[exp.Expression]], question: str) -> None:
    """`rtg = 'very poor' AND rtg = 'poor'` for 'marriages rated very poor': two filters setting one column to two
    values are never both true; where one value's words are all in the other's and the question writes the longer
    one, the shorter is the longer one's own words read again, and goes."""
    for _, conds, values in _values_per_column(trees["where"]):
        if len(conds) < 2 or not all(isinstance(c, exp.EQ) and c.expression.is_string for c in conds):
            continue
        for cond in conds:
            short = set(cond.expression.this.lower().split())
            if any(
                v.this.lower() != cond.expression.this.lower()
                and short <= set(v.this.lower().split())
                and re.search(rf"\b{re.escape(v.this)}\b", question, re.I)
                for v in values
            ):
                trees["where"] = [c for c in trees["where"] if c is not cond]


def _value_said(value: str) -> str:
    """A value as the question may write it: in the plural, or, for a word of five letters or more, as a word made
    from it ('brazilian' of 'Brazil', 'german' of 'Germany', 'japanese' of 'Japan')."""
    if len(value) >= 5 and value.isalpha():
        return re.escape(value[:-1]) + r"\w*"
    return re.escape(value) + "(?:e?s)?"


# what separates the items of a list: 'X and Y', 'X, Y or Z', 'X vs Y', 'X compared with Y'; never 'to' ('from X
# to Y' names two roles, not a list). One reading for a mention split into items (tools.listed_apart) and for the
# gap between two values the question lists (`_LIST_GAP`: 'X vs the Y', 'in X and in Y', 'X and of Y')
_LIST_WORD = r"(?:,|\b(?:and|or|vs\.?|versus|against|compared (?:with|to))\b)"
LIST_SEPARATOR = re.compile(rf"\s*{_LIST_WORD}\s*", re.I)
# ... and one word the first value qualifies may stand before it: 'rail shipments compared to air ones'
_LIST_GAP = re.compile(rf"^\W*(?:[a-z]+\W+)?{_LIST_WORD}\W*(?:\b(?:in|of|from|for|the|by|how many)\b\W*)*$", re.I)


def _shown_per_value(trees: dict[str, list[exp.Expression]], col: exp.Column) -> None:
    """The column of the values set side by side is shown, first, and in a grouped query (an aggregate or the
    model's GROUP BY) grouped on: one row per value."""
    if col.sql() not in {n.unalias().sql() for n in trees["select"]}:
        trees["select"].insert(0, col.copy())
    grouped = trees["group_by"] or any(n.find(exp.AggFunc) for n in trees["select"])
    if grouped and col.sql() not in {g.sql() for g in trees["group_by"]}:
        trees["group_by"].append(col.copy())


def _named_values(
    trees: dict[str, list[exp.Expression]],
    resolved: list[dict[str, Any]],
    question: str,
    values: Callable[[str, str], set[str]] | None,
    used: list[str],
) -> list[dict[str, Any]]:
    """'West vs East', 'Denver and Atlanta', 'Michigan and of Ohio': two or three resolved values the question
    lists are one column's values: `IN (...)` on the column that holds them all, one row per value (grouped when
    the select aggregates), and every other filter on those values goes (an AND of both, a route between them).
    Returns the resolved values it placed on another column than theirs."""
    moved: list[dict[str, Any]] = []
    for chain in _listed(resolved, question):
        column = _holder(chain, values)
        if column is None:
            continue
        texts = {str(r["value"]).lower() for r in chain} | {_said(r) for r in chain}
        trees["where"] = [
            c for c in trees["where"] if not any(str(v.this).lower() in texts for v in c.find_all(exp.Literal))
        ]
        col = exp.column(column[1], table=column[0])
        trees["where"].append(col.isin(*(exp.convert(v) for v in dict.fromkeys(r["value"] for r in chain))))
        used += [] if column[0] in used else [column[0]]
        moved += [r for r in chain if (r["table"], r["column"]) != column]
        _shown_per_value(trees, col)
    return moved


def _listed(resolved: list[dict[str, Any]], question: str) -> list[list[dict[str, Any]]]:
    """The runs of resolved values the question writes one after another as a list (two or more values)."""
    low = question.lower()
    said = [(low.find(_said(r)), r) for r in resolved if _said(r) in low]
    placed = sorted(said, key=lambda p: (p[0], -len(_said(p[1]))))  # the longest mention of a place first
    chains: list[list[dict[str, Any]]] = []
    end = -1
    for at, r in placed:
        if chains and at < end and str(r["value"]).lower() == str(chains[-1][-1]["value"]).lower():
            continue  # one value found twice in one place ('European cars' and 'European')
        if chains and end <= at and _LIST_GAP.match(low[end:at]):
            chains[-1].append(r)
        else:
            chains.append([r])
        end = re.compile(r"\w*").match(low, at + len(_said(r))).end()  # 'Nigeria' ends where 'nigerian' does
    return [c for c in chains if len({str(r["value"]).lower() for r in c}) >= 2]


def _said(r: dict[str, Any]) -> str:
    return str(r.get("mention") or r["value"]).lower()


def _holder(chain: list[dict[str, Any]], values: Callable[[str, str], set[str]] | None) -> tuple[str, str] | None:
    """The (table, column) of the listed values: one they all resolved to, else the first of theirs that holds
    every value (a value resolved to a column of another meaning, 'Ohio' a county beside 'Michigan' a state)."""
    columns = list(dict.fromkeys((r["table"], r["column"]) for r in chain))
    if len(columns) == 1:
        return columns[0]
    texts = {str(r["value"]).lower() for r in chain}
    held = [c for c in columns if values is not None and texts <= values(*c)]
    return held[0] if held else None


def _values_per_column(
    where: list[exp.Expression],
) -> list[tuple[exp.Column, list[exp.Expression], list[exp.Literal]]]:
    """(column, the filters, their literal values) for each column the filters set equal to literals: `c = 'X'`,
    `c IN ('X', 'Y')`, `(c = 'X' OR c = 'Y')`."""
    found: dict[str, tuple[exp.Column, list[exp.Expression], list[exp.Literal]]] = {}
    for cond in where:
        for col, values in _equalities(cond.unnest()):
            entry = found.setdefault(col.sql(), (col, [], []))
            entry[1].append(cond)
            entry[2].extend(v for v in values if v.sql() not in {x.sql() for x in entry[2]})
    return list(found.values())


def _equalities(cond: exp.Expression) -> list[tuple[exp.Column, list[exp.Literal]]]:
    if isinstance(cond, exp.EQ) and isinstance(cond.this, exp.Column) and isinstance(cond.expression, exp.Literal):
        return [(cond.this, [cond.expression])]
    if (
        isinstance(cond, exp.In)
        and isinstance(cond.this, exp.Column)
        and cond.expressions
        and all(isinstance(v, exp.Literal) for v in cond.expressions)
    ):
        return [(cond.this, list(cond.expressions))]
    if isinstance(cond, exp.Or):
        sides = [_equalities(c.unnest()) for c in cond.flatten()]
        if all(len(s) == 1 for s in sides) and len({s[0][0].sql() for s in sides}) == 1:
            return [(sides[0][0][0], [v for s in sides for v in s[0][1]])]
    return []


def _via_lookup(
    trees: dict[str, list[exp.Expression]],
    semantic: Semantic,
    values: Callable[[str, str], set[str]] | None,
    used: list[str],
) -> None:
    """ "counties.state = 'Ohio'" where `state` holds codes ('OH') and a table joined to it holds the names: the
    filter goes to the joined table's column that holds every value named (that table joined). Only for a column
    whose values are known (indexed) or that holds numbers (a name is none of them)."""
    for i, cond in enumerate(trees["where"]):
        pairs = _equalities(cond.unnest()) if values is not None else []
        if len(pairs) != 1 or not all(v.is_string for v in pairs[0][1]):
            continue
        col, lits = pairs[0]
        table, texts = _owner(semantic, col), {str(v.this).lower() for v in lits}
        numeric = bool(NUMERIC.search(_column_type(semantic, col)))
        if not table or not (numeric or _column_info(semantic, col).get("values")) or texts & values(table, col.name):
            continue
        for other, column in _joined_columns(semantic, table, col.name):
            if texts <= values(other, column):
                new = exp.column(column, table=other)
                trees["where"][i] = new.isin(*(v.copy() for v in lits)) if len(lits) > 1 else new.eq(lits[0].copy())
                used += [] if other in used else [other]
                break


def _joined_columns(semantic: Semantic, table: str, column: str) -> list[tuple[str, str]]:
    """(table, column) of every column of the tables a join on `table.column` reaches ('states.name' beside
    'counties.state = states.code')."""
    out = []
    for join in semantic.joins:
        ends = join_columns(join)
        if (table.lower(), column.lower()) in [(t.lower(), c.lower()) for t, c in ends]:
            other = next(t for t, _ in ends if t.lower() != table.lower())
            out += [(other, c) for c in semantic.tables.get(other, {}).get("columns", {})]
    return out


# 'what share / percentage / proportion / fraction of the X ...'
_SHARE = re.compile(r"\b(?:share|percentage|per ?cent|proportion|fraction|ratio)\b", re.I)
_IN_PERCENT = re.compile(r"\b(?:percentage|per ?cent)\b", re.I)


_SHARE_OF = re.compile(
    r"\b(?:share|percentage|per ?cent|proportion|fraction)\s+of\s+(?:(?:our|the|all|total|overall)\s+)*([a-z]+)", re.I
)


def _share_of_measure(
    trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str, used: list[str]
) -> None:
    """'What percentage of our sales comes from Technology?': the share of a numeric column the question names
    after 'of' is its sum over the filtered rows to its sum over all (x100 for a percentage), whatever the
    model selected; the filters become the condition."""
    m = _SHARE_OF.search(question)
    if not (m and trees["where"] and not trees["group_by"]):
        return
    word = stems(m.group(1))
    if (col := _numeric_column(semantic, used, lambda c: stems(words(c)) == word)) is None:
        return
    cond = exp.and_(*(c.copy() for c in trees["where"]))
    part = exp.Sum(this=exp.Case(ifs=[exp.If(this=cond, true=col.copy())], default=exp.Literal.number(0)))
    scale = exp.Literal.number("100.0" if _IN_PERCENT.search(question) else "1.0")
    trees["select"] = [exp.Div(this=exp.Mul(this=scale, expression=part), expression=exp.Sum(this=col))]
    trees["where"] = []


def _share_of_rows(trees: dict[str, list[exp.Expression]], question: str) -> None:
    """'What percentage of the cars have 4 cylinders?': a lone COUNT over filtered rows is the filtered count's
    ratio to all the rows' count (times 100 when it asks for a percentage), not the count itself."""
    select = trees["select"]
    if not (
        _SHARE.search(question)
        and trees["where"]
        and not trees["group_by"]
        and len(select) == 1
        and isinstance(select[0].unalias(), exp.Count)
    ):
        return
    cond = exp.and_(*(c.copy() for c in trees["where"]))
    hits = exp.Count(this=exp.Case(ifs=[exp.If(this=cond, true=exp.Literal.number(1))]))
    scale = exp.Literal.number("100.0" if _IN_PERCENT.search(question) else "1.0")
    trees["select"] = [exp.Div(this=exp.Mul(this=scale, expression=hits), expression=exp.Count(this=exp.Star()))]
    trees["where"] = []


def _listed_years(node: exp.Expression, question: str) -> exp.Expression:
    """'in 1996 and in 2008', '1996, 2008': two years the question lists are those two years, not the range
    between them the model wrote (`BETWEEN 1996 AND 2008`); 'between 1996 and 2008', 'from 1996 to 2008' stay."""
    if not isinstance(node, exp.Between):
        return node
    lo, hi = (node.args.get(k) for k in ("low", "high"))
    if not (isinstance(lo, exp.Literal) and isinstance(hi, exp.Literal) and _lists(question, lo.name, hi.name)):
        return node
    return node.this.copy().isin(lo.copy(), hi.copy())


# a decade the question names: 'the 1940s', 'the 80s', "'90s" (its first year's digits)
_DECADE = re.compile(r"(?:\bthe\s+|')(\d{2}|1[89]\d{2}|20\d{2})'?s\b", re.I)


def _year_equal(node: exp.Expression, semantic: Semantic) -> tuple[int, exp.Column, dict[str, Any]] | None:
    """(the number, the column, its layer info) of a column of years or a date's year set equal to a number
    (`fy = 1940`, `YEAR(dt) = 1935`); None for any other filter. What `_decade` and `_year_span` widen."""
    if not (isinstance(node, exp.EQ) and isinstance(lit := node.expression, exp.Literal) and lit.is_number):
        return None
    dated = _date_part(node.this)
    col = dated[1] if dated and dated[0] == "YEAR" else node.this
    if not isinstance(col, exp.Column):
        return None
    info = _column_info(semantic, col)
    return (int(float(lit.this)), col, info) if dated or _a_number_of_years(col.name, info) else None


def _decade(node: exp.Expression, semantic: Semantic, question: str) -> exp.Expression:
    """'steel firms in the 1940s' written `fy = 1940`, 'the 80s' written `Year = 80`: a decade the question names,
    compared as its first year (four digits, or two) with a column of years or a date's year, is the decade's
    range. Two digits are the column's own (a two-digit year column: 80 to 89), else the century whose decade
    lies in the column's range (1900s when none is known)."""
    if (equal := _year_equal(node, semantic)) is None:
        return node
    first, col, info = equal
    decades = set()
    for d in (int(d) for d in _DECADE.findall(question) if int(d) % 10 == 0):
        decades |= {d, 1900 + d, 2000 + d} if d < 100 else {d}
    if first not in decades:
        return node
    rng = _RANGE.search(info.get("description") or "")
    if rng and two_digit_year(col.name, float(rng[1]), float(rng[2])):
        first %= 100
    elif first < 100:
        first = next(
            (c + first for c in (1900, 2000) if rng and float(rng[1]) <= c + first <= float(rng[2])), 1900 + first
        )
    return exp.Between(this=node.this.copy(), low=exp.Literal.number(first), high=exp.Literal.number(first + 9))


# a span of years the question writes: '1935-1944', '1990 thru 1999', 'from 1995 to 1998', 'between 2000 and 2005'
_SPAN = re.compile(
    r"\b(?:from\s+|between\s+)?(1[6-9]\d\d|20\d\d)\s*(?:-|–|\bthru\b|\bthrough\b|\bto\b|\btill\b|\buntil\b|"
    r"\band\b)\s*(1[6-9]\d\d|20\d\d)\b",
    re.I,
)


def _year_span(node: exp.Expression, semantic: Semantic, question: str) -> exp.Expression:
    """'mean yearly investment 1935-1944' written `fy = 1935`: a span of years the question writes (`_SPAN`; 'and'
    only after 'between'), compared on a column of years or a date's year at its first or last year alone, is the
    whole span. Both years (`fy IN (1990, 2000)`) stay: '1990 to 2000 growth' compares the two."""
    if (equal := _year_equal(node, semantic)) is None:
        return node
    spans = [
        (int(m[1]), int(m[2]))
        for m in _SPAN.finditer(question)
        if int(m[1]) < int(m[2]) and (m[0].lower().startswith("between") or not re.search(r"\band\b", m[0], re.I))
    ]
    span = next(((lo, hi) for lo, hi in spans if equal[0] in (lo, hi)), None)
    if span is None:
        return node
    return exp.Between(this=node.this.copy(), low=exp.Literal.number(span[0]), high=exp.Literal.number(span[1]))


def _lists(question: str, lo: str, hi: str) -> bool:
    """Whether the question lists the two whole numbers ('1970 then 2000', '1996 and in 2008', '1996, 2008'), not
    a range between them ('between 1996 and 2008'; 'from 1996 to 2008' and '1996-2008' join them otherwise)."""
    if not (lo.isdigit() and hi.isdigit()):
        return False
    listed = re.search(
        rf"\b{lo}(?:\s*,\s*|\s+(?:and|or|then|vs\.?|versus)\s+)(?:(?:in|from|of)\s+)?{hi}\b", question, re.I
    )
    return bool(listed) and not re.search(rf"\bbetween\s+(?:\w+\s+)?{lo}\b", question, re.I)


def _listed_range(conds: list[exp.Expression], question: str) -> list[exp.Expression]:
    """'japan life expectancy: 1970 then 2000': the two bounds of one column the model wrote as a range
    (`year >= 1970 AND year <= 2000`) are the two values the question lists, as `_listed_years` reads a BETWEEN."""
    for lo in conds:
        if not (isinstance(lo, exp.GTE | exp.GT) and isinstance(lo.expression, exp.Literal)):
            continue
        hi = next(
            (
                c
                for c in conds
                if isinstance(c, exp.LTE | exp.LT)
                and c.this == lo.this
                and isinstance(c.expression, exp.Literal)
                and _lists(question, lo.expression.name, c.expression.name)
            ),
            None,
        )
        if hi is not None:
            both = lo.this.copy().isin(lo.expression.copy(), hi.expression.copy())
            return [both if c is lo else c for c in conds if c is not hi]
    return conds


def _ratio_over_all_rows(trees: dict[str, list[exp.Expression]]) -> None:
    """A ratio the model wrote with its condition inside (`SUM(CASE WHEN mode = 'Same Day' THEN 1 ...) /
    COUNT(*)`) is over all the rows: the same condition also in WHERE makes every share 100%, and goes."""
    inside = {
        cond.sql()
        for n in trees["select"]
        if n.find(exp.Div)
        for case in n.find_all(exp.Case)
        for branch in case.args.get("ifs") or []
        for cond in conjuncts(branch.this)
    }
    if inside and not trees["group_by"]:
        trees["where"] = [c for c in trees["where"] if c.sql() not in inside]


# the word after 'per' / 'each', and the next one when the first names no field ('each world region')
_PER = re.compile(r"\b(?:per|each|every)\s+([a-z][\w-]*)(?:\s+([a-z][\w-]*))?", re.I)
_WHICH_THING = re.compile(r"\b(?:which|what)\s+([a-z][\w-]*)", re.I)


def _named_group(
    trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str, slice_tables: list[str], used: list[str]
) -> None:
    """'per region' groups by the region column: one group key whose table and name the question does not
    name (a country) is replaced by the column the question names after 'per' / 'each' (or 'which', when it
    ranks), when that word names one column clearly."""
    key = trees["group_by"][0] if len(trees["group_by"]) == 1 else None
    if not isinstance(key, exp.Column):
        return
    named = [w for m in _PER.finditer(question) for w in m.groups() if w]
    named += [m.group(1) for m in _WHICH_THING.finditer(question)] if SUPERLATIVE.search(question) else []
    own = set(stems(f"{words(key.table)} {words(key.name)}"))
    if not named or any(set(stems(w)) & own for w in named):
        return
    for word in named:
        field = _clear_field(semantic, word, slice_tables)
        if field and "column" in field:
            new = exp.column(field["column"], table=field["table"])
            for part in ("select", "group_by", "order_by"):
                for n in trees[part]:
                    for c in [c for c in n.find_all(exp.Column) if c.sql() == key.sql()]:
                        if c is n:
                            trees[part] = [new.copy() if x is n else x for x in trees[part]]
                        else:
                            c.replace(new.copy())
            if field["table"] not in used:
                used.append(field["table"])
            # 'for each world region' beside `region = 'World'`: one value of the column asked per value is no filter
            trees["where"] = [c for c in trees["where"] if not _one_value_of(c, new)]
            return


def _referenced_row(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str, used: list[str]) -> None:
    """'Which support rep looks after the most customers?' asks for the row `Customer.SupportRepId` points to: the
    groups of the referring table's rows (by its labels or its key) are the referenced rows, grouped by the key and
    shown by the referenced table's label, when the question names that table or the key before the referring
    table (not 'which customers of each rep ...')."""
    keys = trees["group_by"]
    aggregated = any(n.find(exp.AggFunc) for n in trees["select"] + trees["order_by"])
    if not keys or not aggregated or _counts_groups(trees) or not all(isinstance(k, exp.Column) for k in keys):
        return  # ('How many albums have more than 20 tracks?' counts the groups: no row is shown)
    referring = {k.table.lower() for k in keys}
    said = stems(question)
    for join in semantic.joins:
        (table, key), (target, _) = join_columns(join)
        if {table.lower()} != referring or target.lower() == table.lower():
            continue
        asked = _first_said(said, _table_names(semantic, target) | _key_names(semantic, table, key))
        named_first = asked < len(said) and asked < _first_said(said, _table_names(semantic, table))
        if named_first and _group_by_referenced(trees, semantic, exp.column(key, table=table), target):
            used += [] if target in used else [target]
            return


def _first_said(said: list[str], names: set[str]) -> int:
    return next((i for i, w in enumerate(said) if w in names), len(said))


def _table_names(semantic: Semantic, table: str) -> set[str]:
    info = semantic.tables[table]
    return {w for phrase in (words(table), *info.get("synonyms", [])) for w in stems(phrase)} | {
        singular(w) for w in words(table).split()
    }


def _key_names(semantic: Semantic, table: str, key: str) -> set[str]:
    info = semantic.tables[table]["columns"].get(key, {})
    found = {w for phrase in (words(key), *info.get("synonyms", [])) for w in stems(phrase)}
    return {w for w in found if len(w) > 2 and w not in KEY_WORDS} - _table_names(semantic, table)


_LABEL_WORDS = ("name", "nm", "title", "desc", "description", "label")


def _label_of(semantic: Semantic, table: str) -> list[str]:
    """The columns that name a row of `table`: those named as a name, else as a title or a description; never a
    key of a join (a code is what the question asks to be named)."""
    joined = {c.lower() for j in semantic.joins for t, c in join_columns(j) if t.lower() == table.lower()}
    columns = [c for c in semantic.tables[table]["columns"] if c.lower() not in joined]
    for word in _LABEL_WORDS:
        if named := [c for c in columns if word in words(c).split()]:
            return named
    return []


def _label_beside_code(trees: dict[str, list[exp.Expression]], semantic: Semantic, used: list[str]) -> None:
    """`SELECT cars.origin, AVG(cars.weight) ... GROUP BY cars.origin` for 'each region of origin': a code shown (a
    bare column selected, or a group key) that refers to a lookup by the layer's only join between the two tables
    is shown with the lookup's one label beside it (`origins.name`), grouped by too; the code stays, for a question
    that asks it. Nothing when the query shows a column of the lookup already or counts its groups."""
    if _counts_groups(trees):
        return
    shown = [n for n in trees["select"] if isinstance(n, exp.Column)] + [
        n for n in trees["group_by"] if isinstance(n, exp.Column)
    ]
    for code in list({n.sql(): n for n in shown}.values()):
        lookup = _only_lookup_of(semantic, code)
        label = _label_of(semantic, lookup) if lookup else []
        if len(label) != 1 or lookup.lower() in _tables_of(trees):
            continue
        new = exp.column(label[0], table=lookup)
        at = next((i for i, n in enumerate(trees["select"]) if n.sql() == code.sql()), -1)
        trees["select"].insert(at + 1 if at >= 0 else 0, new)
        if any(g.sql() == code.sql() for g in trees["group_by"]):
            trees["group_by"].append(new.copy())
        used += [] if lookup in used else [lookup]


def _label_beside_own_code(trees: dict[str, list[exp.Expression]], semantic: Semantic) -> None:
    """`GROUP BY islands.isl_cd` for 'count per island': a code shown that other tables refer to by a join of the
    layer, with one label in its own table (`islands.isl_name`) not shown, is shown with that label beside it, and
    grouped by it too (one label per code: the groups are the same)."""
    if _counts_groups(trees):
        return
    shown = {n.sql() for n in trees["select"]}
    referred = {(t.lower(), c.lower()) for j in semantic.joins for t, c in join_columns(j)[1:]}
    for code in [n for n in trees["select"] + trees["group_by"] if isinstance(n, exp.Column) and n.table]:
        table = next((t for t in semantic.tables if t.lower() == code.table.lower()), None)
        label = _label_of(semantic, table) if table and (table.lower(), code.name.lower()) in referred else []
        new = exp.column(label[0], table=table) if len(label) == 1 else None
        if new is None or new.sql() in shown:
            continue
        at = next((i for i, n in enumerate(trees["select"]) if n.sql() == code.sql()), -1)
        trees["select"].insert(at + 1 if at >= 0 else 0, new)
        shown.add(new.sql())
        if any(g.sql() == code.sql() for g in trees["group_by"]):
            trees["group_by"].append(new.copy())


# a superlative of an amount each row has, by its direction ('min fat %', 'the heaviest car', 'top speed'); not those
# whose direction is the measure's ('oldest' is the lowest year and the highest age, 'best', 'fastest')
_HIGH_WORDS = (
    "highest|largest|biggest|greatest|longest|heaviest|tallest|most|max|maximum|top|peak|fattest|densest|richest|"
    "hottest|deepest|widest|strongest|thickest|creamiest|priciest|costliest"
)
_LOW_WORDS = (
    "lowest|smallest|shortest|lightest|least|fewest|min|minimum|youngest|cheapest|leanest|thinnest|coldest|"
    "shallowest|narrowest|weakest|poorest|slimmest"
)
_EXTREME_WORD = re.compile(rf"\b(?:({_HIGH_WORDS})|({_LOW_WORDS}))\b(?![-\w])", re.I)


def _measure_of_row(semantic: Semantic, col: exp.Column) -> bool:
    """A numeric column that holds an amount, not a key or a code."""
    return bool(NUMERIC.search(_column_type(semantic, col))) and not key_like(col.name)


def _rank_the_measure(
    trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str, limit: int | None
) -> int | None:
    """'heaviest vehicle listed? name + lbs' written `SELECT cars.name, cars.weight FROM cars`: rows listed with no
    order, no group and no aggregate, for a question with a superlative and no number of rows, are the one row at
    the extreme of the one amount the select shows (its direction the superlative's)."""
    found = _EXTREME_WORD.search(question)
    plain = not (trees["order_by"] or trees["group_by"] or any(n.find(exp.AggFunc) for n in trees["select"]))
    if not (found and plain) or limit is not None or _HOW_MANY_ROWS.search(question):
        return limit
    amounts = {c.sql(): c for n in trees["select"] for c in n.find_all(exp.Column) if _measure_of_row(semantic, c)}
    if len(amounts) != 1:
        return limit
    trees["order_by"] = [exp.Ordered(this=next(iter(amounts.values())).copy(), desc=found.group(1) is not None)]
    return 1


_AVERAGED = re.compile(r"\b(?:average|avg|mean)\b", re.I)
_SUMMED = re.compile(r"\b(?:totals?|combined|in all|overall|altogether|sum)\b", re.I)


def _own_names(semantic: Semantic, col: exp.Column) -> set[str]:
    info = _column_info(semantic, col)
    return set(stems(" ".join([words(col.name), info.get("description") or "", *info.get("synonyms", [])])))


def _groups_ranked_by_rows(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str) -> None:
    """'which region had the highest average fertility rate in 1980' written `SELECT countries.region ...
    ORDER BY indicators.fertility DESC LIMIT 1` ranks single rows: the things the select lists (no amount among
    them) are grouped, and ranked by (and shown with) the amount's average (or its sum, 'by invoice totals') over
    their rows. An average or total that is the amount's own name ('the largest invoice total') ranks rows, unless
    the things are columns of the amount's own table ('billing country by invoice totals': a country has many)."""
    if trees["group_by"] or len(trees["order_by"]) != 1 or any(n.find(exp.AggFunc) for n in trees["select"]):
        return
    item = trees["order_by"][0]
    col = item.this if isinstance(item, exp.Ordered) else item
    things = [n for n in trees["select"] if isinstance(n, exp.Column)]
    if not (isinstance(col, exp.Column) and _measure_of_row(semantic, col)) or len(things) != len(trees["select"]):
        return
    if any(NUMERIC.search(_column_type(semantic, n)) for n in things):
        return
    said = [m for rx in (_AVERAGED, _SUMMED) if (m := rx.search(question))]
    if not said:
        return
    own = _own_names(semantic, col)
    same_table = all(n.table.lower() == col.table.lower() for n in things)
    if not same_table and set(stems(said[0].group(0))) <= own:
        return
    total = exp.Avg if said[0].re is _AVERAGED else exp.Sum
    trees["group_by"] = [n.copy() for n in things]
    desc = bool(item.args.get("desc")) if isinstance(item, exp.Ordered) else False
    trees["order_by"] = [exp.Ordered(this=total(this=col.copy()), desc=desc)]
    trees["select"].append(total(this=col.copy()))  # the amount each is ranked by


# a column of two values ('survived; from 0 to 1', 'sex; 2 distinct')
_TWO_VALUES = re.compile(r"; (?:2 distinct|from 0 to 1$)")
# ... not "than" ('older than 30' is a filter's)
_COMPARING = re.compile(r"\b(?:vs|v|versus|against|compared)\b", re.I)


def _both_values_compared(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str) -> None:
    """'mean age: survivors compared to those lost' written `AVG(age) ... WHERE survived = 1`: an aggregate with no
    group, filtered to one value of a column of two values, for a question that compares, is taken for each of
    the two (the filter goes, the column is shown and grouped by)."""
    if trees["group_by"] or not _COMPARING.search(question) or not any(n.find(exp.AggFunc) for n in trees["select"]):
        return
    for cond in trees["where"]:
        col = cond.this if isinstance(cond, (exp.EQ, exp.NEQ)) else None
        if not (isinstance(col, exp.Column) and isinstance(cond.expression, exp.Literal)):
            continue
        if _TWO_VALUES.search(_column_info(semantic, col).get("description") or ""):
            trees["where"] = [c for c in trees["where"] if c is not cond]
            trees["select"].insert(0, col.copy())
            trees["group_by"].append(col.copy())
            return


def _only_lookup_of(semantic: Semantic, col: exp.Column) -> str | None:
    """The table `col` refers to by the layer's one join between its table and that one, else None."""
    table = col.table.lower()
    for join in semantic.joins:
        (left, key), (right, _) = join_columns(join)
        if (left.lower(), key.lower()) == (table, col.name.lower()) and right.lower() != table:
            between = [j for j in semantic.joins if {t.lower() for t in sides(j)} == {table, right.lower()}]
            return right if len(between) == 1 else None
    return None


def _group_by_referenced(
    trees: dict[str, list[exp.Expression]], semantic: Semantic, key: exp.Column, target: str
) -> bool:
    label = [exp.column(c, table=target) for c in _label_of(semantic, target)]
    if not label:
        return False
    dropped = {k.sql() for k in trees["group_by"]}
    trees["group_by"] = [key, *label]
    trees["select"] = [*(c.copy() for c in label), *(n for n in trees["select"] if n.find(exp.AggFunc))]
    trees["where"] = [c for c in trees["where"] if not _blank_guard(c, dropped)]
    return True


def _blank_guard(cond: exp.Expression, columns: set[str]) -> bool:
    """`NOT x IS NULL` or `x <> ''` on one of `columns` (the guard `_no_blank_key` writes)."""
    if isinstance(cond, exp.Not) and isinstance(cond.this, exp.Is):
        return cond.this.this.sql() in columns
    empty = isinstance(cond, exp.NEQ) and isinstance(cond.expression, exp.Literal) and cond.expression.name == ""
    return empty and cond.this.sql() in columns


def _one_value_of(cond: exp.Expression, col: exp.Column) -> bool:
    return isinstance(cond, exp.EQ) and cond.this.sql() == col.sql() and isinstance(cond.expression, exp.Literal)


_TEXT = re.compile(r"CHAR|TEXT|STRING", re.I)


def _no_blank_key(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str) -> None:
    """'Which director has the most movies?' asks for a director: the group of rows with none (NULL, or an
    empty text) is no answer, however many rows it has."""
    if not (SUPERLATIVE.search(question) and trees["group_by"] and trees["order_by"]):
        return
    for key in trees["group_by"]:
        if isinstance(key, exp.Column):
            trees["where"].append(exp.Not(this=exp.Is(this=key.copy(), expression=exp.Null())))
            if _TEXT.search(_column_type(semantic, key)):
                trees["where"].append(exp.NEQ(this=key.copy(), expression=exp.Literal.string("")))


def _count_how_many(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str) -> None:
    """'how many songs do Metallica and Iron Maiden have between them' written as `Artist.Name, Track.Name`: a
    question asking how many, with no group asked nor written, counts the rows its select lists; not when a number
    column is selected ('how many golds did Norway win': `gold` holds the count)."""
    select = trees["select"]
    if (
        _HOW_MANY.search(question)
        and not GROUPING.search(question)
        and not trees["group_by"]
        and select
        and all(isinstance(n, exp.Column) and not NUMERIC.search(_column_type(semantic, n)) for n in select)
    ):
        trees["select"], trees["order_by"] = [exp.Count(this=exp.Star())], []


def _sum_how_much(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str) -> None:
    """'How much profit did we make on Phones?', 'sub-saharan africa pop 2013, total' (or 'combined') ask one amount: a bare
    numeric column selected with no group lists every row's; summed instead (not for 'the total of each ...')."""
    select = trees["select"]
    if (
        re.search(r"\bhow much\b", question, re.I)
        or re.search(r"\b(?:total|combined)\b", question, re.I)
        and not re.search(r"\b(?:each|every)\b", question, re.I)
    ) and (
        not trees["group_by"]
        and select
        and all(isinstance(n, exp.Column) and NUMERIC.search(_column_type(semantic, n)) for n in select)
    ):
        trees["select"] = [exp.Sum(this=n.copy()) for n in select]


# 'the airport at the highest elevation': one thing at an extreme (no number of them asked: 'the 5 largest', 'top')
# ... or a question that opens with one ('biggest box office hit of 2001', 'heaviest european car')
_THE_EXTREME = re.compile(
    r"(?:\bthe |^\W*)(?:single )?(?:highest|lowest|most|least|largest|smallest|biggest|greatest|longest|shortest|"
    r"fewest|oldest|newest|youngest|latest|earliest|heaviest|lightest|fastest|slowest|cheapest|tallest|quickest|"
    r"(?:best|worst)(?!-))\b",
    re.I,
)
# a number of rows asked ('the 3 fastest', 'top'), not a quantity in a unit ('the 100 metre time', 'five minutes')
_HOW_MANY_ROWS = re.compile(
    r"\b(?:\d{1,3}|top|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|hundred)\b"
    rf"(?!\s*(?:m|{_WRITTEN_UNITS})\b)",
    re.I,
)


def _one_at_the_extreme(trees: dict[str, list[exp.Expression]], question: str, limit: int | None) -> int | None:
    """A list ordered by a column with no LIMIT, for a question that asks for 'the highest' one and gives no
    number of rows, is that one row."""
    if limit is not None or not trees["order_by"] or trees["group_by"] or _HOW_MANY_ROWS.search(question):
        return limit
    return 1 if _THE_EXTREME.search(question) else limit


_RANK_WORD = re.compile(
    r"\b(most|least|highest|lowest|largest|smallest|biggest|greatest|longest|shortest|fewest)\s+([a-z][\w-]*)", re.I
)


def _rank_by_measure(
    trees: dict[str, list[exp.Expression]],
    semantic: Semantic,
    question: str,
    slice_tables: list[str],
    limit: int | None,
) -> int | None:
    """'Which state has the highest sales?': grouped but ranked by nothing, or by the group's own key, it
    ranks by what the superlative names: the rows of the table it names counted ('the most albums'), or the
    numeric column it names summed per group (the aggregate the select already has of it, if any); one row."""
    m = _RANK_WORD.search(question)
    keys = _keys_and_partners(trees, semantic)
    if not (m and trees["group_by"] and SUPERLATIVE.search(question)) or any(
        o.unalias().find(exp.AggFunc) or (o.this if isinstance(o, exp.Ordered) else o).sql() not in keys
        for o in trees["order_by"]
    ):
        return limit
    if _counted_table(semantic, question):
        measure: exp.Expression = exp.Count(this=exp.Star())
    else:
        field = _clear_field(semantic, m.group(2), slice_tables)
        col = exp.column(field["column"], table=field["table"]) if field and "column" in field else None
        if col is None or not NUMERIC.search(_column_type(semantic, col)):
            return limit
        measure = next(
            (n.unalias().copy() for n in trees["select"] if n.find(exp.AggFunc) and n.find(exp.Column) == col),
            exp.Sum(this=col),
        )
    desc = m.group(1).lower() not in ("least", "lowest", "smallest", "shortest", "fewest")
    trees["order_by"] = [exp.Ordered(this=measure, desc=desc)]
    return 1 if limit is None else limit


def _keys_and_partners(trees: dict[str, list[exp.Expression]], semantic: Semantic) -> set[str]:
    """The group keys, and each column a join of the layer makes equal to one (`orders.state` of `GROUP BY
    states.state` over `orders.state = states.state`): ordering by it is ordering by the key."""
    keys = {g.sql() for g in trees["group_by"]}
    ends = [tuple(f"{t}.{c}" for t, c in pair) for pair in map(join_columns, semantic.joins)]
    return keys | {b for a, b in ends if a in keys} | {a for a, b in ends if b in keys}


# the noun a superlative or comparative adjective ranks by ('the heaviest car': its weight); English, not a schema's
_ADJECTIVE_NOUNS = {
    "heavy": ("weight", "mass"),
    "light": ("weight", "mass"),
    "long": ("length", "duration"),
    "short": ("length", "duration"),
    "tall": ("height",),
    "old": ("age",),
    "young": ("age",),
    "dense": ("density",),
    "powerful": ("power", "horsepower"),
    "fast": ("speed",),
    "slow": ("speed",),
    "costly": ("price", "cost"),
    "cheap": ("price", "cost"),
    "expensive": ("price", "cost"),
}
# the words after an aggregate or a ranking word name what it is taken of ('average runtime of movies')
_MEASURE_AFTER = re.compile(
    r"\b(?:average|avg|mean|median|total|sum of|combined|max(?:imum)?|min(?:imum)?|highest|lowest|most|least|"
    r"largest|smallest|biggest|greatest|top)\s+((?:[a-z][\w-]*)(?:\s+[a-z][\w-]*){0,2})",
    re.I,
)


def _adjective_forms(adjective: str) -> str:
    """'heavy': heavier, heaviest (and the common 'heavyest'); 'dense': denser, densest; 'more / most powerful'."""
    stem = adjective[:-1] if adjective.endswith(("y", "e")) else adjective
    ending = "(?:i|y)(?:er|est)" if adjective.endswith("y") else "(?:er|est)"
    return rf"\b(?:{stem}{ending}|(?:more|most|less|least)\s+{adjective})\b"


def _measure_nouns(question: str) -> list[str]:
    """The words the question names its measure by: those after an aggregate or ranking word, and the nouns of
    its superlative or comparative adjectives."""
    said = [w for m in _MEASURE_AFTER.finditer(question) for w in m.group(1).lower().split()]
    said += [
        n for a, nouns in _ADJECTIVE_NOUNS.items() if re.search(_adjective_forms(a), question, re.I) for n in nouns
    ]
    return [w for w in dict.fromkeys(said) if w not in GENERIC and len(w) > 2]


def _names_column(semantic: Semantic, col: exp.Column, said: Iterable[str]) -> bool:
    """Whether one of the words names the column: a word of its name or synonyms (by stem), or a word its name's
    token abbreviates (`en` electronegativity, `hp` horsepower)."""
    info = _column_info(semantic, col)
    own = {w for phrase in (words(col.name), *info.get("synonyms", [])) for w in stems(phrase)}
    spoken = set(stems(" ".join(said)))
    return bool(own & spoken) or any(abbreviates(t, w) for t in own for w in spoken if len(w) >= 5)


def _measures(trees: dict[str, list[exp.Expression]]) -> list[exp.Column]:
    """The columns the query aggregates (not counted) or ranks by: inside a SUM / AVG / MIN / MAX, an ORDER BY
    key, or a column compared with `(SELECT MAX / MIN ...)`."""
    found = [
        c
        for n in trees["select"] + trees["having"] + trees["order_by"]
        for agg in n.find_all(exp.Sum, exp.Avg, exp.Min, exp.Max)
        for c in agg.find_all(exp.Column)
    ]
    found += [o.this for o in trees["order_by"] if isinstance(o, exp.Ordered) and isinstance(o.this, exp.Column)]
    found += [
        c.this
        for n in trees["where"] + trees["having"]
        for c in n.find_all(exp.EQ, exp.GT, exp.GTE)
        if isinstance(c.this, exp.Column)
        and isinstance(c.expression, exp.Subquery)
        and c.expression.find(exp.Max, exp.Min)
    ]
    return found


def _named_measure(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str, used: list[str]) -> None:
    """'the heaviest car' ranked by `displ`, 'average runtime' over `imdbRating`: the query's one measure column,
    which no word of the question names, is the number column of a table the query reads that the question's
    measure words name ('heaviest': weight; 'runtime'; 'electronegativity': `en`), when exactly one does and the
    query does not use it already. Not when the question writes a number the measure is compared with."""
    measures = {(c.table.lower(), c.name.lower()): c for c in _measures(trees)}
    if len(measures) != 1:
        return
    (col,) = measures.values()
    everything = re.findall(r"[a-z][\w-]*", question.lower()) + _measure_nouns(question)
    if not _measure_kind(semantic, col) or _names_column(semantic, col, everything):
        return
    in_use = {
        (c.table.lower(), c.name.lower()) for nodes in trees.values() for n in nodes for c in n.find_all(exp.Column)
    }
    tables = {t.lower() for t in used} | _tables_of(trees)
    said = _measure_nouns(question)
    named = [
        other
        for table, column, _ in semantic.columns()
        if table.lower() in tables
        and (table.lower(), column.lower()) not in in_use
        and _measure_kind(semantic, other := exp.column(column, table=table))
        and _names_column(semantic, other, said)
    ]
    if len(named) != 1 or _compared_with_a_written_number(trees, col, question):
        return
    if named[0].table.lower() != col.table.lower() and any(
        s.find(exp.Column) == col for nodes in trees.values() for n in nodes for s in n.find_all(exp.Subquery)
    ):
        return  # a subquery reads the measure from its own table
    years = _a_number_of_years(col.name, _column_info(semantic, col))
    for part, nodes in trees.items():
        if part != "where" or not years:  # `AVG(fy)` is the measure's mistake, `fy BETWEEN 1940 AND 1949` the time's
            trees[part] = [n.transform(lambda c: named[0].copy() if c == col else c) for n in nodes]


def _compared_with_a_written_number(trees: dict[str, list[exp.Expression]], col: exp.Column, question: str) -> bool:
    """Whether the query compares the column with a number, in a question that writes one: the model chose it."""
    return any(
        c.this == col
        and isinstance(c.expression, exp.Literal)
        and c.expression.name not in ("0", "1")  # a sign, not a number the question gives
        and writes_a_number(question)
        for n in trees["where"] + trees["having"]
        for c in n.find_all(exp.EQ, exp.GT, exp.GTE, exp.LT, exp.LTE)
    )


# 'birds recorded per island', 'tracks in each of those two genres': a count per listed value, not a list of rows
_PER_VALUE = re.compile(r"\b(?:per|in each|for each|each of)\s+(?:(?:of|the|those|these|two|three)\s+)*([a-z]+)", re.I)
_LISTS_ROWS = re.compile(r"\b(?:list|show|name|names|which|what|who|titles?)\b", re.I)


def _count_per_listed_value(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str) -> None:
    """A query of rows (no aggregate) whose WHERE sets one column to two or more listed values, for a question that
    asks per value ('per island', 'in each of those genres') and lists nothing: the rows counted per value."""
    if any(n.find(exp.AggFunc) for part in ("select", "having", "order_by") for n in trees[part]):
        return
    listed = [c for c in trees["where"] if isinstance(c, exp.In) and isinstance(c.this, exp.Column)]
    if len(listed) != 1 or _LISTS_ROWS.search(question) or not (m := _PER_VALUE.search(question)):
        return
    col = listed[0].this
    if not _names_column(semantic, col, [m.group(1)]) and stems(m.group(1)) != stems(words(col.table)):
        return
    trees["select"] = [col.copy(), exp.Count(this=exp.Star())]
    trees["group_by"] = [col.copy()]
    trees["order_by"] = []


_MORE_OF = re.compile(r"(?<!\bor )(?<!\band )\b(?:more|fewer|less)\s+(?!than\b)([a-z][\w-]*)", re.I)  # not '2 or more'
_EVERY_VALUE = re.compile(r"\b(?:than|both|each|totals|give me)\b", re.I)


def _more_of_which(
    trees: dict[str, list[exp.Expression]],
    semantic: Semantic,
    question: str,
    slice_tables: list[str],
    limit: int | None,
) -> int | None:
    """'which of Norway or Canada won more golds', 'who flies more routes: UA or WN': listed values of one column
    set against each other and ranked by nothing are one row, the value with the most of what follows 'more' (the
    rows of the table it names counted, else the number column it names summed); 'fewer' / 'less': the least.
    'more than', 'both', 'each', 'totals' ask for every value."""
    m = _MORE_OF.search(question)
    listed = [c for c in trees["where"] if isinstance(c, exp.In) and isinstance(c.this, exp.Column)]
    if not m or len(listed) != 1 or trees["order_by"] or limit is not None or _EVERY_VALUE.search(question):
        return limit
    counted = (_counted_table(semantic, question, _MORE_OF) or "").lower()
    if counted in _tables_of(trees) | {t.lower() for t in slice_tables}:
        measure: exp.Expression = exp.Count(this=exp.Star())
    else:
        field = _clear_field(semantic, m.group(1), slice_tables)
        col = exp.column(field["column"], table=field["table"]) if field and "column" in field else None
        if col is None or not _measure_kind(semantic, col):
            return limit
        measure = exp.Sum(this=col)
    key = listed[0].this
    trees["select"] = [key.copy(), measure]
    trees["group_by"] = [key.copy()]
    trees["order_by"] = [exp.Ordered(this=measure.copy(), desc=m.group(0).lower().startswith("more"))]
    trees["having"] = []
    return 1


# a function no engine has, named as an aggregate's other name ('mean electronegativity': `MEAN(en)`)
_AGGREGATE_NAMES = {"mean": exp.Avg, "average": exp.Avg}


def _aggregate_names(node: exp.Expression) -> exp.Expression:
    """`MEAN(x)` / `AVERAGE(x)` is `AVG(x)`: SQLite, DuckDB and PostgreSQL have no such function, and the repair
    round, shown the engine's 'no such function', wrote it again (held-out #12)."""
    for fn in list(node.find_all(exp.Anonymous)):
        agg = _AGGREGATE_NAMES.get(str(fn.this).lower())
        if agg is not None and len(fn.expressions) == 1:
            new = agg(this=fn.expressions[0].copy())
            if fn is node:
                return new
            fn.replace(new)
    return node


def _parse_parts(
    parts: QueryParts, semantic: Semantic, slice_tables: list[str], used: list[str], dialect: str
) -> tuple[dict[str, list[exp.Expression]], list[str], set[str]]:
    """Each part parsed, terms expanded, unknown columns mapped and qualified (the tables they name added to
    `used`); a join written as a filter dropped, alone or AND-ed with others. Returns the trees, the names no
    table has, the aliases."""
    trees: dict[str, list[exp.Expression]] = {}
    unknown: list[str] = []
    aliases: set[str] = set()
    for part in ("select", "where", "group_by", "having", "order_by"):
        trees[part] = []
        nodes = [_parsed(part, text, semantic, dialect) for text in getattr(parts, part)]
        if part == "where":  # each of 'a = b AND c = d' judged: the join written as a filter among them goes
            nodes = [n for n in conjuncts(*nodes) if not _join_condition(n, semantic)]
        for node in nodes:
            node = _aggregate_names(_expand_terms(_bare_values_in_an_or(node), semantic, dialect))
            node = _map_unknown(node, semantic, slice_tables, aliases, dialect)
            _qualify(node, semantic, slice_tables, used, unknown)
            node = _year_of_a_year(node, semantic)
            trees[part].append(node)
            if isinstance(node, exp.Alias):
                aliases.add(node.alias.lower())
    return trees, unknown, aliases


def _parsed(part: str, text: str, semantic: Semantic, dialect: str) -> exp.Expression:
    """The part parsed; one that does not parse because it writes a column as its spoken words (`cap stk` for
    `cap_stk`, `life expectancy > 75`) is parsed with the column's name in their place."""
    try:
        return _parse(part, text, dialect)
    except BadPart:
        named = _spoken_as_names(text, semantic)
        if named == text:
            raise
        return _parse(part, named, dialect)


def _spoken_as_names(text: str, semantic: Semantic) -> str:
    """`text` with each column name of several words (`cap_stk`) written spaced (`cap stk`) outside string
    literals put back as the name, the longest names first."""
    names = sorted(
        {c for t in semantic.tables.values() for c in t["columns"] if "_" in c.strip("_")}, key=len, reverse=True
    )
    pieces = re.split(r"('(?:[^']|'')*')", text)
    for i in range(0, len(pieces), 2):  # the even pieces lie outside quotes
        for name in names:
            spoken = re.escape(name.strip("_").replace("_", " "))
            pieces[i] = re.sub(rf"(?<!\w){spoken}(?!\w)", name, pieces[i], flags=re.I)
    return "".join(pieces)


def _bare_values_in_an_or(node: exp.Expression) -> exp.Expression:
    """`c = 'a' OR 'b' OR 'c'`, the model's list written as English, is `c IN ('a', 'b', 'c')`; items `c = 'b'`
    among them too. As written, a bare string is a truth value: SQLite reads it false (only 'a' counts), DuckDB
    refuses it."""
    items = list(node.unnest().flatten()) if isinstance(node.unnest(), exp.Or) else []
    equal = [i for i in items if isinstance(i, exp.EQ) and isinstance(i.expression, exp.Literal)]
    bare = [i for i in items if isinstance(i, exp.Literal) and i.is_string]
    if not (bare and equal) or len(bare) + len(equal) != len(items) or len({i.this for i in equal}) != 1:
        return node
    return equal[0].this.copy().isin(*(i.copy() if i in bare else i.expression.copy() for i in items))


def _on_a_joined_holder(
    r: dict[str, Any],
    semantic: Semantic,
    trees: dict[str, list[exp.Expression]],
    used: list[str],
    values: Callable[[str, str], set[str]] | None,
) -> dict[str, Any]:
    """'how often has the usa taken gold in the mens 100m': 'usa' resolved to the country lookup's code
    (`lkp_cntry.cntry_cd`), which the layer does not join to the question's own table (the slice's first, always
    in FROM: the 100m medal table), while that table's own `noc` holds 'USA': the value filters the one indexed
    column of the tables the lookup does not join (that one and those the parts name) that holds it, not its own
    table (whose filter could only fail as 'no join path'). Left as resolved when its table joins the question's
    own, or no such column holds the value, or two do."""
    graph, own = semantic.join_graph(), r["table"].lower()
    joined = _component(graph, own)
    if values is None or used[0].lower() in joined:
        return r
    text = str(r["value"]).lower()
    read = ({used[0].lower()} | _tables_of(trees)) - joined
    holders = [
        (table, column)
        for table in semantic.tables
        if table.lower() in read
        for column, info in semantic.tables[table]["columns"].items()
        if info.get("values") and text in values(table, column)
    ]
    return {**r, "table": holders[0][0], "column": holders[0][1]} if len(holders) == 1 else r


def _filter_resolved(
    trees: dict[str, list[exp.Expression]], resolved: list[dict[str, Any]], used: list[str], dialect: str
) -> None:
    """A resolved value the model left out still filters."""
    where_sql = " ".join(n.sql(dialect) for n in trees["where"]).lower()
    for r in resolved:
        literal = exp.convert(r["value"]).sql(dialect)
        if literal.lower() not in where_sql:
            cond = exp.column(r["column"], table=r["table"]).eq(exp.convert(r["value"]))
            trees["where"].append(cond)
            where_sql += " " + literal.lower()  # a value resolved twice (planner, category words) filters once
            if r["table"] not in used:
                used.append(r["table"])


# a yes/no column (`_flag_values`): an integer one the layer describes from 0 to 1, and the words that negate one
_INTEGER_FLAG = re.compile(r"; from 0 to 1\b")
_NEGATED = frozenset({"non", "not", "without"})
_SIDE_BY_SIDE = re.compile(r"\b(?:vs\.?|versus|compared (?:with|to)|with and without)(?!\w)", re.I)
_MARKS_A_FLAG = ("flag", "indicator")  # a name's word that says what the column is, not what it marks


def _named_flags(
    trees: dict[str, list[exp.Expression]],
    semantic: Semantic,
    question: str,
    values: Callable[[str, str], set[str]] | None,
    used: list[str],
) -> None:
    """'college grads ... how many' over `svy_resp`, 'mean % female over the stem fields': a yes/no column of a
    queried table or one joined to it (`edu_levels.coll_grad`, Y/N), whose name of two words or more the question
    writes, each word of four letters or more ('flg' need not be said), filters on its yes value, or its no value
    when the question negates it ('non-stem'); not when the question names it both ways ('stem vs non-stem'), nor
    when the query already reads the column, nor beside 'vs' / 'compared with'. A one-word name is entity
    resolution's (`decline.flag_values`)."""
    if _SIDE_BY_SIDE.search(question):
        return  # 'college grads vs non-grads': both values asked, one row each or a comparison, no filter
    said = re.findall(r"[a-z]+", question.lower())
    tables = {t.lower() for t in used} | _tables_of(trees)
    ends = [{t.lower() for t in sides(j)} for j in semantic.joins]
    near = tables.union(*[e for e in ends if e & tables])
    read = {
        (c.table.lower(), c.name.lower()) for nodes in trees.values() for n in nodes for c in n.find_all(exp.Column)
    }
    for table in [t for t in semantic.tables if t.lower() in near]:
        for column, info in semantic.tables[table]["columns"].items():
            pair = _flag_values(table, column, info, values)
            polarity = _said_polarity(words(column).split(), said) if pair else None
            if polarity is None or (table.lower(), column.lower()) in read:
                continue
            col = exp.column(column, table=table)
            value = pair[0] if polarity else pair[1]
            trees["where"].append((exp.Lower(this=col) if isinstance(value, str) else col).eq(exp.convert(value)))
            used += [] if table in used else [table]


def _flag_values(
    table: str, column: str, info: dict[str, Any], values: Callable[[str, str], set[str]] | None
) -> tuple[Any, Any] | None:
    """(yes, no) of a yes/no column: a text column whose indexed values (lower-cased) are a yes/no pair
    (`names.yes_no`), an integer one the layer describes 'from 0 to 1' (a number column's values are not indexed)."""
    if _INTEGER_FLAG.search(info.get("description") or "") and "INT" in str(info.get("type", "")).upper():
        return 1, 0
    return yes_no(values(table, column)) if values and info.get("values") else None


def _said_polarity(name: list[str], said: list[str]) -> bool | None:
    """True when the question writes the words of four letters or more of a name of two words or more (one at
    least) side by side ('college grads' of `coll_grad`; not 'high-school grads next to some-college'), never after
    'non' / 'not' / 'without'; False when always after one ('non-stem'); None otherwise."""
    long = [w for w in name if len(w) >= 4 and w not in _MARKS_A_FLAG]
    if len(name) < 2 or not long:
        return None
    k = len(long)
    at = [i for i in range(len(said) - k + 1) if all(any(_names_word(n, w) for w in said[i : i + k]) for n in long)]
    negated = {i > 0 and said[i - 1] in _NEGATED for i in at}
    return None if len(negated) != 1 else not negated.pop()


def _names_word(name_word: str, word: str) -> bool:
    """'grads' of `grad`, 'college' of `coll`, 'chose' of `chosen`, 'transport' of `trnsp`."""
    shared = len(name_word) >= 4 and len(word) >= 4 and (word.startswith(name_word) or name_word.startswith(word))
    return word == name_word or shared or abbreviates(name_word, word)


def _settle_groups(
    trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str, used: list[str]
) -> str | None:
    """HAVING and GROUP BY set right; returns the table whose rows are counted per group, if any (joined)."""
    trees["having"] = [h for h in trees["having"] if not isinstance(h, exp.AggFunc)]  # 'HAVING COUNT(*)' tests nothing
    if (
        trees["having"]
        and not trees["group_by"]
        and len(trees["select"]) == 1
        and isinstance(trees["select"][0], exp.Count)
    ):  # 'How many albums have more than 20 tracks?': per row of the first table
        first = used[0]
        trees["group_by"] = [exp.column(next(iter(semantic.tables[first]["columns"])), table=first)]
    counted = (
        _counted_table(semantic, question) or _counted_table(semantic, question, _COUNT_OF)
        if trees["group_by"] or trees["having"]
        # 'how many routes depart from airports in Chicago': the rows of the table the count names, joined to
        # the one that holds the named value (not the airports, counted)
        else _counted_table(semantic, question, _COUNT_OF)
        if [n.sql() for n in trees["select"]] == ["COUNT(*)"]
        else None
    )
    if counted and any(not _all_of(n, counted) for n in trees["group_by"]):
        # counting the rows of `counted` per group: grouping by its own columns would make every group one row
        trees["group_by"] = [n for n in trees["group_by"] if not _all_of(n, counted)]
        trees["select"] = [n for n in trees["select"] if n.find(exp.AggFunc) or not _all_of(n, counted)]
    if counted and counted not in used:
        used.append(counted)  # 'Which artist has the most albums?' counts albums: join them
    return counted


def _render(
    trees: dict[str, list[exp.Expression]],
    limit: int | None,
    semantic: Semantic,
    used: list[str],
    slice_tables: list[str],
    dialect: str,
) -> str:
    # 'How many albums have more than 20 tracks?': a count with groups and a HAVING counts the groups
    count_groups = _counts_groups(trees)
    select = trees["group_by"] if count_groups else trees["select"]
    sql = "SELECT " + ", ".join(_sql(n, dialect) for n in select) + " FROM " + _from_slice(semantic, used, slice_tables)
    for part, keyword, sep in (
        ("where", "WHERE", " AND "),
        ("group_by", "GROUP BY", ", "),
        ("having", "HAVING", " AND "),
        ("order_by", "ORDER BY", ", "),
    ):
        if trees[part] and not (count_groups and part == "order_by"):
            sql += f" {keyword} " + sep.join(_sql(n, dialect) for n in trees[part])
    if count_groups:
        return f"SELECT COUNT(*) FROM ({sql}) AS grouped"
    if limit is not None:
        sql += f" LIMIT {max(0, limit)}"
    return sql


_DATE_PARTS = {"YEAR": "%Y", "MONTH": "%m", "DAY": "%d"}


def _sql(node: exp.Expression, dialect: str) -> str:
    """The node's SQL; for SQLite, a date's part as `CAST(STRFTIME('%Y', col) AS INTEGER)`: SQLite has neither
    `YEAR()` nor `EXTRACT`, and sqlglot's SQLite output keeps both (written by the year rules and the model)."""
    return (node.transform(_sqlite_date_part) if dialect == "sqlite" else node).sql(dialect)


def _sqlite_date_part(node: exp.Expression) -> exp.Expression:
    if not (dated := _date_part(node)) or dated[0] not in _DATE_PARTS:
        return node
    fmt = exp.Anonymous(this="STRFTIME", expressions=[exp.Literal.string(_DATE_PARTS[dated[0]]), dated[1].copy()])
    return exp.cast(fmt, exp.DataType.Type.INT)


def _date_part(node: exp.Expression) -> tuple[str, exp.Expression] | None:
    """(the part, upper-cased, and the date) of `YEAR(d)` / `MONTH(d)` / `DAY(d)` / `EXTRACT(part FROM d)`."""
    if isinstance(node, (exp.Year, exp.Month, exp.Day)):
        return type(node).__name__.upper(), node.this
    if isinstance(node, exp.Extract):
        return node.this.name.upper(), node.expression
    return None


GROUPING = re.compile(
    r"\b(per|each|every|by|most|least|top|highest|lowest|largest|smallest|longest|"
    r"shortest|group|groups|breakdown|distribution|for all)\b",
    re.I,
)
SUPERLATIVE = re.compile(
    r"\b(which|what|who)\b.*\b(most|least|highest|lowest|largest|smallest|longest|shortest|"
    r"best|worst|biggest|fewest)\b",
    re.I,
)
_ORDER_ITEM = re.compile(r"\s(asc|desc)\s*$", re.I)
_AGG = re.compile(r"\b(count|sum|avg|min|max)\s*\(", re.I)


def _tidy(parts: QueryParts, question: str) -> QueryParts:
    """What the 0.5B model misplaces, set right by the question's words: an ORDER BY item written under
    where/having moves to order_by; 'which ... most' returns one row; with no word asking for groups
    ('What is the average account balance of customers?') an aggregate is not split by a group."""
    moved = [t for t in parts.where + parts.having if _ORDER_ITEM.search(t)]
    parts = parts.model_copy(
        update={
            "where": [t for t in parts.where if t not in moved],
            "having": [t for t in parts.having if t not in moved],
            "order_by": parts.order_by + [t for t in moved if t not in parts.order_by],
        }
    )
    if question and parts.order_by and SUPERLATIVE.search(question):
        ranked_by = [t for t in parts.order_by if _AGG.search(t)] or parts.order_by  # not by the group's name
        having = (
            [t for t in parts.having if "select" not in t.lower()]
            if ranked_by != parts.order_by or any(_AGG.search(t) for t in ranked_by)
            else parts.having
        )  # '= (SELECT max ...)': the ranking does it
        parts = parts.model_copy(
            update={"limit": 1 if parts.limit is None else parts.limit, "order_by": ranked_by, "having": having}
        )
    if (
        question
        and parts.group_by
        and not parts.having
        and not GROUPING.search(question)
        and any(_AGG.search(t) for t in parts.select)
    ):
        parts = parts.model_copy(update={"group_by": [], "select": [t for t in parts.select if _AGG.search(t)]})
    return parts


_COUNTED = re.compile(r"\b(?:most|fewest|least|more than \d+|fewer than \d+|over \d+|at least \d+)\s+(\w+)", re.I)


# 'number of suppliers per region' counts suppliers per group, however the model grouped
_COUNT_OF = re.compile(r"\b(?:number of|how many|count of)\s+(\w+)", re.I)


# 'the total quantity of tracks sold', 'sum of the freight': a total of what follows
_TOTAL_OF = re.compile(r"\b(?:total|sum of(?: the)?|combined)\s+([a-z]\w*)", re.I)


def _sum_of_counted_measure(
    trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str, used: list[str], slice_tables: list[str]
) -> None:
    """'Total number of Oscars won by ...', 'how many golds did Norway win': what is counted is a number column
    of the rows (`Oscars`), not a table: its sum, not the count of rows. 'The total quantity of tracks sold' asks
    the sum of the number column named by its whole name (`InvoiceLine.Quantity`), taken from the table whose
    column it is (joined), not a count of the rows of the table the model counted (`Track`)."""
    m = _COUNT_OF.search(question)
    total = None if m else _TOTAL_OF.search(question)
    if not (m or total) or trees["group_by"] or [n.sql() for n in trees["select"]] != ["COUNT(*)"]:
        return
    noun = stems((m or total).group(1))
    if any(stems(words(t)) == noun for t in semantic.tables):
        return
    tables = used if m else dict.fromkeys([*used, *slice_tables])  # a total's measure may live in another table
    if (col := _numeric_column(semantic, tables, lambda c: stems(words(c)) == noun)) is not None:
        trees["select"] = [exp.Sum(this=col)]
        used += [] if col.table in used else [col.table]


# an amount asked by an English noun that is no count of rows, and the words of the column that holds it ('units
# sold': a quantity; a place's 'headcount': its population)
_AMOUNT_NOUNS = {"units": ("quantity", "qty", "units"), "headcount": ("population", "headcount")}
_AMOUNT = re.compile(rf"(?:\b([a-z]+)\s+)?\b({'|'.join(_AMOUNT_NOUNS)})\b", re.I)


def _amount_counted(
    trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str, used: list[str], slice_tables: list[str]
) -> None:
    """'units sold per shipping mode', 'india and china headcount, 1980' written as `COUNT(*)` (beside the group
    keys): the amount is the sum of the one number column of the query's or the slice's tables the noun names
    (`orders.quantity`, `indicators.population`), joined, not the rows counted; not when the word before the noun
    names a table ('supplier headcount' counts suppliers)."""
    keys = {g.sql() for g in trees["group_by"]}
    aggs = [n.unalias().sql() for n in trees["select"] if n.find(exp.AggFunc)]
    m = _AMOUNT.search(question)
    if (
        not m
        or aggs != ["COUNT(*)"]
        or any(n.unalias().sql() not in keys for n in trees["select"] if not n.find(exp.AggFunc))
    ):
        return
    if m.group(1) and any(_names_table(t, {singular(m.group(1).lower())}) for t in semantic.tables):
        return
    said = _AMOUNT_NOUNS[m.group(2).lower()]
    near = {t.lower() for t in [*used, *slice_tables]} | _tables_of(trees)
    named = [
        col
        for table in semantic.tables
        if table.lower() in near
        for column in semantic.tables[table]["columns"]
        if _measure_kind(semantic, col := exp.column(column, table=table)) and _names_column(semantic, col, said)
    ]
    if len(named) != 1:
        return
    total = exp.Sum(this=named[0])
    for part in ("select", "order_by"):
        trees[part] = [n.transform(lambda x: total.copy() if x.sql() == "COUNT(*)" else x) for n in trees[part]]
    used += [] if named[0].table in used else [named[0].table]


def _named_rows_counted(trees: dict[str, list[exp.Expression]], semantic: Semantic, question: str) -> str | None:
    """'break down our supplier base by region: a count for each' written as `COUNT(*) FROM region GROUP BY
    r_name`: the rows of a lookup (a table a join refers to by its key: one row per key, so every group counts
    1) are not what a question counts when it names another table that joins to it; that table's rows are
    counted (joined). None when the count names no other table, or several."""
    if "COUNT(*)" not in {n.unalias().sql() for n in trees["select"]} or len(tables := _tables_of(trees)) != 1:
        return None
    lookup = next(iter(tables))
    if not any(join_ends(j)[1].lower() == lookup for j in semantic.joins):
        return None
    said = said_words(question)
    graph = semantic.join_graph()
    named = [
        t for t in semantic.tables if t.lower() != lookup and _names_table(t, said) and lookup in _component(graph, t)
    ]
    return named[0] if len(named) == 1 else None


def _names_table(table: str, said: set[str]) -> bool:
    """`names.names_table`, or the name's last word alone (more than three letters): 'how many samples' counts
    `milk_samples` (reading every word lost two right queries, bench/bi.md, round 54); field mapping's pick of a column
    does not take it ('tracks' names `Track`, not `PlaylistTrack`)."""
    last = words(table).split()[-1:]
    return names_table(table, said) or bool(last) and len(last[0]) > 3 and singular(last[0]) in said


def _counted_table(semantic: Semantic, question: str, pattern: re.Pattern[str] = _COUNTED) -> str | None:
    """The table whose rows a 'most X' / 'more than N X' question (or `pattern`) counts, when X names one."""
    m = pattern.search(question)
    if not m:
        return None
    noun = stems(m.group(1))
    for table, info in semantic.tables.items():
        names = [words(table), *(syn for col in info["columns"].values() for syn in col.get("synonyms", []))]
        if any(stems(n) == noun for n in names):
            return table
    return None


def _lookup_counted(
    trees: dict[str, list[exp.Expression]], semantic: Semantic, resolved: list[dict[str, Any]], question: str
) -> str | None:
    """'how many halogens and how many noble gases': a COUNT(*) of a lookup's own rows, filtered on a value the
    question names, is one per value; the rows counted are those of the table that refers to the lookup by the
    layer's only join into it (its left side: `elem.cat_cd = elem_cat.cat_cd`). Not when the count names the
    lookup itself ('how many customers from Brazil' counts customers) or the question names it anywhere."""
    if "COUNT(*)" not in {n.unalias().sql() for n in trees["select"]} or _counted_table(semantic, question, _COUNT_OF):
        return None
    tables = _tables_of(trees)
    if len(tables) != 1 or not any(r["table"].lower() in tables for r in resolved):
        return None
    if _names_table(next(iter(tables)), said_words(question)):
        return None  # 'how many urgent orders' counts the orders
    into = [left for left, right in map(join_ends, semantic.joins) if right.lower() in tables]
    # one join only: two (a route's source and destination airport) are two roles, and which is meant is a guess
    return into[0] if len(into) == 1 else None


def _all_of(node: exp.Expression, table: str) -> bool:
    cols = list(node.find_all(exp.Column))
    return bool(cols) and all(c.table.lower() == table.lower() for c in cols)


def _counts_groups(trees: dict[str, list[exp.Expression]]) -> bool:
    return bool(
        trees["having"]
        and trees["group_by"]
        and len(trees["select"]) == 1
        and isinstance(trees["select"][0], exp.Count)
    )


def _tables_of(trees: dict[str, list[exp.Expression]]) -> set[str]:
    """The tables the kept parts still name (a dropped filter's table is not joined)."""
    return {c.table.lower() for nodes in trees.values() for n in nodes for c in n.find_all(exp.Column) if c.table}


def _from_slice(semantic: Semantic, used: list[str], slice_tables: list[str]) -> str:
    """Joined through the slice's tables when they connect (the question's path: lineitem-orders-customer-
    nation for 'customers in JAPAN', not the equally short lineitem-supplier-nation), else the cheapest."""
    inside = set(slice_tables) | set(used)
    narrow = replace(
        semantic,
        tables={t: v for t, v in semantic.tables.items() if t in inside},
        joins=[j for j in semantic.joins if sides(j) <= inside],
    )
    try:
        return _from(narrow, used)
    except NoJoinPath:
        return _from(semantic, used)


def _from(semantic: Semantic, used: list[str]) -> str:
    """FROM the first table, JOIN the rest along the semantic layer's join paths (each table once it
    connects to one already joined)."""
    tables = semantic.join_path(used) if len(used) > 1 else used
    clause, included, pending = tables[0], [tables[0]], tables[1:]
    while pending:
        step = next(((t, j) for t in pending for j in semantic.joins if _connects(j, t, included)), None)
        if step is None:
            raise NoJoinPath(
                f"no join path from {', '.join(included)} to {', '.join(pending)}; add one to the semantic layer"
            )
        t, join = step
        same = [j for j in semantic.joins if _connects(j, t, included) and sides(j) == sides(join)]
        if len(same) > 1:
            raise AmbiguousJoin(same)
        clause += f" JOIN {t} ON {join}"
        included.append(t)
        pending.remove(t)
    return clause


def _connects(join: str, table: str, included: list[str]) -> bool:
    ends = sides(join)
    return table in ends and bool(ends & (set(included) - {table}))
