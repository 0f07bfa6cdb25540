"""The semantic layer: one YAML file per database that says what the tables and columns mean.

```yaml
database: tpch
tables:
  lineitem:
    description: one part shipped as part of an order
    columns:
      l_shipdate: {type: DATE, description: day the line was shipped, synonyms: [ship date]}
      l_shipmode: {type: VARCHAR, values: true}      # its values are indexed for entity resolution
joins: ["lineitem.l_orderkey = orders.o_orderkey"]
terms:                                               # business terms that are formulas, not columns
  delay: {sql: "l_receiptdate - l_commitdate", unit: days, columns: [lineitem.l_receiptdate, lineitem.l_commitdate]}
```

`orrery bi describe DB` (and `connect`) drafts it from the schema and the data (declared keys, then joins
found from names and confirmed by the data, marked `inferred`; descriptions from names and sampled values;
`values` for short text columns); an analyst edits descriptions, synonyms and terms. Only the slice relevant to a question goes
into a prompt (`retrieve`), so a 50-table schema fits a small model's context.
"""

from __future__ import annotations

import functools
import heapq
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from orrery.bi.engines import Engine
from orrery.bi.joins import discover, join_columns, join_ends, sides
from orrery.bi.names import VOWELS, abbreviates, singular, words
from orrery.bi.profile import TableSample, profile
from orrery.errors import ConfigError

SHIPPED = Path(__file__).parent / "semantic"
VALUE_MAX_DISTINCT = 2000
VALUE_MAX_LENGTH = 40
# a column type that holds numbers (HUGEINT, BIGINT ... hold INT)
NUMERIC = re.compile(r"INT|REAL|DOUBLE|DECIMAL|NUMERIC|FLOAT", re.I)

# the units a column's name may end in and a question may name: (dimension, size in the dimension's base unit)
UNITS = {
    **dict.fromkeys(("ms", "millisecond", "milliseconds"), ("time", 0.001)),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), ("time", 1.0)),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), ("time", 60.0)),
    **dict.fromkeys(("hr", "hrs", "hour", "hours"), ("time", 3600.0)),
    **dict.fromkeys(("mg", "milligram", "milligrams"), ("mass", 0.001)),
    **dict.fromkeys(("g", "gram", "grams"), ("mass", 1.0)),
    **dict.fromkeys(("kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"), ("mass", 1000.0)),
    **dict.fromkeys(("oz", "ounce", "ounces"), ("mass", 28.349523125)),
    **dict.fromkeys(("lb", "lbs", "pound", "pounds"), ("mass", 453.59237)),
    **dict.fromkeys(("mm", "millimeter", "millimeters", "millimetre", "millimetres"), ("length", 0.001)),
    **dict.fromkeys(("cm", "centimeter", "centimeters", "centimetre", "centimetres"), ("length", 0.01)),
    **dict.fromkeys(("m", "meter", "meters", "metre", "metres"), ("length", 1.0)),
    **dict.fromkeys(("km", "kilometer", "kilometers", "kilometre", "kilometres"), ("length", 1000.0)),
    **dict.fromkeys(("in", "inch", "inches"), ("length", 0.0254)),
    **dict.fromkeys(("ft", "foot", "feet"), ("length", 0.3048)),
    **dict.fromkeys(("mi", "mile", "miles"), ("length", 1609.344)),
}
# the dimension a question's quantity word names ('flipper length' of `flipper_mm`)
QUANTITIES = {
    **dict.fromkeys(("length", "width", "height", "depth", "distance"), "length"),
    **dict.fromkeys(("weight", "mass"), "mass"),
}


