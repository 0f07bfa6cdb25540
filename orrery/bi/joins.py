"""Join discovery for a database that declares no keys: candidates from column names and types, confirmed
by the data, ranked.

A candidate `a.x = b.y` says "x in a refers to y in b". Names propose it (the rules below); the data
decides: y must be unique and non-null in b (it identifies b's rows), and nearly every distinct value of x
in a bounded sample must be found among b's y values (a value with no letter or digit, '*', is a placeholder
for "unknown" and not counted). A same-name column that is no key ('Rating' an MPAA rating in one table, a
critics' score in the other) fails one of these and is dropped. Columns whose names
share nothing (`orders.buyer`, `customers.id`) are candidates by type and values alone, under stricter
evidence (`_Checker.same_values`), ranked below every name rule. What is kept goes into the drafted
semantic layer as `inferred` with its evidence, after any declared keys, for a person to confirm or delete.
All data is read through the bounded samples of profile.py.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from orrery.bi.engines import Column, Engine
from orrery.bi.names import KEY_WORDS, abbreviates, singular, words
from orrery.bi.profile import (
    COUNT_CAP,
    PROBE_VALUES,
    TableSample,
    distinct_in_table,
    found_in,
    profile,
    unique_in_table,
)

INCLUSION = 0.9  # this share of the sampled values of the referring column must be found in the referenced one
MIN_DISTINCT = 10  # values a referring column must hold when its name does not say what it refers to
MAX_PROBES = 200  # probes of referenced tables larger than their sample, per draft
# how strongly a name rule alone suggests a join (the data confirms every one of them); values alone rank last
RULES = {
    "same name": 3.0,
    "<table>_id": 3.0,
    "named after the table": 2.0,
    "names the key's word": 1.0,
    "named after the table, abbreviated": 2.0,
    "both keys": 1.0,
    "both keys, named alike": 1.0,
    "same values": 0.5,
}
# a name ending in a key word, glued or not ('classcd'; 'paid' too, unlike `names.key_like`): `_norm` glues a name's
# words, and a stray match costs one probe, the data deciding
KEYISH = re.compile(rf"(?:{'|'.join(sorted(KEY_WORDS))})$", re.I)


def join_columns(join: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """The (table, column) of each end of a layer's join, written `a.fk = b.key`: the referring one first."""
    left, right = (s.strip().split(".", 1) for s in join.split("="))
    return (left[0], left[1]), (right[0], right[1])


def join_ends(join: str) -> tuple[str, str]:
    """The referring table and the referred one of a layer's join, written `a.fk = b.key`."""
    left, right = (s.strip().split(".")[0] for s in join.split("="))
    return left, right


def sides(join: str) -> set[str]:
    """The two tables a join (`a.x = b.y`) connects."""
    return set(join_ends(join))


@dataclass
class Inferred:
    left: str  # table.column that refers
    right: str  # table.column referred to (unique in its table)
    rule: str
    inclusion: float
    sampled: int
    score: float

    @property
    def on(self) -> str:
        return f"{self.left} = {self.right}"

    @property
    def evidence(self) -> str:
        rule = "same values, names unrelated" if self.rule == "same values" else self.rule
        return (
            f"{rule}; {self.inclusion:.0%} of {self.sampled} sampled values of {self.left} found in "
            f"{self.right}, which is unique"
        )


def _norm(name: str) -> str:
    """'l_orderkey' -> 'orderkey', 'Customer_ID' -> 'customerid' (TPC-H style one- or two-letter prefixes
    dropped)."""
    return re.sub(r"[\W_]+", "", re.sub(r"^[a-z]{1,2}_", "", name)).lower()


def _family(dtype: str) -> str:
    t = dtype.upper()
    if re.search(r"INT|DEC|NUM|REAL|DOUBLE|FLOAT", t):
        return "number"
    if re.search(r"DATE|TIME", t):
        return "time"
    return "text"


def rule_for(a: Column, b_table: str, b: Column) -> str | None:
    """The name rule that proposes `a -> b_table.b`, or None."""
    x, y, owner = _norm(a.name), _norm(b.name), _norm(singular(b_table))
    if x == y:
        return "same name"
    # the table's name as it is too: 'species_id' -> `species` ('species' has no singular the rule can make)
    for o in dict.fromkeys((owner, _norm(b_table))):
        keys = (o + "id", o + "key", o + "code")
        if x in keys and y in ("id", "key", "code", *keys):
            return "<table>_id"
    if x in (owner, _norm(b_table)) and (KEYISH.search(y) or y == "name"):
        return "named after the table"
    if KEYISH.search(a.name) and KEYISH.search(b.name) and _named_alike(a.name, b_table, b.name):
        return "both keys, named alike"
    if KEYISH.search(a.name) and KEYISH.search(b.name) and len(x) > 3:
        return "both keys"
    if KEYISH.search(b.name) and _abbreviates_table(a.name, b_table):
        return "named after the table, abbreviated"
    word = KEYISH.sub("", y)  # 'pclass' -> `class_cd`: the referring name holds the key's own word
    if len(word) > 3 and word in x and KEYISH.search(b.name):
        return "names the key's word"
    return None


