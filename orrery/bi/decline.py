"""Declining: a judgment about the data, not about the question's vocabulary.

A question is declined when something it needs is missing from the data, and the reason names it. What it
needs is read from its shape, not from a list of allowed words:
- what it counts ("how many X"), groups by ("each X"), ranks by ("the highest X", "the most X"), or asks to
  identify ("which X", "what X"): a noun phrase, held when any of its leading words is a column, a layer
  term, a table or a value (`missing_asked`);
- the measure it asks ("what / who is the X of", "how much X") and two nouns before a verb ("which record
  label released"): held only as a whole;
- the attribute it asks of each thing ("In which year was each album released?"): a column of that thing's
  table or a neighbour's (`missing_attribute`);
- the condition it states as a bare predicate ("how many orders were returned?", "how many customers are
  female?", "when was each album released?"): its last word must be a word of a column, a table or a value,
  else the answer would count every row (`missing_predicate`);
- the fields and values the planner names that the user wrote (`missing_fields`);
- a year no column that says when reaches (`years_outside`);
- an age of a thing whose own table has no date or age (`missing_age`), and a lower-case word before the things
  counted that the data does not spell (`missing_kinds`: 'king penguins').
A country named by its demonym is held through the `countryinfo` package's data (`demonym_held`).
`shape_decline` (the future, then the shapes) runs before the plan call: it needs no model.
A name the model's SQL invents is the model's failure, never a reason to decline (tools.build_sql).
Only closed-class grammar words (auxiliaries, determiners, prepositions), units of time, the future's markers and
the words that make a number a quantity or a bound of years appear here as words.
"""

from __future__ import annotations

import calendar
import collections
import contextlib
import datetime
import functools
import hashlib
import itertools
import json
import os
import re
import zipfile
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import sqlglot
from rapidfuzz import fuzz, process, utils
from rapidfuzz.distance import OSA
from sqlglot import exp

from orrery.bi.engines import QueryError
from orrery.bi.joins import join_ends
from orrery.bi.names import KEY_WORDS, key_like, names_table, said_words, singular, yes_no
from orrery.bi.profile import COUNT_CAP, quote
from orrery.bi.semantic import (
    GENERIC,
    NUMERIC,
    QUANTITIES,
    UNITS,
    Semantic,
    abbreviates,
    initials,
    rank_fields,
    schema_words,
    stems,
    table_year,
    two_digit_year,
    user_abbreviates,
    verb_root,
    word_root,
    words,
)
from orrery.files import cache_dir, write_atomic
from orrery.grounding import writes_a_number
from orrery.recall.embed import lazy_embedder, model_zip

if TYPE_CHECKING:
    from orrery.bi.context import BIContext, Candidate

MATCH_FIELD = 75  # a business term whose best field scores below this is not in the data (UNMAPPED)
# A term the lexical tests miss is held by its meaning when MiniLM puts it this close (cosine) to a text of the layer
# (`_layer_texts`: names, descriptions, categorical values): 'films' ~ 'movies' 0.87, 'elevation' ~ 'altitude' 0.82;
# chosen by leave-one-set-out cross-validation on the shape check of every development set (bench/bi_meaning_cv.py,
# bench/bi.md round 15: the cost is answerable declined + unanswerable let through, equal weights).
MEANING_FLOOR = 0.7852
# A term is also held when MiniLM singles out one column for it: the column's cosine beats every other target's by
# this much ('births' -> `fertility` 0.60 vs 0.34 next), where an absent term sits near several ('salary': +0.04);
# chosen by leave-one-set-out cross-validation on the replay of every stored decline (bench/bi.md, round 32).
MEANING_MARGIN = 0.16
# Two number columns of one table, both this far above every other target for a term, hold it between them: a
# measure the data keeps in two columns ('revenue': `sales` or `profit`), which the user can be asked; chosen by
# leave-one-set-out cross-validation on the replay of every stored decline (bench/bi.md, round 37, rule T''; inf: off).
TIE_MARGIN = 0.06
# closed-class words: auxiliaries, determiners, pronouns, prepositions, conjunctions
GRAMMAR = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "each",
        "every",
        "all",
        "any",
        "some",
        "no",
        "its",
        "their",
        "his",
        "her",
        "our",
        "your",
        "my",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "must",
        "shall",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "without",
        "about",
        "into",
        "over",
        "under",
        "between",
        "among",
        "across",
        "through",
        "during",
        "per",
        "than",
        "as",
        "and",
        "or",
        "not",
        "who",
        "whom",
        "whose",
        "which",
        "what",
        "when",
        "where",
        "why",
        "how",
        "there",
        "here",
        "it",
        "they",
        "them",
        "we",
        "us",
        "you",
        "he",
        "she",
        "i",
        "me",
        # possessive and reflexive pronouns: 'what % of all the investment was theirs' names no field
        "ours",
        "yours",
        "theirs",
        "hers",
        "him",
        "himself",
        "herself",
        "itself",
        "themselves",
        "ourselves",
        "yourself",
        "one",
        "please",
        "enough",
    ]
)


def user_wrote(term: str, question: str) -> bool:
    """Whether the user's question contains `term` (near enough: 'customer rating' in 'customer's rating'),
    or every word of it that is not generic ('employee' of 'employee count')."""
    text, q = utils.default_process(re.sub(r"[_\W]+", " ", term)), utils.default_process(question)
    if not text:
        return False
    if fuzz.partial_ratio(text, q) >= 85:
        return True
    own = [w for w in stems(text) if w not in GENERIC]
    return bool(own) and all(_in_question(w, q) for w in own)


def _in_question(word: str, question: str) -> bool:
    """Whether the question (`utils.default_process`ed) writes the word, near enough ('beyonce' of 'Beyoncé')."""
    return fuzz.partial_ratio(word, question) >= 85


def maps(bi: BIContext, term: str, ranked: list[tuple[float, str, dict[str, Any]]] | None = None) -> bool:
    """Whether the data holds `term`: a column, a term of the layer, or a value of an indexed column
    (the planner lists 'Drama' as a field as often as a value)."""
    ranked = rank_fields(bi.semantic, term) if ranked is None else ranked
    own = " ".join(singular(w) for w in re.findall(r"[a-z0-9]+", term.lower()) if w not in GENERIC)
    if not own:
        return True
    floor = 90 if len(own) <= 5 else MATCH_FIELD  # 'port' is one letter from 'part'
    if any(score >= floor and _has_head(bi.semantic, own, f) for score, _, f in ranked):
        return True
    if len(own.split()) <= 3 and any(
        _has_head(bi.semantic, own, f, names_only=True) and _modifiers_fit(bi.semantic, own, f)
        for _, _, f in ranked
        if "column" in f
    ):
        return True  # 'critic reviews' is the Reviews column, however low the whole phrase scores
    text = utils.default_process(term)  # the whole term is the value, near enough ('Times' is not 'times streamed')
    return any(fuzz.ratio(text, utils.default_process(str(c.value))) >= 90 for c in bi.search(term, limit=3))


def _has_head(semantic: Semantic, term: str, target: dict[str, Any], names_only: bool = False) -> bool:
    """Whether the last word of `term` (its head noun: 'budget' of 'production budget') is a word of the
    field's name or synonyms (or, unless `names_only`, its description): 'production budget' is not the
    `Production` column."""
    head = singular(term.split()[-1])
    forms = {head, verb_root(head)}  # 'shipping' is `ship_mode`'s 'ship'
    if "sql" in target:
        info = next((i for i in semantic.terms.values() if i.get("sql") == target["sql"]), {})
        texts = [k for k, i in semantic.terms.items() if i is info] + info.get("synonyms", [])
    else:
        info = semantic.tables[target["table"]]["columns"][target["column"]]
        texts = [words(target["column"]), *info.get("synonyms", [])]
    texts += [] if names_only else [info.get("description") or ""]
    lead = words(target.get("column", "")).split()[:1]  # `bp_k` names a 'boiling point'
    if lead and (run := initials(lead[0], tuple(term.split()))) and term.endswith(run):
        return True
    return any(
        singular(w) in forms
        or (len(head) > 4 and fuzz.ratio(w, head) >= 85)
        or abbreviates(w, head)
        or user_abbreviates(head, w)
        for text in texts
        for w in re.findall(r"[a-z0-9]+", text.lower())
    )


def _modifiers_fit(semantic: Semantic, term: str, target: dict[str, Any]) -> bool:
    """Whether each other word of `term` names no column, or one of the head's own table: 'fresh reviews'
    (both columns of one table) fits Reviews; 'clerk size' (an order's clerk, a part's size) fits nothing."""
    for word in term.split()[:-1]:
        owners = {t for t, c, _ in semantic.columns() if word in stems(words(c))}
        if owners and target["table"] not in owners:
            return False
    return True


_COUNT_WORDS = frozenset(["number", "count"])  # 'how many X' as the planner names it: 'X number'


def names_the_data(bi: BIContext, term: str) -> bool:
    """Whether `term` names a table or the database itself ('movies' for the movies database's omdb table), or
    its head noun is a word of a table's description. A trailing count word is no head: 'shipment' of 'shipment
    number' (the planner's wording of 'how many shipments')."""
    own = stems(term)
    names = [bi.semantic.database, *bi.semantic.tables]
    if any(stems(words(n)) == own or stems(n) == own for n in names):
        return True
    nouns = term.lower().split()
    while len(nouns) > 1 and nouns[-1] in _COUNT_WORDS:
        nouns.pop()
    head = singular(nouns[-1]) if nouns else ""
    return any(
        singular(w) == head
        for info in bi.semantic.tables.values()  # 'shipments': 'one shipment line ...'
        for w in re.findall(r"[a-z0-9]+", (info.get("description") or "").lower())
    )


def stored_value(bi: BIContext, term: str) -> bool:
    """Whether some text column holds `term` exactly (case aside): the value index keeps only columns with
    few distinct values, and a director's name is in one with thousands. Bounded: one LIMIT 1 probe per
    text column not indexed, over at most COUNT_CAP rows."""
    if not re.search(r"[A-Za-z]", term):
        return True
    return _stored_where(bi, f"lower(v) = {exp.Literal.string(term.lower()).sql(bi.engine.dialect)}")


def _stored_where(bi: BIContext, condition: str, indexed_too: bool = False) -> bool:
    """Whether a row of some text column not indexed (or any, `indexed_too`) meets `condition` (on its value `v`,
    lower-cased by the caller): one LIMIT 1 probe per column, over at most COUNT_CAP rows."""
    return any(_stored_rows(bi, condition, indexed_too))


def stored_holders(bi: BIContext, term: str) -> list[tuple[str, str, Any]]:
    """(table, column, stored value) of each text column not indexed that holds `term` whole (case aside)."""
    return list(_stored_rows(bi, f"lower(v) = {exp.Literal.string(term.lower()).sql(bi.engine.dialect)}"))


def _stored_rows(bi: BIContext, condition: str, indexed_too: bool = False) -> Iterator[tuple[str, str, Any]]:
    """(table, column, value) of the first row meeting `condition` in each text column not indexed (or any)."""
    indexed = set() if indexed_too else set(bi.semantic.value_columns())
    for table, column, info in bi.semantic.columns():
        if (table, column) in indexed or not re.match(r"(VARCHAR|TEXT|CHAR|STRING)", str(info.get("type", "")), re.I):
            continue
        col, tab = quote(bi.engine, column), quote(bi.engine, table)
        sql = f"SELECT v FROM (SELECT {col} AS v FROM {tab} LIMIT {COUNT_CAP}) AS s WHERE {condition} LIMIT 1"
        try:
            rows = bi.engine.execute(sql, max_rows=1).rows
        except QueryError:
            continue
        if rows:
            yield table, column, rows[0][0]


_WORD = r"[a-z][\w-]*"
_NOT_GRAMMAR = rf"(?!(?:{'|'.join(sorted(GRAMMAR))})\b)"
# A unit of time or a season that 'next' can point to; not 'day' ('shipped the next day' follows an order's date)
_TIME_AHEAD = (
    r"(?:week|weekend|month|quarter|year|yr|decade|century|season|spring|summer|autumn|fall|winter|holiday|christmas|"
    r"xmas|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
)
# 'is going to' before a lower-case verb ('is going to win'), not a place ('orders going to France'); 's' for 'is'
# after a pronoun only ("who's going to win"), not a possessive ("bachelor's going to women"); 'at the next
# games': an event still to come; 'next' then up to two words that are no grammar words before a time ('next holiday
# season', 'next 3 months'; not 'next to', 'next-day'); 'ten years from now'
FUTURE = re.compile(
    rf"\b(will|tomorrow|next(?:\s+{_NOT_GRAMMAR}[\w']+){{0,2}}?\s+{_TIME_AHEAD}|from\s+now|forecast|predict\w*|"
    r"upcoming)\b|"
    r"(?:\b(?:it|that|this|what|who|he|she|there|here|where|which)'s|\bis|\bare|\bam)\s+going\s+to\s+(?-i:[a-z]+)\b(?<!\bthe)|\b(?:at|in|during|for)\s+the\s+(?:next|coming)\b(?!-)",
    re.I,
)
# What a question asks for, by its shape: the things it counts ("how many X"), the groups it splits by ("each
# X"), what it ranks by ("the highest X"; not "is the most popular", an adjective after a copula): held when any
# leading word is in the data (the shape catches verbs with the noun: 'customers live'). The measure it asks the
# value of ("what is the [total] X of", "who is the X of", "how much X is"): a noun phrase with no verb in it,
# held only as a whole (its head noun is in the data: 'production budget' is not the Production column).
_ASKED = [
    re.compile(
        rf"\bhow many ((?:{_WORD}\s?){{1,3}}?)\s*\b(?:are|is|were|was|do|does|did|have|has|in|on|of|"
        r"for|per|by|with|from|there|that|who|which|can|will|got|had)\b",
        re.I,
    ),
    # 'per customer segment': two words that are no grammar words; 'each region of origin'
    re.compile(rf"\b(?:each|every|per) ({_NOT_GRAMMAR}{_WORD} {_NOT_GRAMMAR}{_WORD}|{_WORD}(?: of {_WORD})?)", re.I),
]
_MEASURED = [
    re.compile(
        rf"\b(?:what|who|how much) (?:is|was|are|were) the ((?:{_WORD}\s?){{1,4}}?)\s*\b(?:of|for|in|per|by|"
        r"from|to|at|on)\b",
        re.I,
    ),
    re.compile(rf"\bhow much ((?:{_WORD}\s?){{1,3}}?)\s*\b(?:is|are|was|were|do|does|did|has|have|had)\b", re.I),
]
# the thing a measure is "of" when the measure itself names nothing ('the name of the contact person at ...')
_OF = re.compile(
    rf"\bof (?:the |a |an )?((?:{_WORD}\s?){{1,3}}?)\s*(?:\b(?:at|in|for|of|per|by|from|to|on|with|"
    r"who|which|that|is|are|was|were)\b|[?.,!]|$)",
    re.I,
)
_SUPERLATIVES = ("highest", "lowest", "largest", "smallest", "biggest", "greatest", "longest", "shortest")
_RANKED = re.compile(
    r"(?<!\bis the )(?<!\bare the )(?<!\bwas the )(?<!\bwere the )(?<!\bis )(?<!\bare )(?<!\bwas )"
    rf"(?<!\bwere )\b(?:most|least|{'|'.join(_SUPERLATIVES)})"
    r" ((?:[a-z][\w-]*\s?){1,3}?)\s*(?:\b(?:of|in|for|per|by|from|to|at|on|with|among|during|than|and|"
    r"or|that|who|which|is|was|are|were|do|does|did|has|have|had)\b|[?.,!]|$)",
    re.I,
)
# degree words: after 'which <verb>' they say the question compares ('which won more', 'which get better')
_DEGREE = frozenset(["more", "most", "less", "least", "fewer", "fewest", "better", "worse"])
# what ranks rather than names: a degree word, a comparative or an extreme ('the highest price', 'used most often',
# 'cheaper', 'the top 5'); the one list of them (orrery.bi.examples reads it too)
RANKING = _DEGREE | {
    *_SUPERLATIVES,
    *("best", "worst", "best-selling", "top", "bottom", "maximum", "minimum", "max", "min"),
    *("earliest", "latest", "oldest", "newest"),
    *("greater", "higher", "lower", "longer", "shorter", "larger", "smaller", "bigger", "cheaper", "older", "younger"),
}
_WHICH = re.compile(rf"\b(?:which|what) ({_WORD}(?: {_WORD}){{0,2}})", re.I)