@dataclass
class Semantic:
    database: str
    tables: dict[str, dict[str, Any]]
    joins: list[str] = field(default_factory=list)
    terms: dict[str, dict[str, Any]] = field(default_factory=dict)
    description: str = ""
    inferred: dict[str, str] = field(default_factory=dict)  # a join found from names and data -> its evidence

    # -- loading -----------------------------------------------------------------------------------
    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Semantic:
        if not isinstance(d, dict) or not isinstance(d.get("tables"), dict):
            raise ConfigError(
                "a semantic layer file needs `database` and a `tables` mapping; draft one with `orrery bi describe DB`"
            )
        tables = {
            t: {"description": (v or {}).get("description", ""), "columns": dict((v or {}).get("columns") or {})}
            for t, v in d["tables"].items()
        }
        joins, inferred = [], {}
        for entry in d.get("joins") or []:  # "a.x = b.y", or {on: "a.x = b.y", inferred: evidence} from a draft
            on = entry.get("on") if isinstance(entry, dict) else entry
            if not isinstance(on, str) or on.count("=") != 1 or on.count(".") != 2:
                raise ConfigError(f"a join in the semantic layer must read 'table.column = table.column', not {on!r}")
            joins.append(on)
            if isinstance(entry, dict) and entry.get("inferred"):
                inferred[on] = str(entry["inferred"])
        return cls(
            str(d.get("database", "")), tables, joins, dict(d.get("terms") or {}), d.get("description", ""), inferred
        )

    def to_dict(self) -> dict[str, Any]:
        joins = [{"on": j, "inferred": self.inferred[j]} if j in self.inferred else j for j in self.joins]
        return {
            "database": self.database,
            "description": self.description,
            "tables": self.tables,
            "joins": joins,
            "terms": self.terms,
        }

    # -- lookups -----------------------------------------------------------------------------------
    def columns(self) -> list[tuple[str, str, dict[str, Any]]]:
        return [(t, c, info or {}) for t, v in self.tables.items() for c, info in v["columns"].items()]

    def value_columns(self) -> list[tuple[str, str]]:
        return [(t, c) for t, c, info in self.columns() if info.get("values")]

    def column_text(self, column: str, info: dict[str, Any]) -> list[str]:
        """The names a column answers to: its words, synonyms and description."""
        return [words(column), *info.get("synonyms", []), info.get("description", "")]

    def join_graph(self) -> dict[str, set[str]]:
        graph: dict[str, set[str]] = {t: set() for t in self.tables}
        for j in self.joins:
            left, right = join_ends(j)
            if left in graph and right in graph:
                graph[left].add(right)
                graph[right].add(left)
        return graph

    def join_path(self, tables: list[str], scores: dict[str, float] | None = None) -> list[str]:
        """`tables` plus those on the cheapest join paths connecting each to the ones before it. A hop into
        a table costs 1 plus how little the question names it, so among equally short paths the one
        through tables the question mentions wins (customer-orders-lineitem, not nation-supplier-lineitem)."""
        graph, keep, scores = self.join_graph(), list(dict.fromkeys(tables)), scores or {}
        for target in list(keep[1:]):
            dist: dict[str, float] = {t: 0.0 for t in keep[: keep.index(target)]}
            prev: dict[str, str | None] = dict.fromkeys(dist)
            heap = [(0.0, t) for t in dist]
            while heap:
                d, node = heapq.heappop(heap)
                if node == target or d > dist[node]:
                    continue
                for nxt in graph.get(node, ()):
                    nd = d + 1 + (100 - scores.get(nxt, 0.0)) / 100
                    if nd < dist.get(nxt, float("inf")):
                        dist[nxt], prev[nxt] = nd, node
                        heapq.heappush(heap, (nd, nxt))
            step = prev.get(target)
            while step is not None:
                if step not in keep:
                    keep.append(step)
                step = prev[step]
        return keep

    # -- retrieval ---------------------------------------------------------------------------------
    def score_tables(self, question: str) -> dict[str, float]:
        """How strongly the question names each table, its columns or a term over it (fuzzy word overlap)."""
        q = question.lower()
        scores: dict[str, float] = {}
        for table, v in self.tables.items():
            names = [words(table), v.get("description", "")]
            best = max(fuzz.partial_ratio(n, q) for n in names if n) if any(names) else 0.0
            col_best = max(
                (
                    fuzz.partial_ratio(s, q)
                    for c, info in v["columns"].items()
                    for s in self.column_text(c, info)[:-1]
                    if len(s) > 2
                ),
                default=0.0,
            )
            scores[table] = max(best, col_best * 0.9)
        for term, info in self.terms.items():
            if fuzz.partial_ratio(term.lower(), q) >= 90:
                for col in info.get("columns", []):
                    t = col.split(".")[0]
                    if t in scores:
                        scores[t] = max(scores[t], 95.0)
        return scores

    def retrieve(self, question: str, *, k: int = 3, extra: list[str] = ()) -> list[str]:
        """The tables to show for `question`: the best `k` that score near the best, then those in `extra`
        (from resolved values and fields), joined up along the join paths (the question's own tables come
        first so the paths run through them: customer-orders-lineitem, not nation-supplier-lineitem)."""
        scores = self.score_tables(question)
        ranked = sorted(scores, key=lambda t: -scores[t])
        floor = max(80.0, scores[ranked[0]] - 10) if ranked else 0.0
        picked = list(dict.fromkeys([*[t for t in ranked[:k] if scores[t] >= floor], *extra])) or ranked[:1]
        return self.join_path(picked, scores)

    def render_ddl(self, tables: list[str], question: str = "") -> str:
        """The slice as CREATE TABLE statements with comments and foreign keys: the schema format
        code models see in text-to-SQL training."""
        out = []
        for t in tables:
            v = self.tables[t]
            lines = [
                f"  {c} {info.get('type', '')}".rstrip()
                + ","
                + (f" -- {info['description']}" if info.get("description") else "")
                for c, info in v["columns"].items()
            ]
            for j in self.joins:
                left, right = join_columns(j)
                for (ta, ca), (tb, cb) in ((left, right), (right, left)):
                    if ta == t and tb in tables:
                        lines.append(f"  FOREIGN KEY ({ca}) REFERENCES {tb}({cb}),")
            lines[-1] = lines[-1].replace(",", "", 1) if lines[-1].rstrip().endswith(",") else lines[-1]
            head = f"CREATE TABLE {t} (" + (f" -- {v['description']}" if v.get("description") else "")
            out.append(head + "\n" + "\n".join(lines) + "\n);")
        q = question.lower()
        terms = [
            f"-- {name} = {info['sql']}" + (f" ({info['unit']})" if info.get("unit") else "")
            for name, info in self.terms.items()
            if "sql" in info and (not q or fuzz.partial_ratio(name, q) >= 90)
        ]
        return "\n".join(out + terms)

    def render(self, tables: list[str], question: str = "") -> str:
        """The prompt text for a slice: tables with typed, described columns, their joins, matching terms."""
        lines = []
        for t in tables:
            v = self.tables[t]
            cols = []
            for c, info in v["columns"].items():
                note = info.get("description") or ""
                cols.append(f"{c} {info.get('type', '')}".strip() + (f" -- {note}" if note else ""))
            head = f"TABLE {t}" + (f" -- {v['description']}" if v.get("description") else "")
            lines.append(head + "\n  " + "\n  ".join(cols))
        joins = [j for j in self.joins if sides(j) <= set(tables)]
        if joins:
            lines.append("JOINS: " + "; ".join(joins))
        q = question.lower()
        terms = [
            f"{name} = {info['sql']}" + (f" ({info['unit']})" if info.get("unit") else "")
            for name, info in self.terms.items()
            if "sql" in info and (not q or fuzz.partial_ratio(name, q) >= 90)
        ]
        if terms:
            lines.append("TERMS: " + "; ".join(terms))
        return "\n".join(lines)


