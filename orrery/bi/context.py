"""What the BI tools share (`ctx.deps` of every BI tool): the database, its semantic layer, the model and the
conversation's choices, with the value index the entity and field steps search."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pydantic
from rapidfuzz import fuzz, process, utils

from orrery.bi.engines import Engine, QueryResult
from orrery.bi.names import singular
from orrery.bi.semantic import Semantic, stems, word_root, words
from orrery.errors import ModelError, ToolError
from orrery.llm.base import Model
from orrery.messages import Message, Usage
from orrery.tools.core import NeedsClarification


class BadReply(ToolError):
    """A model reply that is cut or not the JSON asked for: says nothing about the data."""


@dataclass
class Candidate:
    value: Any
    table: str
    column: str
    score: float


class ValueLookup:
    """The indexed values as rapidfuzz's processor writes them, with the values holding each word and the one-word
    values by their first four letters: a name is tested against thousands of values by a dictionary look-up and
    one rapidfuzz scan in C, not a Python loop over the index per name."""

    def __init__(self, texts: list[str]):
        self.texts = texts
        self.by_word: dict[str, set[int]] = {}
        self.by_prefix: dict[str, set[str]] = {}
        for i, text in enumerate(texts):
            for w in set(text.split()):
                self.by_word.setdefault(w, set()).add(i)
            if text and " " not in text:
                self.by_prefix.setdefault(text[:4], set()).add(text)

    def near(self, text: str, cutoff: float = 90) -> bool:
        """Whether some value is within rapidfuzz ratio `cutoff` of `text` (processed)."""
        return process.extractOne(text, self.texts, scorer=fuzz.ratio, processor=None, score_cutoff=cutoff) is not None

    def holding_all(self, words_: set[str]) -> bool:
        """Whether one value holds every one of `words_` as a whole word ('Zeppelin' of 'Led Zeppelin')."""
        sets = [self.by_word.get(w, set()) for w in words_]
        return bool(sets) and bool(set.intersection(*sets))


@dataclass
class BIContext:
    """What the tools share: the database, its semantic layer, the model, and the run's choices."""

    engine: Engine
    semantic: Semantic
    model: Model
    clarify: bool = True
    chart_dir: Path | None = None
    choices: dict[str, str] = field(default_factory=dict)  # "entity:United" -> the value the user picked
    asked: list[str] = field(default_factory=list)  # the options of the question last put to the user
    notes: list[str] = field(default_factory=list)  # readings taken without asking (--no-clarify)
    usage: Usage = field(default_factory=Usage)
    last_result: QueryResult | None = None
    latest_metadata: Callable[[], dict[str, Any] | None] = lambda: None
    max_tokens: int | None = 400
    sql_mode: str = "parts"  # "parts": the model fills in clauses, joins are derived; "sql": it writes the SQL
    question: str = ""  # the user's own words for the current plan (the rewrite may add some)
    approved: Any = None  # orrery.bi.examples.ExampleMemory: approved question -> SQL pairs shown to the SQL step
    probe: bool = True  # a built query is run for one row to check it (off while its execution waits for approval)
    _index: list[Candidate] | None = None
    _lookup: ValueLookup | None = None
    _values: tuple[list[Candidate], dict[tuple[str, str], frozenset[str]]] | None = None  # `values`, per index
    _years: dict[tuple[str, str], tuple[int, int]] | None = None  # decline.year_ranges, read once
    _derived: dict[str, tuple[Semantic, Any]] = field(default_factory=dict)  # `derived`
    _graphql: Any = None

    # -- value index for entity resolution ---------------------------------------------------------
    def index(self) -> list[Candidate]:
        """Distinct values of the semantic layer's `values` columns, read once."""
        if self._index is None:
            self._index = []
            for table, column in self.semantic.value_columns():
                q = f'SELECT DISTINCT "{column}" FROM "{table}" WHERE "{column}" IS NOT NULL'
                if self.engine.dialect == "postgres":
                    q = f"SELECT DISTINCT {column.lower()} FROM {table.lower()} WHERE {column.lower()} IS NOT NULL"
                self._index += [Candidate(r[0], table, column, 0.0) for r in self.engine.execute(q, max_rows=5000).rows]
        return self._index

    def derived(self, name: str, build: Callable[[], Any]) -> Any:
        """What the decline checks read from the layer and the value index (decline.categories, the known words,
        the typo targets, the texts meanings are compared with), built once per layer: `examples.teach` gives the
        context a new layer before a question (synonyms taught), `use` another database's."""
        kept = self._derived.get(name)
        if kept is None or kept[0] is not self.semantic:
            kept = self._derived[name] = (self.semantic, build())
        return kept[1]

    def lookup(self) -> ValueLookup:
        """The indexed values keyed for the decline checks' exact tests, built once from `index`."""
        if self._lookup is None:
            self._lookup = ValueLookup([utils.default_process(str(c.value)) for c in self.index()])
        return self._lookup

    def value_words(self) -> set[str]:
        """Every word of every indexed value, lower-cased."""
        return {w for c in self.index() for w in re.findall(r"[a-z0-9]+", str(c.value).lower())}

    def values(self, table: str, column: str) -> frozenset[str]:
        """The distinct values of one indexed column, lower-cased: the index grouped by column once (callers ask it
        per column, per filter; each asked scanned the whole index)."""
        index = self.index()
        if self._values is None or self._values[0] is not index:
            held: dict[tuple[str, str], set[str]] = {}
            for c in index:
                held.setdefault((c.table, c.column.lower()), set()).add(str(c.value).lower())
            self._values = (index, {k: frozenset(v) for k, v in held.items()})
        return self._values[1].get((table, column.lower()), frozenset())

    def search(self, mention: str, limit: int = 8) -> list[Candidate]:
        """Values like `mention`, best first, one per distinct value (the first column holding it)."""
        idx = self.index()
        hits = process.extract(
            mention, [str(c.value) for c in idx], scorer=fuzz.WRatio, processor=utils.default_process, limit=limit * 4
        )
        out: dict[str, Candidate] = {}
        for _, score, i in hits:
            c = idx[i]
            key = str(c.value).lower()
            if len(key) < 3 and key != mention.lower():  # 'N' is inside every word that has an n
                continue
            if key not in out:
                out[key] = Candidate(c.value, c.table, c.column, score)
        return sorted(out.values(), key=lambda c: -c.score)[:limit]

    def rest_of_name(self, mention: str, pick: Candidate) -> list[Candidate]:
        """The other words of a mention found in the same table, exactly: 'Jane' of 'Jane Peacock' when
        'Peacock' is a last name."""
        rest = [w for w in mention.split() if w.lower() not in str(pick.value).lower()]
        return [
            c
            for w in rest
            for c in self.index()
            if c.table == pick.table and c.column != pick.column and str(c.value).lower() == w.lower()
        ][: len(rest)]

    def best_holder(self, pick: Candidate, question: str) -> Candidate:
        """Of the columns holding `pick`'s value ('F' is an order status and a line status), the one the
        question names best."""
        same = [c for c in self.index() if str(c.value) == str(pick.value)]
        if len(same) < 2:
            return pick
        q = stems(question)
        v = stems(str(pick.value))
        at = next((i for i in range(len(q)) if q[i : i + len(v)] == v), None)
        if at is None:
            return pick
        before = [w for w in q[:at] if w not in ("the", "a", "an")]
        after = [w for w in q[at + len(v) :] if w not in ("the", "a", "an")]

        # a word of one holder's name that the others' names lack ('billing' of BillingCity beside City)
        names = {(c.table, c.column): {word_root(w) for w in stems(words(c.column))} for c in same}
        shared = set.intersection(*names.values())
        near = {word_root(w) for w in before[-2:]}

        def named(c: Candidate) -> bool:  # a label right next to the value: 'order status F', 'the Rock genre'
            info = self.semantic.tables[c.table]["columns"][c.column]
            labels = [stems(label) for label in (words(c.column), *info.get("synonyms", [])) if label]
            if any(lab and (before[-len(lab) :] == lab or after[: len(lab)] == lab) for lab in labels):
                return True
            return bool((names[c.table, c.column] - shared) & near)  # 'billed to Berlin': the billing city

        # 'Ohio counties': a value before the plural of a table's name qualifies that table's rows (they are in
        # Ohio), it does not name one of them ('Cook County' does); another table's column holds it
        kinds = _tables_after(self.semantic, question, str(pick.value))
        others = [c for c in same if c.table not in kinds]
        best = next((c for c in same if named(c)), others[0] if others else pick)  # else the layer's first holder
        return Candidate(best.value, best.table, best.column, pick.score)

    def graphql(self) -> Any:
        if self._graphql is None:
            from orrery.bi.graphql_layer import GraphQLLayer

            self._graphql = GraphQLLayer(self.engine)
        return self._graphql

    def ask_or_pick(self, key: str, question: str, options: list[str], answer: str | None) -> str:
        """The option the user chose (from `answer`, or an earlier answer), the top one when asking is off,
        or a question to the user."""
        if key in self.choices:
            return self.choices[key]
        if answer:
            picked = pick_option(answer, options)
            if picked is not None:
                self.choices[key] = picked
                return picked
        if not self.clarify:
            self.notes.append(
                f"took {options[0]!r} ({question.split(':')[0]}); also possible: "
                + ", ".join(repr(o) for o in options[1:])
            )
            return options[0]
        self.asked = options
        raise NeedsClarification(f"{question}: " + " or ".join(options) + "?")

    def ask_model(
        self,
        system: str,
        user: str,
        schema: dict[str, Any],
        reply: type[pydantic.BaseModel],
        examples: list[Message] = (),
    ) -> Any:
        messages = [Message("system", system), *examples, Message("user", user)]
        try:
            resp = self.model.complete(messages, (), tool_choice="none", schema=schema, max_tokens=self.max_tokens)
        except ModelError as exc:  # a reply cut at max_tokens: asked again once by the step, like a bad part
            raise BadReply(f"the model's reply failed: {exc}") from exc
        self.usage += resp.usage
        try:
            return reply.model_validate_json(resp.content)
        except pydantic.ValidationError as exc:
            raise BadReply(f"the model's reply {resp.content[:200]!r} is not valid JSON for this step") from exc


