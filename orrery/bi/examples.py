"""Approved examples for the BI agent: question -> SQL pairs a person approved, per connection (the database's
name), given as earlier turns to the plan step and the SQL step for the nearest questions, and taken by the
decline judgment as evidence that the data holds a term an approved question used, or a term near the name of a
table or column a near approved query read (`ExampleMemory.covers`).

Only an approval writes (`approve`, `orrery bi approve RUN`, the web app's thumbs-up); a rejection never stores
anything and withdraws nothing unless asked (`reject(..., withdraw=True)`). The pairs live in the session
database through `orrery.recall.ApprovedExamples`; an answer to approve is found by its run id: a CLI session's
last answered query (`last_answer`), or a served run's `bi` state (`orrery.serve.feedback`).
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from orrery.apps import ID_PATTERN
from orrery.bi.decline import GRAMMAR, RANKING, categories, named_values, user_wrote, value_word
from orrery.bi.engines import QueryError
from orrery.bi.guard import UnsafeQuery
from orrery.bi.names import singular
from orrery.bi.relax import conjuncts
from orrery.bi.semantic import GENERIC, Semantic, schema_words, stems, word_root, words
from orrery.errors import DataError
from orrery.messages import Message
from orrery.recall.embed import Remembered, lazy_embedder
from orrery.recall.examples import APP, MAX_SQL, OWNER, ApprovedExamples, Example
from orrery.recall.store import Item, Scope

if TYPE_CHECKING:
    from orrery.bi.context import BIContext
    from orrery.bi.engines import Engine

ID = re.compile(ID_PATTERN)  # a run id or database name a user names (a CLI session, a served run)
K = 3  # approved pairs given per SQL call (the nearest last in the prompt)
# Shown only when its question is this similar (MiniLM cosine) to the new one: in bench/bi_memory.md's first run
# the one answer an example turned wrong ("average account balance of customers" -> grouped by name) followed a
# pair at 0.04 ("List the names of the nations in ASIA"); unrelated questions score below ~0.3 with this model.
FLOOR = 0.3
# A grown memory holds many pairs near a question of other shapes: the k shown are the nearest that fit, looked
# for among the POOL * k nearest (bench/bi_memory.md, `grown`).
POOL = 3
# A pair shown to the plan and SQL steps is at least this similar (MiniLM cosine): in bench/bi_memory.md's `grown`
# run the pairs that turned answers wrong were at 0.55-0.62, those that turned them right at 0.47-0.90; a pair
# below 0.6 is too far to copy (it may still count as evidence for the decline judgment, above FLOOR).
SHOW_FLOOR = 0.6
CACHED = 256  # (connection, question, k) kept by `ExampleMemory._scored`: a few per question asked
Valued = Callable[[str], bool] | None  # whether a lower-case word is a word of a value the data stores (`value_test`)
FIELD = "field"  # a store item: a person's answer to which column a term no column holds means (`keep_field`)
MAX_TERM = 64
TERM = re.compile(r"[a-z0-9]+(?: [a-z0-9]+)*")  # a kept term's normal form (`field_term`), whole


class NotApprovable(DataError):
    """The run named has no answered query to approve."""


class BadCorrection(DataError):
    """A person's corrected SQL that is not kept: empty, too long, not one read-only query, or not one the run's
    connection plans."""


def check_id(what: str, value: str) -> str:
    if not isinstance(value, str) or not ID.match(value):
        raise DataError(f"{what} {str(value)[:80]!r} is not an id: use 1-64 letters, digits, '_' or '-'")
    return value


def field_term(term: str) -> str | None:
    """A term's normal form as a key: lower case, single spaces, each word singular ('Ship  Modes' -> 'ship
    mode'); None (never kept) unless short and of letters, digits and spaces only."""
    normal = " ".join(singular(w) for w in re.split(r"[\s_-]+", str(term).lower().strip()) if w)
    return normal if len(normal) <= MAX_TERM and TERM.fullmatch(normal) else None


def _core(text: str) -> tuple[str, ...]:
    """The words a kept term is matched by: lower case, singular, aggregate and count words aside ('the number of
    Babies' and 'baby' are one term; 'birth rate' and 'kids per woman' are two)."""
    return tuple(w for w in (singular(w) for w in re.findall(r"[a-z0-9]+", str(text).lower())) if w not in GENERIC)


def _said_at(core: tuple[str, ...], question: str) -> list[tuple[int, int]]:
    """Where the question says a term (`_core`) in its own words, case and plurals aside, aggregate and count words
    between them aside: (start, end) of each place, 'Kids Per Woman' for 'kid per woman'."""
    own = [m for m in re.finditer(r"[A-Za-z0-9]+", question) if singular(m.group(0).lower()) not in GENERIC]
    said = tuple(singular(m.group(0).lower()) for m in own)
    n = len(core)
    starts = [i for i in range(len(said) - n + 1) if n and said[i : i + n] == core]
    return [(own[i].start(), own[i + n - 1].end()) for i in starts]


# A kept term said inside a longer noun phrase names another thing ('male population', 'salary cap', 'major league':
# bench/bi_memory.md, round 27: 10 of 11 wrong matches): read only where no word right beside it extends it
# (bench/bi_memory_r28.md). A word before extends it as a modifier, a word after as the phrase's head; a hyphen
# joins ('sub-category'), any other mark ("Brazil's", a comma) ends the phrase.
_BEFORE = re.compile(r"(?<![\w'’])([A-Za-z0-9]+)(?:\s+|-)$")
_AFTER = re.compile(r"(?:\s+|-)([A-Za-z0-9]+)(?![\w'’])")


def _said_itself(question: str, span: tuple[int, int], own: frozenset[str], valued: Valued = None) -> bool:
    """Whether the term at `span` is said as itself: the word right before it modifies it in no other sense and the
    word right after it is no noun it modifies (`_extends`)."""
    before, after = _BEFORE.search(question[: span[0]]), _AFTER.match(question[span[1] :])
    return not (before and _extends(before.group(1), own, valued, after=False)) and not (
        after and _extends(after.group(1), own, valued, after=True)
    )


def _extends(word: str, own: frozenset[str], valued: Valued, after: bool) -> bool:
    """Whether a word beside a kept term makes it a longer noun phrase: a content word that is no grammar,
    aggregate, asking or ranking word, no number, no word of the kept answer's own (its term, its column's and
    table's names: 'unemployment rate' where `unemployment.rate` is kept) and no word of a stored value ('female
    population' is the population of the female rows, 'metascore pulp fiction' a film's metascore). After the
    term, a verb's form ('money made', 'salary paid', 'prices rising'; not an irregular one: 'grew') is no noun."""
    w = word.lower()
    if len(w) < 3 or w.isdigit() or {w, singular(w)} & (GRAMMAR | GENERIC | _ASKING | RANKING | own):
        return False
    if w.endswith("est") or (after and (w.endswith(("ed", "ing")) or w in PARTICIPLES)):
        return False  # a superlative; after the term, a verb
    return not (valued is not None and valued(w))


def _own_words(kept: KeptField) -> frozenset[str]:
    """The words of a kept answer: its term's, its column's and its table's names ('rate', 'unemployment')."""
    names = [kept.term, *(words(n) for n in (kept.column or "").split("."))]
    return frozenset(singular(w) for n in names for w in re.findall(r"[a-z0-9]+", n.lower()))


def _in_layer(layer: Semantic, column: str) -> bool:
    """Whether 'table.column' is a column of the layer."""
    table, _, name = column.partition(".")
    return name in layer.tables.get(table, {}).get("columns", {})


def _current(layer: Semantic, kept: KeptField) -> bool:
    """Whether a kept answer still stands on the layer: 'not held', or a column the layer still has."""
    return kept.column is None or _in_layer(layer, kept.column)


@dataclass(frozen=True)
class KeptField:
    """A person's answer to 'the data has no field named X; do you mean': the term, its column ('table.column'),
    or None where they said the data does not hold it."""

    id: int
    term: str
    column: str | None