def named_fields(semantic: Semantic, tables: list[str], question: str) -> list[tuple[str, str]]:
    """(phrase, column or formula) for each column name, synonym or term the question spells out word for
    word ('arrived' -> lineitem.l_receiptdate, 'commit date' -> lineitem.l_commitdate), within the slice.
    A phrase that is its table's own name ('customer') or fits several columns says nothing and is left out."""
    q = stems(question)

    def said(phrase: str) -> bool:
        p = stems(phrase)
        return bool(p) and any(q[i : i + len(p)] == p for i in range(len(q)))

    found: dict[str, set[str]] = {}
    for table in tables:
        own = stems(words(table))
        for column, info in semantic.tables[table]["columns"].items():
            for phrase in (words(column), *info.get("synonyms", [])):
                if stems(phrase) != own and said(phrase):
                    found.setdefault(phrase.lower(), set()).add(f"{table}.{column}")
    for name, info in semantic.terms.items():
        for phrase in (name, *info.get("synonyms", [])):
            if said(phrase):
                found.setdefault(phrase.lower(), set()).add(info["sql"])

    def inside(a: str, b: str) -> bool:  # 'price' inside 'total price': the longer phrase is what was said
        pa, pb = stems(a), stems(b)
        return len(pa) < len(pb) and any(pb[i : i + len(pa)] == pa for i in range(len(pb)))

    return [
        (phrase, next(iter(targets)))
        for phrase, targets in found.items()
        if len(targets) == 1 and not any(inside(phrase, other) for other in found)
    ]


