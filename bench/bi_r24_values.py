"""Round 24 (issue 20): the values a question names that the SQL misses, measured without the model.

    PYTHONPATH=$PWD python bench/bi_r24_values.py diagnose /tmp/diag.json   # the stored records, classified
    PYTHONPATH=$PWD python bench/bi_r24_values.py recall /tmp/here.json     # the deterministic resolution now

`diagnose`: over the newest stored record of each answerable question of every development set
(`results/bi_nokeys_<set>_here*.json`, held-out #15 and #16 included; nothing named heldout17 is read), the gold SQL's
filter values (sqlglot: the literals compared in WHERE / HAVING by =, <>, <, >, IN, LIKE, BETWEEN; a year of a
date), whether the agent's SQL has each and, if not, at which step it was lost (the record's resolve step: its
text is cut at 200 characters, so a value it resolved may be missed).

`recall`: the deterministic part of entity resolution run again on every question of every development set
(answerable and unanswerable), with the mentions the newest record's resolve step shows (the planner's values,
fixed) plus what the agent adds from the question's words (`decline.indexed_values`, `category_values`,
`tools.listed_values`, `decline.flag_values`), as `agent.plan_todos` does, then `tools.entity_resolution` when
there is any mention (the agent runs that step only then). Value-recall: the gold's text values found / gold text
values; wrong values: resolved values that are no literal of the gold, per question (on unanswerable questions:
every resolved value)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

HERE = Path(__file__).parent
OWN = ("_r24", "_r26")  # the rounds' own runs: the planner's mentions stay those stored before round 24
CMP = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In, exp.Like, exp.ILike, exp.Between)


def _bench(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _bnk() -> Any:
    return _bench("bi_nokeys")


def newest() -> dict[tuple[str, str], dict[str, Any]]:
    return {(s, q["question"]): q for s, q in _bench("bi_recompose").newest(OWN)}


def _is_year(col: str, value: Any) -> bool:
    text = str(value)
    return bool(re.fullmatch(r"(1[89]|20)\d\d(-.*)?", text)) and (
        bool(re.search(r"year|yr|date|time|season", col, re.I)) or "-" in text or isinstance(value, int)
    )


def gold_values(sql: str) -> list[dict[str, Any]]:
    """The literals the gold compares in WHERE / HAVING: {kind: text | number | year, value, column}."""
    tree = sqlglot.parse_one(sql)
    out = []
    clauses = [n for n in tree.find_all(exp.Where, exp.Having, exp.If)]  # a share's CASE WHEN too; no JOIN ON
    for clause in clauses:
        for cond in clause.find_all(*CMP):
            col = cond.this.sql()
            lits = list(cond.find_all(exp.Literal))
            for lit in lits:
                raw = lit.name.strip("%") if isinstance(cond, exp.Like | exp.ILike) else lit.name
                if lit.is_string:
                    value: Any = raw
                else:
                    value = float(raw) if "." in raw else int(raw)
                kind = "year" if _is_year(col, value) else "text" if lit.is_string else "number"
                if kind == "year":
                    value = int(str(value)[:4])
                out.append({"kind": kind, "value": value, "column": col})
    seen, uniq = set(), []
    for v in out:
        key = (v["kind"], str(v["value"]).lower())
        if key not in seen:
            seen.add(key)
            uniq.append(v)
    return uniq


def sql_literals(sql: str | None) -> tuple[set[str], set[str]]:
    """(the text literals lower-cased, the number literals as text) of a SQL; empty when it does not parse."""
    if not sql:
        return set(), set()
    try:
        tree = sqlglot.parse_one(sql)
    except sqlglot.errors.ParseError:
        return set(), set()
    texts = {lit.name.lower().strip("%") for lit in tree.find_all(exp.Literal) if lit.is_string}
    nums = {lit.name for lit in tree.find_all(exp.Literal) if not lit.is_string}
    return texts, nums


def has_value(v: dict[str, Any], sql: str | None) -> bool:
    texts, nums = sql_literals(sql)
    val = str(v["value"])
    if v["kind"] == "text":
        return val.lower() in texts or any(val.lower() in t and len(t) < 2 * len(val) + 4 for t in texts)
    if v["kind"] == "year":
        y = val[:4]
        return y in nums or y[2:] in nums or any(t.startswith(y) for t in texts)
    return val in nums or any(float(n) == float(val) for n in nums if re.fullmatch(r"[\d.]+", n))


_RESOLVED = re.compile(r'"mention": "([^"]*)", "table": "([^"]*)", "column": "([^"]*)", "value": ("[^"]*"|[-\d.]+)')


def record_steps(q: dict[str, Any]) -> tuple[list[tuple[str, str]], list[str], bool]:
    """(mention, value) pairs the record resolved, its unresolved mentions, and whether it ran the step."""
    step = next((s for s in q.get("steps", []) if s.startswith("resolve_entities")), None)
    if step is None:
        return [], [], False
    resolved = [(m[0], json.loads(m[3]) if m[3].startswith('"') else m[3]) for m in _RESOLVED.findall(step)]
    un = re.search(r'"unresolved": \[(.*)', step)
    unresolved = re.findall(r'"([^"]+)"', un.group(1)) if un else []
    return [(a, str(b)) for a, b in resolved], unresolved, True


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def wording(question: str, value: str) -> str:
    """How the question writes a gold text value it names (the reason the words do not reach it)."""
    from orrery.bi.decline import other_form

    q, v = question.lower(), value.lower()
    qw, vw = _words(question), _words(value)
    if re.search(rf"(?<![a-z0-9]){re.escape(v)}(?![a-z0-9])", q):
        return (
            "written as stored, lower case" if value != value.lower() and value not in question else "written as stored"
        )
    if vw and re.search(rf"\b{re.escape(' '.join(vw))}\b", " ".join(qw)):
        return "hyphen / space / punctuation"
    shared = [w for w in vw if w in qw and len(w) > 1]
    if shared and len(vw) > len(shared):
        return "a part of a longer value (a code prefix, a first name)"
    if any(other_form(a, b) or other_form(b, a) for a in qw for b in vw):
        return "another form (demonym, adjective, plural)"
    if len(value) <= 3 or re.search(r"\d", value) or value.isupper():
        return "a code the words stand for"
    return "another word for it (synonym, kind)"


def lost_where(
    q: dict[str, Any], v: dict[str, Any], resolved: list[tuple[str, str]], unresolved: list[str], ran: bool
) -> str:
    """The step at which a gold value was lost (or where it is)."""
    if q["status"] != "completed" or not q.get("sql"):
        return f"no SQL ({q['status']})"
    if q["correct"]:
        return "right answer"
    if has_value(v, q["sql"]):
        return "in the SQL"
    if v["kind"] != "text":
        return f"{v['kind']} lost or changed at the SQL step"
    if str(v["value"]).lower() in {b.lower() for _, b in resolved}:
        return "text: resolved, lost at the SQL step"
    near = [m for m in [*unresolved, *(a for a, _ in resolved)] if _related(m, str(v["value"]))]
    if [b for a, b in resolved if a in near]:
        return "text: a wrong value matched"
    if near:
        return "text: a mention extracted, not matched"
    return f"text: never extracted ({'resolve step ran for others' if ran else 'no resolve step'})"


def diagnose(out_path: str) -> None:
    recs = newest()
    rows, classes, by_db, wordings = [], Counter(), Counter(), Counter()
    for (s, question), q in sorted(recs.items()):
        if not q.get("gold"):
            continue
        try:
            gold = gold_values(q["gold"])
        except sqlglot.errors.ParseError:
            continue
        if not gold:
            continue
        resolved, unresolved, ran = record_steps(q)
        for v in gold:
            cls = lost_where(q, v, resolved, unresolved, ran)
            why = wording(question, str(v["value"])) if v["kind"] == "text" else ""
            if cls.startswith("text:"):
                wordings[why] += 1
            classes[cls] += 1
            by_db[(q["db"], cls)] += 1
            rows.append(
                {
                    "set": s,
                    "db": q["db"],
                    "question": question,
                    **v,
                    "class": cls,
                    "wording": why,
                    "correct": q["correct"],
                }
            )
    Path(out_path).write_text(json.dumps(rows, indent=1, default=str))
    print(f"{len(rows)} gold values of {len({(r['set'], r['question']) for r in rows})} questions")
    for k, n in classes.most_common():
        print(f"{n:4d}  {k}")
    print("-- wording of the text values missed:")
    for k, n in wordings.most_common():
        print(f"{n:4d}  {k}")


def _related(mention: str, value: str) -> bool:
    """Whether a mention is about a value: a shared word, a near spelling, another form, a demonym of it."""
    from rapidfuzz import fuzz

    from orrery.bi.decline import _countries, other_form

    mw, vw = _words(mention), _words(value)
    if set(mw) & set(vw) or any(other_form(a, b) or fuzz.ratio(a, b) >= 80 for a in mw for b in vw):
        return True
    forms = {f.lower() for c in _countries(mention) for f in c}
    return value.lower() in forms or fuzz.partial_ratio(mention.lower(), value.lower()) >= 85 and len(mention) >= 4


def resolve_now(bi: Any, question: str, mentions: list[str]) -> list[dict[str, Any]]:
    """What the agent's deterministic steps resolve for the question, given the planner's mentions."""
    from orrery.bi import decline, tools
    from orrery.tools.core import RunContext

    bi.question, bi.choices, bi.notes = question, {}, []
    found = list(mentions)
    for more in (
        decline.indexed_values(bi, question),
        [r["mention"] for r in decline.category_values(bi, question)],
        [r["mention"] for r in tools.listed_values(bi, question)],
        [r["mention"] for r in decline.flag_values(bi, question)],
    ):
        have = {v.lower() for v in found}
        found += [v for v in more if v.lower() not in have]
    if not found:
        return []
    return tools.entity_resolution(RunContext(deps=bi, options={}), found)["resolved"]


def recall(out_path: str) -> None:
    from orrery.bi import decline
    from orrery.bi.context import BIContext
    from orrery.bi.semantic import load

    bnk = _bnk()
    recs = newest()
    sets = list(bnk.SCORED)
    contexts: dict[str, Any] = {}
    out: dict[str, Any] = {}
    for s in sets:
        for item in bnk.items(s):
            db = item["db"]
            if db not in contexts:
                engine = bnk.engine_for(db)
                contexts[db] = BIContext(engine=engine, semantic=load(engine.name, engine), model=None, clarify=False)
            rec = recs.get((s, item["question"]), {})
            resolved, unresolved, _ = record_steps(rec)
            mentions = list(dict.fromkeys([*(a for a, _ in resolved), *unresolved]))
            shaped = decline.shape_decline(contexts[db], item["question"]) is not None  # declined before resolving
            got = resolve_now(contexts[db], item["question"], mentions)
            gold = gold_values(item["gold"]) if item["gold"] else []
            texts = [str(v["value"]) for v in gold if v["kind"] == "text"]
            out[f"{s}|{item['question']}"] = {
                "db": db,
                "answerable": bool(item["gold"]),
                "gold": texts,
                "gold_all": [str(v["value"]).lower() for v in gold],
                "resolved": sorted({str(r["value"]) for r in got}),
                "same_row": sorted({str(r["value"]) for r in got if _same_row(contexts[db], r, texts)}),
                "mentions": mentions,
                "shape_declined": shaped,
            }
    Path(out_path).write_text(json.dumps(out, indent=0, default=str))
    summary(out)


def _same_row(bi: Any, r: dict[str, Any], gold: list[str]) -> bool:
    """Whether a resolved value stands for a gold value: the gold value is in the same row of its table ('Texas'
    of `states.name` for `state = 'TX'`, 'Second class' of `class_desc` for `pclass = '2nd'`)."""
    from orrery.bi.profile import quote

    wanted = {g.lower() for g in gold} - {str(r["value"]).lower()}
    if not wanted:
        return False
    q = f"SELECT * FROM {quote(bi.engine, r['table'])} WHERE {quote(bi.engine, r['column'])} = ?"
    value = r["value"]
    sql = q.replace("?", str(value) if isinstance(value, int | float) else "'" + str(value).replace("'", "''") + "'")
    rows = bi.engine.execute(sql, max_rows=5).rows
    return any(str(cell).lower() in wanted for row in rows for cell in row)


def summary(out: dict[str, Any]) -> None:
    per: dict[str, Counter] = {}
    for key, r in out.items():
        s = key.split("|")[0]
        c = per.setdefault(s, Counter())
        got = {v.lower() for v in r["resolved"]}
        if r["answerable"]:
            stands = {v.lower() for v in r["same_row"]}  # a value standing for a gold one in its row
            c["q"] += 1
            c["gold"] += len(r["gold"])
            c["found"] += sum(str(g).lower() in got for g in r["gold"]) + min(
                len(stands), len([g for g in r["gold"] if str(g).lower() not in got])
            )
            c["wrong"] += len(got - set(r["gold_all"]) - stands)
            c["q_wrong"] += bool(got - set(r["gold_all"]) - stands)
        else:
            c["u"] += 1
            c["u_added"] += len(got)
            c["u_q_added"] += bool(got)
            c["u_reached"] += len(got) if not r.get("shape_declined") else 0  # the agent resolves only these
    total = sum(per.values(), Counter())
    print(
        "set | answerable | gold text values | found | wrong values added (questions) | unanswerable | with values"
        " | values on those the shape check lets through"
    )
    for s, c in [*sorted(per.items()), ("all", total)]:
        print(
            f"{s} | {c['q']} | {c['gold']} | {c['found']} | {c['wrong']} ({c['q_wrong']}) | {c['u']} | "
            f"{c['u_added']} ({c['u_q_added']}) | {c['u_reached']}"
        )


if __name__ == "__main__":
    {"diagnose": diagnose, "recall": recall}[sys.argv[1]](sys.argv[2])