def _stems(name: str) -> list[str]:
    """A name's words less its key word, two letters or more: 'md_cd' -> ['md'], 'r_regionkey' -> ['region']."""
    ws = words(name).split()
    return [w for w in [*ws[:-1], *(KEYISH.sub("", w) for w in ws[-1:])] if len(w) > 1]


def _named_alike(name: str, table: str, key: str) -> bool:
    """'md_cd' -> `travel_modes.mode_code`: a word of the referring name is, or abbreviates, a word of the key's
    name or of its table's ('md' mode), so a handful of values the key covers is a reference (`_Checker._refers`)."""
    theirs = {v for w in [*_stems(key), *words(table).split()] for v in (w, singular(w))}
    return any(p == q or abbreviates(p, q) for p in _stems(name) for q in theirs | _initialled(table))


def _initialled(table: str) -> set[str]:
    """A table's two-word name glued under its first word's first letters: `census_div` 'cdiv', 'cendiv';
    `party_ids` 'pid', 'paid' (either number of the second word; `singular` keeps a short one as it is)."""
    ws = words(table).split()
    return {
        first[:k] + v
        for first, second in itertools.pairwise(ws)
        for v in (second, singular(second), second.removesuffix("s"))
        for k in range(1, 3)
    }


def _abbreviates_table(name: str, table: str) -> bool:
    """'edu_lvl' -> `edu_levels`: the referring name's words (a key word aside) are the table's, each the same or
    shortened, in either number, two words or more (one word is "named after the table"); the name's words as
    `_named_alike` reads them (`_stems`)."""
    owner = words(table).split()
    return len(own := _stems(name)) == len(owner) > 1 and all(
        any(p == v or abbreviates(p, v) for v in (q, singular(q))) for p, q in zip(own, owner, strict=True)
    )


def discover(
    engine: Engine,
    tables: dict[str, list[Column]],
    declared: list[str] = (),
    samples: dict[str, TableSample] | None = None,
) -> list[Inferred]:
    """Joins the names propose and the data confirms, best first, then joins between columns whose names
    share nothing but whose values do (ranked below any name rule); none between two tables a declared key
    already joins. The data is read through bounded samples (profile.py); `samples` when already taken."""
    samples = samples if samples is not None else profile(engine, tables)
    joined = {frozenset(join_ends(j)) for j in declared}
    check = _Checker(engine, samples)
    found: dict[frozenset[str], Inferred] = {}
    for a_table, b_table in _pairs(tables, joined):
        for a in tables[a_table]:
            for b in tables[b_table]:
                rule = rule_for(a, b_table, b)
                if rule and _family(a.type) == _family(b.type) != "time":
                    j = check.name_rule(rule, (a_table, a.name), (b_table, b.name))
                    if j is not None:
                        found.setdefault(frozenset((j.left, j.right)), j)
    named = {frozenset(s.split(".")[0] for s in (j.left, j.right)) for j in found.values()} | joined
    by_values: dict[frozenset[str], Inferred] = {}  # one per pair of tables: the values cannot tell two apart
    for left, right in _value_candidates(tables, samples, named):
        j = check.same_values(left, right)
        pair = frozenset((left[0], right[0]))
        if j is not None and (pair not in by_values or j.score > by_values[pair].score):
            by_values[pair] = j
    found.update({frozenset((j.left, j.right)): j for j in by_values.values()})
    return _best_per_column(sorted(found.values(), key=lambda j: -j.score))


def _pairs(tables: dict[str, list[Column]], skip: set[frozenset[str]]) -> list[tuple[str, str]]:
    return [(a, b) for a in tables for b in tables if a != b and frozenset((a, b)) not in skip]