# -- field mapping: business terms -> columns and formulas ---------------------------------------------
# Words that name an aggregate or a time grain, not a field: "number of orders" maps like "orders".
GENERIC = frozenset(
    [
        "number",
        "of",
        "count",
        "total",
        "amount",
        "sum",
        "combined",
        "average",
        "avg",
        "mean",
        "median",
        "min",
        "minimum",
        "max",
        "maximum",
        "how",
        "many",
        "much",
        "per",
        "by",
        "each",
        "the",
        "a",
        "an",
        "all",
        "list",
        "top",
        "year",
        "years",
        "month",
        "months",
        "day",
        "days",
        "week",
        "weeks",
        "quarter",
        "quarters",
        "date-wise",
        # a share of the rows is computed from counts (compose.py), no column holds it
        "percentage",
        "percent",
        "proportion",
        "fraction",
        "share",
    ]
)


def schema_words(semantic: Semantic) -> set[str]:
    """Every word (singular) of the database's, tables', columns' and terms' names and synonyms, and the letters
    of a word written with digits ('paris' of a table `paris24_results`: a name the schema holds)."""
    texts = [semantic.database, *(words(t) for t in semantic.tables)]
    texts += [" ".join((words(c), *info.get("synonyms", []))) for _, c, info in semantic.columns()]
    texts += [" ".join([k, *info.get("synonyms", [])]) for k, info in semantic.terms.items()]
    found = (re.findall(r"[a-z0-9]+", t) + re.findall(r"[a-z]+(?=\d)", t) for t in map(str.lower, texts))
    return {singular(w) for ws in found for w in ws}


def stems(text: str) -> list[str]:
    return [
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        for w in re.findall(r"[a-z0-9]+", text.lower())
    ]


# A short verb doubles its last consonant before -ing / -ed ('ship' -> 'shipping'); 'l', 's', 'f', 'z' are left
# out, being doubled in the word itself ('call' -> 'called', 'sell' -> 'selling').
_DOUBLED = re.compile(r"([a-z]{2,}?)([bdgmnprt])\2(?:ing|ed)")


def word_root(word: str) -> str:
    """A word without its inflection ('rated', 'rating': 'rat'; 'billed', 'billing': 'bill'), to tell that two
    words are forms of one."""
    return re.sub(r"(?:ings?|ed|er|ers|es|s)$", "", word) if len(word) > 4 else word


def verb_root(word: str) -> str:
    """A verb's form with a doubled consonant reduced to the verb ('shipping', 'shipped' -> 'ship': `ship_mode`);
    any other word as it is. Only a head noun is read so: in `stems`, 'shipped' of a ship date's description
    made 'ship mode' the ship date."""
    return m[1] + m[2] if (m := _DOUBLED.fullmatch(word)) else word


_YEAR_IN_NAME = re.compile(r"(?<=[a-z_])(\d{4}|\d{2})(?![0-9])", re.I)


def table_year(table: str) -> int | None:
    """The year a table's name carries (`sochi14_tally`: 2014, `results_1998`): its rows are of that year. A
    two-digit year is of this century up to this year, else of the last."""
    now = time.gmtime().tm_year
    for m in _YEAR_IN_NAME.finditer(table):
        y = int(m.group(1))
        y = y if y >= 100 else 2000 + y if 2000 + y <= now else 1900 + y
        if 1000 <= y <= now:
            return y
    return None