def asked_terms(question: str) -> list[str]:
    """The noun phrases a question asks about by its shape: 'warehouses' of 'How many warehouses does each
    nation have?', 'population' of 'What is the population of each nation?', 'nation', 'unemployment rate'
    of 'the highest unemployment rate in 2010', 'customer bought' of 'Which customer bought the most?'."""
    return list(dict.fromkeys(p for p, _ in asked_shapes(question)))


def asked_shapes(question: str) -> list[tuple[str, bool]]:
    """(phrase, whole): the phrases of `asked_terms`; `whole` when the phrase is a noun phrase held only as a
    whole (a measure, or 'which record label released ...': two nouns before a verb)."""
    found = [(m.group(1).strip(), False) for rx in _ASKED for m in rx.finditer(question) if not _rate_unit(m)]
    for rx in _MEASURED:
        for m in rx.finditer(question):
            phrase = m.group(1).strip()
            if any(w.lower() not in GENERIC for w in phrase.split()):
                found.append((phrase, True))
    # one word ending the question after a superlative with no article is as often an adverb as a noun
    # ('used most often'); after 'the' it is a noun ('the highest salary')
    # ('spent the most with us': a preposition after the superlative, which is then an adverb)
    found += [
        (m.group(1).strip(), False)
        for m in _RANKED.finditer(question)
        if m.group(1).split()[0].lower() not in GRAMMAR
        and (
            len(m.group(1).split()) > 1
            or question[m.end(1) :].strip(" ?.!")
            or question[: m.start()].lower().endswith("the ")
        )
    ]
    return [(p, whole) for p, whole in [*found, *_identified(question)] if p]


_WORD_BEFORE = re.compile(r"([a-z][\w'-]*)\s+$", re.I)


def _rate_unit(m: re.Match[str]) -> bool:
    """Whether a group shape's match is 'per U' of one word right after a word ('births per woman', 'miles per
    gallon of ...'): the unit of a rate, which groups nothing. After a comma or a grammar word ('..., per make'), or
    of two words ('minutes per customer region'), it stays a group the data must hold."""
    before = _WORD_BEFORE.search(m.string[: m.start()])
    one_word = m.group(1).lower().split()[1:2] in ([], ["of"])
    return (
        m.group(0).lower().startswith("per ") and one_word and bool(before) and before.group(1).lower() not in GRAMMAR
    )


def measured_of(question: str) -> list[str]:
    """What a measure that names only a generic attribute is of: 'contact person' of 'What is the name of the
    contact person at each supplier?', 'lead singer' of 'Who is the lead singer of Queen?' (the measure
    itself, 'lead singer', is asked too)."""
    out = []
    for m in _MEASURED[0].finditer(question):
        rest = question[m.end(1) :]
        of = _OF.match(rest.strip()) if rest.strip().lower().startswith("of ") else None
        if of:
            out.append(of.group(1).strip())
    return out


def _identified(question: str) -> list[tuple[str, bool]]:
    """'Which X' / 'what X': up to two words before a grammar word; none after an auxiliary ('what is') or
    before 'of' ('what share of', 'which kind of': the noun after 'of' is what is asked). Two words followed
    by a third that is no grammar word are a noun phrase before its verb ('which record label released'):
    held only as a whole; two words followed by a grammar word may be a noun and its verb ('which customer
    bought the most'): held by the noun."""
    out = []
    for m in _WHICH.finditer(question):
        ws = m.group(1).split()
        if ws[0].lower() in GRAMMAR:
            continue
        if len(ws) > 1 and ws[1].lower() in _DEGREE:  # 'which won more medals': a verb, then what it ranks by
            continue
        if len(ws) > 1 and ws[1].lower() in GRAMMAR:
            if ws[1].lower() == "of":
                continue
            ws = ws[:1]
        whole = len(ws) == 3 and ws[2].lower() not in GRAMMAR
        out.append((" ".join(ws[:2]), whole))
    return out


KEPT_TEXTS = 64  # the texts `missing_asked` keeps its answer for (a plan asks it of one to three)


def missing_asked(bi: BIContext, question: str) -> list[str]:
    """The things the question asks about that the data does not hold: the terms no column, value or meaning
    places (`unplaced`), an attribute of each thing (`missing_attribute`) and a measure of a thing
    (`missing_qualified`) that no column of its table or its neighbours holds, an age of a thing whose table
    has no date or age (`missing_age`). Kept per text while the layer and what a person said are the same
    (`_memory_state`): the shape check, the planner's check and each lone category word of a plan ask it."""
    kept = bi.derived("missing_asked", dict)
    key = (question, _memory_state(bi))
    if key not in kept:
        if len(kept) >= KEPT_TEXTS:
            kept.clear()
        out = unplaced(bi, question) + missing_attribute(bi, question) + missing_qualified(bi, question)
        kept[key] = tuple(dict.fromkeys(out + missing_age(bi, question)))
    return list(kept[key])


def _memory_state(bi: BIContext) -> tuple[Any, ...] | None:
    """What a person's answers make of a question now (`approved_covers`, `ExampleMemory.mapped`): the memory, the
    connection's approved pairs and kept answers, the question being planned; None without a memory."""
    if (memory := bi.approved) is None:
        return None
    pairs = tuple(e.id for e in memory.examples.list(bi.engine.name))
    return id(memory), pairs, tuple((k.id, k.term, k.column) for k in memory.fields(bi.engine.name)), bi.question


# an age asked of a thing: 'how old is a typical customer', 'the oldest penguin', 'the average age of our customers'
_AGE = re.compile(
    r"\b(?:how old (?:is|was|are|were)\s+|oldest\s+|youngest\s+|ages? of\s+)"
    rf"(?:(?:a|an|the|each|every|our|your|their|all|typical|average|oldest|youngest)\s+)*({_WORD})(?:\s+({_WORD}))?",
    re.I,
)


def missing_age(bi: BIContext, question: str) -> list[str]:
    """An age asked of a thing that is a table ('how old was the oldest penguin', 'the age of our customers') is
    held only by a column of that table itself that says when (`_temporal`: a birth date, a model year) or is named
    an age: a column of a joined table is another thing's (a customer's support rep's birth date is the rep's).
    No table named, no judgment."""
    out = []
    for m in _AGE.finditer(question):
        noun = m.group(2) if m.group(2) and _thing_table(bi, m.group(2)) else m.group(1)  # 'pet owner': the head
        table = _thing_table(bi, noun)
        columns = bi.semantic.tables[table]["columns"].items() if table else ()
        if table and not any(_temporal(c, info) or "age" in stems(words(c)) for c, info in columns):
            out.append(f"age of {noun.lower()}")
    return out


def _thing_table(bi: BIContext, noun: str) -> str | None:
    """The table whose rows a noun names: by its whole name (`table_named`), else the one table a word of whose
    name the noun is ('penguin' of `penguin_obs`)."""
    if table := table_named(bi, noun):
        return table
    tables = [t for t in bi.semantic.tables if singular(noun.lower()) in {singular(w) for w in words(t).split()}]
    return tables[0] if len(tables) == 1 else None


def unplaced(bi: BIContext, question: str) -> list[str]:
    """The phrases the question asks about by its shape (`asked_shapes`, `predicate`) that nothing in the data
    places. A phrase is held when any of its leading words are ('customers live' by customers, 'line items' by
    line, 'production company' by Production): a shape catches verbs with the noun, and only a phrase none of
    whose beginnings is in the data is missing; a whole phrase (a measure) is held only by a beginning of two
    words or more ('invoice amount' of 'invoice amount billed'), or its one word. A phrase whose every word the
    data holds, one of them as a word of a stored value, is held too ('kubrick films': a director's name and
    the films of the database). A thing counted that the data has only as a title is not (`_only_a_title`)."""
    out = []
    shapes = [*asked_shapes(question), *((p, False) for p in measured_of(question))]
    for phrase, whole in shapes:
        own = _own_words(phrase)
        starts = [" ".join(own[:k]) for k in range(min(2, len(own)) if whole else 1, len(own) + 1)]
        if own and (_phrase_unheld(bi, own, starts, question) or not whole and _only_a_title(bi, own, question)):
            out.append(" ".join(own))
    word = predicate(question)
    if word and not _predicate_held(bi, word, question):
        out.append(word)
    phrase = predicate_phrase(question)
    if phrase and not _phrase_held(bi, phrase, question):
        out.append(" ".join(phrase))
    return list(dict.fromkeys(out))


def _phrase_unheld(bi: BIContext, own: list[str], starts: list[str], question: str) -> bool:
    return len(missing_fields(bi, starts, question)) == len(starts) and not _named_kind(bi, own)


def _only_a_title(bi: BIContext, own: list[str], question: str) -> bool:
    """Whether a thing counted, grouped or ranked by ('how many stars'), one word in lower case, is in the data only
    as a value of a name column (more than CATEGORY distinct values: a track named 'Stars'): no name, synonym or
    description has it, nor a category's value, so it names no kind of row."""
    w = own[0]
    if len(own) > 1 or not w.islower() or w in GENERIC:
        return False
    low, cats = w.lower(), categories(bi)
    if _near_known(low, _described_words(bi)) or {low, singular(low)} & cats.keys() or table_named(bi, w):
        return False
    if approved_covers(bi, w, question) or meaning_of(bi, w, values=False) is not None:
        return False
    text = utils.default_process(w)
    return any(fuzz.ratio(text, utils.default_process(str(c.value))) >= 90 for c in bi.search(w, limit=3)) or bool(
        stored_holders(bi, w)
    )


def _phrase_held(bi: BIContext, phrase: list[str], question: str) -> bool:
    """Whether the data holds a predicate phrase: its first word (the predicate: near forms count, 'returned' ~
    Returns), a word of a stored value, or a later word as itself ('damaged packaging' is not 'package')."""
    return (
        _predicate_held(bi, phrase[0], question)
        or any(value_word(bi, w) for w in phrase)
        or any(_held_as_itself(bi, w, question) for w in phrase[1:])
    )


def _held_as_itself(bi: BIContext, word: str, question: str) -> bool:
    low = word.lower()
    return (
        bool({low, singular(low)} & _known_words(bi))
        or stored_value(bi, word)
        or approved_covers(bi, word, question)
        or meaning_of(bi, word) is not None
    )


def _predicate_held(bi: BIContext, word: str, question: str) -> bool:
    return word_held(bi, word) or approved_covers(bi, word, question) or meaning_of(bi, word) is not None


def _named_kind(bi: BIContext, own: list[str]) -> bool:
    """Whether a phrase opens with a name the user wrote (capitalised) that the data holds, before the kind of
    thing it is ('which Ford model': `mfr` 'ford'): the rows asked about are there, whatever the kind's word."""
    return len(own) > 1 and own[0][:1].isupper() and value_held(bi, own[0])


def _named_with_values(bi: BIContext, own: list[str]) -> bool:
    """Whether a phrase is a value written in lower case before what it is ('kubrick films', 'air line items'):
    its last words are a table, a column or near one in meaning, and the words before them are words of stored
    values (one at least) or schema words. A lone word inside some title is no evidence ('record label':
    'label' is what is asked)."""
    own = [w for w in own if w.lower() not in GENERIC]  # 'air line item count': the count of air line items
    kinds = _schema_words(bi)
    for k in range(1, len(own)):
        kind, modifiers = " ".join(own[k:]), own[:k]
        if not (
            maps(bi, kind) or names_the_data(bi, kind) or table_named(bi, kind) or meaning_of(bi, kind) is not None
        ):
            continue
        valued = [w for w in modifiers if singular(w.lower()) not in kinds]
        return bool(valued) and all(value_word(bi, w) for w in valued)
    return False


def value_word(bi: BIContext, word: str) -> bool:
    """Whether `word` is a whole word of a value the data stores: an indexed value's, or (one bounded LIKE probe
    per text column not indexed, over at most COUNT_CAP rows) any text value's ('kubrick' of 'Stanley
    Kubrick')."""
    w = word.lower()
    if not re.fullmatch(r"[a-z][a-z0-9'-]{2,}", w):
        return False
    if w in bi.value_words():
        return True
    likes = [exp.Literal.string(p).sql(bi.engine.dialect) for p in (f"{w} %", f"% {w}", f"% {w} %")]
    return _stored_where(bi, " OR ".join(f"lower(v) LIKE {p}" for p in likes))


