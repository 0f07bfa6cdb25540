"""Join discovery for a database that declares no keys: candidates from column names and types, confirmed
by the data, ranked.

A candidate `a.x = b.y` says "x in a refers to y in b". Names propose it (the rules below); the data
decides: y must be unique and non-null in b (it identifies b's rows), and nearly every distinct value of x
in a bounded sample must be found among b's y values. A same-name column that is no key ('Rating' an MPAA
rating in one table, a critics' score in the other) fails one of these and is dropped. What is kept goes
into the drafted semantic layer as `inferred` with its evidence, after any declared keys, for a person to
confirm or delete.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from orrery.bi.engines import Column, Engine, QueryError

SAMPLE = 1000       # distinct values of the referring column checked against the referenced one
INCLUSION = 0.9     # this share of them must be found there
# how strongly a name rule alone suggests a join (the data confirms every one of them)
RULES = {"same name": 3.0, "<table>_id": 3.0, "named after the table": 2.0, "both keys": 1.0}
KEYISH = re.compile(r"(id|key|code|no|num|number)$", re.I)


@dataclass
class Inferred:
    left: str        # table.column that refers
    right: str       # table.column referred to (unique in its table)
    rule: str
    inclusion: float
    sampled: int
    score: float

    @property
    def on(self) -> str:
        return f"{self.left} = {self.right}"

    @property
    def evidence(self) -> str:
        return (f"{self.rule}; {self.inclusion:.0%} of {self.sampled} sampled values of {self.left} found in "
                f"{self.right}, which is unique")


def _norm(name: str) -> str:
    """'l_orderkey' -> 'orderkey', 'Customer_ID' -> 'customerid' (TPC-H style one- or two-letter prefixes
    dropped)."""
    return re.sub(r"[\W_]+", "", re.sub(r"^[a-z]{1,2}_", "", name)).lower()


def singular(word: str) -> str:
    w = word.lower()
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ses", "xes", "ches", "shes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return w[:-1]
    return w


def _family(dtype: str) -> str:
    t = dtype.upper()
    if re.search(r"INT|DEC|NUM|REAL|DOUBLE|FLOAT", t):
        return "number"
    if re.search(r"DATE|TIME", t):
        return "time"
    return "text"


def rule_for(a_table: str, a: Column, b_table: str, b: Column) -> str | None:
    """The name rule that proposes `a_table.a -> b_table.b`, or None."""
    x, y, owner = _norm(a.name), _norm(b.name), _norm(singular(b_table))
    if x == y:
        return "same name"
    if x in (owner + "id", owner + "key", owner + "code") and y in ("id", "key", "code", owner + "id",
                                                                  owner + "key", owner + "code"):
        return "<table>_id"
    if x in (owner, _norm(b_table)) and (KEYISH.search(y) or y == "name"):
        return "named after the table"
    if KEYISH.search(a.name) and KEYISH.search(b.name) and len(x) > 3:
        return "both keys"
    return None


def quote(engine: Engine, name: str) -> str:
    """A table or column name quoted for the engine's SQL (names from the catalogue may need it)."""
    return exp.to_identifier(name, quoted=True).sql({"postgres": "postgres", "sqlite": "sqlite"}.get(
        engine.dialect, "duckdb"))


def unique(engine: Engine, table: str, column: str, cache: dict[tuple[str, str], int]) -> int:
    """The number of rows of `table` when `column` identifies them (non-null, no repeats), else 0."""
    key = (table, column)
    if key not in cache:
        t, c = quote(engine, table), quote(engine, column)
        try:
            n, distinct, nulls = engine.execute(
                f"SELECT count(*), count(DISTINCT {c}), count(*) - count({c}) FROM {t}").rows[0]
        except QueryError:
            n, distinct, nulls = 0, -1, 1
        cache[key] = int(n) if n and n == distinct and not nulls else 0
    return cache[key]