def two_digit_year(column: str, lo: float, hi: float) -> bool:
    """Whether a column whose values run from `lo` to `hi` holds years by their last two digits: named as a year
    (`yr` by `abbreviates`) and every value from 0 to 99 (a model year 70 to 82). The SQL step compares a year the
    question writes with it by those digits, and the year check reads its range so."""
    return lo >= 0 and hi < 100 and named_year(column)


def named_year(column: str) -> bool:
    """A column named as a year: 'year', 'model_year', `yr` (`abbreviates`)."""
    return any(w == "year" or abbreviates(w, "year") for w in stems(words(column)))


def user_abbreviates(word: str, name_word: str) -> bool:
    """Whether a user's word shortens a word of a name: only as a bare prefix of three letters ('pop' of
    'population'); a user writes words, and other short forms of them are false matches ('in' / 'invoice',
    'car' / 'category', 'top' / 'totalprice': measured over every set's questions and column names)."""
    return len(word) == 3 and name_word.startswith(word) and name_word[3:4] in VOWELS and abbreviates(word, name_word)


@functools.lru_cache(maxsize=65536)  # term_score asks it per (term, column label), both sides, on every ranking
def spelled_as(text: str, term: str, user: bool = False) -> str:
    """`text` with each word that abbreviates a word of `term` written out as that word ('hp' -> 'horsepower'
    for the term 'horsepower'), so that a user's whole word finds the column its name shortens; `user`: the
    text is the user's (`user_abbreviates`)."""
    own = re.findall(r"[a-z]+", term.lower())
    short = user_abbreviates if user else abbreviates
    tokens = re.findall(r"[a-z0-9]+", text.lower())
    lead = [] if user or not tokens else [initials(tokens[0], tuple(own))]  # `bp_k`, `mpg`
    if lead and lead[0]:
        return " ".join([lead[0], *(next((w for w in own if short(t, w)), t) for t in tokens[1:])])
    return " ".join(next((w for w in own if short(t, w)), t) for t in tokens)


def initials(token: str, words_: tuple[str, ...]) -> str | None:
    """The run of `words_` whose first letters make `token` (a name's leading short form of consonants: `bp_k`
    for 'boiling point'), or None."""
    n = len(token)
    if not (2 <= n <= 3 and token.isalpha()) or VOWELS & set(token):
        return None
    return next(
        (
            " ".join(words_[i : i + n])
            for i in range(len(words_) - n + 1)
            if "".join(w[0] for w in words_[i : i + n]) == token
        ),
        None,
    )


def term_score(term: str, text: str) -> float:
    """How well a business term names a column label (0-100): whole-string and word-order-free similarity,
    'ship date' = 'shipdate', and 90 when every word of the term is a word of the label ('date' in
    'ship date'); an abbreviation of a word of the other side counts as the word (`abbreviates`: 'hp' for
    'horsepower', the user's 'pop' for 'population'). Unlike partial
    matching, 'age' does not match 'package' nor 'count' 'discount'."""
    a, b = " ".join(stems(spelled_as(term, text, user=True))), " ".join(stems(spelled_as(text, term)))
    if not a or not b:
        return 0.0
    score = max(fuzz.ratio(a, b), fuzz.token_sort_ratio(a, b), fuzz.ratio(a.replace(" ", ""), b.replace(" ", "")))
    if set(a.split()) < set(b.split()) and b != " ".join(stems(text)):
        return 90.0  # 'weight' is each of `k_wt`, `mg_wt` written out: the letters left over do not rank them
    if set(a.split()) <= set(b.split()):
        score = max(score, 90.0)
    return score