def _own_words(phrase: str) -> list[str]:
    """The words of an asked phrase that name something: leading aggregates and grammar dropped ('the total
    number of'), grammar dropped inside; an aggregate word inside stays ('invoice amount billed')."""
    ws = phrase.split()
    lead = GENERIC | GRAMMAR | {"distinct", "different", "unique"}
    while ws and ws[0].lower() in lead:
        ws.pop(0)
    return [w for w in ws if w.lower() not in GRAMMAR]


def shape_decline(bi: BIContext, question: str, ask: bool = False) -> str | None:
    """Why the data cannot answer `question`, read from its shape alone (no model call): it asks about the
    future (the data records what happened) or for a judgment (`judgment`), something it asks about is
    missing (`missing_asked`), or a value it names is in no column (`missing_values`). A typo of a word the data
    spells is read as that word (`read_typos`). With `ask`, a missing term the user can be asked about (`askable`)
    is left to field mapping, which asks (`asked_later`)."""
    said, question = kept_reading(bi, read_typos(bi, question))
    if (
        reason := said
        or future(question)
        or judgment(question, bi)
        or years_outside(bi, question)
        or origin(bi, question)
    ):
        return reason
    if (missing := missing_asked(bi, question)) and not (ask and asked_later(bi, missing, question)):
        return no_field(bi, missing)
    if missing_named := missing_values(bi, question) + [repr(k) for k in missing_kinds(bi, question)]:
        return "the data holds no value " + ", ".join(missing_named)
    return None


def asked_later(bi: BIContext, missing: list[str], question: str) -> bool:
    """Whether field mapping will ask the user about each missing term: a column is near it (`askable`) and field
    mapping's judgment finds it missing too; a term that judgment holds ('stars': a track's name) it maps, asking
    nothing, so the question would be answered without the term."""
    return askable(bi, missing) and missing_fields(bi, missing, question) == missing


# A judgment: a reason ('why'), advice ('should', 'recommend', 'is it worth', 'worth watching'; not 'net worth'; 'a good
# idea', the assistant's own view: 'your take', 'what do you think', as texted: 'ur take', 'what do u think'), taste ('favourite', 'overrated', 'the best one', 'do customers
# like', a fit for a situation: 'ideal for', 'best for a ...', 'best used car ... for a student'); 'best-selling' /
# 'best seller' is a measure.
_JUDGMENT = re.compile(
    r"\b(?:ideal|suitable|suited)\s+for\b|\b(?:best|good|great|better)\s+for\s+(?:a|an|my|our|your|someone|me|us)\b|"
    r"\bbest(?![\w-])(?=(?:\s+[\w-]+){1,5}?\s+for\s+(?:a|an|my|our|your|someone|me|us)\b)|"
    r"\b(?:why|should|ought|recommend\w*|favou?rite\w*|opinion\w*|overrated|underrated)\b|\bis it worth\b|"
    r"\b(?:your|ur)\s+(?:take|view|views|thoughts|verdict|advice)\b|\bwhat\s+do\s+(?:you|u|ya)\s+(?:think|reckon)\b|"
    r"\b(?:a|an)\s+(?:good|bad|wise|smart)\s+(?:idea|choice|move|bet)\b|\bworth it\b|\bworth\s+(?!(?:no|some|any)thing\b)[a-z]+ing\b|\bthe (?:best|worst)\b"
    r"(?!\s*-?\s*sell)|\b(?:do|does|did)\b[^?]*\b(?:like|love|enjoy|prefer)\b|"
    r"\b(?:like|likes|love|loves|enjoy|enjoys|prefer|prefers)\s+(?:(?:the\s+)?(?:best|most))\b",
    re.I,
)


def judgment(question: str, bi: BIContext | None = None) -> str | None:
    """Why a question that asks for an opinion, advice or a taste cannot be answered: the data records facts.
    'The best' / 'the worst' before a measure the data holds ('the worst jobless rate': a numeric `rate`) is a
    ranking by it, not a taste; joined to a word by a hyphen ('the best-paid employee') it ranks by what that word
    names, which the data must hold (by a word's root or by meaning), else the reason names the word.
    ('the best-selling' is no judgment at all: `_JUDGMENT`.)"""
    for m in _JUDGMENT.finditer(question):
        rest = question[m.end() :]
        if bi and (degree := _DEGREE_OF.match(rest)):  # 'the best-paid': a ranking by what 'paid' names
            if _degree_held(bi, degree.group(1), rest[degree.end() :]):
                continue
            return f"the data has no field for {degree.group(1)!r} (what {m.group(0) + degree.group(0)!r} ranks by)"
        if _ranks_an_aggregate(m):
            continue
        if not (bi and _ranks_a_measure(bi, rest)):
            return "it asks for an opinion, advice or a taste, which the data does not record"
    return None


# an aggregate's word or its verb ('averaged', 'totalled', 'summed'): not every aggregate word of `GENERIC`, as 'the
# best amount of coffee to drink' is advice and 'the best number to call' a taste (bench/bi.md, round 53)
_AGGREGATE = re.compile(r"(?:avg|average|mean|median|total|sum|combined)(?:d|l?ed|med)?", re.I)


def _ranks_an_aggregate(m: re.Match[str]) -> bool:
    """Whether 'the best' / 'the worst' ranks an aggregate: right after its verb ('counties averaged the worst jobless
    numbers') or right before its word ('the worst avg unemployment'), a ranking, whatever the measure's words."""
    if not re.fullmatch(r"the (?:best|worst)", m.group(0), re.I):
        return False
    before = _WORD_BEFORE.search(m.string[: m.start()])
    after = re.match(r"\s*([a-z][\w-]*)", m.string[m.end() :], re.I)
    return any(w is not None and _AGGREGATE.fullmatch(w.group(1)) for w in (before, after))


_DEGREE_OF = re.compile(r"-([a-z]+)\b", re.I)  # the measure of a degree compound: '-paid' of 'the best-paid'


def _degree_held(bi: BIContext, word: str, rest: str) -> bool:
    """Whether the data holds what a degree compound ranks by ('paid' of 'the best-paid employee'): of the thing
    it ranks, when that thing is a table, a word (by its root) of a column of that table or a joined one (name,
    synonyms, description), or a column of those placed by meaning ('paid' in Chinook's invoice descriptions is
    what customers paid, not an employee's pay); with no table named, a word the data holds anywhere."""
    thing = next((w for w in re.findall(r"[a-z][\w-]*", rest.lower()) if w not in GRAMMAR), "")
    table = _thing_table(bi, thing) if thing else None
    if table is None:
        return word_held(bi, word) or meaning_of(bi, word) is not None
    near = {table, *bi.semantic.join_graph().get(table, set())}
    said = {
        singular(w)
        for t, c, info in bi.semantic.columns()
        if t in near
        for w in re.findall(
            r"[a-z]+", " ".join((words(c), *info.get("synonyms", []), info.get("description") or "")).lower()
        )
    }
    placed = meaning_of(bi, word, values=False)
    asked = singular(word.lower())
    held = any(_same_word(asked, w) or word_root(asked) == word_root(w) for w in said)  # 'rated' ~ 'rating'
    return held or bool(placed and placed.get("table") in near)


def _ranks_a_measure(bi: BIContext, rest: str) -> bool:
    """Whether the noun phrase after 'the best' / 'the worst' ends in a word of a numeric column's name or synonyms
    (its head is a measure: 'jobless rate'), a key aside; 'the best one', 'the best film' are tastes."""
    ws = re.findall(r"[a-z][\w-]*", rest.lower())[:4]
    phrase = list(itertools.takewhile(lambda w: w not in GRAMMAR, ws))
    if not phrase:
        return False
    head = singular(phrase[-1])
    return any(
        _heads(head, stems(" ".join((words(c), *info.get("synonyms", [])))))
        and NUMERIC.search(str(info.get("type", "")))
        and not key_like(c)  # a key or a code names rows, it measures nothing: 'film' of `film_id`
        for _, c, info in bi.semantic.columns()
    )


def _heads(head: str, name: list[str]) -> bool:
    """Whether a measure's head word is a word of a column's name, or begins with one of its words of four letters
    or more, as a warehouse clips a name ('inflation' of `infl_pct`, 'unemployment' of `unemp_rt`)."""
    return head in name or any(len(w) >= 4 and head.startswith(w) for w in name)


# 'who' before a verb of origin asks for the person who began a thing ('who started google'); not before a degree,
# a count over rows ('who started the most races')
_ORIGIN = re.compile(
    r"\bwho(?:'s|\s+has|\s+had)?\s+(?:first\s+)?(founded|started|invented|discovered|isolated|created|established|"
    r"formed|coined|pioneered)\b(?!\s+(?:the\s+)?(?:most|more|fewest|fewer|least|less)\b)",
    re.I,
)


def origin(bi: BIContext, question: str) -> str | None:
    """Why 'who founded / invented / discovered ...' cannot be answered: the person would be a value of a text column
    (or a table) named by the verb (a founder, an inventor, a creator: `_same_word`), and the data has none."""
    if not (m := _ORIGIN.search(question)):
        return None
    verb = m.group(1).lower()
    names = [words(t) for t in bi.semantic.tables] + [
        " ".join((words(c), *info.get("synonyms", [])))
        for t, c, info in bi.semantic.columns()
        if _is_text(bi.semantic, {"table": t, "column": c})
    ]
    if any(_same_word(verb, w) for name in names for w in re.findall(r"[a-z]+", name.lower())):
        return None
    return f"the data has no field for who {verb} it"


def future(question: str) -> str | None:
    """Why a question about the future cannot be answered: the data records what happened."""
    return "the data records what happened; it cannot say what will happen" if FUTURE.search(question) else None


# 'In which year was each album released?', 'When was each employee hired?', 'How old is each artist?' (a date):
# an attribute of each thing
_ATTRIBUTE = re.compile(
    rf"\b(?:(?:which|what) ({_WORD})|when|how old) (?:is|was|are|were|do|does|did) (?:each|every|the) "
    rf"({_WORD})",
    re.I,
)
_TEMPORAL = re.compile(r"(DATE|TIME)", re.I)
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}")
CALENDAR = frozenset(["year", "month", "day", "week", "quarter", "date", "time"])  # units of time, not data words


def _temporal(column: str, info: dict[str, Any]) -> bool:
    """A column that says when: a date or time type, dates among its sampled values (SQLite keeps them as
    text), or a name in units of time ('Year', 'ship_date')."""
    return bool(
        _TEMPORAL.search(str(info.get("type", "")))
        or _ISO_DATE.search(info.get("description") or "")
        or CALENDAR & set(stems(words(column)))
        or any(abbreviates(w, unit) for w in stems(words(column)) for unit in CALENDAR)
    )


def table_named(bi: BIContext, thing: str) -> str | None:
    """The table a noun names ('album' / 'albums': Album; 'line item': lineitem), if any."""
    thing = singular(thing.lower())
    return next(
        (
            t
            for t in bi.semantic.tables
            if stems(words(t)) == stems(thing) or singular(words(t).replace(" ", "")) == thing.replace(" ", "")
        ),
        None,
    )


def _near_columns(bi: BIContext, table: str) -> list[tuple[str, dict[str, Any]]]:
    """The columns of a table and of the tables joined to it."""
    near = {table, *bi.semantic.join_graph().get(table, set())}
    return [(c, info) for t, c, info in bi.semantic.columns() if t in near]


# 'What is the email address of each supplier?': a measure of a thing
_OF_THING = re.compile(
    rf"\s*of (?:each |every |the |all |a |an )?({_WORD}(?: {_WORD})?)\s*(?:[?.,!]|$|\b(?:in|for|at|by|"
    r"from|on|with|who|which|that|is|are|was|were|per)\b)",
    re.I,
)


def missing_qualified(bi: BIContext, question: str) -> list[str]:
    """A measure asked of a thing that is a table ('the email address of each supplier', 'the phone number of each
    artist') is held only when each of its own words is a word of a column (name or synonym) of that table or a
    table joined to it, or of one of those tables' names: the supplier's 'address' column does not hold an email
    address, nor does a customer's phone number belong to an artist."""
    out = []
    for m in _MEASURED[0].finditer(question):
        of = _OF_THING.match(question[m.end(1) :])
        table = of and (table_named(bi, of.group(1)) or table_named(bi, of.group(1).split()[0]))
        own = [w.lower() for w in m.group(1).split() if w.lower() not in GENERIC | GRAMMAR]
        if not table or not own:
            continue
        near = {table, *bi.semantic.join_graph().get(table, set())}
        held = {
            singular(w)
            for c, info in _near_columns(bi, table)
            for w in " ".join((words(c), *info.get("synonyms", []))).lower().split()
        }
        held |= {singular(w) for t in near for w in words(t).split()}
        if not all(any(_same_word(singular(w), h) for h in held) for w in own) and not _field_of(bi, own, near):
            out.append(f"{' '.join(own)} of {of.group(1)}")
    return out


def _field_of(bi: BIContext, own: list[str], tables: set[str]) -> bool:
    """Whether the phrase names a column of one of `tables` as a whole, through the layer's ranking ('account
    balance': acctbal)."""
    phrase = " ".join(own)
    return any(
        score >= MATCH_FIELD and f.get("table") in tables and _has_head(bi.semantic, phrase, f)
        for score, _, f in rank_fields(bi.semantic, phrase)
    )


def missing_attribute(bi: BIContext, question: str) -> list[str]:
    """'In which year was each album released?' asks an attribute of each album: it must be a column of the
    album's table or of a table joined to it, by name ('which country ... each customer': Country), or for a
    time ('when', a generic time word) by type (a date or time column) or name ('Year'). Only when the thing
    is a table; otherwise the other shapes judge it."""
    out = []
    for m in _ATTRIBUTE.finditer(question):
        attribute, table = (m.group(1) or "").lower(), table_named(bi, m.group(2))
        if table is None or attribute in GRAMMAR:
            continue
        columns = _near_columns(bi, table)
        near = {table, *bi.semantic.join_graph().get(table, set())}
        if not attribute or attribute in GENERIC:
            if not any(_temporal(c, info) for c, info in columns):
                out.append(f"{attribute or 'date'} of {m.group(2)}")
        elif not any(
            _same_word(singular(attribute), singular(w)) for c, _ in columns for w in words(c).split()
        ) and not any(_same_word(singular(attribute), singular(w)) for t in near for w in words(t).split()):
            out.append(f"{attribute} of {m.group(2)}")
    return out