@dataclass
class ExampleMemory:
    """What the SQL step reads (`BIContext.approved`): the store, how many pairs, and whether a question may
    retrieve its own approved pair (`leave_one_out`, for measuring; a user asking again wants it)."""

    examples: ApprovedExamples
    k: int = K
    leave_one_out: bool = False
    floor: float | None = FLOOR  # a pair whose question is less similar (cosine) to the new one is not used
    show_floor: float | None = SHOW_FLOOR  # nor shown to the plan and SQL steps below this (None: no floor at all)
    shaped: bool = True  # a pair shown must fit the question's shape (`fits`); False: the nearest, any shape
    # (connection, question, k) -> (the connection's stored pair ids, the k nearest pairs with their cosines)
    _near: dict[tuple[str, str, int], tuple[tuple[int, ...], list[tuple[Example, float | None]]]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _embedded: Remembered | None = field(default=None, init=False, repr=False, compare=False)
    _fields: dict[str, list[KeptField]] = field(default_factory=dict, init=False, repr=False, compare=False)
    # connection -> (the question being planned, whether a word is a word of a stored value): set by `asking`
    _asked: dict[str, tuple[str, Valued]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def _scored(self, connection: str, question: str, k: int) -> list[tuple[Example, float | None]]:
        """The k nearest pairs (`_search`), each with its question's cosine to `question` (None without an
        embedder). Kept per (connection, question, k): the decline judgment and the plan and SQL steps ask the
        same question many times (each ask embedded it and its pairs anew); the kept answer is used while the
        connection's stored pairs are the same ones, so an approval or a removal, in any process, is seen."""
        if not question.strip() or k <= 0:
            return []
        stamp = tuple(e.id for e in self.examples.list(connection))
        key = (connection, question, k)
        if (kept := self._near.get(key)) is None or kept[0] != stamp:
            if len(self._near) >= CACHED:
                self._near.clear()
            found = self._search(connection, question, k)
            kept = self._near[key] = (stamp, list(zip(found, self._cosines(question, found), strict=True)))
        return kept[1]

    def _cosines(self, question: str, found: list[Example]) -> list[float | None]:
        if (
            self.floor is None
            or not found
            or (vectors := self._embed([question, *(e.question for e in found)])) is None
        ):
            return [None] * len(found)  # no floor: nothing reads them
        return [float(s) for s in vectors[1:] @ vectors[0]]

    def _embed(self, texts: list[str]) -> Any:
        """The texts' vectors by the store's embedder, each text embedded once (`Remembered`: the question is
        searched with several k and compared with its pairs, a pair is near many questions); None without one."""
        embedder = self.examples.store.embedder
        if embedder is None:
            return None
        if self._embedded is None or self._embedded.embedder is not embedder:
            self._embedded = Remembered(embedder)
        return self._embedded.embed(texts)

    def _search(self, connection: str, question: str, k: int) -> list[Example]:
        """The k nearest pairs; leave-one-out drops every pair of the same question text (case, spacing and the
        final '?' aside), whichever SQL it was approved with."""
        if not question.strip() or k <= 0 or not self.examples.has(connection):
            return []
        vector = None if (embedded := self._embed([question])) is None else embedded[0]
        if not self.leave_one_out:
            return self.examples.examples(connection, question, k, vector=vector)
        found = self.examples.examples(connection, question, k + 3, leave_one_out=True, vector=vector)
        same = _normal(question).lower()
        return [e for e in found if _normal(e.question).lower() != same][:k]

    def nearest(self, connection: str, question: str, k: int | None = None, at_least: float = 0.0) -> list[Example]:
        """The k approved pairs nearest to `question` (above the similarity floor, or `at_least` when higher),
        whatever their shape."""
        scored = self._scored(connection, question, self.k if k is None else k)
        floor = None if self.floor is None else max(self.floor, at_least)
        return [e for e, sim in scored if floor is None or sim is None or sim >= floor]

    def shown(self, connection: str, question: str, dialect: str = "", valued: Valued = None) -> list[Example]:
        """The k nearest pairs that fit the question's shape (`fits`), from the POOL * k nearest above the show
        floor: those given to the model as examples."""
        pool = self.nearest(connection, question, POOL * self.k, self.show_floor or 0.0)
        return [e for e in pool if not self.shaped or fits(question, e, dialect, valued)][: self.k]

    def candidates(self, connection: str, question: str) -> list[Example]:
        """The pairs an approved query may be reused from (`value_swap` decides): the nearest by search alone
        (a question differing only in its values is near by words; no floor, no shape: the match is exact)."""
        return self._search(connection, question, max(self.k, 5)) if self.k > 0 else []

    def keep_field(self, connection: str, layer: Semantic, term: str, column: str | None) -> int:
        """Keep a person's answer for `term` on the connection (None: the data does not hold it), replacing an
        earlier one; the column must be one of the layer's."""
        if (normal := field_term(term)) is None:
            raise DataError(f"the term {str(term)[:80]!r} is not kept: at most {MAX_TERM} letters, digits and spaces")
        if column is not None and not _in_layer(layer, column):
            raise DataError(f"{column[:80]!r} is not a column of {connection}: the answer for {normal!r} is not kept")
        self.anew()  # the store as it is now: another process may have kept or removed one
        for old in self.fields(connection):
            if _core(old.term) == _core(normal):
                self.examples.remove(connection, old.id)
        item = Item(FIELD, normal, FIELD, {"column": column})
        [item_id] = self.examples.store.add(Scope(OWNER, APP, connection), [item])
        self.anew()  # read again with the one kept
        return item_id

    def asking(self, connection: str, question: str, valued: Valued) -> None:
        """Before a question is planned (`teach`): the kept answers as stored now (`anew`), the question a term the
        planner lists is read in (`mapped`), and the test of a word of a stored value (`said`)."""
        self.anew()
        self._asked[connection] = (question, valued)

    def anew(self) -> None:
        """Read the kept answers from the store again at their next use: before each question (`teach`), and after
        one is kept, so a removal in another process is seen by the next question."""
        self._fields.clear()

    def fields(self, connection: str) -> list[KeptField]:
        """The connection's kept answers (`keep_field`), newest first: read from the store once per question
        (`anew`), however many checks match the question's terms against them."""
        if connection not in self._fields:
            items = self.examples.store.items(Scope(OWNER, APP, connection), kinds=[FIELD], limit=100_000)
            self._fields[connection] = [KeptField(i.id or 0, i.content, (i.input or {}).get("column")) for i in items]
        return list(self._fields[connection])

    def kept_field(self, connection: str, layer: Semantic, term: str) -> KeptField | None:
        """The kept answer for `term` (`mapped`), when its column is still one of the layer's."""
        kept = self.mapped(connection, term)
        return kept if kept is not None and _current(layer, kept) else None

    def mapped(self, connection: str, term: str, kept: list[KeptField] | None = None) -> KeptField | None:
        """The kept answer whose term is `term` (by `_core`: case, plurals, aggregate words aside), any column;
        among `kept` when the connection's answers are read already. None where the question asked (`asking`) says
        the term's words only inside longer phrases (`_said_itself`): the planner's 'population' of 'male
        population' is not the person's 'population'."""
        core = _core(term)
        found = self.fields(connection) if kept is None else kept
        hit = next((k for k in found if core and _core(k.term) == core), None)
        question, valued = self._asked.get(connection, ("", None))
        places = _said_at(core, question)
        if hit is None or not places or any(_said_itself(question, p, _own_words(hit), valued) for p in places):
            return hit
        return None

    def said(self, connection: str, layer: Semantic, question: str) -> list[tuple[tuple[int, int], KeptField]]:
        """The kept answers (`kept_field`) whose term the question says as itself, each with where (`_said_at`),
        longest term first: a person's answer is read before any judgment of the data (bench/bi_memory.md, round
        26), never for a longer phrase its words are part of (`_said_itself`, round 28)."""
        kept = [k for k in self.fields(connection) if _current(layer, k)]
        kept.sort(key=lambda k: -len(_core(k.term)))
        valued = self._asked.get(connection, ("", None))[1]
        return [
            (span, k)
            for k in kept
            for span in _said_at(_core(k.term), question)
            if _said_itself(question, span, _own_words(k), valued)
        ]

    def said_not_held(self, connection: str, layer: Semantic, question: str) -> str | None:
        """The decline for the terms the question says that a person said the data does not hold; None if none."""
        terms = [question[a:b] for (a, b), k in self.said(connection, layer, question) if k.column is None]
        return self.not_held(connection, terms)

    def not_held(self, connection: str, terms: list[str]) -> str | None:
        """The decline for those of `terms` a person said the data does not hold (`keep_field` with None)."""
        kept = self.fields(connection)
        said = [t for t in terms if (k := self.mapped(connection, t, kept)) is not None and k.column is None]
        return f"you said the data does not hold {', '.join(map(repr, dict.fromkeys(said)))}" if said else None

    def as_kept(self, connection: str, layer: Semantic, text: str) -> str:
        """`text` with each term a person mapped to a column written as that column's name in words ('Brazil's Kids Per
        Woman' -> 'Brazil's fertility'): the checks of the data then judge what the person said the term is, never
        its words (capitals read as a value, a phrase no column spells). Overlapping places: the longest term."""
        taken: list[tuple[int, int, str]] = []
        for (a, b), k in self.said(connection, layer, text):
            if k.column and not any(a < e and s < b for s, e, _ in taken):
                taken.append((a, b, words(k.column.partition(".")[2])))  # 'SupportRepId': 'support rep id'
        for a, b, name in sorted(taken, reverse=True):
            text = text[:a] + name + text[b:]
        return text

    def covers(self, connection: str, term: str, question: str) -> bool:
        """Whether an approved pair near `question` (one `nearest` shows) has `term` in its question, or reads a
        table or column each word of the term names (`_reads`): a person approved the rows of an executed query
        for it, so the data holds what the term means there. Evidence for that term only: every other term of
        the question is still judged on the data, and which column the SQL uses is still the SQL step's choice.
        A term a person mapped to a column (`keep_field`) is held: their answer is the strongest evidence."""
        if (kept := self.mapped(connection, term)) is not None and kept.column:
            return True
        near = self.nearest(connection, question)
        return any(_says(term, e.question) for e in near) or _reads(term, near, self.examples.store.embedder)


def _says(term: str, question: str) -> bool:
    """Whether `question` has each word of `term` that is not generic as a whole word (plurals aside), or as two
    words glued ('lineitem' of 'line items'): 'age' is not said by 'average' (bench/bi_memory.md, `grown`: "What is
    the average age of our customers?" was answered after "What is the average unit price of tracks?" covered
    'age')."""
    own = [w for w in stems(term) if w not in GENERIC] or stems(term)
    said = stems(question)
    have = {*said, *(a + b for a, b in zip(said, said[1:], strict=False))}  # 'line items' says 'lineitem'
    return bool(own) and all(w in have for w in own)


def approved_shots(bi: BIContext, mode: str, question: str) -> list[Message]:
    """The approved pairs of the connection nearest to `question` (the user's words, else the plan's request) as
    user/assistant turns in the reply format of `mode` ('parts': the clauses, as the model fills them in; else
    {"sql"}), the nearest last (next to the question)."""
    memory: ExampleMemory | None = bi.approved
    if memory is None:
        return []
    out: list[Message] = []
    for e in reversed(memory.shown(bi.engine.name, question, bi.engine.dialect, value_test(bi))):
        reply = sql_parts(e.sql, bi.engine.dialect, bi.engine.limits.max_rows) if mode == "parts" else {"sql": e.sql}
        if reply is not None:
            out += [Message("user", f"Question: {e.question}"), Message("assistant", json.dumps(reply))]
    return out


def plan_shots(bi: BIContext, question: str, render: Callable[[str], str]) -> list[Message]:
    """The approved pairs nearest to `question` as plan-step turns (`render` writes a request as the plan step's
    user message), each answered by the plan that leads to its query (`plan_reply`), the nearest last."""
    memory: ExampleMemory | None = bi.approved
    if memory is None:
        return []
    return [
        m
        for e in reversed(memory.shown(bi.engine.name, question, bi.engine.dialect, value_test(bi)))
        for m in (
            Message("user", render(e.question)),
            Message("assistant", json.dumps(plan_reply(e.question, e.sql, bi.engine.dialect))),
        )
    ]


def plan_reply(question: str, sql: str, dialect: str) -> dict[str, str]:
    """The plan an approved query answers, in the plan step's reply format: a query; its values the SQL's text
    literals the question names, its fields the SQL's columns the question names (in the question's words
    where they match)."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        tree = None
    literals = [str(e.this) for e in tree.find_all(exp.Literal) if e.is_string] if tree else []
    columns = [words(c.name) for c in tree.find_all(exp.Column)] if tree else []
    values = [v for v in dict.fromkeys(literals) if v and user_wrote(v, question)]
    fields = [f for f in dict.fromkeys(columns) if f and user_wrote(f, question)]
    return {"request": question, "kind": "query", "values": ", ".join(values), "fields": ", ".join(fields)}


def sql_parts(sql: str, dialect: str, cap: int | None = None) -> dict[str, Any] | None:
    """An approved SELECT as the parts the model writes (select, where, group_by, having, order_by, limit); the
    joins are not a part (derived from the layer), nor a LIMIT equal to the guard's row cap. None for SQL that
    is not one plain SELECT (a union, a parse error): such a pair is not shown in parts mode."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return None
    if not isinstance(tree, exp.Select):
        return None
    tree = unaliased(tree)

    def where_items(node: exp.Expression | None) -> list[str]:
        return [c.sql(dialect) for c in conjuncts(node.this if node is not None else None)]

    limit = tree.args.get("limit")
    n = int(limit.expression.name) if limit is not None and limit.expression.is_int else None
    group = tree.args.get("group")
    order = tree.args.get("order")
    return {
        "select": [e.sql(dialect) for e in tree.expressions],
        "where": where_items(tree.args.get("where")),
        "group_by": [e.sql(dialect) for e in group.expressions] if group else [],
        "having": where_items(tree.args.get("having")),
        "order_by": [e.sql(dialect) for e in order.expressions] if order else [],
        "limit": None if n is None or n == cap else n,
    }


def unaliased(tree: exp.Expression) -> exp.Expression:
    """`tree` with each table read once under an alias read under its own name, and the columns the alias
    qualified qualified by that name: the parts carry no FROM, so a person's `n.n_name` would name nothing the
    SQL step's schema shows (bench/bi_memory.md, rounds 18 and 20). A table read twice or more (a self-join) and
    an alias naming two sources keep their aliases: which one is meant is the alias's to say."""
    tables = [t for t in tree.find_all(exp.Table) if t.name]
    reads = Counter(t.name.lower() for t in tables)
    sources = [a.name for a in tree.find_all(exp.TableAlias)] + [t.name for t in tables if not t.alias]
    named = Counter(name.lower() for name in sources)  # a derived table's or a CTE's name too
    resolved = {
        t.alias.lower(): t for t in tables if t.alias and reads[t.name.lower()] == 1 and named[t.alias.lower()] == 1
    }
    for col in tree.find_all(exp.Column):
        if (t := resolved.get(col.table.lower())) is not None:
            col.set("table", t.this.copy())
    for t in resolved.values():
        t.set("alias", None)
    return tree


# -- which pairs fit a question: its shape ---------------------------------------------------------------
# What a question asks for, read from its words. A 0.5B model copies an example's SQL shape (bench/bi_memory.md:
# after "What was the population of India in 2000?" it dropped the SUM of "total population of South Asia"), so a
# pair is shown only for a question of the same shape, and only when its SQL has the shape its words say.
EXTREME = (
    "highest|lowest|most|least|fewest|top|bottom|maximum|minimum|max|min|largest|smallest|biggest|longest|"
    "shortest|earliest|latest|oldest|newest|best-selling"
)
MONTHS = "january|february|march|april|june|july|august|september|october|november|december"  # not 'may': a verb
SHAPE = {
    "count": r"\bhow many\b|\bnumber of\b|\bcount\b",
    "sum": r"\btotal\b|\bsum\b|\baltogether\b",
    "avg": r"\baverage\b|\bmean\b",
    "distinct": r"\bdistinct\b|\bdifferent\b|\bunique\b",
    "extreme": rf"\b(?:{EXTREME})\b",
    "group": r"\b(?:per|each|every)\b",
    "time": rf"\b(?:1[6-9]\d\d|20\d\d)\b|\b(?:{MONTHS})\b",
}
AGENT_BY = re.compile(r"(\w+) by (\w+)")  # "directed by", "shipped by AIR": who or how, not a grouping
PARTICIPLES = {"made", "sold", "held", "paid", "run", "led", "done", "built", "bought", "won", "flown"}


# Whether the rows are limited, and how: a threshold ('more than 20 tracks', a comparison with a number), a filter
# (a value the question names, compared with a column), or no condition. bench/bi_memory.md's dev_shape run: three of
# its four right -> wrong answers followed a pair of the same shape but another condition ('How many suppliers are
# there?' shown for 'How many parts are of brand Brand#13?'). A year or a month is the time feature, not a condition.
THRESHOLD = re.compile(
    r"\b(?:more|less|fewer|greater|higher|lower|longer|shorter|larger|smaller|bigger|cheaper|older|younger)\s+than\b"
    r"|\bat (?:least|most)\s+\$?\d|\b(?:over|under|above|below|exceed(?:s|ing)?|between)\s+\$?\d"
)


def condition(question: str, valued: Valued = None) -> str:
    """'threshold', 'compare' (several values: `compares`), 'filter' (a named value that is not a year or a
    month, or with `valued`, a lower-case word of a stored value: 'large' of 'large_airport') or 'none', from
    the question's words."""
    if THRESHOLD.search(question.lower()):
        return "threshold"
    if compares(question, valued):
        return "compare"
    time = re.compile(SHAPE["time"], re.IGNORECASE)
    named = [v for v in named_values(question) if not time.fullmatch(v)]
    numbers = [
        n for n in re.findall(r"(?<![\w#])\d[\w.-]*", question) if not time.fullmatch(n)
    ]  # 'size 50', '1-URGENT'
    lowered = valued is not None and any(valued(w) for w in re.findall(r"\b[a-z][a-z'-]+\b", question))
    return "filter" if named or numbers or lowered else "none"


# A comparison of several values. bench/bi_memory.md's grown_v4: 'county count for Georgia and for Kentucky' was
# shown a one-value pair and answered for Georgia alone; 'nigerian vs japanese life expectancy, 1995' was shown no
# pair although 'life expectancy: nigeria vs kenya, 1990' is approved. The words of a comparison, or two values of
# one kind (two texts, two years) with only 'and' / 'or' / 'plus' / a comma between them ('in 1990 and in 2010',
# 'Germany plus France'); not '&', which a value's own name holds ('Europe & Central Asia': bench/bi_memory.md's
# round 17 read two of its three development questions with '&' between values wrongly as comparisons).
COMPARING = re.compile(r"\b(?:vs|versus|compared?|comparing|comparison)\b")
JOINED = re.compile(
    r"\s*(?:,\s*(?:(?:and|or|plus)\s+)?|(?:and|or|plus)\s+)(?:(?:in|for|from|of|the)\s+)*", re.IGNORECASE
)


def compares(question: str, valued: Valued = None) -> bool:
    """Whether the question compares several values ('A vs B', 'A and B', 'A, B or C', 'in 1990 and in 2010'),
    not a range or a threshold ('between 1995 and 2000')."""
    if THRESHOLD.search(question.lower()):
        return False
    if COMPARING.search(question.lower()):
        return True
    found = sorted(_mentions(question, valued))
    return any(
        a[2] == b[2] and a[1] < b[0] and JOINED.fullmatch(question[a[1] : b[0]])
        for a, b in zip(found, found[1:], strict=False)
    )


def _mentions(question: str, valued: Valued) -> set[tuple[int, int, str]]:
    """(start, end, kind) of each value the question names: a year ('year'), a named value or, with `valued`,
    a lower-case word of a stored value ('text')."""
    found = {(*m.span(), "year") for m in YEAR.finditer(question)}
    named = [v for v in named_values(question) if not YEAR.fullmatch(v)]
    parts = (p for v in named for p in ([v] if _spans(v, question) else v.split()))  # 'Germany, France' ran as one
    found |= {(*span, "text") for p in parts for span in _spans(p, question)}
    if valued is not None:
        found |= {(*m.span(), "text") for m in re.finditer(r"\b[a-z][a-z'-]+\b", question) if valued(m.group(0))}
    return found


def value_test(bi: BIContext) -> Callable[[str], bool]:
    """Whether a lower-case word of a question is a word of a value of one of the connection's categories
    (`_category_words`) and no name of its layer: bench/bi_memory.md's grown_v3 showed 'How many airports are there?' for 'How many
    large airports are there?' ('large' of 'large_airport' is a filter) and the model grouped by type."""
    names = schema_words(bi.semantic)
    held: set[str] = set()

    def test(word: str) -> bool:
        w = word.lower()
        if len(w) < 3 or {w, singular(w)} & (names | GRAMMAR | GENERIC | _ASKING):
            return False
        if not held:  # the value index is read from the database at the first word that needs it
            held.update(_category_words(bi) or {""})
        return w in held

    return test


def _category_words(bi: BIContext) -> set[str]:
    """The words of the values of the indexed columns with at most decline.CATEGORY values: a kind, a region, a state;
    not a title's words ('live', 'longest' of Chinook's track names)."""
    return {w for text in categories(bi) for w in re.findall(r"[a-z0-9]+", text)}


# The thing a threshold counts or measures, the word after its number: 'more than 20 tracks'. bench/bi_memory.md's
# grown_v2 and grown_v3: 'How many artists have more than 5 albums?' and 'How many albums have more than 20
# tracks?' were each shown the other (the same shape and condition) and each lost its HAVING.
MEASURED = re.compile(
    r"\b(?:than|least|most|over|under|above|below|exceeds?|exceeding|between)\s+\$?\d[\d.,]*%?\s+([a-z]+)"
)


def measured(question: str) -> str | None:
    """What a threshold is on, when the question writes it after the number (singular), else None."""
    m = MEASURED.search(question.lower())
    return singular(m.group(1)) if m else None


def shape(question: str) -> frozenset[str]:
    """What the question asks for: an aggregate (count, sum, avg; none: a list or a value), distinct, an
    extreme (min-max or a ranking), a grouping (per / each / by), a time filter (a year or a month). Its
    condition (`condition`) is compared apart."""
    q = question.lower()
    found = {name for name, pattern in SHAPE.items() if re.search(pattern, q)}
    for before, after in AGENT_BY.findall(question):
        agent = before.lower().endswith(("ed", "en")) or before.lower() in PARTICIPLES
        if not agent and after.islower() and after not in ("the", "a", "an"):
            found.add("group")  # "sales by region"
    return frozenset(found)


def sql_shape(sql: str, dialect: str = "") -> frozenset[str] | None:
    """The same features read from a query (sqlglot); None when it does not parse."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect or None)
    except SqlglotError:
        return None
    found = {name for name, kind in (("count", exp.Count), ("sum", exp.Sum), ("avg", exp.Avg)) if tree.find(kind)}
    if tree.find(exp.Distinct) or any(c.args.get("distinct") for c in tree.find_all(exp.Count)):
        found.add("distinct")
    if tree.find(exp.Order) or tree.find(exp.Max) or tree.find(exp.Min):
        found.add("extreme")
    if tree.find(exp.Group):
        found.add("group")
    literals = (lit for lit in tree.find_all(exp.Literal) if not lit.find_ancestor(exp.Limit, exp.Offset))
    years = (re.search(SHAPE["time"], str(lit.this)) for lit in literals)
    if any(years) or tree.find(exp.Year, exp.Month, exp.DateTrunc, exp.TimeToStr):
        found.add("time")
    return frozenset(found)


COMPARED = (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between)


def sql_condition(tree: exp.Expression) -> str:
    """The condition of a query's WHERE and HAVING: 'threshold' (a column compared with a number that is not a
    year by <, >, BETWEEN), 'compare' (one column compared with several values: `several`), 'filter' (any other
    predicate that is not a join's column = column nor on time) or 'none'."""
    kind = _where_condition(tree)
    return "compare" if kind != "threshold" and several(tree) else kind


def several(tree: exp.Expression) -> bool:
    """Whether a WHERE or HAVING compares one column with two or more values: `IN` a list of literals, or
    equalities of the same column OR-ed."""
    clauses = [s.args.get(c) for s in tree.find_all(exp.Select) for c in ("where", "having")]
    for clause in (c for c in clauses if c is not None):
        if any(
            len(i.expressions) > 1 and all(isinstance(e, exp.Literal) for e in i.expressions)
            for i in clause.find_all(exp.In)
        ):
            return True
        for either in clause.find_all(exp.Or):
            sides = [p for p in _predicates(either) if isinstance(p, exp.EQ) and isinstance(p.expression, exp.Literal)]
            names = [p.this.sql() for p in sides if isinstance(p.this, exp.Column)]
            if len(names) != len(set(names)):
                return True
    return False


def _where_condition(tree: exp.Expression) -> str:
    found = "none"
    clauses = (s.args.get(c) for s in tree.find_all(exp.Select) for c in ("where", "having"))  # subqueries too
    for clause in (c for c in clauses if c is not None):
        for pred in _predicates(clause.this):
            if _blank_guard(pred) or pred.find(exp.Subquery):  # '= (SELECT max(x) ...)': an extreme
                continue
            literals = [lit for lit in pred.find_all(exp.Literal) if not re.search(SHAPE["time"], str(lit.this))]
            dated = any(re.search(SHAPE["time"], str(lit.this)) for lit in pred.find_all(exp.Literal))
            if isinstance(pred, COMPARED) and any(not lit.is_string for lit in literals):
                return "threshold"
            joined = isinstance(pred, exp.EQ) and all(isinstance(s, exp.Column) for s in (pred.this, pred.expression))
            if not joined and not (dated and not literals):
                found = "filter"
    return found


def _blank_guard(pred: exp.Expression) -> bool:
    """`NOT x IS NULL` / `x <> ''`: what the composer adds so that a ranking has no blank group, not a condition
    the question asked for."""
    if isinstance(pred, exp.Not) and isinstance(pred.this, exp.Is):
        return True
    return isinstance(pred, exp.NEQ) and isinstance(pred.expression, exp.Literal) and not str(pred.expression.this)


def _predicates(node: exp.Expression) -> list[exp.Expression]:
    node = node.unnest()
    if isinstance(node, exp.And | exp.Or):
        return [p for side in (node.this, node.expression) for p in _predicates(side)]
    return [node]


# Which end of an order a ranking asks for. bench/bi_memory.md's grown_v3: 'What is the name of the longest track?'
# copied the ascending order of the pair 'What is the name of the shortest track?' (the same shape and condition).
DIRECTION = {
    "high": r"\b(?:highest|most|top|maximum|max|largest|biggest|longest|best-selling)\b",
    "low": r"\b(?:lowest|least|fewest|bottom|minimum|min|smallest|shortest)\b",
    "early": r"\b(?:earliest|oldest)\b",
    "late": r"\b(?:latest|newest)\b",
}


def direction(question: str) -> frozenset[str]:
    """The ends of an order the question's words ask for ('high', 'low', 'early', 'late'; none: no ranking)."""
    return frozenset(name for name, pattern in DIRECTION.items() if re.search(pattern, question.lower()))


def sql_direction(tree: exp.Expression) -> frozenset[str]:
    """'high' / 'low' a query ranks by: ORDER BY ... DESC or MAX, ORDER BY ... ASC or MIN."""
    found = {"high" if o.args.get("desc") else "low" for o in tree.find_all(exp.Ordered)}
    found |= {"high" for _ in tree.find_all(exp.Max)} | {"low" for _ in tree.find_all(exp.Min)}
    return frozenset(found)


def fits(question: str, example: Example, dialect: str = "", valued: Valued = None) -> bool:
    """Whether an approved pair is a fitting example for `question`: the two questions have the same shape, the
    same condition (a threshold on the same thing: `measured`) and the same ranking direction (`direction`), the
    pair's SQL has every feature its question's words name (a query that does not show the shape its words ask
    for teaches nothing about it) and ranks the way they say, and its WHERE / HAVING has the condition its words
    say (a filter or a threshold the words do not show would be copied into a question without one)."""
    wanted = shape(example.question)
    if shape(question) != wanted or condition(question, valued) != (kind := condition(example.question, valued)):
        return False
    if direction(question) != (ends := direction(example.question)) or measured(question) != measured(example.question):
        return False
    try:
        tree = sqlglot.parse_one(example.sql, read=dialect or None)
    except SqlglotError:
        return False
    has = sql_shape(example.sql, dialect)
    ranked = ends & {"high", "low"}
    if len(ranked) == 1 and sql_direction(tree) - ranked:  # its SQL ranks the other way than its words say
        return False
    return has is not None and wanted <= has and sql_condition(tree) == kind


# -- what approved pairs teach about the connection -------------------------------------------------------
TAUGHT = "taught"  # a column's key: the phrases approvals taught it (replaced on each question, never piled up)
SAID_AS = " (approved questions say: "
TAUGHT_FILTERS = "taught_filters"  # a column's key: how approved queries compared it with a value
FILTERED_AS = " (approved queries filter it: "
# A word of a declined term is placed on a table or column an approved query near the question reads when MiniLM
# puts it this near the name (bench/bi_memory.md, round 10: 'clients' -> `Customer` 0.62, 'revenue' -> `sales`
# 0.65; a word only the new question says is taught by no pair). Lower than decline.py's MEANING_FLOOR, which
# compares with every text of the layer: here the approved queries near the question have already narrowed it.
COLUMN_MEANING = 0.6


def _reads(term: str, near: list[Example], embedder: Any) -> bool:
    """Whether each word of `term` that is not generic is spelt by, or COLUMN_MEANING near, the name in words of a
    table or column an approved query of `near` reads; each word must be placed, so a held modifier does not lift
    a missing head ('customer age': 'age' is near no approved column)."""
    own = [w for w in re.findall(r"[a-z0-9]+", term.lower()) if w not in GENERIC and singular(w) not in GENERIC]
    names = tuple(sorted({n for e in near for n in _read_names(e.sql)}))
    if not own or not names or embedder is None:
        return False
    spelt = {singular(w) for n in names for w in n.split()}
    left = tuple(w for w in own if singular(w) not in spelt)
    return not left or all(_near_names(embedder, left, names).values())


@functools.lru_cache(maxsize=4096)
def _near_names(embedder: Any, own: tuple[str, ...], names: tuple[str, ...]) -> dict[str, frozenset[str]]:
    """word -> the names at least COLUMN_MEANING near it (MiniLM cosine). Cached: the decline judgment asks it
    for every term of a question, with the same near pairs' names."""
    vectors = embedder.embed([*own, *names])
    sims = vectors[len(own) :] @ vectors[: len(own)].T
    return {
        w: frozenset(n for n, s in zip(names, sims[:, i], strict=True) if s >= COLUMN_MEANING)
        for i, w in enumerate(own)
    }


def _read_names(sql: str) -> set[str]:
    """The names in words of the tables and columns a query reads."""
    try:
        tree = sqlglot.parse_one(sql)
    except SqlglotError:
        return set()
    return {words(c.name) for c in tree.find_all(exp.Column)} | {words(t.name) for t in tree.find_all(exp.Table)}


MAX_PHRASE = 3  # words of a taught phrase
MAX_TAUGHT = 5  # phrases taught to one column
# A phrase is taught only when this many approved pairs align it to the same column (and none to another): on the
# grown memory (bench/bi_memory.md, grown_v3's diagnosis) every phrase one pair taught was a verb or a function word
# of its question ('came', 'place', 'sold', 'leave', 'different'), and none of them turned an answer.
SUPPORT = 2


def teach(bi: BIContext, question: str) -> None:
    """Before a question is planned: the connection's layer as the approved pairs teach it now (`taught`), and its
    kept field answers as stored now and the question they are read in (`ExampleMemory.asking`)."""
    if bi.approved is not None:
        held = functools.cache(functools.partial(value_word, bi))  # a word's probe of the data once per question
        bi.approved.asking(bi.engine.name, question, held)
    bi.semantic = taught(bi.semantic, bi.approved, bi.engine.name, question, bi.engine.dialect)


def taught(
    layer: Semantic, memory: ExampleMemory | None, connection: str, question: str = "", dialect: str = ""
) -> Semantic:
    """The layer with what the connection's approved pairs teach (`lessons`): each phrase of an approved question
    that no schema name spells, aligned to the one column of its SQL the question does not name, becomes a
    synonym of that column (field mapping, the decline judgment) and is written in its description (the SQL
    prompt). Always recomputed from the pairs stored now: a removed pair teaches nothing more; a rejected one
    never did. With `leave_one_out`, a pair of `question`'s own text teaches nothing to it."""
    base = untaught(layer)
    if memory is None or not memory.examples.has(connection):
        return base
    own = _normal(question).lower() if memory.leave_one_out else None
    pairs = [e for e in memory.examples.list(connection) if _normal(e.question).lower() != own]
    found, compared = lessons(base, pairs, dialect), filters(base, pairs, dialect, _compares(question))
    if not found and not compared:
        return base
    out = Semantic.from_dict(json.loads(json.dumps(base.to_dict())))
    for (table, column), phrases in found.items():
        info = out.tables[table]["columns"][column]
        info["synonyms"] = [*info.get("synonyms", []), *phrases]
        info["description"] = f"{info.get('description', '')}{SAID_AS}{', '.join(phrases)})"
        info[TAUGHT] = phrases
    for (table, column), predicates in compared.items():
        info = out.tables[table]["columns"][column]
        info["description"] = f"{info.get('description', '')}{FILTERED_AS}{'; '.join(predicates)})"
        info[TAUGHT_FILTERS] = predicates
    return out


def _compares(question: str) -> frozenset[str]:
    """The kinds of value a question compares: a year ('year'), a named value that is not one ('text'). A
    question comparing several values is taught no text comparison: one value's predicate made grown_v4's 'PG-13
    versus R' drop R; the column described as `IN` the question's own values (grown_v5) turned nothing right and
    was reverted (bench/bi_memory.md)."""
    return frozenset({"year"} if YEAR.search(question) else set()) | (
        {"text"} if condition(question) == "filter" else set()
    )


def filters(
    layer: Semantic, pairs: list[Example], dialect: str = "", kinds: frozenset[str] = frozenset({"year", "text"})
) -> dict[tuple[str, str], list[str]]:
    """(table, column) -> how approved queries compared it with a value of `kinds`: the first predicate per kind
    (a year leading a date's text, '1995%'; any other text, 'Georgia'), its column unqualified. The value's
    spelling and the column that holds it, for the SQL prompt of a question that compares a value of that kind
    (bench/bi_memory.md, grown_v3's diagnosis: 'movies released in 2009' written `Released = '2009-01-01'` where
    an approved query wrote `Released LIKE '1995%'`)."""
    columns = {(t.lower(), c.lower()): (t, c) for t, c, _ in layer.columns()}
    out: dict[tuple[str, str], dict[str, str]] = {}
    for e in pairs:
        try:
            tree = sqlglot.parse_one(e.sql, read=dialect or None)
        except SqlglotError:
            continue
        for lit in tree.find_all(exp.Literal):
            valued = lit.is_string and str(lit.this).strip() and not lit.find_ancestor(exp.Subquery)  # no blank guard
            where = _compared_column(lit, tree) if valued else None
            column = columns.get((where[0].lower(), where[1].lower())) if where else None
            if column is None:
                continue
            pred = lit.find_ancestor(exp.EQ, exp.NEQ, exp.In, exp.Like, exp.ILike).copy()
            for col in pred.find_all(exp.Column):
                col.set("table", None)
            kind = "year" if YEAR_TEXT.fullmatch(str(lit.this)) else "text"
            if kind in kinds:
                out.setdefault(column, {}).setdefault(kind, pred.sql(dialect or None))
    return {k: list(v.values()) for k, v in out.items()}


def untaught(layer: Semantic) -> Semantic:
    """The layer without anything `taught` added (the same object when nothing was)."""
    if not any(TAUGHT in info or TAUGHT_FILTERS in info for _, _, info in layer.columns()):
        return layer
    out = Semantic.from_dict(json.loads(json.dumps(layer.to_dict())))
    for _, _, info in out.columns():
        phrases = info.pop(TAUGHT, None)
        if phrases is not None:
            info["synonyms"] = [s for s in info.get("synonyms", []) if s not in phrases]
        if phrases is not None or info.pop(TAUGHT_FILTERS, None) is not None:
            info["description"] = info.get("description", "").split(SAID_AS, 1)[0].split(FILTERED_AS, 1)[0]
    return out


def lessons(layer: Semantic, pairs: list[Example], dialect: str = "") -> dict[tuple[str, str], list[str]]:
    """(table, column) -> the phrases at least SUPPORT approved questions align to it (`_aligned`); a phrase two
    pairs align to different columns is ambiguous and teaches neither."""
    where: dict[str, dict[tuple[str, str], set[str]]] = {}
    for e in pairs:
        for phrase, column in _aligned(layer, e.question, e.sql, dialect):
            where.setdefault(phrase, {}).setdefault(column, set()).add(_normal(e.question).lower())
    out: dict[tuple[str, str], list[str]] = {}
    for phrase, columns in where.items():
        (column, said_by), *others = columns.items()
        if not others and len(said_by) >= SUPPORT and len(out.setdefault(column, [])) < MAX_TAUGHT:
            out[column].append(phrase)
    return {k: v for k, v in out.items() if v}


def _aligned(layer: Semantic, question: str, sql: str, dialect: str) -> list[tuple[str, tuple[str, str]]]:
    """(phrase, column) of one approved pair: when its SQL uses exactly one column (`_used_columns`) that the
    question does not name, the question's runs of words that nothing names (no schema name or synonym, alone or
    glued to the next word: 'line items' ~ `lineitem`; no literal of the SQL; no grammar, generic, quantity or
    superlative word) are that column's words in this database."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect or None)
    except SqlglotError:
        return []
    named = schema_words(layer) | _literal_words(tree)
    tokens = {singular(w) for w in re.findall(r"[a-z0-9]+", question.lower())}
    unnamed = {c for c in _used_columns(layer, tree) if not _named(layer, c, tokens)}
    if len(unnamed) != 1:
        return []
    return [(phrase, next(iter(unnamed))) for phrase in _runs(question, named)]


def _runs(question: str, named: set[str]) -> list[str]:
    """The question's runs of words that nothing names (not in `named`, alone or glued to the next word: 'line
    items' ~ `lineitem`; no grammar, generic, quantity or superlative word), MAX_PHRASE words at most."""
    tokens = re.findall(r"[a-z0-9]+", question.lower())
    glued = {i + d for i in range(len(tokens) - 1) if singular(tokens[i] + tokens[i + 1]) in named for d in (0, 1)}
    runs, run = [], []
    for i, w in enumerate([*tokens, ""]):
        if w and i not in glued and _content(w) and singular(w) not in named:
            run.append(w)
            continue
        if run and len(run) <= MAX_PHRASE:
            runs.append(" ".join(run))
        run = []
    return runs


def _content(word: str) -> bool:
    """A word that may name data: not grammar, generic ('total'), a quantity ('above') or a superlative."""
    return (
        len(word) > 2
        and not word.isdigit()
        and not word.endswith(("est", "ed", "ing"))  # a superlative, or a verb's form: how, not what
        and not {word, singular(word)} & (GRAMMAR | GENERIC | _ASKING)
    )


# Words that ask or compare rather than name, beside decline's grammar words: the request's verbs and adverbs,
# and the words of a comparison or a ranking (their column is the number compared, named elsewhere).
_ASKING = frozenset(
    ["show", "give", "tell", "find", "get", "again", "please", "just", "what", "which", "who", "how", "when"]
    + ["than", "above", "below", "least", "most", "top", "first", "last", "more", "less", "fewer", "exceed"]
)


def _literal_words(tree: exp.Expression) -> set[str]:
    return {singular(w) for lit in tree.find_all(exp.Literal) for w in re.findall(r"[a-z0-9]+", str(lit.this).lower())}


def _used_columns(layer: Semantic, tree: exp.Expression) -> set[tuple[str, str]]:
    """The layer's (table, column) pairs the SQL reads, but for the two sides of a join (column = column)."""
    return _resolved(layer, tree, tree.find_all(exp.Column))


def _resolved(layer: Semantic, tree: exp.Expression, columns: Iterable[exp.Column]) -> set[tuple[str, str]]:
    """The layer's (table, column) pairs `columns` of `tree` are, their tables read through the aliases; neither
    side of a join (column = column), nor a column no table or two tables of the query hold."""
    aliases = {t.alias_or_name.lower(): t.name.lower() for t in tree.find_all(exp.Table)}
    tables = {t.lower(): t for t in layer.tables}
    read = [tables[a] for a in dict.fromkeys(aliases.values()) if a in tables]
    out = set()
    for col in columns:
        eq = col.parent
        if isinstance(eq, exp.EQ) and all(isinstance(x, exp.Column) for x in (eq.this, eq.expression)):
            continue
        owners = [tables.get(aliases.get(col.table.lower(), ""))] if col.table else read
        found = [(t, c) for t in owners if t for c in layer.tables[t]["columns"] if c.lower() == col.name.lower()]
        if len(found) == 1:
            out.add(found[0])
    return out


def _named(layer: Semantic, column: tuple[str, str], asked: set[str]) -> bool:
    info = layer.tables[column[0]]["columns"][column[1]]
    names = [words(column[1]), *info.get("synonyms", [])]
    return any(singular(w) in asked for n in names for w in re.findall(r"[a-z0-9]+", n.lower()))


# -- reusing an approved query for the same question with other values ----------------------------------
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
YEAR = re.compile(r"(?<!\d)(?:1[6-9]|20)\d\d(?!\d)")
YEAR_TEXT = re.compile(r"(%?)((?:1[6-9]|20)\d\d)(.*)", re.S)  # '1995%', '1995-01-01': a year leading a date's text
MAX_VALUE = 80  # characters of a value a question swaps in


@dataclass
class Slot:
    """A value the approved question wrote that its SQL holds as literals (`nodes`): a text compared with a
    column ('text'), a number ('number'), or the year leading a date's text ('year')."""

    kind: str
    old: str
    nodes: list[exp.Literal]
    new: str = ""


@dataclass
class Reuse:
    example: Example
    sql: str
    values: dict[str, str]  # the approved question's value -> the new question's


def _literal_text(lit: exp.Literal) -> tuple[str, str]:
    """(kind, the text a question would write) of a literal: a text without its LIKE wildcards, a number, or
    the year a date's text starts with."""
    text = str(lit.this)
    if not lit.is_string:
        return "number", text
    if m := YEAR_TEXT.fullmatch(text):
        return "year", m.group(2)
    return "text", text.strip("%")


def _slots(question: str, tree: exp.Expression) -> list[Slot] | None:
    """The literals of the approved SQL that its question wrote (once each, as whole words), grouped by
    the text: None when one is written twice or two overlap (which one a new value replaces is ambiguous)."""
    slots: dict[tuple[str, str], Slot] = {}
    for lit in tree.find_all(exp.Literal):
        if lit.find_ancestor(exp.Limit, exp.Offset):
            continue
        kind, text = _literal_text(lit)
        if not text.strip():
            continue
        slots.setdefault((kind, text.lower()), Slot(kind, text, [])).nodes.append(lit)
    found = [s for s in slots.values() if _spans(s.old, question)]
    if any(len(_spans(s.old, question)) > 1 for s in found):
        return None
    spans = sorted(_spans(s.old, question)[0] for s in found)
    if any(a[1] > b[0] for a, b in zip(spans, spans[1:], strict=False)):
        return None
    return sorted(found, key=lambda s: _spans(s.old, question)[0])


def _spans(text: str, question: str) -> list[tuple[int, int]]:
    pattern = rf"(?<![\w]){re.escape(text)}(?![\w])"
    return [m.span() for m in re.finditer(pattern, question, re.IGNORECASE)]


def _normal(question: str) -> str:
    return re.sub(r"\s+", " ", question.strip().rstrip("?.!").strip())


def value_swap(approved: str, sql: str, question: str, dialect: str) -> tuple[exp.Expression, list[Slot]] | None:
    """When `question` is the approved question with other values in the places of the values its SQL holds
    (every other word the same, or the same question in other words: `_reworded`), the SQL's tree and those
    places with their new values; else None. A number must replace a number, a year a year."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect or None)
    except SqlglotError:
        return None
    approved = _normal(approved)
    slots = _slots(approved, tree)
    if slots is None:
        return None
    pattern, at = "", 0
    for s in slots:
        start, end = _spans(s.old, approved)[0]
        pattern += re.escape(approved[at:start]) + "(.+?)"
        at = end
    pattern = re.sub(r"(\\ )+", r"\\s+", pattern + re.escape(approved[at:]))
    m = re.fullmatch(pattern, _normal(question), re.IGNORECASE)
    if m is None:
        return _reworded(approved, tree, slots, question)
    return _placed(tree, slots, [new.strip() for new in m.groups()])


def _placed(tree: exp.Expression, slots: list[Slot], values: list[str]) -> tuple[exp.Expression, list[Slot]] | None:
    """The slots with their new values, when each fits its kind (a number a number, a year a year)."""
    for s, new in zip(slots, values, strict=True):
        s.new = new
        if len(s.new) > MAX_VALUE or (s.kind != "text" and not NUMBER.fullmatch(s.new)):
            return None
        if _year(s) and not YEAR.fullmatch(s.new):
            return None
    return None if _derived_years(tree, slots) else (tree, slots)


# -- the same question in other words: word order, plurals, 'count of' / 'how many', a dropped article ------------
# A word's token: letters and digits, joined by '-', '/', '.', '#' ('AC/DC', '2-HIGH', 'Brand#13', '2.5'); "'s" apart.
TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-/.#][A-Za-z0-9]+)*")
VALUE_GAP = re.compile(r"[\s&]+")  # what may stand between two words of one value ('Europe & Central Asia')
# Words that say nothing of what is asked once the shape, condition and direction are the same (`_same_reading`).
NEUTRAL = GRAMMAR | _ASKING | {"s", "pls", "plz", "many", "much", "number", "count", "total", "sum", "average", "avg"}
NEUTRAL = (NEUTRAL | {"mean"}) - {"first", "last"}
# Neutral words that change the meaning and must be the same on both sides: a negation, a comparison, an end of an
# order that `direction` does not read, the way a value is reached ('routes from JFK' and 'routes to JFK').
NEGATION = re.compile(r"\b(?:not|no|none|nor|never|without|except|excluding|other than)\b|n['’]t\b", re.IGNORECASE)
SENSITIVE = RANKING | {"than", "over", "under", "above", "below", "between", "exceed", "first", "last", "only"}
TARGET = frozenset(["to", "into", "onto", "toward", "towards"])  # where a value is reached: 'routes to JFK'
SOURCE = frozenset(["from", "out", "via"])  # where from: the same as 'in' unless either question says where to
# No synonym by meaning: MiniLM puts opposites as near as synonyms ('inbound' / 'outbound' 0.88, 'husbands' / 'wives'
# 0.85, 'cheap' / 'expensive' 0.80 against 'films' / 'movies' 0.87): a reused query would answer the other one.


def _key(word: str) -> str:
    return word_root(singular(word.lower()))


def _same_reading(approved: str, question: str) -> bool:
    """Whether two questions ask for the same thing by every word that changes a meaning: the same shape,
    condition, threshold thing, ranking direction, negation and sensitive words (`SENSITIVE`)."""
    a, q = approved.lower(), question.lower()
    if shape(a) != shape(q) or condition(a) != condition(q) or compares(a) != compares(q):
        return False
    if direction(a) != direction(q) or measured(a) != measured(q):
        return False
    if bool(NEGATION.search(a)) != bool(NEGATION.search(q)):
        return False
    a_words, q_words = set(re.findall(r"[a-z]+", a)), set(re.findall(r"[a-z]+", q))
    roles = TARGET | (SOURCE if (a_words | q_words) & TARGET else frozenset())
    return a_words & (SENSITIVE | roles) == q_words & (SENSITIVE | roles)


def _reworded(
    approved: str, tree: exp.Expression, slots: list[Slot], question: str
) -> tuple[exp.Expression, list[Slot]] | None:
    """`value_swap` for a question that says the approved one in other words: every content word of the approved
    question outside its values is said by the new one (its root), every other content word
    of the new one is in a value, its values are as many as the slots, of their kinds, in the approved order."""
    question = _normal(question)
    if not _same_reading(approved, question):
        return None
    spans = [_spans(s.old, approved)[0] for s in slots]
    frame = (m.group(0) for m in TOKEN.finditer(approved) if not any(a <= m.start() < b for a, b in spans))
    wanted = {_key(w) for w in frame if w.lower() not in NEUTRAL}
    said = [m for m in TOKEN.finditer(question) if m.group(0).lower() not in NEUTRAL]
    left = wanted - {_key(m.group(0)) for m in said}
    numbers = [m.group(0) for m in said if _key(m.group(0)) not in wanted and NUMBER.fullmatch(m.group(0))]
    named = _slot_names(slots, tree)  # 'the Jazz genre' where the value is compared with `Genre.Name`: the SQL says it
    loose = [m for m in said if _key(m.group(0)) not in wanted | named and not NUMBER.fullmatch(m.group(0))]
    if left:
        return None
    runs = _value_runs(question, loose)
    if len(runs) != sum(s.kind == "text" for s in slots) or len(numbers) != sum(s.kind != "text" for s in slots):
        return None
    new = iter(runs), iter(numbers)
    return _placed(tree, slots, [next(new[s.kind != "text"]) for s in slots])


def _value_runs(question: str, loose: list[re.Match[str]]) -> list[str]:
    """The question's values: its loose words, consecutive ones with only spaces or '&' between them as one."""
    runs: list[tuple[int, int]] = []
    for m in loose:
        if runs and VALUE_GAP.fullmatch(question[runs[-1][1] : m.start()]):
            runs[-1] = (runs[-1][0], m.end())
        else:
            runs.append(m.span())
    return [question[a:b] for a, b in runs]


def _year(slot: Slot) -> bool:
    return slot.kind == "year" or (slot.kind == "number" and YEAR.fullmatch(slot.old) is not None)


def _derived_years(tree: exp.Expression, slots: list[Slot]) -> bool:
    """Whether a year is swapped while the SQL holds another year the question did not write (the end of a
    range, '1996-01-01' for "in 1995"): it may follow from the swapped one, so which value it takes is unknown."""
    if not any(_year(s) and s.new != s.old for s in slots):
        return False
    mine = {id(lit) for s in slots for lit in s.nodes}
    return any(
        id(lit) not in mine and YEAR.search(str(lit.this))
        for lit in tree.find_all(exp.Literal)
        if not lit.find_ancestor(exp.Limit, exp.Offset)
    )


def _compared_column(lit: exp.Literal, tree: exp.Expression) -> tuple[str, str] | None:
    """(table, column) a literal is compared with (=, <>, IN, LIKE), the table read through its alias."""
    pred = lit.find_ancestor(exp.EQ, exp.NEQ, exp.In, exp.Like, exp.ILike)
    col = next((c for c in pred.find_all(exp.Column)), None) if pred is not None else None
    if col is None:
        return None
    tables = {t.alias_or_name.lower(): t.name for t in tree.find_all(exp.Table)}
    if col.table:
        table = tables.get(col.table.lower())
    else:
        names = set(tables.values())
        table = next(iter(names)) if len(names) == 1 else None
    return (table, col.name) if table else None


def _stored_value(bi: BIContext, lit: exp.Literal, tree: exp.Expression, new: str) -> str | None:
    """The value as the column compared with `lit` stores it (case aside), when exactly one is; for a LIKE
    pattern, `new` when some row holds it. None: the new value is not one of that column's."""
    where = _compared_column(lit, tree)
    if where is None:
        return None
    table, column = where
    text = exp.Lower(this=exp.cast(exp.column(column, quoted=True), "TEXT"))
    if lit.find_ancestor(exp.Like, exp.ILike):
        cond: exp.Expression = exp.Like(this=text, expression=exp.Literal.string(f"%{new.lower()}%"))
    else:
        cond = exp.EQ(this=text, expression=exp.Literal.string(new.lower()))
    query = (
        exp.select(exp.column(column, quoted=True))
        .distinct()
        .from_(exp.to_table(table, quoted=True))
        .where(cond)
        .limit(2)
    )
    try:
        rows = bi.engine.execute(query.sql(bi.engine.dialect), max_rows=2).rows
    except Exception:  # noqa: BLE001 - any failure of the check means no reuse: the normal path answers
        return None
    if lit.find_ancestor(exp.Like, exp.ILike):
        return new if rows else None
    return str(rows[0][0]) if len(rows) == 1 else None


def _substitute(bi: BIContext, tree: exp.Expression, slots: list[Slot]) -> dict[str, str] | None:
    """Put each slot's new value in its literals (the AST's nodes, never the SQL's text); a text must be a
    value of the column it is compared with. The values changed, or None when one cannot be put in."""
    changed: dict[str, str] = {}
    for s in slots:
        if s.new.lower() == s.old.lower():
            continue
        for lit in s.nodes:
            text = str(lit.this)
            if s.kind == "number":
                lit.replace(exp.Literal.number(s.new))
            elif s.kind == "year":
                lit.replace(exp.Literal.string(text.replace(s.old, s.new, 1)))
            elif (stored := _stored_value(bi, lit, tree, s.new)) is None:
                return None
            else:
                lit.replace(exp.Literal.string(text.replace(s.old, stored, 1) if "%" in text else stored))
        changed[s.old] = s.new
    return changed


def reuse_approved(
    bi: BIContext, question: str, checked: Callable[[str], str | None], resolved: list[dict[str, Any]] = ()
) -> dict[str, Any] | None:
    """The query-builder result of an approved query reused for `question`: the nearest approved question that
    differs from it only in values (`value_swap`), its SQL with the new values, when each text value is one of
    its column's, no value the entity step resolved sits in another column, and `checked` (the build step's
    dry run) finds no error. None otherwise: the normal path writes the SQL. The reuse is noted in the answer."""
    memory: ExampleMemory | None = bi.approved
    if memory is None:
        return None
    for e in memory.candidates(bi.engine.name, question):
        swap = value_swap(e.question, e.sql, question, bi.engine.dialect)
        if swap is None or _elsewhere(swap[1], resolved, swap[0]):
            continue
        tree, slots = swap
        changed = _substitute(bi, tree, slots)
        sql = tree.sql(bi.engine.dialect) if changed is not None else None
        if sql is None or checked(sql) is not None:
            continue
        with_values = ", ".join(f"{old!r} -> {new!r}" for old, new in changed.items())
        bi.notes.append(f"reused approved query #{e.id} of {e.question!r}" + (f" ({with_values})" if changed else ""))
        reused = {"example": e.id, "question": e.question, "values": changed}
        return {"sql": sql, "tables": sorted({t.name for t in tree.find_all(exp.Table)}), "reused": reused}
    return None


def _slot_names(slots: list[Slot], tree: exp.Expression) -> set[str]:
    """The words (`_key`) of the tables and columns the text values are compared with: 'genre' of `Genre.Name`."""
    where = {_compared_column(lit, tree) for s in slots if s.kind == "text" for lit in s.nodes}
    return {_key(w) for tc in where if tc for name in tc for w in re.findall(r"[a-z0-9]+", words(name).lower())}


def _elsewhere(slots: list[Slot], resolved: list[dict[str, Any]], tree: exp.Expression) -> bool:
    """Whether the entity step resolved a new text value to a column other than the one its literal is
    compared with (the user means another field: the approved query does not fit)."""
    for s in (s for s in slots if s.kind == "text"):
        columns = {(t.lower(), c.lower()) for lit in s.nodes if (tc := _compared_column(lit, tree)) for t, c in [tc]}
        named = (r for r in resolved if s.new.lower() in (str(r.get("mention")).lower(), str(r.get("value")).lower()))
        if any((str(r.get("table")).lower(), str(r.get("column")).lower()) not in columns for r in named):
            return True
    return False


def use_examples(
    agent: Any,
    store: Any = None,
    *,
    k: int = K,
    leave_one_out: bool = False,
    embedder: Any = "default",
    floor: float | None = FLOOR,
) -> Any:
    """Give a BI agent the approved examples of `store` (a path, a `postgresql://` URL, a session store, an
    `ApprovedExamples`; None: the session database). `embedder="default"` uses MiniLM when it is installed
    (full text alone otherwise; no `floor` then). Returns the agent."""
    agent.bi.approved = ExampleMemory(open_examples(store, embedder), k, leave_one_out, floor)
    return agent


def open_examples(store: Any = None, embedder: Any = "default") -> ApprovedExamples:
    if isinstance(store, ApprovedExamples):
        return store
    if embedder == "default":  # MiniLM when installed, loaded at its first use
        embedder = lazy_embedder()
    target = getattr(store, "url", None) or getattr(store, "path", None) if store is not None else None
    if store is not None and target is None and not isinstance(store, str | Path):
        raise DataError(f"cannot keep approved examples in a {type(store).__name__}: give a path or a URL")
    return ApprovedExamples(target or store, embedder=embedder)


# -- approving an answer ---------------------------------------------------------------------------------
UNANSWERED = ("declined", "error")  # no query ran: only a person's correction can be kept for it
OLD_ANSWER = "this answer was saved before answers recorded their database; ask the question again and correct that"


def correctable(answer: dict[str, Any]) -> str:
    """The connection of a BI answer (`BIAnswer.to_dict()`) a person's correction can be kept for: one that ran a
    query (`answered_query`), or one declined or failed (no query ran) on the database it records."""
    if answer.get("status") not in UNANSWERED or answer.get("sql"):
        return answered_query(answer)[0]
    if not answer.get("connection"):
        raise NotApprovable(OLD_ANSWER)
    return str(answer["connection"])


def answered_query(answer: dict[str, Any]) -> tuple[str, str]:
    """(connection, SQL) of a BI answer (`BIAnswer.to_dict()`) that ran a query; NotApprovable otherwise."""
    if answer.get("status") not in ("completed", "answered") or not answer.get("sql"):  # "answered": saved before
        raise NotApprovable(
            f"only an answered query can be approved; this answer is {answer.get('status')!r}"
            + ("" if answer.get("sql") else " and ran no SQL")
            + ("; correct it with the SQL that answers it" if answer.get("status") in UNANSWERED else "")
        )
    for todo in answer.get("todos") or []:
        if todo.get("tool") == "sql_executor" and todo.get("status") == "done":
            meta = _json(todo.get("result")).get("query_metadata") or {}
            if meta.get("engine"):
                return str(meta["engine"]), str(meta.get("query") or answer["sql"])
    raise NotApprovable("this answer's query is not one the SQL step ran (a GraphQL lookup cannot be approved)")


def approve(agent: Any, examples: ApprovedExamples | None = None, *, sql: str | None = None) -> int:
    """Approve the agent's last answer (`agent.answer`, for the question the user asked): stores its question ->
    SQL pair for its connection and returns the example's id. With `sql`, a person's correction: the question is
    kept with `sql` (checked on the answer's connection, `correction`) instead of the agent's SQL; a declined or
    failed answer can be corrected too."""
    if agent.answer is None:
        raise NotApprovable("the agent has answered nothing yet")
    answer = agent.answer.to_dict()
    connection, kept = answered_query(answer) if sql is None else (correctable(answer), sql)
    if agent.bi.engine.name != connection:
        raise NotApprovable(f"the answer was on {connection!r}, the agent is on {agent.bi.engine.name!r} now")
    if sql is not None:
        kept = correction(agent.bi.engine, sql)
    store = examples or (agent.bi.approved.examples if agent.bi.approved else open_examples())
    return store.approve(connection, agent.bi.question, kept)


def correction(engine: Engine, sql: str) -> str:
    """A person's corrected SQL for an answer on `engine` (the run's connection) as it is kept: the one read-only
    query the guard lets run, written again from its parse (no comments), once it plans there. The dry run is
    `tools.dry_run` without its one-row probe (imported, tools.py would import this module back): a right query
    may find nothing. BadCorrection, saying what to do, otherwise; nothing is stored."""
    text = sql.strip() if isinstance(sql, str) else ""
    if not text:
        raise BadCorrection("the corrected SQL is empty: give one SELECT that answers the question")
    if len(text) > MAX_SQL:
        raise BadCorrection(f"the corrected SQL has {len(text)} characters; give one SELECT of at most {MAX_SQL}")
    try:
        engine.explain(text)
    except (UnsafeQuery, QueryError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise BadCorrection(
            f"the corrected SQL was not kept ({reason}); give one SELECT that runs on {engine.name}"
        ) from None
    return sqlglot.parse_one(text, read=engine.dialect).sql(dialect=engine.dialect, comments=False)


def correction_on(db: str, sql: str, run_db: str | None = None) -> str:
    """`correction` on the database `db` names, opened for it and closed; with `run_db`, `db` must be that run's
    database (the CLI's --db, naming a file or URL again)."""
    from orrery.bi.data import open_engine

    engine = open_engine(db)
    try:
        if run_db is not None and engine.name != run_db:
            raise DataError(f"--db {db!r} is {engine.name!r}, not the run's database {run_db!r}; name the run's")
        return correction(engine, sql)
    finally:
        engine.close()


def last_answer(sessions: Any, run_id: str) -> tuple[str, str, str]:
    """(connection, question, SQL) of the last query a CLI session (`orrery bi ask` prints its id) ran; refused
    when the session's last answer ran none (declined or failed: `last_correctable` takes a correction of it)."""
    bi = _bi_part(sessions, run_id)
    last, entries = bi.get("last") or {}, bi.get("memory", [])
    if last.get("status") in UNANSWERED:
        raise NotApprovable(
            f"only an answered query can be approved; run {run_id!r} was {last['status']!r} and ran no query; "
            "correct it with --sql"
        )
    at = next(
        (
            i
            for i in range(len(entries) - 1, -1, -1)
            if entries[i].get("query_metadata", {}).get("engine") and entries[i].get("status") == "complete"
        ),
        None,
    )
    if at is None:
        raise NotApprovable(f"session {run_id!r} ran no query to approve")
    meta = entries[at]["query_metadata"]
    return meta["engine"], _question(entries, at), meta["query"]


def last_correctable(sessions: Any, run_id: str) -> tuple[str, str, str | None]:
    """(connection, question, the agent's SQL or None) of a CLI session's last answer, for a person's correction:
    its last query, or its last answer when that was declined or failed (no query ran) on the database it records."""
    last = _bi_part(sessions, run_id).get("last")
    if last is None:  # saved before sessions recorded their last answer: only a query that ran can be corrected
        try:
            return last_answer(sessions, run_id)
        except NotApprovable as exc:
            raise NotApprovable(f"{exc}; {OLD_ANSWER}") from None
    if last.get("status") in UNANSWERED:
        return str(last["connection"]), str(last["question"]), None
    return last_answer(sessions, run_id)


def _bi_part(sessions: Any, run_id: str) -> dict[str, Any]:
    session = sessions.load(check_id("run id", run_id))
    if session is None:
        raise NotApprovable(f"no BI session {run_id!r} in {getattr(sessions, 'path', None) or 'the session store'}")
    return (session.data or {}).get("bi") or {}


def _question(entries: list[dict[str, Any]], at: int) -> str:
    """The user's words that started the plan whose step `at` ran the query: the earliest entry of that plan
    (a clarification's answer reruns a step; the question came before it)."""
    plan = [t["key"] for t in entries[at].get("active_todo_list_snapshot", [])]
    first = at
    while (
        first > 0
        and [t["key"] for t in entries[first - 1].get("active_todo_list_snapshot", [])] == plan
        and entries[first - 1].get("todo_key") != plan[-1]
    ):
        first -= 1
    return entries[first]["user_input"]


def _json(text: Any) -> dict[str, Any]:
    try:
        value = json.loads(text) if isinstance(text, str) else text
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