def _value_candidates(
    tables: dict[str, list[Column]], samples: dict[str, TableSample], skip: set[frozenset[str]]
) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """For each column that could refer to another table's key by its values alone (a key's type, repeats,
    at least MIN_DISTINCT sampled values), the one column of a table not yet joined to it that is unique in
    its sample, has the same type family and holds the most of its sampled values: one candidate per
    referring column, so the probes stay few however wide the database."""
    keys = [
        (t, c)
        for t, cols in tables.items()
        for c in cols
        if _keyable(c.type) and samples[t].rows and samples[t].unique(c.name)
    ]
    out = []
    for a_table, cols in tables.items():
        lt = samples[a_table]
        for a in cols:
            held = lt.distinct(a.name) if _keyable(a.type) and lt.rows else set()
            if len(held) < (2 if _codes(held) else MIN_DISTINCT) or (lt.unique(a.name) and not _pairable(lt, a.name)):
                continue
            options = [
                (len(held & samples[t].distinct(b.name)), t, b)
                for t, b in keys
                if frozenset((a_table, t)) not in skip
                and a_table != t
                and _family(a.type) == _family(b.type)
                and not rule_for(a, t, b)
            ]
            best = max(options, key=lambda o: o[0], default=None)
            if best and best[0]:
                out.append(((a_table, a.name), (best[1], best[2].name)))
    return out


_NUMBER_OR_DATE = re.compile(r"[\d\s.,:/+-]+")


def _pairable(sample: TableSample, column: str) -> bool:
    """A unique column of codes (text, or sparse integers) that may pair 1:1 with another (`_Checker._one_to_one`)."""
    held = sample.distinct(column)
    return sample.unique(column) and len(held) >= MIN_DISTINCT and (_codes(held) or _sparse(held))


def _sparse(values: set[Any]) -> bool:
    """Whether sampled values are integer codes that fill at most half of their range (a quarter written 19591,
    19592, ..., 19601): two unique columns holding the same such codes are no coincidence of numbering, as two id
    columns numbered 1..n are (`_one_to_one`)."""
    ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
    return bool(ints) and len(ints) == len(values) and max(ints) - min(ints) + 1 >= 2 * len(ints)


def _codes(values: set[Any]) -> bool:
    """Whether sampled values are text labels: none a number or a date written as text."""
    return bool(values) and all(isinstance(v, str) and not _NUMBER_OR_DATE.fullmatch(v) for v in values)


def _keyable(dtype: str) -> bool:
    """A type a key has: an integer or text (not a measure, a date or a float)."""
    t = dtype.upper()
    return "INT" in t or _family(t) == "text"


