"""The BI tools: module-level tools that read one `BIContext` (engine, semantic layer,
model) from `ctx.deps`.

LLM-enabled tools that may ask (raise `NeedsClarification`): entity_resolution, field_mapping,
query_builder. Traditional tools: sql_executor, graphql_executor. Analysis tools over the last result:
retrieve_query_metadata, summary_stats, compare_groups, time_breakdown, trend_anomaly, chart.
Each returns a JSON-able dict: the planner keeps it as the TODO's result, later TODOs read it from
`ctx.options["results"]`, so a resumed session needs nothing but what was saved.
"""

from __future__ import annotations

import functools
import json
import os
import re
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pydantic
import sqlglot
import yaml
from rapidfuzz import fuzz, utils
from sqlglot import exp

from orrery.bi import analysis
from orrery.bi.compose import LIST_SEPARATOR, BadPart, UnknownField
from orrery.bi.context import BadReply, BIContext, Candidate
from orrery.bi.context import pick_option as pick_option  # the clarification answer's reading (tests)
from orrery.bi.decline import (
    GRAMMAR,
    absent_mentions,
    categories,
    category_values,
    demonym_values,
    flag_values,
    maps,
    meaning_of,
    missing_fields,
    named_years,
    nearest_columns,
    no_field,
    other_form,
    read_typos,
    singled_out,
    stored_holders,
    unit_column,
    unreached_span,
    user_wrote,
)
from orrery.bi.decline import missing_asked as missing_asked  # the planner's check (agent.py)
from orrery.bi.engines import Engine, QueryError, QueryResult
from orrery.bi.examples import approved_shots, field_term, reuse_approved
from orrery.bi.guard import UnsafeQuery, check
from orrery.bi.joins import join_columns, sides
from orrery.bi.names import (
    initials,
    names_table,
    ordinal,
    ordinal_forms,
    said_words,
    sex_of,
    sex_pair,
    singular,
    spelling_key,
    writes_code,
)
from orrery.bi.profile import COUNT_CAP, quote
from orrery.bi.relax import relaxed
from orrery.bi.semantic import Semantic, abbreviates, named_fields, rank_fields, schema_words, stems, words
from orrery.bi.shots import drafted_shots
from orrery.errors import ToolError
from orrery.messages import Message
from orrery.tools.core import RunContext, Tool, tool

PROMPTS = Path(__file__).parent / "prompts"
PREVIEW_ROWS = 20
MATCH = 80  # a value or field this similar (0-100) to the user's words is a candidate
CLOSE = 6  # two candidates closer than this are ambiguous: ask
UNMAPPED = 75  # a business term whose best field scores below this is not in the data
FAILED_SQL_CHARS = 600  # of a query that still fails, shown in its error
CANNOT = "cannot answer: "  # the prefix of a ToolError that means the data cannot answer the question


def prompt(name: str) -> str:
    return (PROMPTS / f"{name}.md").read_text()


def examples(name: str, render: Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]) -> list[Message]:
    """prompts/NAME.yaml as user/assistant turns: worked examples a 0.5B model imitates far better than
    rules (each entry -> (user text, reply object) by `render`)."""
    out = []
    for entry in yaml.safe_load((PROMPTS / f"{name}.yaml").read_text()):
        user, reply = render(entry)
        out += [Message("user", user), Message("assistant", json.dumps(reply))]
    return out


class CannotAnswer(ToolError):
    """The data has nothing to answer the question with (not a failure to retry)."""

    def __init__(self, reason: str):
        super().__init__(CANNOT + reason)


def shares_word(mention: str, value: str) -> bool:
    """A word of the mention (not a number) is nearly a word of the value: 'Peacock' of 'Jane Peacock',
    'Brazil' of 'Brazilian', 'Chinese' of 'CHINA' (a demonym, `other_form`); '5 minutes' is not 'Beethoven:
    Symphonies Nos. 5 & 6' however well it scores."""
    mine = [w for w in re.findall(r"[^\W_]+", mention.lower()) if not w.isdigit()]
    theirs = re.findall(r"[^\W_]+", value.lower())  # 'large' is a word of 'large_airport'
    return any(fuzz.ratio(a, b) >= 80 or other_form(a, b) for a in mine for b in theirs) or (
        not mine and mention.lower() in value.lower()
    )


def _by_key(bi: BIContext, key: Callable[[str], str]) -> dict[str, list[Candidate]]:
    """The indexed values grouped by `key` of their text, in the index's order: one scan of the index (up to
    5,000 values a column), then each mention is a look-up instead of another scan."""
    out: dict[str, list[Candidate]] = {}
    for c in bi.index():
        out.setdefault(key(str(c.value)), []).append(c)
    return out


def _stem_key(text: str) -> str:
    """What a word and its other form share (`other_form`: a stem of four letters or more)."""
    return utils.default_process(text)[:4]


def _in_other_form(by_stem: dict[str, list[Candidate]], mention: str) -> list[Candidate]:
    """The indexed values a one-word mention names in another form ('Chinese' for 'CHINA', 'Japanese' for
    'JAPAN'): the fuzzy score of a demonym against its short stem is too low to find it. `by_stem`: the
    index by `_stem_key`."""
    word, out = utils.default_process(mention), {}
    for c in by_stem.get(_stem_key(word), []):
        if other_form(word, utils.default_process(str(c.value))):
            out.setdefault(str(c.value).lower(), Candidate(c.value, c.table, c.column, MATCH))  # first column
    return list(out.values())


_AMOUNT = re.compile(r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|fifty|hundred)\b", re.I)


def names_a_value(bi: BIContext, mention: str, question: str) -> bool:
    """Whether a value the plan names is one to look up in the data: the user wrote it, it is not a number
    or a date, and it is not the name of a table or a field ('artists', 'ship mode', 'playlist_count')
    unless the data holds exactly that value. The 0.5B planner lists such words as values, and a fuzzy
    match then filters on 'AC/DC' for 'How many artists are there?'."""
    text = utils.default_process(mention)
    if not text or re.fullmatch(r"[\d\s.,:/-]+", text):
        return False
    if text in GRAMMAR and re.search(rf"\b{re.escape(text)}\b", question):  # 'across' is no county 'Cross'
        return False  # written in lower case: a word of the sentence ('the US' is a name)
    if question and not user_wrote(mention, question):
        return False
    if re.search(rf"\b(than|over|under|above|below|least|most)\s+{re.escape(mention)}", question, re.I):
        return False  # 'longer than 5 minutes' is an amount, not a name ('Nem 5 Minutos Guardados')
    if _AMOUNT.match(mention) and re.search(rf"\b(past|beyond|exceeding)\s+{re.escape(mention)}", question, re.I):
        return False  # 'run past five minutes'; 'past Texas' is a place
    if len(text) <= 2 and re.search(rf"\w\s*\(\s*{re.escape(mention)}\s*\)", question):
        return False  # 'boiling points (K)': a unit in brackets after what it measures, not potassium's symbol
    if any(utils.default_process(str(c.value)) == text for c in bi.index()):
        return True
    ranked = rank_fields(bi.semantic, mention)
    return not (ranked and ranked[0][0] >= 90)


def _one_per_join(
    semantic: Semantic, ranked: list[tuple[float, str, dict[str, Any]]]
) -> list[tuple[float, str, dict[str, Any]]]:
    """Two ends of one join ('orders.state = states.state') hold the same thing: asking which is meant says
    nothing to the user; the first stands for both."""
    joined = {frozenset(f"{t}.{c}" for t, c in join_columns(j)) for j in semantic.joins}
    out: list[tuple[float, str, dict[str, Any]]] = []
    for r in ranked:
        here = f"{r[2].get('table')}.{r[2].get('column')}"
        if not any(frozenset((here, f"{o[2].get('table')}.{o[2].get('column')}")) in joined for o in out):
            out.append(r)
    return out