def rank_fields(semantic: Semantic, term: str) -> list[tuple[float, str, dict[str, Any]]]:
    """(score, label, field) for every column and formula, best first."""
    term = re.sub(r"[\s_]+", " ", term.lower()).strip()  # 'total_amount' is 'total amount'
    bare = " ".join(w for w in term.split() if w not in GENERIC)
    # 'amount' names the quantity of the thing beside it ('sale amount' is sales); alone it is a field's name
    bare = bare or " ".join(w for w in term.split() if w == "amount")
    if not bare:
        return []
    forms = {bare, term}

    def score(labels: list[str]) -> float:
        return max(term_score(f, s) for f in forms for s in labels if s)

    out = []
    for name, info in semantic.terms.items():
        best = score([name, *info.get("synonyms", [])])
        if set(stems(bare)) <= set(stems(info.get("description") or "")):
            best = max(best, 85.0)
        out.append((best, f"{name} ({info['sql']})", {"sql": info["sql"], "table": _term_table(info)}))
    for table, column, info in semantic.columns():
        names = [words(column), *info.get("synonyms", [])]
        best = score(names + [f"{words(table)} {n}" for n in names])
        desc = info.get("description") or ""
        if desc and set(stems(bare)) <= set(stems(desc)):  # every word of the term is in the description
            best = max(best, 85.0)
        label = f"{table}.{column}" + (f" ({desc})" if desc else "")
        out.append((best, label, {"table": table, "column": column}))
    return sorted(out, key=lambda r: -r[0])


def _term_table(info: dict[str, Any]) -> str | None:
    cols = info.get("columns") or []
    return cols[0].split(".")[0] if cols else None


# -- drafting --------------------------------------------------------------------------------------------
# Abbreviations common in column names, written out as synonyms so a question's words find the column.
ABBREVIATIONS = {
    "qty": "quantity",
    "amt": "amount",
    "num": "number",
    "nbr": "number",
    "no": "number",
    "desc": "description",
    "dt": "date",
    "ts": "timestamp",
    "pct": "percent",
    "cust": "customer",
    "prod": "product",
    "cat": "category",
    "dept": "department",
    "emp": "employee",
    "addr": "address",
    "avg": "average",
    "tot": "total",
    "yr": "year",
    "mo": "month",
    "cnt": "count",
    "val": "value",
    "ctry": "country",
    "mgr": "manager",
    "loc": "location",
    "acct": "account",
    "bal": "balance",
    "txn": "transaction",
    "inv": "invoice",
    "pmt": "payment",
    "ord": "order",
    "src": "source",
    "dest": "destination",
    "dst": "destination",
    "lat": "latitude",
    "lon": "longitude",
    "lng": "longitude",
    "alt": "altitude",
    "pop": "population",
    "temp": "temperature",
    "min": "minimum",
    "max": "maximum",
    "std": "standard",
}
SAMPLES = 3


def draft(engine: Engine) -> Semantic:
    """A first semantic layer from the schema and bounded samples of the data (profile.py): every column with
    its type, a description from its name and sampled values (the most common values of a text column, the
    range of a number or a date), `values: true` on short categorical text columns (indexed for entity
    resolution), synonyms for abbreviations and the other grammatical number of its name; the joins the
    database declares, then the ones names or values propose and the data confirms (`joins.discover`),
    marked `inferred` with their evidence."""
    from orrery.bi.engines import declared_joins

    tables = engine.tables()
    samples = profile(engine, tables)
    out = {t: _describe_table(t, samples[t]) for t in tables}
    declared = [j for j in declared_joins(engine) if len(sides(j)) == 2]
    inferred = discover(engine, tables, declared, samples)
    return Semantic(
        engine.name, out, [*declared, *(j.on for j in inferred)], inferred={j.on: j.evidence for j in inferred}
    )


def _describe_table(table: str, sample: TableSample) -> dict[str, Any]:
    names = [words(c.name) for c in sample.columns]
    rows = (
        "not profiled (time budget)"
        if sample.rows is None
        else (f"over {sample.count - 1} rows" if sample.over else f"{sample.count} rows")
    )
    return {
        "description": f"{words(table)}, {rows}: " + ", ".join(names[:12]) + (", ..." if names[12:] else ""),
        "columns": {c.name: _describe_column(sample, c.name, c.type) for c in sample.columns},
    }