_PREDICATE = re.compile(
    r"\b(?:is|are|was|were)\s+(?:(?:each|every|the|all|a|an)\s+[a-z][\w-]*\s+)?([a-z][\w-]*)\s*[?.!]*\s*$", re.I
)


def predicate(question: str) -> str | None:
    """The last word of a question that ends in a bare predicate: 'returned' of 'How many orders were
    returned?', 'female' of 'How many customers are female?', 'released' of 'When was each album released?'.
    It is the question's only condition on the rows."""
    m = _PREDICATE.search(question.strip())
    word = m.group(1) if m else None
    return word if word and word.lower() not in GRAMMAR | GENERIC else None


# a copula after a subject (not after 'what' / 'who' / 'how much': 'what is the average iron content' asks for
# a measure), then two to four words of letters ending the question: 'are certified as environmentally friendly'
_PREDICATE_PHRASE = re.compile(
    r"(?<!\bwhat )(?<!\bwho )(?<!\bwhich )(?<!\bwhere )(?<!\bwhen )(?<!\bhow )(?<!\bmuch )(?<!\bmany )"
    r"\b(?:is|are|was|were)\s+(?:(?:each|every|the|all|a|an)\s+[a-z][\w-]*\s+)?"
    r"([a-z][a-z-]*(?:\s+[a-z][a-z-]*){1,3})\s*[?.!]*\s*$",
    re.I,
)


def predicate_phrase(question: str) -> list[str]:
    """The own words (grammar dropped) of a predicate phrase that ends a question after its copula, when the
    phrase opens with a word that is no grammar word ('certified', 'environmentally', 'friendly' of 'Which
    suppliers are certified as environmentally friendly?'; not 'in each country', 'the most popular', nor a
    phrase with a number: 'shipped in 1996', a ranking: 'used most often', nor what 'what is' asks for). Like a
    bare predicate, it is the question's condition on the rows."""
    m = _PREDICATE_PHRASE.search(question.strip())
    ws = m.group(1).split() if m else []
    own = [w for w in ws if w.lower() not in GRAMMAR | GENERIC]
    if any(w.lower() in RANKING for w in ws):  # 'is used most often': a ranking, not a condition on the rows
        return []
    # one word left ('sampled there') is a bare predicate's reading, which `predicate` keeps to the question's end
    return own if ws and ws[0].lower() not in GRAMMAR | GENERIC and len(own) > 1 else []


def _same_word(a: str, b: str) -> bool:
    """'returned' ~ 'returns', 'hired' ~ 'hire', 'written' ~ 'writer', not 'streamed' ~ 'string': the shared
    beginning is at least four letters and all but two of the shorter word."""
    shared = len(os.path.commonprefix([a, b]))
    return a == b or shared >= max(4, min(len(a), len(b)) - 2)


def word_held(bi: BIContext, word: str) -> bool:
    """Whether a word is a word of a table's or column's name, synonyms or description, or a whole value of
    an indexed column ('Returned', 'Female'), or a stored value, near enough ('returned' ~ Returns,
    'written' ~ Writer, 'released' ~ Released). A word inside a longer value (an album title) is not."""
    return _near_known(word.lower(), _known_words(bi)) or stored_value(bi, word)


def _known_words(bi: BIContext) -> set[str]:
    """The words of the tables' and columns' names, synonyms and descriptions, and the indexed one-word values;
    built once per layer."""
    return bi.derived("known_words", lambda: _words_of_data(bi))


def _words_of_data(bi: BIContext) -> set[str]:
    values = {str(c.value).lower() for c in bi.index() if re.fullmatch(r"\w+", str(c.value))}
    return _described_words(bi) | values


def _described_words(bi: BIContext) -> set[str]:
    """The words of the tables' and columns' names, synonyms and descriptions (no values); built once per layer."""
    return bi.derived("described_words", lambda: _words_of_schema(bi))


def _words_of_schema(bi: BIContext) -> set[str]:
    sem = bi.semantic
    texts = [sem.database, *(f"{words(t)} {v.get('description') or ''}" for t, v in sem.tables.items())]
    texts += [
        " ".join((words(c), *info.get("synonyms", []), info.get("description") or "")) for _, c, info in sem.columns()
    ]
    return {w for text in texts for w in re.findall(r"[a-z0-9]+", text.lower())}


def _near_known(w: str, known: set[str]) -> bool:
    return any(_same_word(w, k) or abbreviates(k, w) or user_abbreviates(w, k) for k in known)


TYPO_MIN = 5  # a shorter word is too often another word one edit away ('rate' / 'date', 'city' / 'cite')


def read_typos(bi: BIContext, text: str) -> str:
    """`text` with each lower-case word of TYPO_MIN letters or more that nothing of the data spells (`word_held`'s
    words: names, synonyms, descriptions, one-word indexed values) but that is one edit from exactly one such word
    (optimal string alignment: a swap of two letters is one edit: 'trakcs' -> 'tracks'), or from exactly one
    English word that a three-letter word of a name begins ('lenght' -> 'length' for `bill_len_mm`), written as
    that word; a word of MiniLM's vocabulary is a word, not a typo (`_dictionary`). The decline checks, field
    mapping and the SQL step's column hints read the question through it. A capitalised word (not the first) is
    a value the user names: entity resolution matches it fuzzily; two words at one edit are not guessed between.
    rapidfuzz's `process.extract` with a cutoff of one edit."""
    english = _dictionary()
    if not english:
        return text
    known, targets = _typo_targets(bi)

    def fix(m: re.Match[str]) -> str:
        w = m.group(0)
        low = w.lower()
        if (m.start() and w != low) or len(w) < TYPO_MIN or low in english or {low, singular(low)} & known:
            return w
        one = singular(low)  # 'trakcs': the plural of a typo of 'track'
        for word, ending in ((low, ""), (one, low[len(one) :])):
            near = process.extract(word, targets, scorer=OSA.distance, score_cutoff=1, limit=None)
            if near:
                return near[0][0] + ending if len({singular(k) for k, _, _ in near}) == 1 else w
        return w

    return re.sub(r"(?<![\w'-])[A-Za-z]+(?![\w'-])", fix, text)


def _typo_targets(bi: BIContext) -> tuple[frozenset[str], tuple[str, ...]]:
    """(the words the data spells, the words a typo may stand for): the data's words, and the English words a
    name's three-letter short form begins ('len' of `bill_len_mm`: 'length'). Built once per layer: a question's
    terms are read one by one. Sorted: a tie's first word does not depend on set order."""
    return bi.derived("typo_targets", lambda: _typo_words(bi))


def _typo_words(bi: BIContext) -> tuple[frozenset[str], tuple[str, ...]]:
    schema = _schema_words(bi)
    known = frozenset(_known_words(bi) | schema)
    short = {k for k in schema if len(k) == 3 and k.isalpha()}
    english = sorted(w for w in _dictionary() if len(w) >= TYPO_MIN and w[:3] in short)
    return known, (*sorted(k for k in known if len(k) >= TYPO_MIN - 1 and k.isalpha()), *english)


@functools.cache
def _dictionary() -> frozenset[str]:
    """The whole words of MiniLM's WordPiece vocabulary (about 20,000 English words): a word found there is that
    word, not a typo ('older' is not 'order'). Empty without the model: `read_typos` is then off."""
    if lazy_embedder() is None:
        return frozenset()
    with zipfile.ZipFile(model_zip()) as zf:  # the tokenizer's file alone: not the 91 MB of weights
        vocab = json.loads(zf.read("tokenizer.json"))["model"]["vocab"]
    return frozenset(w for w in vocab if w.isalpha())


def named_by_kind(bi: BIContext, term: str, question: str) -> bool:
    """'Which production company ...': the words before the last are a text column's own name and the question
    asks which of them; the last word names the kind of thing the column's values are ('company'), which no
    column needs to spell out. A synonym is not enough ('record' for an album's title does not make a 'record
    label' a kind of title), nor is a measure ('the production budget of': that needs its own column)."""
    ws = term.split()
    if len(ws) < 2 or not re.search(rf"\b(?:which|what)\s+{re.escape(term)}\b", question, re.I):
        return False
    modifiers = stems(" ".join(ws[:-1]).lower())
    return any(
        all(w in stems(words(c)) for w in modifiers) and _is_text(bi.semantic, {"table": t, "column": c})
        for t, c, _ in bi.semantic.columns()
    )


def _is_text(semantic: Semantic, f: dict[str, Any]) -> bool:
    dtype = str(semantic.tables[f["table"]]["columns"][f["column"]].get("type", ""))
    return bool(re.match(r"(VARCHAR|TEXT|CHAR|STRING)", dtype, re.I)) or not dtype


def missing_fields(bi: BIContext, terms: list[str], question: str) -> list[str]:
    """The terms the user wrote that no column, layer term, table, indexed or stored value of the data holds
    (and that do not name a text column's kind: `named_by_kind`, nor are a value before its kind:
    `_named_with_values`, 'air line items'), each read through `read_typos`."""
    question = read_typos(bi, question)
    return [t for t in terms if _missing(bi, without_unit(read_typos(bi, t)), question)]


_IN_UNIT = re.compile(r"\s+in\s+([a-z]+)\s*$", re.I)


def without_unit(term: str) -> str:
    """The term less the unit it is to be given in ('length in mins': 'length'; a unit of `UNITS`): the unit says
    how to express the measure, not what it is."""
    m = _IN_UNIT.search(term)
    return term[: m.start()] if m and m.start() and m.group(1).lower() in UNITS else term


_LISTED = re.compile(r"\s+(?:vs\.?|versus|and|or|&)\s+", re.I)  # 'chair vs table': two values, not one field


def _missing(bi: BIContext, t: str, question: str) -> bool:
    parts = _LISTED.split(t.strip())
    return _unheld(bi, t, question) and (len(parts) == 1 or any(_unheld(bi, part, question) for part in parts))


def _unheld(bi: BIContext, t: str, question: str) -> bool:
    return (
        user_wrote(t, question)
        and not all(w in GRAMMAR for w in re.findall(r"[a-z']+", t.lower()))  # 'theirs' names nothing
        and not glued_name(bi, t)
        and not unit_column(bi, t)
        and not kind_column(bi, t)
        and not initials_column(bi, t)
        and not per_person_column(bi, t, question)
        and not _measure_of_held(bi, t, question)
        and not counted_table(bi, t, question)
        and not spelt_column(bi, t)
        and not coded_column(bi, t)
        and not only_conditions(t)
        and not held_under_conditions(bi, t, question)
        and not value_tail(bi, t)
        and not maps(bi, t)
        and not names_the_data(bi, t)
        and not stored_value(bi, t)
        and not (" " not in t.strip() and glued_schema_name(bi, t, pieces=2))
        and not plural_value(bi, t)
        and not flag_noun(bi, t)
        and not named_by_kind(bi, t, question)
        and not approved_covers(bi, t, question)
        and meaning_of(bi, t) is None
        and singled_out(bi, t) is None
        and not tied_columns(bi, t)
        and not _named_with_values(bi, _own_words(t))
    )


def glued_name(bi: BIContext, term: str) -> bool:
    """Whether the term's words (the aggregate ones aside) glued together are a table's or a column's name:
    'line item count' of the table `lineitem`."""
    own = [w for w in re.findall(r"[a-z0-9]+", term.lower()) if w not in GENERIC]
    glued = singular("".join(own))
    names = [*bi.semantic.tables, *(c for _, c, _ in bi.semantic.columns())]
    return len(own) > 1 and any(singular(re.sub(r"[^a-z0-9]", "", n.lower())) == glued for n in names)


def value_tail(bi: BIContext, term: str) -> bool:
    """Whether the term (two words or more) is the last words of exactly one category value: 'support agent' of
    the title 'Sales Support Agent'."""
    own = [singular(w) for w in re.findall(r"[a-z0-9]+", term.lower())]
    tail = [v for v in categories(bi) if len(own) > 1 and [singular(w) for w in v.split()][-len(own) :] == own]
    return len(tail) == 1


def unit_column(bi: BIContext, term: str) -> tuple[str, str] | None:
    """The numeric column (table, column) the term names by its other words and a unit of the quantity its last
    word names: 'flipper length' of `flipper_mm`, 'body weight' of `body_g`."""
    own = [singular(w) for w in re.findall(r"[a-z0-9]+", term.lower()) if w not in GENERIC]
    if len(own) < 2 or own[-1] not in QUANTITIES:
        return None
    return next(
        (
            (t, c)
            for t, c, info in bi.semantic.columns()
            if NUMERIC.search(str(info.get("type", "")))
            and UNITS.get((ws := words(c).split())[-1], (None,))[0] == QUANTITIES[own[-1]]
            and [singular(w) for w in ws[:-1]] == own[:-1]
        ),
        None,
    )


_KINDS = frozenset(["type", "kind", "class", "category", "group", "family", "variety"])


def kind_column(bi: BIContext, term: str) -> tuple[str, str] | None:
    """The column (table, column) that sorts rows into kinds, for a term that asks for a kind ('type', 'glass
    type', 'family'): a column not of keys whose name has a word for a kind, spelt or abbreviated (`gls_cls`,
    `cat_nm`, `grp`), the term's other words each a word of the schema. The words for a kind are one concept: a
    user's 'type' is the data's 'class'."""
    own = [singular(w) for w in _term_words(term)]
    if not own or own[-1] not in _KINDS or not set(own[:-1]) <= _schema_words(bi):
        return None
    return next(
        (
            (t, c)
            for t, c, _ in bi.semantic.columns()
            if not key_like(c) and any(w in _KINDS or any(abbreviates(w, k) for k in _KINDS) for w in _tokens(c))
        ),
        None,
    )