def results_of(ctx: RunContext, tool_key: str) -> dict[str, Any]:
    """The parsed output of the latest finished TODO whose key starts with `tool_key`."""
    for key, text in reversed(list((ctx.options.get("results") or {}).items())):
        if key.startswith(tool_key) and text:
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                return {}
    return {}


def jsonable(value: Any) -> Any:
    from decimal import Decimal

    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime) or hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def preview(result: QueryResult) -> dict[str, Any]:
    return {
        "columns": result.columns,
        "rows": [[jsonable(v) for v in r] for r in result.rows[:PREVIEW_ROWS]],
        "row_count": len(result.rows),
        "truncated": result.truncated,
    }


# -- the tools ------------------------------------------------------------------------------------------
class QueryReply(pydantic.BaseModel):
    sql: str | None = None
    cannot_answer: str | None = None


QUERY_SCHEMA = {
    "anyOf": [
        {
            "type": "object",
            "properties": {"sql": {"type": "string"}},
            "required": ["sql"],
            "additionalProperties": False,
        },
        {
            "type": "object",
            "properties": {"cannot_answer": {"type": "string"}},
            "required": ["cannot_answer"],
            "additionalProperties": False,
        },
    ]
}


SQL_ONLY = QUERY_SCHEMA["anyOf"][0]


@tool
def entity_resolution(ctx: RunContext[BIContext], mentions: list[str]) -> dict[str, Any]:
    """Find the values in the data that the user's words name ('Miami' -> the matching port); asks when
    two values are equally close.

    Args:
        mentions: names of specific things in the question (places, people, products, categories)
    """
    bi, resolved, unresolved = ctx.deps, [], []
    answer = ctx.options.get("clarification")
    question = bi.question or ctx.options.get("request") or ""
    by_stem = functools.cache(lambda: _by_key(bi, _stem_key))  # read only when a mention needs it
    demonyms = {d["mention"].lower() for d in demonym_values(bi, question)}  # 'French' is France, no 'Wrench'
    demonyms |= {s["mention"] for s in sex_values(bi, question)}  # 'women' is `sex = 'female'`, no value like it
    coded, spelt = coded_values(bi, question, mentions), spelled_values(bi, question)
    read = {r["mention"].lower() for r in coded}  # 'GE' is General Electric's initials: no name left unheld
    for mention in listed_apart(bi, mentions):
        if mention.lower() in demonyms or not names_a_value(bi, mention, question):
            continue
        if ranked := ordinal_values(bi, mention):  # '2nd class': the class '2nd', not a name that holds the words
            resolved += [r | {"mention": mention} for r in ranked]
            continue
        found = bi.search(mention)
        good = [
            c
            for c in found
            if c.score >= MATCH and shares_word(mention, str(c.value)) and not _names_its_field(bi, mention, c)
        ] or _in_other_form(by_stem(), mention)
        if not good:
            if stored := _stored_whole(bi, mention) or _stored_by_last_word(bi, mention, question):
                resolved.append(stored)
            elif not read & {w.lower() for w in re.findall(r"[^\W\d_]+", mention)}:
                unresolved.append(mention)
            continue
        exact = [c for c in good if utils.default_process(str(c.value)) == utils.default_process(mention)]
        close = [c for c in good if good[0].score - c.score < CLOSE]
        parts = {w.lower() for w in mention.split()}  # 'Jane' and 'Peacock' of one name are not a choice
        close = [c for c in close if c is close[0] or not (c.table == close[0].table and str(c.value).lower() in parts)]
        close = [c for c in close if not _part_of_another(str(c.value), mention, [str(o.value) for o in close])]
        if exact or len(close) == 1:
            pick = (exact or close)[0]
        else:
            chosen = bi.ask_or_pick(
                f"entity:{mention}", f"Which {mention!r} do you mean", [str(c.value) for c in close[:4]], answer
            )
            answer = None  # one answer settles one question
            pick = next(c for c in close if str(c.value) == chosen)
        pick, why = _qualifier(bi, bi.best_holder(pick, question), question)
        found = [
            {"mention": mention, "table": c.table, "column": c.column, "value": jsonable(c.value)}
            for c in [pick, *bi.rest_of_name(mention, pick)]
        ]
        resolved += [found[0] | ({"why": why} if why else {}), *found[1:]]
    if absent := absent_mentions(bi, unresolved, question):
        raise CannotAnswer(f"the data holds no value like {absent[0]!r}")
    for more in (
        compound_values,
        category_values,
        listed_values,
        flag_values,
        short_values,
        sex_values,
        ordinal_values,
        lambda *_: coded,
        lambda *_: spelt,
    ):  # values no mention of the model's named
        have = {(r["table"], r["column"], str(r["value"])) for r in resolved}
        resolved += [
            {**r, "value": jsonable(r["value"])}
            for r in more(bi, question)
            if (r["table"], r["column"], str(r["value"])) not in have
        ]
    return {"resolved": _not_covered(resolved), "unresolved": unresolved}


