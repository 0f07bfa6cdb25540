"""Bounded profiling of a database nobody described: what `bi connect` / `describe` read to draft a layer.

Per table, two statements: a row count that stops at COUNT_CAP rows, and one sample of at most SAMPLE_ROWS
rows (fewer for a wide table: at most SAMPLE_CELLS cells). Every description, value sample, `values:` flag
and join check of the draft is computed from these samples in Python, plus, for a join candidate whose
referenced table is larger than its sample, one probe of at most PROBE_VALUES values over at most
COUNT_CAP of its rows. Profiling stops starting new tables after BUDGET_S seconds: the tables after it keep
their names and types only (`TableSample.rows` is None). So a wide or tall database drafts in seconds,
whatever its size, and the number of statements is linear in the number of tables.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from orrery.bi.engines import Column, Engine, QueryError

SAMPLE_ROWS = 10_000  # rows read per table
SAMPLE_CELLS = 400_000  # a wide table reads fewer rows: rows x columns at most this
COUNT_CAP = 1_000_000  # rows counted (and scanned by a join probe) per table; more reads "over"
PROBE_VALUES = 1_000  # distinct values of a referring column checked against the referenced one
BUDGET_S = 20.0  # seconds of profiling after which no new table is sampled


def quote(engine: Engine, name: str) -> str:
    """A table or column name quoted for the engine's SQL (names from the catalogue may need it)."""
    return exp.to_identifier(name, quoted=True).sql(
        {"postgres": "postgres", "sqlite": "sqlite"}.get(engine.dialect, "duckdb")
    )


def literal(value: Any) -> str:
    return exp.convert(value).sql()


@dataclass
class TableSample:
    name: str
    columns: list[Column]
    count: int  # rows, counted up to COUNT_CAP + 1
    rows: list[tuple[Any, ...]] | None = None  # None: not sampled (the time budget ran out, or it failed)
    _distinct: dict[str, set[Any]] = field(default_factory=dict, repr=False)

    @property
    def complete(self) -> bool:
        """The sample holds every row of the table."""
        return self.rows is not None and len(self.rows) >= self.count

    @property
    def over(self) -> bool:
        return self.count > COUNT_CAP

    def values(self, column: str) -> list[Any]:
        """The sampled non-null, non-empty values of a column."""
        if self.rows is None:
            return []
        i = [c.name for c in self.columns].index(column)
        return [r[i] for r in self.rows if r[i] is not None and r[i] != ""]

    def distinct(self, column: str) -> set[Any]:
        if column not in self._distinct:
            self._distinct[column] = set(self.values(column))
        return self._distinct[column]

    def top(self, column: str, n: int) -> list[Any]:
        """The n most common sampled values, ties by value."""
        counts = Counter(self.values(column))
        return [v for v, _ in sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))[:n]]

    def unique(self, column: str) -> bool:
        """No nulls and no repeats in the sample (the whole table when the sample is complete)."""
        return bool(self.rows) and len(self.distinct(column)) == len(self.rows) == len(self.values(column))


def profile(
    engine: Engine,
    tables: dict[str, list[Column]],
    budget: float = BUDGET_S,
    clock: Callable[[], float] = time.monotonic,
) -> dict[str, TableSample]:
    """A bounded sample of every table (see the module doc)."""
    start, out = clock(), {}
    for name, cols in tables.items():
        if clock() - start > budget:
            out[name] = TableSample(name, cols, 0)
            continue
        out[name] = _sample(engine, name, cols)
    return out


def _sample(engine: Engine, table: str, cols: list[Column]) -> TableSample:
    t = quote(engine, table)
    try:
        count = int(engine.execute(f"SELECT count(*) FROM (SELECT 1 FROM {t} LIMIT {COUNT_CAP + 1}) AS s").rows[0][0])
        n = max(1, min(SAMPLE_ROWS, SAMPLE_CELLS // max(1, len(cols))))
        rows = engine.execute(
            f"SELECT {', '.join(quote(engine, c.name) for c in cols)} FROM {t} LIMIT {n}", max_rows=n
        ).rows
    except QueryError:
        return TableSample(table, cols, 0)
    return TableSample(table, cols, count, list(rows))


def found_in(engine: Engine, values: list[Any], ref: TableSample, column: str) -> tuple[int, int]:
    """(how many of `values`, how many checked): of up to PROBE_VALUES distinct values, those the referenced
    column holds. From the sample when it is the whole table, else one probe over at most COUNT_CAP rows."""
    values = sorted(set(values), key=str)[:PROBE_VALUES]
    if not values:
        return 0, 0
    if ref.complete:
        held = ref.distinct(column)
        return sum(v in held for v in values), len(values)
    c, t = quote(engine, column), quote(engine, ref.name)
    listed = ", ".join(literal(v) for v in values)
    try:
        rows = engine.execute(
            f"SELECT DISTINCT {c} FROM (SELECT {c} FROM {t} LIMIT {COUNT_CAP}) AS s WHERE {c} IN ({listed})",
            max_rows=len(values),
        ).rows
    except QueryError:
        return 0, len(values)
    return len(rows), len(values)


def distinct_in_table(engine: Engine, sample: TableSample, column: str) -> int:
    """Distinct non-null values of a column over at most COUNT_CAP rows: a table sorted by a key shows only its
    first few keys in the sample (the first 10,000 of 149,310 rows hold 16 of 237 countries)."""
    c, t = quote(engine, column), quote(engine, sample.name)
    try:
        return int(
            engine.execute(f"SELECT count(DISTINCT {c}) FROM (SELECT {c} FROM {t} LIMIT {COUNT_CAP}) AS s").rows[0][0]
        )
    except QueryError:
        return len(sample.distinct(column))


def unique_in_table(engine: Engine, ref: TableSample, column: str) -> bool:
    """No nulls and no repeats: in the sample, then (when the sample is not the whole table) over at most
    COUNT_CAP rows."""
    if not ref.unique(column):
        return False
    if ref.complete:
        return True
    c, t = quote(engine, column), quote(engine, ref.name)
    try:
        n, distinct = engine.execute(
            f"SELECT count({c}), count(DISTINCT {c}) FROM (SELECT {c} FROM {t} LIMIT {COUNT_CAP}) AS s"
        ).rows[0]
    except QueryError:
        return False
    return bool(n) and n == distinct == min(ref.count, COUNT_CAP)