def _tokens(name: str) -> list[str]:
    """A name's tokens as written, lower-cased: 'ri_dev' -> ['ri', 'dev'] (`words` drops a short leading one)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower().replace("-", "_").split("_")


def initials_column(bi: BIContext, term: str) -> tuple[str, str] | None:
    """The numeric column whose name leads with the initials of the term's words (two or three): 'refractive
    index' of `ri_dev`, 'melting point' of `mp_k`; a key word ('cd', 'no', 'id') is no one's initials."""
    own = _term_words(term)
    lead = "".join(w[0] for w in own)
    if not 2 <= len(own) <= 3 or lead in KEY_WORDS:
        return None
    return next(
        (
            (t, c)
            for t, c, info in bi.semantic.columns()
            if NUMERIC.search(str(info.get("type", ""))) and not key_like(c) and _tokens(c)[0] == lead
        ),
        None,
    )


_PERSONS = frozenset(["head", "person", "capita", "people", "inhabitant", "resident"])
_PER_CAPITA = frozenset(["pc", "pcap", "percap", "capita"])  # a token of a per-person column's name


def per_person_column(bi: BIContext, term: str, question: str) -> tuple[str, str] | None:
    """The numeric column of a measure per person, for a term that is that measure 'per head' / 'per person' (or the
    person word alone, the planner's reading of 'emissions per head'): a column whose name has a per-capita token
    (`t_co2_pc`, `gdp_pcap`), the term's other words each a word of its name."""
    own = [singular(w) for w in _term_words(term)]
    persons = [w for w in own if w in _PERSONS and re.search(rf"\b(?:per|a)\s+{w}", question, re.I)]
    if not persons:
        return None
    rest = set(own) - set(persons)
    return next(
        (
            (t, c)
            for t, c, info in bi.semantic.columns()
            if NUMERIC.search(str(info.get("type", "")))
            and set(_tokens(c)) & _PER_CAPITA
            and rest <= {singular(w) for w in _tokens(c)}
        ),
        None,
    )


_MEASURE_NOUNS = frozenset(["value", "reading", "figure", "level", "measurement", "rate"])


def _measure_of_held(bi: BIContext, term: str, question: str) -> bool:
    """Whether the term is a held field followed by a noun for its measured value ('mic value', 'fat level')."""
    ws = term.split()
    return len(ws) > 1 and singular(ws[-1].lower()) in _MEASURE_NOUNS and not _unheld(bi, " ".join(ws[:-1]), question)


_COUNT_ASKED = re.compile(r"\b(?:how many|number of|count|tally)\b", re.I)
_COUNT_NOUNS = frozenset(["count", "number", "tally"])  # the planner's 'X count' of 'how many X'
# nouns for one row of whatever a table records: 'records', 'readings', 'pieces' are counted, not measured
_ROW_NOUNS = frozenset(
    ["record", "entry", "row", "observation", "reading", "sample", "measurement", "test", "piece", "bit"]
)


def counted_table(bi: BIContext, term: str, question: str) -> str | None:
    """The table whose rows a counted term names under another noun, counted by COUNT(*): the question asks how
    many, and the term's head (its count word aside) is a table's first name token or starts with it as a short
    form ('fragment count' of `frag_samples`), or is a noun for a row ('records', 'readings', 'tests') whose other
    words the data holds ('milk test count', 'daily price records'). Never a head a numeric column's name has:
    'egg count' of an `eggs_n` column is a sum of it."""
    own = [singular(w) for w in re.findall(r"[a-z][a-z0-9]*", term.lower()) if w not in GRAMMAR]
    counted = bool(_COUNT_NOUNS & set(own)) or bool(_COUNT_ASKED.search(question))
    own = [w for w in own if w not in _COUNT_NOUNS]
    if not counted or not own or _numeric_token(bi, own[-1]):
        return None
    *rest, head = own
    if head in _ROW_NOUNS and all(word_held(bi, w) or value_word(bi, w) for w in rest):
        return _row_table(bi, rest)
    if rest:
        return None
    return next((t for t in bi.semantic.tables if _first_token_names(_tokens(t)[0], head)), None)


def _first_token_names(token: str, head: str) -> bool:
    """Whether a table's first name token names the head noun: the word itself, its abbreviation, or a cut of it
    that is no English word ('frag' of 'fragment'; 'car' is not 'carrier'). The cut needs the vocabulary."""
    token = singular(token)
    vocab = _dictionary()
    short = bool(vocab) and len(token) >= 3 and token not in vocab and head.startswith(token)
    return token == head or abbreviates(token, head) or short


def _numeric_token(bi: BIContext, word: str) -> bool:
    """Whether a numeric column not of keys has the word, or its abbreviation, as a token of its name."""
    return any(
        NUMERIC.search(str(info.get("type", "")))
        and not key_like(c)
        and any(singular(k) == word or abbreviates(k, word) for k in _tokens(c))
        for _, c, info in bi.semantic.columns()
    )


def _row_table(bi: BIContext, rest: list[str]) -> str | None:
    """The table of facts (one no join refers to: a lookup's rows are kinds, not records) a row noun counts: the
    one a word of the rest names by its first token, else the only one."""
    referred = {join_ends(j)[1] for j in bi.semantic.joins}
    facts = [t for t in bi.semantic.tables if t not in referred]
    named = [t for t in facts if any(_first_token_names(_tokens(t)[0], w) for w in rest)]
    return named[0] if named else facts[0] if len(facts) == 1 else None


def spelt_column(bi: BIContext, term: str) -> tuple[str, str] | None:
    """The numeric column (not of keys) whose name the term spells in any order, its conditions aside (grammar,
    numbers, ranking words, a category's whole values: 'ibm', 'lowest'; `_without_conditions`): each other word pairs
    with its own token of the name and each token with a word ('female percentage' of `pct_f`, 'lowest closing
    price' of `cls_px`). A pair is the word, its singular or its abbreviation (strong), or a token of one or two
    letters that the word begins (weak: 'f' of 'female', 'px' of 'price'); at most one weak pair, at least one
    strong. An aggregate word ('percentage') and a unit token (`mm`, `pct`) may stay unpaired. A term held only as
    a whole is often the column's name written out, not a word of it."""
    said = re.findall(r"[a-z][\w-]*|\d+", term.lower())
    own = [w for w in _without_conditions(bi, said) if w not in GRAMMAR]
    needed = [w for w in own if w not in GENERIC]
    if not needed:
        return None
    return next(
        (
            (t, c)
            for t, c, info in bi.semantic.columns()
            if NUMERIC.search(str(info.get("type", ""))) and not key_like(c) and _spells(own, _tokens(c))
        ),
        None,
    )


def _strong(token: str, word: str) -> bool:
    return token in (word, singular(word)) or abbreviates(token, word) or abbreviates(token, singular(word))


def _weak(token: str, word: str) -> bool:
    return len(token) <= 2 and token.isalpha() and word.startswith(token[0])


def _spells(own: list[str], tokens: list[str]) -> bool:
    """Whether the words and the name's tokens pair one to one as `spelt_column` says (each needed word and each
    token not a unit paired; at most one weak pair, at least one strong)."""
    if len(tokens) > 4 or len(own) > 4:  # a name or a term this long is not one spelt out
        return False
    for pairs in _pairings(tokens, own):
        kinds = [_strong(k, w) or ("weak" if _weak(k, w) else None) for k, w in pairs if w]
        if None in kinds or kinds.count("weak") > 1 or True not in kinds:
            continue
        words_left = {w for w in own if w not in GENERIC} - {w for _, w in pairs}
        tokens_left = [k for k, w in pairs if not w]
        if not words_left and all(_a_unit(k) for k in tokens_left):
            return True
    return False


def _pairings(tokens: list[str], own: list[str]) -> Iterator[list[tuple[str, str | None]]]:
    """Every way to give each token a distinct word of `own`, or none."""
    if not tokens:
        yield []
        return
    for w in [None, *own]:
        rest = list(own)
        if w:
            rest.remove(w)
        for tail in _pairings(tokens[1:], rest):
            yield [(tokens[0], w), *tail]


def _a_unit(token: str) -> bool:
    """A token that says in what a column is given ('mm', 'pct'), not what it measures."""
    return token in UNITS or any(abbreviates(token, g) for g in GENERIC)


_CODE = re.compile(r"[a-z]+\d[a-z0-9]*")  # 'm1', 'co2', 'tb3m': a code, not a word


def coded_column(bi: BIContext, term: str) -> tuple[str, str] | None:
    """The column (not of keys) one of whose name's tokens is a code of letters and digits the term writes as a
    word ('m1 money supply' of `m1_bn`, 'co2 per person' of `t_co2_pc`): nobody writes a code by chance; the other
    words are what the code means."""
    said = set(re.findall(r"[a-z0-9]+", term.lower()))
    return next(
        (
            (t, c)
            for t, c, _ in bi.semantic.columns()
            if not key_like(c) and any(_CODE.fullmatch(k) and k in said for k in _tokens(c))
        ),
        None,
    )


def held_under_conditions(bi: BIContext, term: str, question: str) -> bool:
    """Whether the term is a held field with conditions on its rows written into it ('units of chairs': the units
    of the rows of the category 'Chairs'; 'lowest closing price'): its words that say which rows (a whole value of
    a category, in the singular or as written, a number, a ranking word) dropped, the rest, with a word of its own,
    is held."""
    said = re.findall(r"[a-z][\w-]*|\d+", term.lower())
    rest = _without_conditions(bi, said)
    if len(rest) == len(said) or not [w for w in rest if w not in GENERIC | GRAMMAR]:
        return False
    while rest and rest[-1] in GRAMMAR:  # 'units of' of 'units of chairs'
        rest.pop()
    return not _unheld(bi, " ".join(rest), question)


def _without_conditions(bi: BIContext, said: list[str]) -> list[str]:
    """The words less each run of up to three that is a category's whole value, and numbers and ranking words."""
    values = categories(bi).keys()
    rest, i = [], 0
    while i < len(said):
        run = next(
            (n for n in (3, 2, 1) if {" ".join(said[i : i + n]), singular(" ".join(said[i : i + n]))} & values), 0
        )
        if not run and not said[i].isdigit() and said[i] not in RANKING:
            rest.append(said[i])
        i += run or 1
    return rest


def only_conditions(term: str) -> bool:
    """Whether the term's own words (aggregate and grammar words aside) are only numbers: 'share in 1975' asks the
    share of the rows of a year, a condition, and names no field."""
    own = [w for w in re.findall(r"[a-z0-9][\w-]*", term.lower()) if w not in GENERIC | GRAMMAR]
    return bool(own) and all(w.isdigit() for w in own)


# a drafted layer's description of a column of two values (`semantic._describe_column`)
_FLAG_LIKE = re.compile(r"; (?:from (?:0|False) to (?:1|True)\b|2\+? distinct\b)")


def flag_noun(bi: BIContext, term: str) -> bool:
    """Whether the term names the rows a yes/no column marks, by a noun of its verb ('survivors' of a 0/1
    `survived`, 'returners' of `returned`): the shared root (`word_root`) of the term's one word and the column's
    name word."""
    return _flag_of(bi, term) is not None


def flag_values(bi: BIContext, question: str) -> list[dict[str, Any]]:
    """The yes value of each yes/no column the question names by a noun of its verb ('how many survivors':
    `survived = 1`): the rows asked about are those it marks, a filter entity resolution adds."""
    out = []
    for word in dict.fromkeys(re.findall(r"[A-Za-z]+", question)):
        if (flag := _flag_of(bi, word)) is not None:
            out.append({"mention": word, "table": flag[0], "column": flag[1], "value": flag[2]})
    return out


def _flag_of(bi: BIContext, term: str) -> tuple[str, str, Any] | None:
    own = [w for w in re.findall(r"[a-z]+", term.lower()) if w not in GENERIC]
    doer = re.sub(r"(?<=\w{4})(?:or|er)$", "", singular(own[0])) if len(own) == 1 else ""  # 'survivor': surviv
    return _flags(bi).get(word_root(doer)) if doer and doer != own[0] else None


def _flags(bi: BIContext) -> dict[str, tuple[str, str, Any]]:
    """The yes/no columns with a one-word name (0/1, true/false, Y/N), by the root of that name: (table, column,
    the value that means yes), read with one bounded query per column the layer describes as two-valued, once per
    layer."""
    return bi.derived("flags", lambda: {word_root(c.lower()): (t, c, yes) for t, c, yes in _two_valued(bi)})


def _two_valued(bi: BIContext) -> list[tuple[str, str, Any]]:
    out = []
    for t, c, info in bi.semantic.columns():
        if not re.fullmatch(r"[A-Za-z]+", c) or not _FLAG_LIKE.search(info.get("description") or ""):
            continue  # only a column its description shows two-valued is read: a wide warehouse stays cheap
        try:
            q = quote(bi.engine, c)
            rows = bi.engine.execute(
                f"SELECT DISTINCT {q} FROM (SELECT {q} FROM {quote(bi.engine, t)} WHERE {q} IS NOT NULL "
                f"LIMIT {COUNT_CAP}) AS s LIMIT 3",
                max_rows=3,
            ).rows
        except QueryError:
            continue
        held = {str(r[0]).lower(): r[0] for r in rows}
        if pair := yes_no(set(held)):
            out.append((t, c, held[pair[0]]))  # the yes value as stored (an integer 1, a 'Y'): the filter's literal
    return out


# a column of at most this many distinct values names kinds of things (a plural names one; a region, a state: the
# approved examples' filter words, orrery.bi.examples); 'times' is no track named 'Time' (thousands of names)
CATEGORY = 100


def plural_value(bi: BIContext, term: str) -> bool:
    """Whether the term's own words are a category's value in the plural ('metalloids' of the category
    'metalloid', 'transition metals'; not 'times' of a track named 'Time': a column of thousands of names), or
    a hyphenated value before its modifier ('R-rated', 'Europe-built')."""
    own = [singular(w) for w in re.findall(r"[a-z0-9]+", term.lower()) if w not in GENERIC]
    if "-" in term and value_held(bi, term.strip()):
        return True
    if not own or not re.search(r"[a-z]", term.lower()):
        return False
    text = " ".join(own)
    holders = {(c.table, c.column) for c in categories(bi).get(text, [])}
    return any(
        utils.default_process(str(c.value)) == text and (c.table, c.column) in holders for c in bi.search(text, limit=3)
    )


def categories(bi: BIContext) -> dict[str, list[Candidate]]:
    """The values of the columns of at most CATEGORY distinct values (kinds of things), by their text as
    rapidfuzz's processor writes it: the one reading of "a category's value" for the decline check, the values a
    question opens with, the category words written in lower case and the approved examples' filters. Built once
    per layer (`BIContext.derived`)."""
    return bi.derived("categories", lambda: _categories(bi.index()))


def _categories(index: list[Candidate]) -> dict[str, list[Candidate]]:
    sizes = collections.Counter((c.table, c.column) for c in index)
    out: dict[str, list[Candidate]] = {}
    for c in index:
        if sizes[(c.table, c.column)] <= CATEGORY and (text := utils.default_process(str(c.value))):
            out.setdefault(text, []).append(c)
    return out


def approved_covers(bi: BIContext, term: str, question: str) -> bool:
    """Whether an approved question -> SQL pair of this connection near the question has the term (orrery.bi.examples:
    a person approved an executed query's rows for it); no memory, no evidence."""
    return bi.approved is not None and bi.approved.covers(bi.engine.name, term, question)


def kept_reading(bi: BIContext, question: str) -> tuple[str | None, str]:
    """A person's kept field answers, read before any judgment of the data (orrery.bi.examples, memory round 26):
    the decline for a term they said the data does not hold, and the question as they mapped its terms (`as_kept`)."""
    if bi.approved is None:
        return None, question
    return bi.approved.said_not_held(bi.engine.name, bi.semantic, question), as_kept(bi, question)


def as_kept(bi: BIContext, text: str) -> str:
    """`text` with each term a person mapped to a column written as the column (`ExampleMemory.as_kept`)."""
    return text if bi.approved is None else bi.approved.as_kept(bi.engine.name, bi.semantic, text)


# A value the user names: a quoted term, or a run of capitalised / all-caps words ('Taylor Swift', 'STUDENT',
# 'K-Pop', 'Middle East & North Africa', 'Customer#000000010').
_QUOTED = re.compile(r"(?<!\w)['\"]([^'\"]{2,60})['\"](?!\w)")
_TOKEN = re.compile(r"[^\W_][\w#/&.'-]*|&")
NEAR_VALUE = 75  # an indexed value this close (rapidfuzz WRatio) to a missing name is offered in the reason


def named_values(question: str, first: bool = False) -> list[str]:
    """The values a question names: quoted terms, then runs of capitalised tokens; the question's first word is
    dropped (its capital is the sentence's; kept with `first`), as are words that are grammar ('What', 'I')."""
    out = [m.group(1).strip() for m in _QUOTED.finditer(question)]
    text = _QUOTED.sub(" ", question)
    run: list[str] = []
    end = 0
    for i, m in enumerate([*_TOKEN.finditer(text), None]):
        tok = m.group(0) if m else ""
        opens = (i == 0 and not first) or bool(m and _SENTENCE_END.search(text[end : m.start()]))  # 'Meter? Average'
        end = m.end() if m else end
        if (
            tok
            and not (opens and run)
            and (tok[0].isupper() or (tok == "&" and run))
            and not (opens and not tok.isupper())
            and tok.lower() not in GRAMMAR
        ):
            run.append(re.sub(r"('s|')$", "", tok).rstrip(".'"))
            continue
        if run and run[-1] == "&":
            run.pop()
        if run:
            out.append(" ".join(run))
        run = []
    return list(dict.fromkeys(out))


_SENTENCE_END = re.compile(r"[?!]")  # not a colon: "Sochi gold: Norway, Canada"


def glued_schema_name(bi: BIContext, name: str, pieces: int = 1) -> bool:
    """Whether `name`, its letters glued, is `pieces` or more schema words run together: the way a schema writes
    a name ('SupportRep' of `SupportRepId`, 'BoxOffice', 'TPC-H' for the database `tpch`, 'Tomatometer' of
    `tomatoes` and `Meter`): a field named, not a value. Each piece is a schema word of three letters or more."""
    glued = re.sub(r"[^a-z0-9]", "", name.lower())
    known = {w for w in _schema_words(bi) if len(w) >= 3}
    known |= {k + "s" for k in known} | {k[:-1] for k in known if k.endswith("oe")}  # 'tomatoes' | 'tomato'
    return bool(glued) and _segments(glued, frozenset(known)) >= pieces


@functools.lru_cache(maxsize=4096)
def _segments(text: str, known: frozenset[str]) -> int:
    """The most schema words `text` splits into, whole (0: it does not)."""
    best = 1 if text in known else 0
    for k in range(3, len(text) - 2):
        if text[:k] in known and (rest := _segments(text[k:], known)):
            best = max(best, 1 + rest)
    return best


def _schema_words(bi: BIContext) -> set[str]:
    return schema_words(bi.semantic)


def value_held(bi: BIContext, name: str) -> bool:
    """Whether a column holds the named value: an indexed value near enough (rapidfuzz ratio >= 90) or holding
    its every word ('Zeppelin' of 'Led Zeppelin'), a stored text value equal to it (case aside), or, for a name
    of several words, each word so held ('Leonie Köhler': a first and a last name)."""
    text = utils.default_process(name)
    values = bi.lookup()
    if values.near(text) or values.holding_all(set(text.split())):
        return True
    if any(other_form(text, v) for v in values.by_prefix.get(text[:4], ())):
        return True
    if stored_value(bi, name):
        return True
    # 'Cook County Illinois', 'R-rated': a word the schema spells ('county', 'rated' of a rating) is the value's
    # kind, not part of it; the parts of a hyphenated name are read apart only beside such a kind ('K-Pop' is one)
    kinds = _schema_words(bi)
    roots = {word_root(k) for k in kinds}
    for parts in (name.split(), re.split(r"-+", name) if "-" in name else []):
        own = [p for p in parts if singular(p.lower()) not in kinds and word_root(p.lower()) not in roots]
        if "-" in name and parts[0][:1].isupper():  # 'Europe-built': a lower-case word after the hyphen modifies
            own = [p for p in own if not p.islower()]  # the value ('K-Pop' is one value)
        if len(parts) > 1 and own and (len(own) < len(parts) or " " in name) and all(value_held(bi, p) for p in own):
            return True
    return False


def _part_in_other_form(bi: BIContext, name: str, question: str) -> bool:
    """Whether a one-word name is another form of a word of an indexed value whose other words the question writes
    too ('Asian' of 'South Asian population': the region 'South Asia')."""
    word = utils.default_process(name)
    said = set(utils.default_process(question).split())
    if " " in word or len(word) < 4:
        return False
    by_word = bi.lookup().by_word
    return any(
        other_form(word, w) and any(set(bi.lookup().texts[i].split()) - {w} <= said for i in by_word[w])
        for w in by_word
        if w[:4] == word[:4]
    )


def demonym_held(bi: BIContext, name: str) -> bool:
    """Whether `name` (a word, maybe plural) is the demonym of a country that a column holds under its name, another
    spelling or its ISO code ('Dutch': 'Netherlands'; 'Russians': 'RUS'): the countries and their demonyms are the
    `countryinfo` package's data. A demonym of a country the data lacks is not held."""
    return any(value_held(bi, form) for forms in _countries(name) for form in forms)


def _countries(name: str) -> list[tuple[str, ...]]:
    """The names of each country `name` (maybe plural: 'Russians') is the demonym of (`_demonyms`)."""
    key = name.strip().lower()
    return _demonyms().get(key) or _demonyms().get(singular(key), [])


@functools.cache
def _demonyms() -> dict[str, list[tuple[str, ...]]]:
    """demonym (lower case) -> each country's names: its name, its spellings in Latin letters and its ISO alpha-3
    code (from `countryinfo`, a registry package: data kept by others, not a list of this module's). Two-letter
    codes are left out: they are as often a US state's ('CA', 'DE', 'IN'). Empty when the package is not
    installed: the rule is then off."""
    try:
        from countryinfo import all_countries
    except ImportError:
        return {}
    out: dict[str, list[tuple[str, ...]]] = {}
    for country in all_countries():
        demonym = (country.demonym() or "").strip().lower()
        iso = country.iso() or {}
        forms = [country.name(), *(country.alt_spellings() or []), iso.get("alpha3")]
        if demonym:
            out.setdefault(demonym, []).append(
                tuple(dict.fromkeys(f for f in forms if f and len(f) > 2 and f.isascii()))
            )
    return out


# endings that make a demonym, an adjective or an inflection of a name ('Europe' -> 'European', 'Japan' ->
# 'Japanese', 'Sweden' -> 'Swedish', 'Germany' -> 'German'); the stored value loses at most two letters
_FORM_ENDINGS = ("", "an", "ian", "n", "ese", "ish", "ic", "i", "s", "es", "ern", "ean")


def other_form(word: str, value: str) -> bool:
    """Whether `word` is a stored one-word `value` in another form: they share a stem of four letters or more,
    the value goes at most two letters past it and the word only by a demonym's or inflection's ending
    ('european' / 'europe', 'swedish' / 'sweden'); 'indiana' is not 'india', nor 'austrian' 'australia'."""
    if " " in word or " " in value or word == value:
        return False
    stem = os.path.commonprefix([word, value])
    lost = len(value) - len(stem)
    return len(stem) >= 4 and lost <= (1 if word == stem else 2) and word[len(stem) :] in _FORM_ENDINGS


def indexed_values(bi: BIContext, question: str) -> list[str]:
    """The values the question names (`named_values`) that an indexed column holds (rapidfuzz ratio >= 90):
    what entity resolution finds, when the planner leaves one out ('Chairs' of 'the total quantity of Chairs
    sold')."""
    names = named_values(question)
    opening = [n for n in named_values(question, first=True) if n not in names]
    if not names and not opening:  # the index is read from the database: not for a question that names no value
        return []
    index = [str(c.value) for c in bi.index()]
    held = functools.partial(process.extractOne, choices=index, scorer=fuzz.ratio, processor=utils.default_process)
    # the first word's capital may be the sentence's: it names a value only as a category's whole value
    # ('Furniture profit per sub-category'; not a track named 'Time' for 'Time spent ...')
    kinds_of_things = categories(bi) if opening else {}
    kinds = _schema_words(bi)  # 'Silver and bronze totals': the first word is a column's, not the medal 'SILVER'
    return [name for name in names if held(name, score_cutoff=90)] + [
        n
        for n in opening
        if utils.default_process(n) in kinds_of_things and not all(singular(w) in kinds for w in n.lower().split())
    ]


def category_values(bi: BIContext, question: str) -> list[dict[str, Any]]:
    """A category's values the user writes in lower case, which no planner lists: in the plural ('halogens',
    'noble gases' of a `cat_nm` 'halogen', 'noble gas'), for a value of several words as it is ('noble gas
    elements'), and a lone word as it is when it names the value (`_lone_value`: 'furniture', 'a gas'); only
    a column of at most CATEGORY distinct values names kinds of things. Words the schema spells name columns
    and tables ('golds' of a `gold` column is no medal 'GOLD'), not values. A country named by its demonym
    ('the Dutch') is its indexed value too (`demonym_values`): both are values the user names in words no value
    spells, which entity resolution and the planner add."""
    values = categories(bi)
    tokens = re.findall(r"(?<![\w-])[a-z][a-z-]*\b", question)  # lower case only: a capitalised name is the planner's
    kinds = _schema_words(bi)
    out, taken = [], set()
    for n in (3, 2, 1):
        for i in range(len(tokens) - n + 1):
            said = tokens[i : i + n]
            if all(singular(w) in kinds for w in said):
                continue
            one = " ".join([*said[:-1], singular(said[-1])])
            if n > 1:  # a hyphen is a space, as the category texts are written ('sub-saharan africa')
                one, whole = utils.default_process(one), utils.default_process(" ".join(said))
                text = one if one in values else whole
            else:
                text = one if one in values and (one != said[0] or _lone_value(bi, question, one)) else ""
            if text and text in values and not taken & set(range(i, i + n)):  # 'noble gases' is no 'gas' state
                taken |= set(range(i, i + n))
                c = values[text][0]
                out.append({"mention": " ".join(said), "table": c.table, "column": c.column, "value": c.value})
    return out + part_values(bi, question) + demonym_values(bi, question)


def part_values(bi: BIContext, question: str) -> list[dict[str, Any]]:
    """A category's value the question names by its one word beside a code's digits or its column's or table's name,
    in lower case ('urgent' of the priority '1-URGENT', 'classed large' of `large_airport` in `airports`), when exactly one
    value reads so and the word names it (`_lone_value`); a hyphenated word is read as its parts ('urgent-priority')."""
    parts = bi.derived("category_parts", lambda: _category_parts(bi))
    values = categories(bi)
    out = []
    for word in dict.fromkeys(re.findall(r"[a-z]+", " ".join(re.findall(r"(?<![\w-])[a-z][a-z-]*\b", question)))):
        held = {str(c.value): c for c in parts.get(word, [])}  # one value, maybe in several tables
        if len(held) == 1 and word not in values and _lone_value(bi, question, word):
            c = bi.best_holder(next(iter(held.values())), question)
            out.append({"mention": word, "table": c.table, "column": c.column, "value": c.value})
    return out


def _category_parts(bi: BIContext) -> dict[str, list[Candidate]]:
    """A category value's one word, when its other words are digits or its own table's or column's name ('1 urgent',
    'large airport' of `airports.type`; not 'won 1 oscar' of an `Awards` column, beside a column `oscars`)."""
    kinds = _schema_words(bi)
    out: dict[str, list[Candidate]] = {}
    for text, held in categories(bi).items():
        for c in held:
            kind = {singular(w) for w in f"{words(c.table)} {words(c.column)}".split()}
            own = [w for w in text.split() if not w.isdigit() and singular(w) not in kind]
            if len(own) == 1 and len(text.split()) > 1 and own[0] not in kinds:
                out.setdefault(own[0], []).append(c)
    return out


def _lone_value(bi: BIContext, question: str, word: str) -> bool:
    """Whether a lower-case word that is, as written, a category's whole value names that value ('furniture',
    'a gas'): not a grammar word or one under three letters ('in' is no state 'IN'), not a word of a longer
    stored name the question writes beside it ('ford' of 'ford pinto', 'datsun' of 'datsun 810 maxima'), not
    inside a thing the question asks for that the data does not hold ('truck driver': a person's role, no ship
    mode TRUCK)."""
    if len(word) < 3 or word in GRAMMAR:
        return False
    said = utils.default_process(question).split()
    beside = {said[j] for k, w in enumerate(said) if w == word for j in (k - 1, k + 1) if 0 <= j < len(said)}
    if any(bi.lookup().holding_all({word, b}) for b in beside - GRAMMAR - {word}):
        return False
    return not any(word in utils.default_process(m).split() for m in missing_asked(bi, question))


def demonym_values(bi: BIContext, question: str) -> list[dict[str, Any]]:
    """The indexed value each demonym the question names stands for ('Dutch': `cntry_nm` 'Netherlands'; 'the
    Russians': `cntry_cd` 'RUS'), the column the question names best (`BIContext.best_holder`); only for a name no
    value holds as it is (`demonym_held`). In any case and opening the question too ('germans plus french',
    'Norwegian gold haul'): a demonym is no word of a question's grammar, so its case says nothing. A word that is
    no country's demonym may be a category's place by an adjective's ending ('european' of the region 'Europe',
    'asian': `_place_adjective`)."""
    index = bi.derived(  # reversed: the first holder of a text is kept
        "values_by_text", lambda: {utils.default_process(str(c.value)): c for c in reversed(bi.index())}
    )
    kinds = _schema_words(bi)  # 'the french column' of a schema is a field, not France
    out, taken = [], set()
    for name in _place_words(question):
        if name.lower() in kinds or name.lower() in taken:
            continue
        countries = _countries(name)  # first: `value_held` probes columns
        forms = [f for country in countries for f in country]  # an indexed form is held (`demonym_held`)
        hit = next((index[t] for f in forms if (t := utils.default_process(f)) in index), None)  # a name first
        if hit is None and not countries:
            hit = _place_adjective(bi, name)
        if hit is not None and utils.default_process(name) not in index and not stored_value(bi, name):
            taken.add(name.lower())
            c = bi.best_holder(hit, question)
            out.append({"mention": name, "table": c.table, "column": c.column, "value": c.value})
    return out


def _place_words(question: str) -> list[str]:
    """The names a question writes (`named_values`) and each of its words, in any case ('japanese/asian'), but a
    word of a longer name ('American' of 'American Airlines')."""
    names = named_values(question, first=True)
    inside = {w.lower() for n in names if " " in n for w in n.split()}
    return list(dict.fromkeys([*names, *(w for w in re.findall(r"[A-Za-z]{4,}", question) if w.lower() not in inside)]))


# the endings that make an adjective or a demonym of a place ('europe' -> 'european', 'asia' -> 'asian'): not a
# plural's or a verb's (`_FORM_ENDINGS` has those too)
_ADJECTIVE_ENDINGS = ("an", "ian", "n", "ese", "ish", "ean")


def _place_adjective(bi: BIContext, name: str) -> Candidate | None:
    """The one-word value of a category column (at most CATEGORY distinct values) that `name` is an adjective of
    ('european' -> 'Europe', 'asians' -> 'ASIA'), when exactly one such text is."""
    word = singular(utils.default_process(name))
    if " " in word:
        return None
    kinds = categories(bi)
    found = [
        t
        for t in kinds
        if t[:4] == word[:4]
        and other_form(word, t)
        and word[len(os.path.commonprefix([word, t])) :] in _ADJECTIVE_ENDINGS
    ]
    return kinds[found[0]][0] if len(found) == 1 else None


# the things counted: 'how many king penguins are ...', 'number of king penguins in ...'
_COUNTED = [
    _ASKED[0],
    re.compile(
        rf"\b(?:number|count) of ((?:{_WORD}\s?){{1,3}}?)\s*(?:\b(?:are|is|were|was|in|on|of|for|per|by|with|from|"
        r"that|who|which|do|does|did|have|has)\b|[?.!,]|$)",
        re.I,
    ),
]


def missing_kinds(bi: BIContext, question: str) -> list[str]:
    """A lower-case word before the things a question counts ('how many king penguins', 'number of tesla models'),
    when the last word names a table (its rows) or the database (not a column: 'critic reviews' is a measure),
    says which of them: it must be a word the data spells (a schema word, a word of a stored value, a word of a
    name or description by its root, or a text placed by meaning; a compound by any of its parts), else it is a
    value of those things the data lacks ('king' where the species are Adelie, Gentoo, Chinstrap) and a count
    would ignore it. A capitalised word is a named value (`missing_values`)."""
    out = []
    for rx in _COUNTED:
        for m in rx.finditer(question):
            own = [w for w in _own_words(m.group(1)) if w.lower() not in GENERIC and not re.search(r"\d", w)]
            if len(own) < 2 or not (_thing_table(bi, own[-1]) or stems(own[-1]) == stems(words(bi.semantic.database))):
                continue
            out += [f"{w} {own[-1]}" for w in own[:-1] if w.islower() and not _modifier_held(bi, w)]
    return list(dict.fromkeys(out))


def _modifier_held(bi: BIContext, word: str) -> bool:
    """Whether the data spells a modifier; a compound by any of its parts ('four-cylinder': `cyl`, 'R-rated')."""
    if "-" in word:
        return any(_modifier_held(bi, part) for part in word.split("-") if part)
    return (
        singular(word) in _schema_words(bi)
        or value_word(bi, word)
        or word_held(bi, word)
        or plural_value(bi, word)
        or meaning_of(bi, word) is not None
    )


def missing_values(bi: BIContext, question: str) -> list[str]:
    """The values the question names (`named_values`) that no column holds (`value_held`), each with the nearest
    indexed value when one is close (a likely misspelling); a name made only of schema words ('Production',
    'Oscars'), of a month or a weekday, or of the database itself is no value."""
    known = _schema_words(bi) | {m.lower() for m in [*calendar.month_name, *calendar.day_name] if m}
    out = []
    for name in named_values(question):
        own = [singular(w) for w in re.findall(r"[a-z0-9]+", name.lower())]
        if not own or all(w in known for w in own) or glued_schema_name(bi, name) or value_held(bi, name):
            continue
        if demonym_held(bi, name) or _part_in_other_form(bi, name, question):
            continue
        # a name means the database or a field ('Games' of an olympics database); near a categorical value it is as
        # often another member of that kind the column lacks ('Brazil' near 'France') as another form of it
        if meaning_of(bi, name, values=False) is not None:
            continue
        near = [c for c in bi.search(name, limit=1) if c.score >= NEAR_VALUE]
        out.append(repr(name) + (f" (the nearest is {str(near[0].value)!r})" if near else ""))
    return out


# -- meaning: words the schema does not spell but covers ('films' for a table of movies) --------------------
def meaning_of(bi: BIContext, term: str, values: bool = True) -> dict[str, Any] | None:
    """Where the term is placed by its meaning: the table, column, categorical value (`{table, column, value}`;
    not with `values` off) or the database (`{}`) whose text (`_layer_texts`) MiniLM puts at least MEANING_FLOOR
    from the term's words (`_meaning_words`). None when nothing is that close, or when MiniLM is not installed
    (then only the lexical rules judge). A term placed on a categorical value no nearer it than the value's nearest
    fellow of its column is another member of that kind, one the column lacks ('porsches' near 'ford' among car
    makers), not that value."""
    score, target, text = closest_meaning(bi, term, values)
    if score < MEANING_FLOOR or (target and "value" in target and score <= _nearest_fellow(bi, target, text)):
        return None
    return target


def _nearest_fellow(bi: BIContext, target: dict[str, Any], text: str) -> float:
    """The cosine between a categorical value's text and the nearest other value of its column."""
    texts, targets = _layer_texts(bi)
    column = (target["table"], target["column"])
    rows = [
        i for i, g in enumerate(targets) if "value" in g and (g["table"], g["column"]) == column and texts[i] != text
    ]
    embedder = _embedder()
    if embedder is None or not rows or text not in texts:
        return -1.0
    vectors = _layer_vectors(embedder, tuple(texts))
    return float(np.max(vectors[rows] @ vectors[texts.index(text)]))


def closest_meaning(bi: BIContext, term: str, values: bool = True) -> tuple[float, dict[str, Any] | None, str]:
    """(cosine, target, layer text) of the layer text nearest the term's meaning (a categorical value's only with
    `values`); (0, None, '') when the term has no words of its own or MiniLM is not installed."""
    scores = _meaning_scores(bi, term)
    if scores is None:
        return 0.0, None, ""
    texts, targets = _layer_texts(bi)
    if not values:
        scores = np.where([("value" in g) for g in targets], -1.0, scores)
    best = int(np.argmax(scores))
    return float(scores[best]), targets[best], texts[best]


def singled_out(bi: BIContext, term: str) -> dict[str, Any] | None:
    """The column MiniLM singles out for the term: its best cosine (`_ranked_targets`) beats the best of every other
    target (a column, a table, the database, a layer term) by at least MEANING_MARGIN, and the column accounts for
    the whole term (each of its schema words is a word of the column's name: 'flipper weight' is not `body_g`).
    None when no column stands out that far, when the term is the lexical rules' to judge, or without MiniLM."""
    ranked = _ranked_targets(bi, term)
    if not ranked:
        return None
    (column, top), *rest = ranked
    if "column" not in column or (rest and top - rest[0][1] < MEANING_MARGIN):
        return None
    return column if _accounts(bi, term, column) else None


def tied_columns(bi: BIContext, term: str) -> list[dict[str, Any]]:
    """The two number columns of one table MiniLM puts nearest the term when they tie (nearer each other than the
    second is to any third target), both stand apart from every other target by TIE_MARGIN, and each accounts for
    the whole term ('revenue': `sales` or `profit`): a measure the data keeps in two columns, which the user can be
    asked. Empty otherwise: an absent term sits near several targets at once, or much nearer one column than the
    next ('salary': `price`, then `qty`), and a tie of a text column ('age': `year`, `sex`) says nothing."""
    ranked = _ranked_targets(bi, term)
    if len(ranked) < 2:
        return []
    (first, top), (second, next_), *rest = ranked
    apart = next_ - rest[0][1] if rest else 1.0  # the pair above every third target
    pair = [first, second]
    if apart < TIE_MARGIN or top - next_ >= apart or not all("column" in t for t in pair):
        return []
    measures = pair[0]["table"] == pair[1]["table"] and not any(_is_text(bi.semantic, t) for t in pair)
    return pair if measures and all(_accounts(bi, term, t) for t in pair) else []


def _accounts(bi: BIContext, term: str, column: dict[str, Any]) -> bool:
    """Whether each of the term's schema words is a word of the column's name."""
    own = {singular(w) for w in _term_words(term)}
    return own & _schema_words(bi) <= {singular(w) for w in words(column["column"]).split()}


def _ranked_targets(bi: BIContext, term: str) -> list[tuple[dict[str, Any], float]]:
    """Each target (column, table, database, layer term; values aside) with its best cosine to the term, best first.
    Only a term with a word no schema name spells, each such word an English one, is ranked: the lexical rules
    judge schema words ('clerk size'), `read_typos` a non-word ('lenghtt'). Empty without MiniLM. Ranked once per
    term and layer: `singled_out` and `tied_columns` read the same ranking."""
    kept = bi.derived("ranked_targets", dict)
    if term not in kept:
        kept[term] = _ranking(bi, term)
    return [(dict(k), v) for k, v in kept[term]]


def _ranking(bi: BIContext, term: str) -> list[tuple[tuple[tuple[str, Any], ...], float]]:
    own = _term_words(term)
    unspelt = [w for w in own if singular(w) not in _schema_words(bi)]
    scores = _meaning_scores(bi, term) if unspelt and set(unspelt) <= _dictionary() else None
    if scores is None:
        return []
    best: dict[tuple[tuple[str, Any], ...], float] = {}
    for score, target in zip(scores, _layer_texts(bi)[1], strict=True):
        if "value" not in target:
            key = tuple(sorted(target.items()))
            best[key] = max(best.get(key, -1.0), float(score))
    return sorted(best.items(), key=lambda kv: -kv[1])


def _meaning_scores(bi: BIContext, term: str) -> np.ndarray | None:
    """The cosine between the term's meaning (`_meaning_words`) and each layer text; None when the term has no words
    of its own, the layer no text, or MiniLM is not installed."""
    said = _meaning_words(bi, term)
    embedder = _embedder() if said else None
    texts, _ = _layer_texts(bi)
    if embedder is None or not texts:
        return None
    return _layer_vectors(embedder, tuple(texts)) @ _vectors(embedder, (said,))[0]


NEAREST = 3  # columns a 'no field' decline names for the user to ask again with (or to correct the answer by)


def no_field(bi: BIContext, missing: list[str]) -> str:
    """The decline for terms no column holds, with the columns nearest their meaning (`nearest_columns`): what the
    user can ask again with, or correct the answer by. Round 58: for 62 of 81 answerable questions declined this way
    in the stored runs, a column the gold SQL reads is among the term's three nearest."""
    if bi.approved is not None and (said := bi.approved.not_held(bi.engine.name, missing)):
        return said  # a person answered the field question 'none of these' (orrery.bi.examples.keep_field)
    reason = f"the data has no field or value for {', '.join(map(repr, missing))}"
    near = list(dict.fromkeys(c for term in missing for c in nearest_columns(bi, term)))[:NEAREST]
    return reason + (f"; the nearest columns it holds: {', '.join(near)}" if near else "")


def askable(bi: BIContext, missing: list[str]) -> bool:
    """Whether the user is asked which column each missing term means (`tools.ask_field`) instead of being declined:
    when asking is on and MiniLM names columns near each term."""
    return bi.clarify and all(nearest_columns(bi, term) for term in missing)


def nearest_columns(bi: BIContext, term: str) -> list[str]:
    """The `NEAREST` columns ('table.column') whose texts MiniLM puts nearest the term's meaning, keys and codes
    aside; empty without MiniLM."""
    scores = _meaning_scores(bi, term)
    if scores is None:
        return []
    best: dict[str, float] = {}
    for score, target in zip(scores, _layer_texts(bi)[1], strict=True):
        if set(target) == {"table", "column"} and not key_like(target["column"]):
            label = f"{target['table']}.{target['column']}"
            best[label] = max(best.get(label, -1.0), float(score))
    return sorted(best, key=lambda c: -best[c])[:NEAREST]


def _term_words(term: str) -> list[str]:
    """A term's own words: aggregate and grammar words dropped."""
    return [w for w in re.findall(r"[a-z][\w-]*", term.lower()) if w not in GENERIC | GRAMMAR]


def _meaning_words(bi: BIContext, term: str) -> str:
    """What of a term is embedded: its words no schema name spells (a spelt modifier cannot lift a missing head:
    'tax rate' is judged by 'rate'), or, when every word is spelt, the whole term (the phrase as a whole is no
    column: 'route count' is the routes counted); aggregate and grammar words dropped."""
    own = _term_words(term)
    known = _schema_words(bi)
    return " ".join([w for w in own if singular(w) not in known] or own)


def _layer_texts(bi: BIContext) -> tuple[list[str], list[dict[str, Any]]]:
    """The texts a term's meaning is compared with, each with what it names: the database, each table's name in
    words and the first clause of its description (a drafted one's is the name written out), each column's name in
    words, synonyms and first clause, the layer's terms, and the values of the categorical columns (`categories`:
    'South Asia' of a region)."""
    return bi.derived("layer_texts", lambda: _texts_of_layer(bi))


def _texts_of_layer(bi: BIContext) -> tuple[list[str], list[dict[str, Any]]]:
    semantic = bi.semantic
    pairs: list[tuple[str, dict[str, Any]]] = [(semantic.database, {})]
    for table, info in semantic.tables.items():
        pairs += [(words(table), {"table": table}), ((info.get("description") or "").split(";")[0], {"table": table})]
    for table, column, info in semantic.columns():
        target = {"table": table, "column": column}
        texts = [words(column), *info.get("synonyms", []), (info.get("description") or "").split(";")[0]]
        pairs += [(t, target) for t in texts]
    pairs += [(k, {"sql": info.get("sql")}) for k, info in semantic.terms.items()]
    pairs += [
        (text, {"table": c.table, "column": c.column, "value": str(c.value)})
        for text, (c, *_) in categories(bi).items()
    ]
    seen = dict((t.strip().lower(), target) for t, target in reversed(pairs) if t and t.strip())
    return list(seen), list(seen.values())


@functools.lru_cache(maxsize=64)
def _vectors(embedder: Any, texts: tuple[str, ...]) -> np.ndarray:
    return embedder.embed(list(texts))


@functools.lru_cache(maxsize=16)
def _layer_vectors(embedder: Any, texts: tuple[str, ...]) -> np.ndarray:
    """The embeddings of a layer's texts, kept under the cache folder by the model's name and the texts' digest: a
    new process reads them instead of embedding them again (Chinook's 427 texts took 7 s on two busy cores). A file
    of another shape or unreadable is embedded again and replaced."""
    digest = hashlib.sha256("\n".join([embedder.name, *texts]).encode()).hexdigest()
    path = cache_dir() / "bi" / "meaning" / f"{digest}.npy"
    with contextlib.suppress(OSError, ValueError):
        kept = np.load(path, allow_pickle=False)
        if kept.shape == (len(texts), embedder.dim):
            return kept
    vectors = embedder.embed(list(texts))
    with contextlib.suppress(OSError):  # a read-only cache folder costs time, not the answer
        write_atomic(path, lambda tmp: np.save(tmp, vectors, allow_pickle=False))
    return vectors


def _embedder() -> Any:
    """MiniLM (orrery.recall's, one per process, loaded at its first use) when it is installed, else None."""
    return lazy_embedder()


# -- years: a year the question names that no date column of the data reaches --------------------------------
_YEAR_OF = re.compile(r"(?<![\w#$.,])(1[6-9]\d\d|20\d\d)(?![\w%.,]\d)(?!s\b)")  # a decade ('the 1970s') is no one year
_BEFORE = frozenset(["before", "until", "till", "prior", "to"])
_AFTER = frozenset(["after", "since", "from", "between"])
_QUANTITY = frozenset(["than", "over", "under", "above", "below", "least", "most", "top", "first", "last", "exceeds"])
_DATE_TEXT_ROWS = 20_000  # distinct values of a text date column read to find its years


def year_ranges(bi: BIContext) -> dict[tuple[str, str], tuple[int, int]]:
    """(first year, last year) of each column that says when (`_temporal`) and holds years, read once per
    context: MIN / MAX of a number or date column, the years written in a text column's distinct values
    (SQLite keeps dates as text, in any format). A number column whose values are not years (a month) is left
    out; a two-digit year (a column named as a year, every value under 100) keeps its two digits."""
    if bi._years is None:
        bi._years = {}
        for table, column, info in bi.semantic.columns():
            if _temporal(column, info) and (span := _years_of(bi, table, column, info)):
                bi._years[(table, column)] = span
    return bi._years


YEAR_SHARE = 0.9


def _years_of(bi: BIContext, table: str, column: str, info: dict[str, Any]) -> tuple[int, int] | None:
    col, tab = quote(bi.engine, column), quote(bi.engine, table)
    rows = f"(SELECT {col} AS v FROM {tab} LIMIT {COUNT_CAP}) AS s"
    text = re.match(r"(VARCHAR|TEXT|CHAR|STRING)", str(info.get("type", "")), re.I) or not info.get("type")
    try:
        if text:
            values = bi.engine.execute(f"SELECT DISTINCT v FROM {rows}", max_rows=_DATE_TEXT_ROWS).rows
        else:
            values = bi.engine.execute(f"SELECT MIN(v), MAX(v) FROM {rows}", max_rows=1).rows[:1]
    except QueryError:
        return None
    cells = [str(v) for row in values for v in row if v is not None]
    if not text and cells and all(re.fullmatch(r"-?\d+(\.0+)?", c) for c in cells):
        years = [int(float(c)) for c in cells if 1000 <= float(c) <= 2999]  # a number column: the values are years
        if not years and two_digit_year(column, min(map(float, cells)), max(map(float, cells))):
            years = [int(float(c)) for c in cells]  # a two-digit year ('yr' from 70 to 82), compared as such
        return (min(years), max(years)) if len(years) == len(cells) else None
    years = [int(y) for c in cells for y in re.findall(r"(?<!\d)(1[0-9]\d\d|2\d\d\d)(?!\d)", c)[:1]]
    # a text column of dates writes a year in (nearly) every value; a name that quotes one ('Kosovo (under UNSC res.
    # 1244)') does not make a column of names a column of years
    return (min(years), max(years)) if years and len(years) >= YEAR_SHARE * len(cells) else None


def _counted(word: str) -> bool:
    """Whether a word right after a number makes it a quantity: a plural noun (`names.singular`: '2000 customers',
    '2000 lbs'); a singular one is what the year is of ('2020 share of ...', 'the 1995 total', '1990 vs 2020')."""
    return word.isalpha() and word not in GRAMMAR and singular(word) != word


def named_years(question: str) -> list[tuple[int, str]]:
    """(year, how) of each year the question names: how is 'after' ("after / since 2010"), 'before' ("before /
    until 2010") or 'in'; a number after 'than', 'over', 'top' ... or before a plural noun ('2000 customers') is
    a quantity, not a year; before a singular one it is the year of it ('2020 share of ...')."""
    out = []
    for m in _YEAR_OF.finditer(question):
        before = re.findall(r"[a-z]+", question[: m.start()].lower())[-1:]
        after = re.findall(r"[A-Za-z]+|\S", question[m.end() :].lower())[:1]
        if (before and before[0] in _QUANTITY) or (after and _counted(after[0])):
            continue
        word = before[0] if before else ""
        if word == "and" and re.search(r"\bbetween\s+\d{4}\s+and\s*$", question[: m.start()], re.I):
            word = "to"  # 'between 2000 and 2005': the range's end
        how = "after" if word in _AFTER else "before" if word in _BEFORE else "in"
        out.append((int(m.group(1)), how))
    return out


def _undated_named(bi: BIContext, question: str) -> bool:
    """Whether the question names a table none of whose columns says when, nor its name: its rows are as they are."""
    said, dated = said_words(question), {t for t, _ in year_ranges(bi)}
    return any(names_table(t, said) and t not in dated and not table_year(t) for t in bi.semantic.tables)


def named_tables(bi: BIContext) -> list[tuple[tuple[str, str], tuple[int, int]]]:
    """The year each table's name carries (`semantic.table_year`: `sochi14_tally` 2014): its rows are of it."""
    return [((t, "(its name)"), (y, y)) for t in bi.semantic.tables if (y := table_year(t))]


def _reaches(year: int, how: str, lo: int, hi: int) -> bool:
    return (
        (how == "after" and year < hi) or (how == "before" and year > lo) or (how in ("in", "now") and lo <= year <= hi)
    )


# The present, which a table's dates reach only when they run to this year: not 'current' / 'currently' ('the
# current balance' is a table's own state) nor a lone 'now' ('now show me ...')
_PRESENT = re.compile(
    r"\b(?:today(?:'s)?|tonight|right now|this weekend|nowadays|these days|at (?:the moment|present))\b", re.I
)


def present_year(question: str) -> list[tuple[int, str]]:
    """(this year, 'now') when the question asks about the present ('today's dollars', 'right now'), else none."""
    return [(datetime.datetime.now(datetime.UTC).year, "now")] if _PRESENT.search(question) else []


def unreached_span(bi: BIContext, table: str, column: str, year: int, how: str) -> tuple[int, int] | None:
    """The (first, last) year of a column whose values are years or dates (`_years_of`, whatever its name says:
    'fy') when it does not reach `year` read as `how` (`named_years`); None when it reaches it or holds no years."""
    info = next((i for t, c, i in bi.semantic.columns() if (t, c) == (table, column)), None)
    span = _years_of(bi, table, column, info) if info is not None else None
    if span is None or _reaches(year % 100 if span[1] < 100 else year, how, *span):
        return None
    return span


def years_outside(bi: BIContext, question: str) -> str | None:
    """Why a question about a year the data does not reach cannot be answered: no column that says when holds it
    ('in 2019' where the invoices run from 2009 to 2013); 'after 2015' needs a later year, 'before 1990' an
    earlier one; the present ('today', 'right now': `present_year`) needs this year, unless the question names a
    table with no date (`_undated_named`: 'how many customers do we have today' asks the table's own state). No date
    column, no judgment: the year may be a value the model places."""
    named = named_years(question) + ([] if _undated_named(bi, question) else present_year(question))
    spans = [*year_ranges(bi).items(), *named_tables(bi)] if named else []
    if not spans:
        return None
    for year, how in named:
        reached = [(lo, hi) for _, (lo, hi) in spans if _reaches(year % 100 if hi < 100 else year, how, lo, hi)]
        if not reached:
            ranges = ", ".join(f"{lo} to {hi} ({'.'.join(col)})" for col, (lo, hi) in spans[:4])
            more = f" and {len(spans) - 4} more columns" if len(spans) > 4 else ""
            when = f"today ({year})" if how == "now" else f"{how} {year}"
            return f"the data's dates run from {ranges}{more}; it has nothing {when}"
    return None


# where the model glued several values the user named into one literal ('spielberg vs scorsese'): the list words of
# a term, and punctuation
_GLUED = re.compile(rf"{_LISTED.pattern}|\s*[,/;]\s*", re.I)


def absent_value(bi: BIContext, sql: str, question: str) -> str | None:
    """A value the user named that the query (which found nothing) compares a column with, and that the data holds
    in no form: not in the value index (`value_held`), not as a country's demonym (`demonym_held`), not in any text
    column by a scan of its stems (`_scanned`: the index caps a column's distinct values, so a director's name is
    only in the data). The literal must be the user's words, hold no number ('three airports' is a quantity) and
    some word that is not the schema's ('world' of 'each world region'): the model's own literals, and its own
    words in the user's literal ('jpg' of 'chinatown.jpg'), say nothing."""
    try:
        tree = sqlglot.parse_one(sql, read=bi.engine.dialect)
    except sqlglot.errors.ParseError:
        return None
    for literal in tree.find_all(exp.Literal):
        if literal.is_string and literal.find_ancestor(exp.EQ, exp.In, exp.Like, exp.ILike):
            for part in _GLUED.split(literal.this.strip("% ")):
                words = _users_words(bi, part, question)
                if words and not writes_a_number(part) and user_wrote(part, question) and not _held(bi, part, words):
                    return part
    return None


def absent_mentions(bi: BIContext, mentions: list[str], question: str) -> list[str]:
    """The mentions entity resolution left unresolved that the data holds in no form (`_absent_mention`): the plan
    would run on without them, counting every row or filtering on a literal the model makes up (round 65)."""
    question = as_kept(bi, question)  # a term a person mapped to a column is that column, not a missing name
    return [m for m in mentions if _absent_mention(bi, as_kept(bi, m), question)]


def _absent_mention(bi: BIContext, mention: str, question: str) -> bool:
    """Whether the user wrote the mention and no name of it (`_name_words`) is held, word by word (`_held`:
    'Norwegian buyers' is held where Norway is stored, though no value holds 'buyers'); a number is a quantity, and a
    mention placed on a field by its meaning is a field, not a value."""
    words = _name_words(bi, mention, question)
    if not words or writes_a_number(mention) or not user_wrote(mention, question):
        return False
    return not any(_held(bi, w, [w]) for w in words) and meaning_of(bi, mention, values=False) is None


def _name_words(bi: BIContext, mention: str, question: str) -> list[str]:
    """The value words of a mention the user wrote (`_users_words`) that are names: capitalised by the planner in the
    mention ('Adele' of the user's 'adele') or by the user past the question's first word (`named_values`). The
    planner lists field-like phrases among values too ('shipping mode', 'highest elevation'): not names."""
    written = re.findall(r"[^\W\d_]+", " ".join([mention, *named_values(question)]))
    capitals = {w.lower() for w in written if w[0].isupper()}  # 'Émile' too
    return [w for w in _users_words(bi, mention, question) if w in capitals]


def _value_words(bi: BIContext, name: str) -> list[str]:
    """The words of a name that may be a value's: three letters or more, not a word of the schema ('county')."""
    kinds = _schema_words(bi)
    return [w for w in re.findall(r"[^\W\d_]{3,}", name.lower()) if singular(w) not in kinds]


def _users_words(bi: BIContext, part: str, question: str) -> list[str]:
    """The value words of a literal (`_value_words`) that the question writes: the model glues words of its own to
    the user's ('chinatown.jpg', a file name it made up for 'chinatown'), and the data need not hold those."""
    q = utils.default_process(question)
    return [w for w in _value_words(bi, part) if _in_question(w, q)]


def _held(bi: BIContext, name: str, words: list[str]) -> bool:
    return value_held(bi, name) or demonym_held(bi, name) or _scanned(bi, words)


def _scanned(bi: BIContext, words: list[str]) -> bool:
    """Whether one value of some text column holds the stem of every word ('euro' in 'Europe', 'japanese' as
    'JAPAN', 'allen' in 'Woody Allen'): a bounded LIKE probe of each column (`_stored_where`)."""
    likes = (exp.Literal.string(f"%{_stem(w)}%").sql(bi.engine.dialect) for w in words)
    return _stored_where(bi, " AND ".join(f"lower(v) LIKE {like}" for like in likes), indexed_too=True)


def _stem(word: str) -> str:
    """The word less a demonym's or inflection's ending (`_FORM_ENDINGS`), keeping four letters: 'japanese' ->
    'japan', 'african' -> 'afric'."""
    for ending in sorted(_FORM_ENDINGS, key=len, reverse=True):
        if ending and word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)]
    return word