class _Checker:
    """The data's verdict on a candidate, from bounded samples; at most MAX_PROBES probes of a referenced
    table larger than its sample."""

    def __init__(self, engine: Engine, samples: dict[str, TableSample]):
        self.engine, self.samples, self.probes = engine, samples, 0
        self._unique: dict[tuple[str, str], bool] = {}
        self._distinct: dict[tuple[str, str], int] = {}

    def _probe(self, ref: TableSample) -> bool:
        """Whether the data may be read beyond `ref`'s sample (counted against MAX_PROBES)."""
        if ref.complete:
            return True
        self.probes += 1
        return self.probes <= MAX_PROBES

    def unique(self, table: str, column: str) -> bool:
        key = (table, column)
        if key not in self._unique:
            ref = self.samples[table]
            self._unique[key] = ref.unique(column) and self._probe(ref) and unique_in_table(self.engine, ref, column)
        return self._unique[key]

    def distinct(self, table: str, column: str) -> int:
        """A referring column's distinct values: the sample's, or over the table's first COUNT_CAP rows when the
        sample is not the whole table (counted against MAX_PROBES; read once per column)."""
        key, sample = (table, column), self.samples[table]
        if key not in self._distinct:
            held = len(sample.distinct(column))
            full = not sample.complete and self._probe(sample)
            self._distinct[key] = max(held, distinct_in_table(self.engine, sample, column)) if full else held
        return self._distinct[key]

    def inclusion(self, left: tuple[str, str], right: tuple[str, str]) -> tuple[float, int]:
        ref = self.samples[right[0]]
        if not self._probe(ref):
            return 0.0, 0
        # a value with no letter or digit ('*', '-', '?') is a placeholder for "unknown", never a reference
        held = [v for v in self.samples[left[0]].distinct(left[1]) if re.search(r"[^\W_]", str(v))]
        found, n = found_in(self.engine, held, ref, right[1])
        return (found / n if n else 0.0), n

    def name_rule(self, rule: str, left: tuple[str, str], right: tuple[str, str]) -> Inferred | None:
        if self.samples[right[0]].rows is None or not self.unique(*right):
            return None
        share, n = self.inclusion(left, right)
        weak = rule.startswith("both keys") and not (
            self._refers(left, right, self.distinct(*left), share, rule != "both keys") or self._paired(left, right)
        )
        if not n or share < INCLUSION or weak:
            return None
        return Inferred(f"{left[0]}.{left[1]}", f"{right[0]}.{right[1]}", rule, share, n, RULES[rule] + share)

    def same_values(self, left: tuple[str, str], right: tuple[str, str]) -> Inferred | None:
        """Names that share nothing ('buyer', 'id'; `_value_candidates` picked the pair): the data alone must
        show a reference. The referring column repeats (or pairs 1:1, `_one_to_one`) and holds at least
        MIN_DISTINCT values, the referenced one is unique, and nearly all of its sampled values are found there,
        reaching a quarter of the referenced rows (or the whole probe): small integers and a handful of labels
        are found in many columns by chance."""
        held = self.samples[left[0]].distinct(left[1])
        if self.samples[left[0]].unique(left[1]):
            if not self._one_to_one(left, right):
                return None
        elif not self._refers(left, right, self.distinct(*left), 1.0) or not self.unique(*right):
            return None
        share, n = self.inclusion(left, right)
        if not n or share < INCLUSION:
            return None
        reach = min(1.0, len(held) / max(1, min(self.samples[right[0]].count, COUNT_CAP)))
        return Inferred(
            f"{left[0]}.{left[1]}",
            f"{right[0]}.{right[1]}",
            "same values",
            share,
            n,
            RULES["same values"] + share * reach,
        )

    def _paired(self, left: tuple[str, str], right: tuple[str, str]) -> bool:
        """A unique column of codes paired 1:1 with the referenced one (`_pairable`, `_one_to_one`)."""
        return _pairable(self.samples[left[0]], left[1]) and self._one_to_one(left, right)

    def _one_to_one(self, left: tuple[str, str], right: tuple[str, str]) -> bool:
        """Two unique columns of text codes ('LA', 'MS') or of sparse integer codes (`_sparse`), each one's values
        found in the other: one row of each table per code (a state's rates, its row of states). Integer ids
        numbered 1..n are never paired so (numbering coincides). The larger table (rows, then columns) refers, so
        the pair is proposed once."""
        a, b = self.samples[left[0]], self.samples[right[0]]
        if (a.count, len(a.columns), b.name) <= (b.count, len(b.columns), a.name) or not self.unique(*right):
            return False
        share, n = self.inclusion(right, left)
        return n >= MIN_DISTINCT and share >= INCLUSION

    def _refers(
        self, left: tuple[str, str], right: tuple[str, str], distinct: int, share: float, named: bool = False
    ) -> bool:
        """For names that say little ('SourceID', 'AirportID') or nothing, inclusion alone is weak: small
        integers (1..7) are found in every id column. The referring column must repeat (a unique id found in
        another unique id is a coincidence of numbering), hold at least MIN_DISTINCT values, and reach a
        quarter of the referenced rows (or fill a whole probe). `named`: the names say the same thing."""
        rows = max(1, min(self.samples[right[0]].count, COUNT_CAP))
        held = self.samples[left[0]].distinct(left[1])
        # a fact table's dates keyed yyyymmdd reach a few of a calendar's rows: a referenced column of sparse integer
        # codes under a name that says the same thing is no coincidence of numbering (`_sparse`), as ids 1..n are
        coded_key = named and _sparse(self.samples[right[0]].distinct(right[1]))
        reach = distinct >= PROBE_VALUES or distinct * share / rows >= 0.25 or coded_key
        # coded labels ('AYR', 'PEN') are no small integers, and small integers under names that say the same
        # thing ('md_cd', `mode_code`) are no coincidence: found in a unique column whose rows they mostly cover,
        # a handful of them is a lookup's key ('brd_cd' -> `breeds.breed_code`)
        coded = (named or _codes(held)) and distinct * share / rows >= 0.5
        enough = distinct >= MIN_DISTINCT or (coded and distinct >= 2)
        return enough and reach and not self.samples[left[0]].unique(left[1])


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
        ends = frozenset(join_ends(j))
        if len(ends) == 2 and ends <= set(tables):
            by_pair.setdefault(ends, []).append(j)
    return [group for group in by_pair.values() if len(group) > 1]


def as_entries(declared: list[str], inferred: list[Inferred]) -> list[Any]:
    """The `joins:` list of a drafted layer: declared keys as plain strings first, then each inferred join
    as `{on, inferred: evidence}` (delete the entry to drop it; keep only `on` to confirm it)."""
    return [*declared, *({"on": j.on, "inferred": j.evidence} for j in inferred)]