def _tables_after(semantic: Semantic, question: str, value: str) -> set[str]:
    """The tables whose name the question writes in the plural right after `value` ('Ohio counties')."""
    m = re.search(rf"\b{re.escape(value.lower())}\s+([a-z]+)", question.lower())
    word = m.group(1) if m else ""
    if not word or singular(word) == word:
        return set()
    return {t for t in semantic.tables if singular(words(t).split()[-1] if words(t) else t) == singular(word)}


ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1": 1, "2": 2, "3": 3, "4": 4}  # an option by number


def plainly_picks(answer: str, options: list[str]) -> bool:
    """Whether a message is plainly one of the options put to the user, so no model need read its intent: its
    number or ordinal alone, an option as written, a column's name without its table or description, or the only
    option it begins ('none' of 'none of these ...'). Anything longer is the intent step's to read."""
    said = answer.strip().lower().rstrip(".!")
    forms = [{o.lower(), o.split(" (")[0].split(".")[-1].lower()} for o in options]
    begun = [f for f in forms if any(name.startswith(said + " ") for name in f)]
    named = any(said in f for f in forms)
    ordinal = said.removeprefix("the ").removesuffix(" one") in ORDINALS
    return bool(options) and (ordinal or named or (len(said) > 2 and len(begun) == 1))


def pick_option(answer: str, options: list[str]) -> str | None:
    """The option an answer names: by number ('2', 'the second'), or the closest by spelling."""
    for word in re.findall(r"\w+", answer.lower()):
        if word in ORDINALS and ORDINALS[word] <= len(options) and not any(word in o.lower() for o in options):
            return options[ORDINALS[word] - 1]

    def squeeze(text: str) -> str:
        return re.sub(r"[\W_]+", "", text.lower())

    # 'receipt date' names 'lineitem.l_receiptdate (...)': compare with spaces and punctuation dropped too
    scores = [
        max(fuzz.WRatio(answer, o, processor=utils.default_process), fuzz.partial_ratio(squeeze(answer), squeeze(o)))
        for o in options
    ]
    best = max(range(len(options)), key=lambda i: scores[i])
    return options[best] if scores[best] >= 60 and scores.count(scores[best]) == 1 else None