def _not_covered(resolved: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The readings less those whose value is a part of another's that the mention says whole: 'New York State' read
    as the city 'York' where 'new york' is the state 'New York'. 'York and New York' keeps both: 'York' says no 'new'."""
    values = [str(r["value"]) for r in resolved]
    return [r for r in resolved if not _part_of_another(str(r["value"]), str(r.get("mention", "")), values)]


def _part_of_another(value: str, mention: str, others: list[str]) -> bool:
    """Whether another value holds every word of `value` and more, all of them words of the mention ('York' beside
    'New York' for 'New York State')."""
    said = _said_words(mention)
    return any(_said_words(value) < _said_words(o) <= said for o in others)


def _said_words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W_]+", text)}


def _stored_whole(bi: BIContext, mention: str) -> dict[str, Any] | None:
    """The one text column outside the value index that holds the mention whole (case aside), as resolved: the
    index keeps few values of a column, so a film's title is only in the data (round 46). Held by several such
    columns ('Woody Allen': a director and a writer), None: the SQL step chooses."""
    if len(holders := stored_holders(bi, mention)) != 1:
        return None
    (table, column, value), *_ = holders
    return {"mention": mention, "table": table, "column": column, "value": jsonable(value)}


def _stored_by_last_word(bi: BIContext, mention: str, question: str) -> dict[str, Any] | None:
    """The stored name a word of the mention ends ('spielberg': 'Steven Spielberg' of a director column not indexed,
    'the matrix': 'The Matrix'): of the names of two or three words (no list: no comma) that end in the word in the
    text columns outside the value index, held by several rows or written whole by the question, the one the question
    writes more of, then held by the most rows, when no other is as good ('Alfred Hitchcock' directs many rows,
    'Michael Hitchcock' writes one). Only where one word of the mention reads so ('Spielberg Picture': 'picture' ends
    several titles), not for a mention with a schema word ('production company' names a field, no title 'The
    Company'), nor for a name some column holds whole (`stored_holders`: 'written by Woody Allen')."""
    kinds = GRAMMAR | schema_words(bi.semantic)
    said = re.findall(r"[^\W\d_]+", mention.lower())
    if any(singular(w) in kinds - GRAMMAR for w in said) or stored_holders(bi, mention):
        return None  # a field's words ('production company'), or a whole name several columns hold: the SQL chooses
    own = [w for w in said if len(w) >= 4 and w not in kinds]
    picks = [p for w in dict.fromkeys(own) if (p := _ending_in(bi, w, question))]
    if len(picks) != 1:
        return None
    table, column, value = picks[0]
    return {"mention": mention, "table": table, "column": column, "value": jsonable(value)}


def _ending_in(bi: BIContext, word: str, question: str) -> tuple[str, str, Any] | None:
    said = set(utils.default_process(question).split())
    ranked = []
    for table, column, value, rows in _names_ending(bi, word):
        whole = not set(utils.default_process(value).split()) - said
        if whole or rows > 1:  # one row's 'The Company' is no name of 'production company'
            ranked.append(((whole, rows), (table, column, value)))
    ranked.sort(key=lambda r: r[0], reverse=True)
    if not ranked or (len(ranked) > 1 and ranked[1][0] == ranked[0][0]):
        return None
    return ranked[0][1]


def _names_ending(bi: BIContext, word: str) -> list[tuple[str, str, Any, int]]:
    """(table, column, value, rows holding it) of each name of two or three words ending in `word` (case aside) in the
    text columns outside the value index, over at most COUNT_CAP rows a column."""
    like = exp.Literal.string(f"% {word}").sql(bi.engine.dialect)
    indexed, out = set(bi.semantic.value_columns()), []
    for table, column, info in bi.semantic.columns():
        if (table, column) in indexed or not re.match(r"(VARCHAR|TEXT|CHAR|STRING)", str(info.get("type", "")), re.I):
            continue
        col, tab = quote(bi.engine, column), quote(bi.engine, table)
        sql = (
            f"SELECT v, COUNT(*) FROM (SELECT {col} AS v FROM {tab} LIMIT {COUNT_CAP}) AS s "
            f"WHERE lower(v) LIKE {like} GROUP BY v LIMIT 20"
        )
        try:
            rows = bi.engine.execute(sql, max_rows=20).rows
        except QueryError:
            continue
        out += [(table, column, v, n) for v, n in rows if "," not in v and 2 <= len(v.split()) <= 3]
    return out


def coded_values(bi: BIContext, question: str, mentions: Iterable[str] = ()) -> list[dict[str, Any]]:
    """A value the user writes in another form of it that no spelling reads: the data's code of the user's word
    ('gram negative': `gram_stn` 'NEG', 'Delta': 'DL', 'mature': 'MAT'; `names.writes_code`, a category's value) or a
    value's initials ('GM': 'General Motors', 'nyc': 'New York City'; `names.initials`), when exactly one value
    reads the word so. A word a value holds as it is names that value; a grammar or schema word names none ('us' of
    'tell us', a `mean` column); a two-letter code only for a word the user capitalises or the planner lists
    ('mean' is no state 'MN', 'mode' no 'MD'), and a grammar word's initials only written in capitals ('US')."""
    kinds, held = schema_words(bi.semantic), bi.value_words()
    alone = {m.strip().lower() for m in mentions}  # the planner lists the word as a name of its own
    codes, marks = bi.derived("value_codes", lambda: _value_codes(bi))
    out = []
    for at in re.finditer(r"[^\W\d_]+", question):
        word, w = at.group(), at.group().lower()
        if w in held or w in kinds or singular(w) in kinds or (w in GRAMMAR and not word.isupper()):
            continue
        named = {str(c.value).lower(): c for c in marks.get(w, [])} if len(w) <= 4 else {}
        capital = w in alone or (word[0].isupper() and at.start() > 0)
        if not named and len(w) >= 4:
            named = {
                code: c
                for code, c in codes.items()
                if len(code) < len(w) and (len(code) > 2 or capital) and writes_code(code, w)
            }
        if len(named) == 1:
            c = bi.best_holder(next(iter(named.values())), question)
            out.append({"mention": word, "table": c.table, "column": c.column, "value": jsonable(c.value)})
    return _not_split(bi, list({(r["column"], str(r["value"])): r for r in out}.values()))


_SPELT = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*|&")


def spelled_values(bi: BIContext, question: str) -> list[dict[str, Any]]:
    """A category's value the user writes in another spelling of it (`names.spelling_key`), in any case: a plural of
    a stored singular or the other way ('adelies' Adelie, 'phone' Phones, 'staphylococci' Staphylococcus), an
    apostrophe, hyphen or '&' written otherwise ('mothers day' "Mother's Day", 'pg13' 'PG-13'), a British spelling,
    'st.' for 'saint': one to four words of the question, longer runs first, each word read once, when exactly one
    value of a column of at most CATEGORY values is so spelt. A run opens and ends on a word that is no grammar word
    and holds one that is no schema word ('orders' is no status 'Order'). One word: not as stored (`category_values`
    asks whether it names the value), nor a word another value holds as it is ('news' of 'Fox News' is no 'New'). No
    near spelling (a typo): an absent value ('teslas') would become a present one."""
    keyed = bi.derived("spelling_keys", lambda: _by_spelling(bi))
    runs = [t.group() for t in _SPELT.finditer(question)]
    skip, held = GRAMMAR | schema_words(bi.semantic), bi.value_words()
    out, taken = [], set()
    for n in (4, 3, 2, 1):
        for i in range(len(runs) - n + 1):
            said = [w.lower() for w in runs[i : i + n]]
            if taken & set(range(i, i + n)) or {said[0], said[-1]} & (GRAMMAR | {"&"}):
                continue
            if all(w in skip or singular(w) in skip for w in said if w != "&"):
                continue
            found = keyed.get(spelling_key(" ".join(said)), {})
            if len(found) != 1 or (n == 1 and not _spelt_word(said[0], next(iter(found)), held)):
                continue
            taken |= set(range(i, i + n))
            c = bi.best_holder(next(iter(found.values())), question)
            out.append({"mention": " ".join(runs[i : i + n]), "table": c.table, "column": c.column, "value": c.value})
    return _not_split(bi, out)


def _spelt_word(word: str, text: str, held: set[str]) -> bool:
    """Whether one word the user writes reads as the category's value `text` (as rapidfuzz writes it) by its spelling
    alone: three letters or more, not as stored ('chairs', 'köhler': `category_values` asks whether such a word names
    the value) and no word another value holds as it is ('news' of 'Fox News' is no 'New')."""
    return len(word) >= 3 and word != text and re.sub(r"['’-]", "", word) not in held


def _by_spelling(bi: BIContext) -> dict[str, dict[str, Candidate]]:
    """The categories' values by `spelling_key` of their stored text: text (as rapidfuzz writes it) -> first holder."""
    out: dict[str, dict[str, Candidate]] = {}
    for text, held in categories(bi).items():
        out.setdefault(spelling_key(str(held[0].value)), {}).setdefault(text, held[0])
    return out


_ORDINAL = re.compile(r"(?<![\w-])(?=(([^\W_]+)[\s-]+([^\W\d_]+)))")  # each word with the next: 'in third class'


def ordinal_values(bi: BIContext, question: str) -> list[dict[str, Any]]:
    """The value an ordinal before a noun stands for ('third class', '2nd-class', 'first quarter') where the data
    stores the ordinal otherwise in a column the noun names (`_names_column`): a text value '3rd', '3', 'third' or
    the noun's initial and the number ('Q1'), else a number column holding the number (`_numbered`: `qtr = 1`). Not
    where a value holds the words whole ('Third class' names that value), nor before a grammar word ('first of')."""
    texts = bi.derived("indexed_texts", lambda: {utils.default_process(str(c.value)) for c in bi.index()})
    out = []
    for m in _ORDINAL.finditer(question):
        said, n, noun = m.group(1), ordinal(m.group(2)), m.group(3).lower()
        if n is None or noun in GRAMMAR or utils.default_process(said) in texts:
            continue
        forms = ordinal_forms(n) | {f"{noun[0]}{n}"}
        held = [c for c in bi.index() if utils.default_process(str(c.value)) in forms and _names_column(noun, c.column)]
        if held:
            c = bi.best_holder(held[0], question)
            out.append({"mention": said, "table": c.table, "column": c.column, "value": jsonable(c.value)})
        else:
            out += _numbered(bi, said, n, noun, ids=False)
    return out


def _not_split(bi: BIContext, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The readings less those that name every value of their column ('gram-positives vs gram-negatives': a split of
    the rows, not a filter)."""
    by_column: dict[tuple[str, str], set[str]] = {}
    for r in found:
        by_column.setdefault((r["table"], r["column"]), set()).add(str(r["value"]).lower())
    split = {k for k, v in by_column.items() if len(v) > 1 and v >= bi.values(*k)}
    return [r for r in found if (r["table"], r["column"]) not in split]


def _value_codes(bi: BIContext) -> tuple[dict[str, Candidate], dict[str, list[Candidate]]]:
    """The categories' codes (one word of two to four letters) by their text, and the indexed names of several words
    by their initials."""
    named = _named_rows(bi)
    codes = {
        t: held[0]
        for t, held in categories(bi).items()
        if t.isalpha() and 2 <= len(t) <= 4 and not any((c.table, c.column) in named for c in held)
    }
    marks: dict[str, list[Candidate]] = {}
    for c in bi.index():
        if "," not in str(c.value) and (mark := initials(str(c.value))):  # a list of genres is no name: 'add'
            marks.setdefault(mark, []).append(c)
    return codes, marks


def _named_rows(bi: BIContext) -> set[tuple[str, str]]:
    """The indexed columns of codes whose rows a name column beside them names ('BIS' of `isl_cd` beside `isl_name`,
    as many distinct values of longer texts, not digits), and the columns holding those codes as keys (`gls_cls` of
    `cls_code`): the user names such a row by its name, which entity resolution reads already."""
    held = {k: values for k in bi.semantic.value_columns() if (values := bi.values(*k))}

    def name_like(values: set[str]) -> bool:
        return not all(v.isdigit() for v in values) and sum(map(len, values)) / len(values) > 4

    coded = {
        (t, col)
        for (t, col), values in held.items()
        if any(t2 == t and col2 != col and len(v2) == len(values) and name_like(v2) for (t2, col2), v2 in held.items())
    }
    keys = set().union(*(held[k] for k in coded)) if coded else set()
    return coded | {k for k, values in held.items() if len(values & keys) >= len(values) / 2 and not name_like(values)}


def _names_its_field(bi: BIContext, mention: str, c: Candidate) -> bool:
    """'airline code' opens with a column's whole name (`routes.Airline`) and says what its values are: it names
    that field, not the airport code 'COD' another column holds, which only a near spelling of 'code' matched.
    A value the mention writes whole ('country USA', 'Cook County') or in another form ('European cars') stays."""
    said = re.findall(r"[^\W_]+", mention.lower())
    theirs = re.findall(r"[^\W_]+", str(c.value).lower())
    if any(a == b or other_form(a, b) for a in said for b in theirs):
        return False
    named = {words(col) for t, col, _ in bi.semantic.columns() if (t, col) != (c.table, c.column)}
    own = set(words(c.column).split())  # 'city Berln': the value's own kind of column, a misspelt value in it
    return any(" ".join(said[:n]) in named and not set(said[:n]) <= own for n in range(1, len(said)))


def listed_apart(bi: BIContext, mentions: list[str]) -> list[str]:
    """The mentions, each that lists values ('jazz and blues', 'Norway, Canada') read as its items, unless a
    value of the data is the whole ('Rock And Roll')."""
    index = {utils.default_process(str(c.value)) for c in bi.index()} if mentions else set()
    out = []
    for mention in mentions:
        items = [m for m in LIST_SEPARATOR.split(mention) if m.strip()]
        out += items if len(items) > 1 and utils.default_process(mention) not in index else [mention]
    return list(dict.fromkeys(out))


_NAME_COLUMN = re.compile(r"(?:^|_| )(?:name|nm|title)$", re.I)


def _qualifier(bi: BIContext, pick: Candidate, question: str) -> tuple[Candidate, str | None]:
    """'counties of Ohio', 'worst-hit county in Nevada', "Ohio's counties", 'how many counties does Texas
    have' (rows asked in the plural, wherever the value stands: `_asks_plural`): a value found as a row's own name
    (`counties.name` 'Ohio') in the table whose rows the question asks about 'in' / 'of' / 'from' it (or as its
    possessive) qualifies those rows; it does not name one of them. Another column holding it with fewer distinct values (a category: `states.name`, 51
    values, over 1,877 county names) takes it; the reason is returned to be shown in the step."""
    if not _NAME_COLUMN.search(pick.column):
        return pick, None
    value, last = str(pick.value), (words(pick.table).split() or [""])[-1]
    noun = singular(last)
    kind = "|".join(map(re.escape, {noun, last}))  # 'county' or 'counties'
    asked = (
        rf"\b(?:{kind})\b(?:\s+\S+){{0,3}}?\s+(?:in|of|from|across|within)\s+(?:the\s+)?{re.escape(value)}\b"
        rf"|\b{re.escape(value)}['’]s\s+(?:\S+\s+){{0,2}}?(?:{kind})\b"  # "Ohio's counties", "Nevada's worst county"
    )
    if not noun or not (re.search(asked, question, re.I) or _asks_plural(noun, value, question)):
        return pick, None
    size = {(c.table, c.column): len(bi.values(c.table, c.column)) for c in bi.index() if str(c.value) == value}
    mine = size.get((pick.table, pick.column), 0)
    smaller = sorted((n, key) for key, n in size.items() if n < mine)
    if not smaller:
        return pick, None
    n, (table, column) = smaller[0]
    why = f"{value!r} qualifies the {noun} rows asked about: {table}.{column} ({n} values), not {pick.table}.{pick.column}"
    return Candidate(pick.value, table, column, pick.score), why


def _asks_plural(noun: str, value: str, question: str) -> bool:
    """'how many counties does Texas have': the question asks about several of the rows, so a value found as one row's
    own name does not name one of them."""
    if re.search(
        rf"\b(?:named|called)\s+{re.escape(value)}\b|\b{re.escape(value)}\s+{re.escape(noun)}\b", question, re.I
    ):
        return False  # 'Texas County', 'towns named Ontario': the rows' own name
    return any(w != noun and singular(w) == noun for w in re.findall(r"[^\W\d_]+", question.lower()))


_LISTED_WORD = re.compile(r"[^\W\d_][\w'-]*")


def listed_values(bi: BIContext, question: str) -> list[dict[str, Any]]:
    """Values the question lists, in any case, that no planner names: a word on each side of a list's separator
    ('rail shipments compared to air ones', 'japanese, brazilian and nigerian'; the nearest two words each side
    that are neither grammar nor schema words) that is a whole value of an indexed column, or another form of
    one ('nigerian' = 'Nigeria'), when the word across the separator is a value of the same column: two values
    of one column set side by side are read together. A schema word is no value ('silver and bronze totals':
    columns of the tally)."""
    gaps = list(LIST_SEPARATOR.finditer(question))
    if not gaps:
        return []
    by_text, by_stem = _by_key(bi, utils.default_process), _by_key(bi, _stem_key)
    skip = GRAMMAR | schema_words(bi.semantic)
    near = [w for w in _LISTED_WORD.findall(question) if singular(w.lower()) not in skip and w.lower() not in skip]
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    for gap in gaps:
        left = [w for w in _LISTED_WORD.findall(question[: gap.start()]) if w in near][-2:][::-1]
        right = [w for w in _LISTED_WORD.findall(question[gap.end() :]) if w in near][:2]
        held = {w: _holders(w, by_text, by_stem) for w in left + right}
        a = next((w for w in left if held[w]), None)  # the nearest word that is a value, each side
        b = next((w for w in right if held[w]), None)
        column = next((col for col in held[a] if col in held[b]), None) if a and b else None
        for word in (a, b) if column else ():
            c = held[word][column]
            out.setdefault(
                (c.table, c.column, str(c.value)),
                {"mention": word, "table": c.table, "column": c.column, "value": jsonable(c.value)},
            )
    return list(out.values())


def _holders(
    word: str, by_text: dict[str, list[Candidate]], by_stem: dict[str, list[Candidate]]
) -> dict[tuple[str, str], Candidate]:
    """The indexed columns holding `word` as a whole value or in another form, each with its value."""
    text = utils.default_process(word)
    forms = [c for c in by_stem.get(_stem_key(text), []) if other_form(text, utils.default_process(str(c.value)))]
    # the form closest in spelling first: 'nigerian' is Nigeria's, not Niger's
    forms.sort(key=lambda c: -len(os.path.commonprefix([text, utils.default_process(str(c.value))])))
    found = by_text.get(text, []) + forms
    out: dict[tuple[str, str], Candidate] = {}
    for c in found:
        out.setdefault((c.table, c.column), c)
    return out


_SHORT_WORD = re.compile(r"[^\W\d_]+\.?")


def short_values(bi: BIContext, question: str) -> list[dict[str, Any]]:
    """A category's value the user writes in a clipped short form, in any case, that the value index cannot spell: one
    to three words of the question, each the value's word or a short form of it (`_clipped`: 'comp sci' of Computer
    Science, 'calif.' California, 'e. coli' Escherichia coli, 'auto' the segment `AUTOMOBILE`), when exactly
    one value of a column of at most CATEGORY values reads so ('comp' of Computer Science and Computer Engineering
    names neither). Longer runs first, each word read once (round 51)."""
    found = _SHORT_WORD.findall(question)
    said = [(w.rstrip(".").lower(), w.endswith(".")) for w in found]
    named = GRAMMAR | schema_words(bi.semantic) | bi.value_words()  # a word the data spells names that, whole
    by_size: dict[int, dict[str, list[Candidate]]] = {}
    for text, held in categories(bi).items():
        by_size.setdefault(len(text.split()), {})[text] = held
    out, taken = [], set()
    for n in (3, 2, 1):
        for i in range(len(said) - n + 1):
            run = said[i : i + n]
            if taken & set(range(i, i + n)):
                continue
            read = [t for t in by_size.get(n, {}) if _clipped(run, t.split(), named)]
            if len(read) == 1:
                taken |= set(range(i, i + n))
                c = by_size[n][read[0]][0]
                mention = " ".join(found[i : i + n])
                out.append({"mention": mention, "table": c.table, "column": c.column, "value": c.value})
    return out


def _clipped(run: list[tuple[str, bool]], value: list[str], named: set[str]) -> bool:
    """Each word of `run` (a word, whether a period follows it) is the value's word or a short form of it, one at
    least a short form no word of the data names: a prefix of three letters or more (four alone) the value's word goes
    on from by two letters or more, or an initial with its period beside another word ('e. coli'). Not the other way
    (a code of the data that abbreviates the user's word): 'fin' of 'finished', 'cnt' of 'count' (round 51)."""

    def short(said: str, dot: bool, word: str) -> bool:
        if dot and len(said) == 1 and len(run) > 1:
            return word.startswith(said)  # an initial
        if said in named or singular(said) in named:
            return False
        return len(said) >= (3 if len(run) > 1 else 4) and word.startswith(said) and len(word) - len(said) >= 2

    same = [said == word for (said, _), word in zip(run, value, strict=True)]
    return not all(same) and all(
        s or short(said, dot, word) for s, (said, dot), word in zip(same, run, value, strict=True)
    )


def sex_values(bi: BIContext, question: str) -> list[dict[str, Any]]:
    """The value of the sex column a noun that names people by their sex stands for ('1st-class women': `sex =
    'female'`; 'ladies', 'men' of a column of 'F' and 'M'; `names.sex_of`), which no value spells and no planner
    lists. Not when the question names both sexes ('men vs women': a split, not a filter), nor for a word the schema
    spells (a `women` column of counts), nor where the data has no sex column or several (which is meant is not said)."""
    kinds = schema_words(bi.semantic)
    said = {sex: w for w in re.findall(r"[a-z]+", question.lower()) if w not in kinds and (sex := sex_of(w))}
    columns = bi.derived("sex_columns", lambda: _sex_columns(bi))
    if len(said) != 1 or len(columns) != 1:
        return []
    (sex, word), ((table, column), values) = next(iter(said.items())), next(iter(columns.items()))
    return [{"mention": word, "table": table, "column": column, "value": jsonable(values[sex])}]


def _sex_columns(bi: BIContext) -> dict[tuple[str, str], dict[str, Any]]:
    """(table, column) -> {sex: stored value} of each indexed column of one female and one male value (`sex_pair`)."""
    held: dict[tuple[str, str], dict[str, Any]] = {}
    for c in bi.index():
        held.setdefault((c.table, c.column), {})[str(c.value).lower()] = c.value
    out = {}
    for key, values in held.items():
        if pair := sex_pair(set(values)):
            out[key] = {sex: values[v] for sex, v in pair.items()}
    return out


_COMPOUND = re.compile(r"\b([a-z0-9]+(?:-[a-z]+)+)\b", re.I)
_NUMBER_TYPE = re.compile(r"INT|REAL|DOUBLE|DECIMAL|NUMERIC|FLOAT", re.I)


def compound_values(bi: BIContext, question: str) -> list[dict[str, Any]]:
    """Values the user writes as a hyphenated modifier, in any case, that no planner lists: 'same-day
    shipments' (the ship mode 'Same Day'), 'furniture-segment customers' ('FURNITURE' of `c_mktsegment`: the
    last word names the column), '4-cylinder cars' (`cyl = 4`: a number before the word of a number column
    that holds it). Only a whole value: 'sub-saharan' is no region by one of its words."""
    out, compounds = [], _COMPOUND.findall(question)
    by_text = _by_key(bi, lambda v: utils.default_process(v.replace("_", " "))) if compounds else {}
    for compound in compounds:
        head, *rest = compound.lower().split("-")
        whole = by_text.get(" ".join([head, *rest]), [])  # '1-urgent': a value written whole, its number too
        if head.isdigit() and not whole:
            out += _numbered(bi, compound, int(head), " ".join(rest))
            continue
        named = [c for c in by_text.get(" ".join([head, *rest[:-1]]), []) if _names_column(rest[-1], c.column)]
        out += [
            {"mention": compound, "table": c.table, "column": c.column, "value": jsonable(c.value)}
            for c in whole + named
        ]
    return out


def _names_column(word: str, column: str) -> bool:
    """'segment' names `c_mktsegment` (a word its name ends in), 'cylinder' `cyl` (one it abbreviates)."""
    word = stems(word)[0] if stems(word) else word
    return any(w.endswith(word) or abbreviates(w, word) for w in stems(words(column)))


def _numbered(bi: BIContext, compound: str, number: int, word: str, ids: bool = True) -> list[dict[str, Any]]:
    """'4-cylinder': the number column `word` names (`cyl`), when a row holds the number; an identifier's column
    (`InvoiceId`) only with `ids`: 'the first invoice of 2021' is the earliest one, not invoice 1."""
    for table, column, info in bi.semantic.columns():
        if not ids and words(column).split()[-1:] in (["id"], ["key"]):
            continue
        if _NUMBER_TYPE.search(str(info.get("type", ""))) and _names_column(word, column):
            probe = f"SELECT 1 FROM {quote(bi.engine, table)} WHERE {quote(bi.engine, column)} = {number}"
            try:
                if bi.engine.execute(probe, max_rows=1).rows:
                    return [{"mention": compound, "table": table, "column": column, "value": number}]
            except QueryError:
                continue
    return []


def _asked_tables(bi: BIContext, question: str) -> set[str]:
    """The tables the question names ('suppliers': supplier; `names.names_table`)."""
    said = said_words(question)
    return {t for t in bi.semantic.tables if names_table(t, said)}


def _of_named_table(
    bi: BIContext, ranked: list[tuple[float, str, dict[str, Any]]], question: str
) -> dict[str, Any] | None:
    """'account balance of suppliers': where the best field's column shares its name (its table's prefix aside)
    with columns of other tables (`c_acctbal`, `s_acctbal`), the one of a table the question names."""
    best = ranked[0][2]
    if "column" not in best:
        return None
    same = [f for _, _, f in ranked if "column" in f and words(f["column"]) == words(best["column"])]
    named = [f for f in same if f["table"] in _asked_tables(bi, question)]
    return named[0] if len(same) > 1 and len(named) == 1 else None


@tool
def field_mapping(ctx: RunContext[BIContext], terms: list[str]) -> dict[str, Any]:
    """Map business terms to columns or formulas of the semantic layer; asks when a term fits several
    fields equally well; a term that fits none means the data cannot answer.

    Args:
        terms: the measures and attributes the question asks about (e.g. 'revenue', 'ship date')
    """
    bi, fields, answer = ctx.deps, [], ctx.options.get("clarification")
    question = read_typos(bi, bi.question or ctx.options.get("request") or "")
    terms = _field_terms(bi, terms, question)
    kept = [t for t in terms if kept_term(bi, t)]  # a person's answer first, asking on or off (ask_field reads it)
    fields += [{"term": t, **ask_field(bi, t, None), "clear": True} for t in kept]
    for term in (t for t in terms if t not in kept):
        ranked = rank_fields(bi.semantic, term)
        # only generic words ('number of'), or the planner's own wording ('shipment number', 'count(*)
        # as n'): no evidence either way, and a poor mapping of it misleads the SQL step
        if not ranked or not user_wrote(term, question):
            continue
        if missing_fields(bi, [term], question):
            fields.append({"term": term, **ask_field(bi, term, answer), "clear": True})
            answer = None
            continue
        if not maps(bi, term, ranked):  # a table, a value, a text column's kind, or a column by its meaning
            if unit := unit_column(bi, term):  # 'flipper length' is `flipper_mm`: the SQL step must see it
                fields.append({"term": term, "table": unit[0], "column": unit[1], "clear": True})
            elif (meant := meaning_of(bi, term) or singled_out(bi, term)) and "column" in meant:
                fields.append({"term": term, **meant, "clear": True})
            continue
        if ranked[0][0] < MATCH:  # a value of the data ('Drama'), not a field: the entity step has it
            continue
        if same := _of_named_table(bi, ranked, question):
            fields.append({"term": term, **same, "clear": True})
            continue
        close = _one_per_join(bi.semantic, [r for r in ranked if ranked[0][0] - r[0] < CLOSE and r[0] >= MATCH])[:4]
        if len(close) > 1:
            labels = [label for _, label, _ in close]
            chosen = bi.ask_or_pick(f"field:{term}", f"By {term!r} do you mean", labels, answer)
            answer = None
            fields.append(
                {
                    "term": term,
                    **next(f for _, label, f in close if label == chosen),
                    "clear": chosen in bi.choices.values(),
                }
            )
        else:
            fields.append({"term": term, **ranked[0][2], "clear": ranked[0][0] >= 90})
    return {"fields": fields}


def _field_terms(bi: BIContext, terms: list[str], question: str) -> list[str]:
    """The planner's terms read through `read_typos`, less the nouns `sex_values` reads as a value ('survived women'
    is the field `survived` of the women; 'women' alone is no field): entity resolution holds them."""
    sexed = {s["mention"] for s in sex_values(bi, question)}
    out = [" ".join(w for w in read_typos(bi, t).split() if w.lower() not in sexed) for t in terms]
    return [t for t in out if t]


NOT_HELD = "none of these (the data does not hold it)"


def said_kept(bi: BIContext, terms: list[str], question: str) -> list[str]:
    """The question's words for the terms a person mapped to a column (`ExampleMemory.said`) that the planner did
    not list among `terms`: the planner adds them to its fields, field mapping maps them as the person said."""
    if bi.approved is None:
        return []
    kept = bi.approved.fields(bi.engine.name)
    listed = {bi.approved.mapped(bi.engine.name, t, kept) for t in terms} - {None}
    said = bi.approved.said(bi.engine.name, bi.semantic, question)
    return list(dict.fromkeys(question[a:b] for (a, b), k in said if k.column and k not in listed))


def kept_term(bi: BIContext, term: str) -> bool:
    """Whether a person answered the field question for `term` on this connection (`ask_field` reads it)."""
    return bi.approved is not None and bi.approved.kept_field(bi.engine.name, bi.semantic, term) is not None


def ask_field(bi: BIContext, term: str, answer: str | None) -> dict[str, str]:
    """The column the user says a term no column holds means, among its nearest (`nearest_columns`); a decline when
    they say none does (`NOT_HELD`), or when asking is off or no column is near (`askable`)."""
    memory = bi.approved
    if memory is not None and (kept := memory.kept_field(bi.engine.name, bi.semantic, term)) is not None:
        return _field_of(kept.column, lambda: f"you said the data does not hold {term!r}")
    near = nearest_columns(bi, term) if bi.clarify else []  # `askable` of the one term: its columns read once
    if not near:
        raise CannotAnswer(no_field(bi, [term]))
    options = [*near, NOT_HELD]
    chosen = bi.ask_or_pick(f"field:{term}", f"The data has no field named {term!r}; do you mean", options, answer)
    column = None if chosen == NOT_HELD else chosen
    # asking on: only a person's answer returns here, never a guess; a term of other characters is not kept
    if memory is not None and bi.clarify and field_term(term) is not None:
        memory.keep_field(bi.engine.name, bi.semantic, term, column)
    return _field_of(column, lambda: no_field(bi, [term]))


def _field_of(column: str | None, declined: Callable[[], str]) -> dict[str, str]:
    """The mapping to `column` ('table.column'); the decline `declined()` says where it is None (not held), read
    only then (`no_field` embeds the term again for its nearest columns)."""
    if column is None:
        raise CannotAnswer(declined())
    table, name = column.split(".", 1)
    return {"table": table, "column": name}


@tool
def query_builder(ctx: RunContext[BIContext]) -> dict[str, Any]:
    """Write the SQL for the request from the relevant slice of the semantic layer, the resolved values
    and the mapped fields; checked by the guard and dry-run with EXPLAIN, repaired once from the error."""
    bi, request = ctx.deps, ctx.options.get("request") or ""
    resolved = results_of(ctx, "resolve").get("resolved", [])
    checked = lambda sql: dry_run(bi.engine, sql, probe=bi.probe)  # noqa: E731
    if reused := reuse_approved(bi, bi.question or request, checked, resolved):  # no model call
        return {**reused, "sql": check(reused["sql"], bi.engine.dialect, limit=bi.engine.limits.max_rows)}
    fields = results_of(ctx, "map").get("fields", [])
    extra = [r["table"] for r in resolved] + [f["table"] for f in fields if f.get("table")]
    tables = bi.semantic.retrieve(request, extra=extra)
    notes = [f"{r['mention']!r} is {r['table']}.{r['column']} = {r['value']!r}" for r in resolved]
    # a guess ('shipment' ~ l_shipmode) or a reading taken without asking misleads more than it helps
    notes += [
        f"{f['term']!r} is {f.get('sql') or f['table'] + '.' + f['column']}" for f in fields if f.get("clear", True)
    ]
    notes += [
        f"{phrase!r} is {target}"
        for phrase, target in named_fields(bi.semantic, tables, read_typos(bi, bi.question))
        if not any(target in n for n in notes)
    ]
    user = (
        f"Schema:\n{bi.semantic.render(tables, request)}\n\n"
        + ("Known:\n" + "\n".join(f"- {n}" for n in notes) + "\n\n" if notes else "")
        + f"Question: {request}"
    )
    answer = ctx.options.get("clarification")

    def choose(options: list[str]) -> str:
        return choose_join(bi, options, bi.question or request, answer)

    try:
        return build_sql(bi, bi.sql_mode, user, tables, resolved, bi.question or request, choose)
    except CannotAnswer:
        raise
    except ToolError as exc:
        if bi.sql_mode != "parts":
            raise
        failed = exc  # the layer cannot express it: the model writes the SQL over the schema itself
    ddl = (
        f"Schema:\n{bi.semantic.render_ddl(tables, request)}\n\n"
        + ("Known:\n" + "\n".join(f"- {n}" for n in notes) + "\n\n" if notes else "")
        + f"Question: {request}"
    )
    try:
        return {
            **build_sql(bi, "fallback", ddl, tables, resolved, bi.question or request, choose),
            "written_by_model": True,
        }
    except ToolError as exc:
        raise ToolError(f"{failed}; the SQL the model then wrote over the schema failed too: {exc}") from exc


@tool
def sql_executor(ctx: RunContext[BIContext]) -> dict[str, Any]:
    """Run the query built by query_builder (read-only, row-capped, timed out) and keep its metadata."""
    sql = results_of(ctx, "build").get("sql")
    if not sql:
        raise ToolError("no query to run: the build_query step has not produced one")
    return _executed(ctx.deps, ctx.deps.engine.execute(sql), "sql", ctx.options.get("request") or "")


@tool
def graphql_executor(ctx: RunContext[BIContext], query: str = "") -> dict[str, Any]:
    """Look up one entity through the GraphQL layer (built from the resolved value when `query` is empty).

    Args:
        query: a GraphQL query; empty to look up the first resolved value's rows
    """
    bi = ctx.deps
    if not query:
        resolved = results_of(ctx, "resolve").get("resolved", [])
        if not resolved:
            raise CannotAnswer("nothing in the question names a value in the data to look up")
        r = resolved[0]
        query = bi.graphql().lookup_query(r["table"], r["column"], r["value"])
    try:
        result = bi.graphql().execute(query)
    except QueryError as exc:
        raise ToolError(str(exc)) from exc
    return _executed(bi, result, "graphql", ctx.options.get("request") or "")


@tool
def retrieve_query_metadata(ctx: RunContext[BIContext]) -> dict[str, Any]:
    """Fetch the metadata of the last query that ran and its rows again (for analysis of 'these results')."""
    bi = ctx.deps
    meta = bi.latest_metadata()
    if meta is None:
        raise CannotAnswer("there are no earlier results to analyse; ask a question about the data first")
    if bi.last_result is None or bi.last_result.sql != meta["query"]:
        run = bi.graphql().execute if meta["query_type"] == "graphql" else bi.engine.execute
        bi.last_result = run(meta["query"])
    return {**meta, "columns": bi.last_result.columns, "row_count": len(bi.last_result.rows)}


TOOLS: list[Tool] = [
    entity_resolution,
    field_mapping,
    query_builder,
    sql_executor,
    graphql_executor,
    retrieve_query_metadata,
    *analysis.TOOLS,
]
"""Every BI tool, each reading its `BIContext` from `ctx.deps` (the agent copies one to mark it for approval)."""


def build_sql(
    bi: BIContext,
    mode: str,
    user: str,
    tables: list[str],
    resolved: list[dict[str, Any]],
    question: str,
    choose: Callable[[list[str]], str],
) -> dict[str, Any]:
    """The checked SQL for one request: written (`write_sql`), guarded, dry-run with EXPLAIN and a first
    row, and on an error asked once more with the error."""
    system = prompt("query_parts" if mode == "parts" else "query_builder").format(dialect=bi.engine.dialect)
    asked, error, empty = user, "", None
    for attempt in (1, 2):
        try:
            sql = write_sql(bi, mode, system, asked, tables, resolved, question, choose)
        except (UnknownField, BadPart, BadReply) as exc:
            if attempt == 2 and empty is not None:
                break
            if attempt == 2 and isinstance(exc, (BadReply, UnknownField)):
                # an error, not a decline: a broken reply or a column the model invented (twice) is the
                # model's failure and says nothing about whether the data holds the answer (the user's own
                # words were judged against the data before: decline.py); the query builder then has the
                # model write the SQL over the schema
                raise ToolError(
                    f"the model could not write the query (twice): {exc}; rephrase the "
                    "question or use a larger model (--llm)"
                ) from exc
            if attempt == 2:
                raise
            hints = exc.layer if isinstance(exc, UnknownField) else ""
            asked = f"{user}\n\nYour reply failed: {exc}\n{hints}Reply with a corrected one."
            continue
        error = dry_run(bi.engine, sql, probe=bi.probe)
        if error is None:
            return _built(bi, sql, tables, attempt == 2)
        decline_unheld_year(bi, sql, question, error)
        if error == NOTHING and attempt == 1 and (fixed := _relaxed(bi, sql, question, resolved)):
            return {**_built(bi, fixed, tables, False), "relaxed": True}
        if (moved := _requalified(bi, sql, error)) and dry_run(bi.engine, moved, probe=bi.probe) is None:
            return _built(bi, moved, tables, attempt == 2)  # no model call: the column was under another table
        empty = sql if error == NOTHING and empty is None else empty
        asked = (
            f"{user}\n\nThis query:\n{sql}\nfailed with: {error}\n{_real_columns(bi, sql, error)}"
            "Reply with a corrected one."
        )
    if empty is not None:  # the repair found nothing better: the data may hold nothing for it
        return _built(bi, empty, tables, False)
    tried = textwrap.shorten(sql, FAILED_SQL_CHARS, placeholder=" ...")  # what was tried, for a person and a replay
    raise ToolError(f"the query still fails after one repair: {error}; the query: {tried}")


def decline_unheld_year(bi: BIContext, sql: str, question: str, error: str | None) -> None:
    """A query that found nothing (`error` is NOTHING) cannot be answered when it compares a column with a year the question names,
    and that column's years do not reach it ('fy = 1960' where `fy` runs from 1935 to 1954). The judgment is of
    the column the query reads, not of every date column (`decline.years_outside`): another table's dates may
    reach the year."""
    named = dict(named_years(question)) if error == NOTHING else {}
    if not named:
        return
    tables, tree = _named_tables(bi, sql), _parsed(sql, bi.engine.dialect)
    tree = tree if tree is not None else sqlglot.parse_one(sql, read=bi.engine.dialect)  # what it does not read raises
    for number in tree.find_all(exp.Literal):
        year = int(number.this) if re.fullmatch(r"\d{4}", number.this) else None  # 2003 or '2003'
        compared = number.find_ancestor(exp.EQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between, exp.In)
        columns = list(compared.find_all(exp.Column)) if compared and year in named else []
        table = tables.get(columns[0].table) or _only_table(tables) if len(columns) == 1 else None
        if table and (span := unreached_span(bi, table, columns[0].name, year, named[year])):
            raise CannotAnswer(
                f"{table}.{columns[0].name} runs from {span[0]} to {span[1]}; nothing {named[year]} {year}"
            )


def _only_table(tables: dict[str, str]) -> str | None:
    return next(iter(set(tables.values()))) if len(set(tables.values())) == 1 else None


# what the engines say of a column they do not find, its qualifier (a table or alias) and its name
_MISSING_COLUMN = re.compile(
    r'no such column: (?:(\w+)\.)?(\w+)|Table "(\w+)" does not have a column named "(\w+)"'
    r'|Referenced column "(\w+)" not found',
    re.I,
)


def _missing_column(error: str | None) -> tuple[str, str] | None:
    m = _MISSING_COLUMN.search(error or "")
    if m is None:
        return None
    qualifier, name = (m.group(1) or m.group(3) or ""), (m.group(2) or m.group(4) or m.group(5))
    return qualifier, name


def _named_tables(bi: BIContext, sql: str) -> dict[str, str]:
    """Each name the query gives a table of the layer (its alias, or its own name) -> the table."""
    known = {t.lower(): t for t in bi.semantic.tables}
    if (tree := _parsed(sql, bi.engine.dialect)) is None:
        return {}
    return {t.alias_or_name: known[t.name.lower()] for t in tree.find_all(exp.Table) if t.name.lower() in known}


@functools.lru_cache(maxsize=16)
def _parsed(sql: str, dialect: str) -> exp.Expression | None:
    """A failed query's tree, read once for the judgments and the repair note of `build_sql` (the year, the tables
    it names, the column moved): never changed in place (`_requalified` changes a copy). None when sqlglot cannot
    read it (also a TokenError: the model's SQL cut off inside a string)."""
    try:
        return sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return None


def _column_holders(bi: BIContext, tables: Iterable[str], name: str) -> list[str]:
    return [t for t in dict.fromkeys(tables) if name.lower() in {c.lower() for c in bi.semantic.tables[t]["columns"]}]


def _requalified(bi: BIContext, sql: str, error: str | None) -> str | None:
    """`T2.age` where T2 is travel_classes and passengers, also in the query, holds `age`: the model put the
    column under the wrong table; the query with it under the one table of the query that holds it under that
    very name. None when no table or several do (the model's repair then sees the real columns)."""
    missing, named = _missing_column(error), _named_tables(bi, sql)
    if missing is None or not missing[0] or missing[0] not in named:
        return None
    holders = _column_holders(bi, named.values(), missing[1])
    if len(holders) != 1 or holders[0] == named[missing[0]]:
        return None
    to = next(a for a, t in named.items() if t == holders[0])
    tree = _parsed(sql, bi.engine.dialect).copy()  # read, since `named` is not empty
    for col in tree.find_all(exp.Column):
        if col.table == missing[0] and col.name.lower() == missing[1].lower():
            col.set("table", exp.to_identifier(to))
    return tree.sql(dialect=bi.engine.dialect)


def _real_columns(bi: BIContext, sql: str, error: str | None) -> str:
    """For the repair of a column the engine did not find: which table each name of the failed query stands for
    and that table's real columns (a table outside the slice too), and which other tables hold a column of that
    name with the join that reaches them ('Director' of omdb for a query over tomatoes), so the repair picks a
    column that exists."""
    if (missing := _missing_column(error)) is None or not (named := _named_tables(bi, sql)):
        return ""
    lines = [
        (f"{a} is {t}" if a != t else t) + f"; its columns: {', '.join(bi.semantic.tables[t]['columns'])}"
        for a, t in named.items()
    ]
    for t in _column_holders(bi, bi.semantic.tables, missing[1]):
        joins = [j for j in bi.semantic.joins if sides(j) & {t} and sides(j) & set(named.values())]
        if t not in named.values() and joins:
            lines.append(f"{missing[1]} is a column of {t}, joined by {joins[0]}")
    return "The tables it names:\n" + "\n".join(f"- {line}" for line in lines) + "\n"


def _relaxed(bi: BIContext, sql: str, question: str, resolved: list[dict[str, Any]]) -> str | None:
    """The first rewrite of a query that found nothing, without what the question does not ask (relax.py),
    that finds something; before the model's repair, which costs a call and rarely finds better."""
    return next((s for s in relaxed(sql, question, resolved, bi.engine.dialect) if dry_run(bi.engine, s) is None), None)


def _built(bi: BIContext, sql: str, tables: list[str], repaired: bool) -> dict[str, Any]:
    return {
        "sql": check(sql, bi.engine.dialect, limit=bi.engine.limits.max_rows),
        "tables": tables,
        "repaired": repaired,
    }


def write_sql(
    bi: BIContext,
    mode: str,
    system: str,
    user: str,
    tables: list[str],
    resolved: list[dict[str, Any]],
    question: str = "",
    choose: Callable[[list[str]], str] | None = None,
) -> str:
    """One model call: SQL parts composed with the join path ('parts'), or the SQL itself ('sql'). Where two
    joins connect the same tables, `choose` picks one (or asks the user)."""
    from orrery.bi.compose import PARTS_SCHEMA, AmbiguousJoin, QueryParts, compose

    if mode == "parts":
        parts = bi.ask_model(
            system,
            user,
            PARTS_SCHEMA,
            QueryParts,
            (drafted_shots(bi) or examples("query_examples", lambda e: (e["user"], e["reply"])))
            + approved_shots(bi, mode, question),
        )
        if not parts.select:
            raise CannotAnswer("no columns in this data answer the question")
        semantic = bi.semantic
        for _ in range(len(semantic.joins) + 1):  # each ambiguity settled removes a join; none: one try
            try:
                return compose(parts, semantic, tables, resolved, bi.engine.dialect, question, bi.values)
            except AmbiguousJoin as exc:
                if choose is None:
                    raise
                keep = choose(exc.options)
                semantic = replace(semantic, joins=[j for j in semantic.joins if j == keep or j not in exc.options])
        raise ToolError("the joins between these tables could not be settled")
    # the fallback after the parts failed offers no decline: the 0.5B model takes that way out when offered
    reply = bi.ask_model(
        system, user, QUERY_SCHEMA if mode == "sql" else SQL_ONLY, QueryReply, approved_shots(bi, mode, question)
    )
    if reply.cannot_answer is not None or not reply.sql:
        raise CannotAnswer(reply.cannot_answer or "no query fits the question")
    return reply.sql


def choose_join(bi: BIContext, options: list[str], question: str, answer: str | None) -> str:
    """Of joins connecting the same two tables, the one whose referring column the question names ('routes
    with their destination in Seattle' -> DestinationID); else the user's choice (or the first, noted)."""
    asked = set(stems(question))
    own = {j: set(stems(re.sub(r"(?i)(id|key)$", "", words(join_columns(j)[0][1])))) for j in options}
    named = [j for j in options if own[j] and own[j] <= asked]
    if len(named) == 1:
        return named[0]
    tables = " and ".join(sorted(set().union(*map(sides, options))))
    return bi.ask_or_pick(
        f"join:{tables}", f"{tables} can be joined in more than one way; which do you mean", options, answer
    )


def _executed(bi: BIContext, result: QueryResult, kind: str, request: str) -> dict[str, Any]:
    bi.last_result = result
    more = " (more exist; capped)" if result.truncated else ""
    how = (
        f"{kind} on {bi.engine.name} ({bi.engine.dialect}): run `query` again"
        if kind == "sql"
        else f"GraphQL layer over {bi.engine.name}: run `query` again"
    )
    metadata = {
        "query_type": kind,
        "query": result.sql,
        "engine": bi.engine.name,
        "summary": f"{len(result.rows)} rows{more} for: {request}",
        "how_to_retrieve": how,
        "executed_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    return {**preview(result), "query_metadata": metadata}


def dry_run(engine: Engine, sql: str, probe: bool = True) -> str | None:
    """None when the query is safe, plans (EXPLAIN) and yields a first row that says something (`found_rows`)
    without error; otherwise the reason, for the repair round. The one-row probe catches what planning does not (DuckDB plans
    `o_orderdate = '1995'` and fails only when it runs); `probe=False` only plans (the query waits for approval)."""
    try:
        engine.explain(sql)
        if probe and not found_rows(engine.execute(sql, max_rows=1).rows):
            return NOTHING
    except (UnsafeQuery, QueryError) as exc:
        return str(exc)
    return None


# An empty answer is most often a filter on a value the column does not hold as written ('large' for
# 'large_airport', a date for a year): one repair round is asked; an empty answer it cannot better stands.
NOTHING = "it found nothing (no rows, or a lone 0 or NULL): check each filter's value and column"


def found_rows(rows: list[Any]) -> bool:
    """Whether a first row says something: not no row, nor one row of a lone 0 / NULL (a count or sum of nothing)."""
    return bool(rows) and not (len(rows) == 1 and len(rows[0]) == 1 and rows[0][0] in (None, 0))