def _describe_column(sample: TableSample, column: str, dtype: str) -> dict[str, Any]:
    info: dict[str, Any] = {"type": dtype, "description": words(column), "synonyms": _synonyms(column)}
    if sample.rows is None:
        return info
    values = sample.values(column)
    if not values:
        info["description"] += "; always empty" if sample.complete else "; empty in the sample"
    elif _is_text(dtype):
        distinct = len(set(values))
        shown = ", ".join(repr(str(v)[:30]) for v in sample.top(column, SAMPLES))
        info["description"] += f"; {distinct}{'' if sample.complete else '+'} distinct, e.g. {shown}"
        length = sum(len(str(v)) for v in values) / len(values)
        if distinct <= VALUE_MAX_DISTINCT and length <= VALUE_MAX_LENGTH:
            info["values"] = True
    else:
        try:
            low, high = min(values), max(values)
        except TypeError:  # mixed types in a SQLite column
            low, high = min(map(str, values)), max(map(str, values))
        info["description"] += f"; from {low} to {high}" + ("" if sample.complete else " in a sample")
    return info


def _other_number(phrase: str) -> str | None:
    """'city' -> 'cities', 'categories' -> 'category': the last word in the other grammatical number where
    that is more than a final 's' (which every match of words already ignores)."""
    head, _, last = phrase.rpartition(" ")
    if last.endswith("ies") and len(last) > 4:
        other = last[:-3] + "y"
    elif last.endswith("y") and len(last) > 2 and last[-2] not in "aeiou":
        other = last[:-1] + "ies"
    else:
        return None
    return f"{head} {other}".strip()


def _synonyms(column: str) -> list[str]:
    """Abbreviations written out ('order_qty' -> 'order quantity') and the other number ('city' -> 'cities')."""
    name = words(column)
    spelled = " ".join(ABBREVIATIONS.get(w, w) for w in name.split())
    return [s for s in dict.fromkeys([spelled, _other_number(spelled)]) if s and s != name]


def _is_text(dtype: str) -> bool:
    return bool(re.match(r"(VARCHAR|TEXT|CHAR|CHARACTER|NVARCHAR|STRING)", dtype.strip(), re.I))


# -- files -------------------------------------------------------------------------------------------------
def user_path(db: str) -> Path:
    from orrery.bi.data import bi_home

    return bi_home() / "semantic" / f"{db}.yaml"


def load(db: str, engine: Engine) -> Semantic:
    """The analyst's file if there is one, else the shipped one for a built-in database, else a draft."""
    import yaml

    for path in (user_path(db), SHIPPED / f"{db}.yaml"):
        if path.is_file():
            try:
                return Semantic.from_dict(yaml.safe_load(path.read_text()))
            except yaml.YAMLError as exc:
                raise ConfigError(
                    f"{path} is not valid YAML ({str(exc).splitlines()[0]}); fix it or delete it "
                    "and draft again with `orrery bi describe`"
                ) from exc
    return drafted(engine)


_DRAFTS: dict[tuple[str, str], Semantic] = {}


def drafted(engine: Engine) -> Semantic:
    """`draft(engine)`, made once per database and process (it reads the data to find joins and samples)."""
    key = (engine.name, str(getattr(engine, "path", "") or getattr(engine, "url", "")))
    if key not in _DRAFTS:
        _DRAFTS[key] = draft(engine)
    return _DRAFTS[key]


def write_draft(db: str, engine: Engine) -> Path:
    """Write a draft for the analyst to edit: `<db>.yaml` the first time, then `<db>.draft.yaml`,
    `<db>.draft-2.yaml`, ... beside it. No file is ever replaced: the draft is written to a temporary file and
    linked under the first free name (a link fails on an existing name, so two runs at once cannot collide)."""
    import os
    import tempfile

    import yaml

    text = yaml.safe_dump(
        (load(db, engine) if (SHIPPED / f"{db}.yaml").is_file() else draft(engine)).to_dict(),
        sort_keys=False,
        allow_unicode=True,
        width=110,
    )
    first = user_path(db)
    first.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{first.name}.", suffix=".tmp", dir=first.parent)
    try:
        with open(fd, "w") as f:
            f.write(text)
        for n in range(1, 1000):
            path = first if n == 1 else first.with_suffix(".draft.yaml" if n == 2 else f".draft-{n - 1}.yaml")
            try:
                os.link(tmp, path)
                return path
            except FileExistsError:
                continue
        raise ConfigError(f"{first.parent} already holds 998 drafts of {db}; delete the ones you do not need")
    finally:
        os.unlink(tmp)