def inclusion(engine: Engine, left: tuple[str, str], right: tuple[str, str]) -> tuple[float, int]:
    """(share found, number sampled) of up to SAMPLE distinct non-null values of `left` found in `right`."""
    (lt, lc), (rt, rc) = left, right
    lt, lc, rt, rc = (quote(engine, n) for n in (lt, lc, rt, rc))
    sample = f"SELECT DISTINCT {lc} AS v FROM {lt} WHERE {lc} IS NOT NULL LIMIT {SAMPLE}"
    try:
        n, found = engine.execute(
            f"SELECT count(*), count(*) FILTER (WHERE v IN (SELECT {rc} FROM {rt})) FROM ({sample}) AS s"
            if engine.dialect != "sqlite" else
            f"SELECT count(*), sum(v IN (SELECT {rc} FROM {rt})) FROM ({sample}) AS s").rows[0]
    except QueryError:
        return 0.0, 0
    return (float(found or 0) / n if n else 0.0), int(n or 0)


def discover(engine: Engine, tables: dict[str, list[Column]], declared: list[str] = ()) -> list[Inferred]:
    """Joins the names propose and the data confirms, best first; none between two tables a declared key
    already joins."""
    joined = {frozenset(s.strip().split(".")[0] for s in j.split("=")) for j in declared}
    cache: dict[tuple[str, str], int] = {}
    found: dict[frozenset[str], Inferred] = {}
    for a_table, a_cols in tables.items():
        for b_table, b_cols in tables.items():
            if a_table == b_table or frozenset((a_table, b_table)) in joined:
                continue
            for a in a_cols:
                for b in b_cols:
                    rule = rule_for(a_table, a, b_table, b)
                    if rule is None or _family(a.type) != _family(b.type) or _family(a.type) == "time":
                        continue
                    pair = frozenset((f"{a_table}.{a.name}", f"{b_table}.{b.name}"))
                    rows = 0 if pair in found else unique(engine, b_table, b.name, cache)
                    if not rows:
                        continue
                    share, n = inclusion(engine, (a_table, a.name), (b_table, b.name))
                    if rule == "both keys" and not _refers(engine, (a_table, a.name), n, share * n / rows, cache):
                        continue
                    if n and share >= INCLUSION:
                        found[pair] = Inferred(f"{a_table}.{a.name}", f"{b_table}.{b.name}", rule, share, n,
                                               RULES[rule] + share)
    return _best_per_column(sorted(found.values(), key=lambda j: -j.score))


def _refers(engine: Engine, left: tuple[str, str], distinct: int, coverage: float,
            cache: dict[tuple[str, str], int]) -> bool:
    """For two key-like names that share nothing ('SourceID', 'AirportID'), inclusion alone is weak: small
    integers (1..7) are found in every id column. The referring column must repeat (a unique id found in
    another unique id is a coincidence of numbering), hold at least 10 values, and reach a quarter of the
    referenced rows."""
    return distinct >= 10 and coverage >= 0.25 and not unique(engine, *left, cache)


def _best_per_column(joins: list[Inferred]) -> list[Inferred]:
    """A referring column refers to one table: its best-scored candidate (ties all kept, for a person)."""
    out, best = [], {}
    for j in joins:
        if best.setdefault(j.left, j.score) - j.score < 1e-9:
            out.append(j)
    return out


def ties(joins: list[str], tables: list[str]) -> list[list[str]]:
    """Groups of two or more joins that connect the same two of `tables` (routes to airports by SourceID and
    by DestinationID): the query cannot choose between them from the layer alone."""
    by_pair: dict[frozenset[str], list[str]] = {}
    for j in joins:
        sides = frozenset(s.strip().split(".")[0] for s in j.split("="))
        if len(sides) == 2 and sides <= set(tables):
            by_pair.setdefault(sides, []).append(j)
    return [group for group in by_pair.values() if len(group) > 1]


def as_entries(declared: list[str], inferred: list[Inferred]) -> list[Any]:
    """The `joins:` list of a drafted layer: declared keys as plain strings first, then each inferred join
    as `{on, inferred: evidence}` (delete the entry to drop it; keep only `on` to confirm it)."""
    return [*declared, *({"on": j.on, "inferred": j.evidence} for j in inferred)]
