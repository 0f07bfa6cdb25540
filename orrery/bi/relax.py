"""A query that found nothing, set right by the question's own words before the model is asked again.

The diagnosis of round 11 (bench/bi.md): an empty answer to an answerable question most often comes from a
condition the question never states: a number or value the model made up (`fertility > 8.449`,
`Production = 'Paramount Pictures'`), the user's mention set on a second column that does not hold it (beside the
resolved value it names), or "the highest X" written as `X = (SELECT MAX(X) FROM ...)`, the extreme of all rows,
while the question's other filters stand. `relaxed` gives the query without them, most specific first; the
caller runs each (bounded: `MAX_TRIES`) and keeps the first that finds rows. No model call.
"""

from __future__ import annotations

import re
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from orrery.bi.semantic import stems
from orrery.grounding import number_words

MAX_TRIES = 3  # rewrites run against the database after a query that found nothing


def relaxed(sql: str, question: str, resolved: list[dict[str, Any]], dialect: str) -> list[str]:
    """Rewrites of `sql` that drop what the question does not ask, cumulatively: the extremes written as a
    comparison with a subquery's MAX / MIN become a ranking, then conditions on a value the question never
    writes are dropped, then the user's mention set on a column beside the resolved value it names."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return []
    if not isinstance(tree, exp.Select):
        return []
    out: list[str] = []
    for step in (_extreme_as_ranking, _unsaid_dropped, _second_mention_dropped):
        if step(tree, question, resolved):
            _unused_joins_dropped(tree)
            out.append(tree.sql(dialect))
    return [s for s in dict.fromkeys(out) if s != sql][:MAX_TRIES]


def conjuncts(*conds: exp.Expression | None) -> list[exp.Expression]:
    """The AND-ed conditions of the given conditions (parenthesised groups of them opened); the one reading of
    "the filters of a clause" that relaxing, composing and the approved examples share."""
    out, todo = [], [c for c in conds if c is not None]
    while todo:
        cond = todo.pop(0)
        if isinstance(cond, exp.Paren) and isinstance(cond.this, exp.And):
            cond = cond.this
        if isinstance(cond, exp.And):
            todo[:0] = [cond.this, cond.expression]
        else:
            out.append(cond)
    return out


def _clause(tree: exp.Select, part: str) -> exp.Expression | None:
    node = tree.args.get(part)
    return node.this if node is not None else None


def _drop(tree: exp.Select, part: str, dropped: list[exp.Expression]) -> None:
    conds = conjuncts(_clause(tree, part))
    kept = [c.copy() for c in conds if not any(c is d for d in dropped)]
    if len(kept) < len(conds):
        clause = exp.Where if part == "where" else exp.Having
        tree.set(part, clause(this=exp.and_(*kept)) if kept else None)


def extreme(cond: exp.Expression) -> tuple[exp.Expression, bool, exp.Select] | None:
    """(the compared side, whether the extreme is the top, the subquery's SELECT) for a condition that sets a value at its extreme: `x =
    (SELECT MAX(x) ...)`, its MIN, a `>` / `>=` toward a MAX (`<` / `<=` toward a MIN: nothing lies beyond it, so
    the model meant the extreme), either side first, or a subquery that selects one item ordered with a limit
    (`(SELECT AVG(x) ... ORDER BY AVG(x) DESC LIMIT 1)`). Not `x < (SELECT MAX(x) ...)`, every row but the top;
    nor a column compared with the extreme of another column (`SupportRepId = (SELECT SupportRepId ... ORDER BY
    COUNT(*) DESC LIMIT 1)`): no ranking of it. The one reading that composing and relaxing share."""
    if not isinstance(cond, exp.EQ | exp.GT | exp.GTE | exp.LT | exp.LTE):
        return None
    side, sub, flipped = cond.this, cond.expression, False
    if isinstance(side, exp.Subquery):
        side, sub, flipped = sub, side, True
    inner = sub.this if isinstance(sub, exp.Subquery) and not isinstance(side, exp.Subquery) else None
    if not isinstance(inner, exp.Select) or len(inner.expressions) != 1:
        return None
    item, order = inner.expressions[0].unalias(), inner.args.get("order")
    if isinstance(item, exp.Max | exp.Min):
        top, of = isinstance(item, exp.Max), item.this
    elif order is not None and inner.args.get("limit") is not None:
        top, of = bool(order.expressions[0].args.get("desc")), order.expressions[0].this
    else:
        return None
    beyond = (exp.GT, exp.GTE) if top != flipped else (exp.LT, exp.LTE)
    if not isinstance(cond, exp.EQ | beyond[0] | beyond[1]):
        return None
    if isinstance(side, exp.Column) and side.name.lower() not in {c.name.lower() for c in of.find_all(exp.Column)}:
        return None
    return side, top, inner


def outer_filters(inner: exp.Select) -> list[exp.Expression]:
    """The conditions of a subquery's WHERE but those that set a column equal to another: they tie it to the outer
    row (`penguin_obs.species_id = species.id`, `b.species_id = birds.species_id`: one extreme per species); the
    others (`counties.state = 'Nevada'`) are the question's filters."""
    where = inner.args.get("where")
    return [
        cond.copy()
        for cond in conjuncts(where.this if where else None)
        if not (
            isinstance(cond, exp.EQ) and isinstance(cond.this, exp.Column) and isinstance(cond.expression, exp.Column)
        )
    ]


def _extreme_as_ranking(tree: exp.Select, _question: str, _resolved: list[dict[str, Any]]) -> bool:
    """'the lowest life expectancy in 1990': `life_expectancy = (SELECT MIN(...) FROM indicators)` is the lowest of
    every year; ranked within the question's filters (the subquery's own among them), one row, a value that is
    there (not NULL)."""
    for part in ("where", "having"):
        for cond in conjuncts(_clause(tree, part)):
            if found := extreme(cond):
                side, top, inner = found
                _drop(tree, part, [cond])
                for kept in outer_filters(inner):
                    tree.where(kept, copy=False)
                if isinstance(side, exp.Column):
                    tree.where(exp.Not(this=exp.Is(this=side.copy(), expression=exp.Null())), copy=False)
                tree.set("order", None)
                tree.order_by(exp.Ordered(this=side.copy(), desc=top), copy=False)
                tree.limit(1, copy=False)
                return True
    return False


def _numbers(question: str) -> set[str]:
    """The numbers a question writes, in digits ('1990', '2.5') or as a word ('four-cylinder')."""
    found = re.findall(r"\d+(?:\.\d+)?", question)
    return set(found) | {str(n) for n in number_words(question)}


def _said(literal: exp.Literal, question: str) -> bool:
    """Whether the question writes the literal: a number as written ('1990', '2.5', 'four'), a text by one of its
    words (its stems: 'Europe' in 'european', a LIKE pattern's words)."""
    text = literal.this.strip("%")
    if not literal.is_string:
        return text in _numbers(question)
    return _shares(stems(text), stems(question))


def _shares(words: list[str], others: list[str]) -> bool:
    """A word in both, or one of four letters or more that starts a word of the other ('asia' / 'asian')."""
    return any(
        w == o or (len(w) >= 4 and o.startswith(w)) or (len(o) >= 4 and w.startswith(o)) for w in words for o in others
    )


def _literal_filters(tree: exp.Select) -> list[tuple[exp.Expression, exp.Literal]]:
    """(condition, its literal) for each WHERE / HAVING condition that compares a column with one literal."""
    out = []
    for part in ("where", "having"):
        for cond in conjuncts(_clause(tree, part)):
            lits = [n for n in cond.find_all(exp.Literal)]
            if len(lits) == 1 and cond.find(exp.Column) and not cond.find(exp.Subquery):
                out.append((cond, lits[0]))
    return out


def _unsaid_dropped(tree: exp.Select, question: str, resolved: list[dict[str, Any]]) -> bool:
    """A condition on a number or value the question never writes and entity resolution did not find (a
    number only when every number the question writes is used)."""
    found = {str(r["value"]).lower() for r in resolved}
    filters = _literal_filters(tree)
    unsaid = [(c, lit) for c, lit in filters if lit.this.lower() not in found and not _said(lit, question)]
    # a number the question writes that no condition uses: the made-up one may be it mistyped (250 for 25),
    # which the model's repair can set right; dropping it would answer another question. Not a number of other
    # digits ('bronze = 10' beside an unused '2014'): that one is made up.
    spare = _numbers(question) - {lit.this for _, lit in filters if not lit.is_string}
    unsaid = [c for c, lit in unsaid if lit.is_string or not any(_mistyped(lit.this, n) for n in spare)]
    for part in ("where", "having"):
        _drop(tree, part, unsaid)
    return bool(unsaid)


def _mistyped(number: str, written: str) -> bool:
    """Whether `number` may be `written` mistyped or shortened: one starts or ends the other (250 for 25, 80 for
    1980)."""
    return any(a.startswith(b) or a.endswith(b) for a, b in ((number, written), (written, number)))


def _second_mention_dropped(tree: exp.Select, _question: str, resolved: list[dict[str, Any]]) -> bool:
    """'sub-saharan african' set on `indicators.country` beside the resolved region 'Sub-Saharan Africa', 'Cook
    County' on `fips` beside the resolved 'Cook': a literal that is no resolved value but shares a word with one
    the query already filters on is the same mention set twice."""
    where_sql = (tree.args["where"].sql() if tree.args.get("where") else "").lower()
    named = [stems(str(r["value"])) for r in resolved if str(r["value"]).lower() in where_sql]
    found = {str(r["value"]).lower() for r in resolved}
    twice = [
        c
        for c, lit in _literal_filters(tree)
        if lit.is_string and lit.this.lower() not in found and any(_shares(stems(lit.this), n) for n in named)
    ]
    _drop(tree, "where", twice)
    return bool(twice)


def _unused_joins_dropped(tree: exp.Select) -> None:
    """A join whose table only its own ON condition names any more (its filter dropped) would multiply the rows."""
    for join in list(tree.args.get("joins") or []):
        table = join.this
        if not isinstance(table, exp.Table):
            continue
        name = (table.alias or table.name).lower()
        on = join.args.get("on")
        rest = [c for c in tree.find_all(exp.Column) if c.table.lower() == name and not (on and _within(c, on))]
        if not rest:
            join.pop()


def _within(node: exp.Expression, ancestor: exp.Expression) -> bool:
    while node.parent is not None:
        node = node.parent
        if node is ancestor:
            return True
    return False
