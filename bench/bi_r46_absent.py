"""Round 46's no-model replay of rule V (orrery/bi/decline.py `absent_value`) on every stored query that found
nothing: the stored final SQL of every question of every bench/results/bi_nokeys_*.json and the SQL of each
build_query step of a question declined by rule V ('the data holds no value like'), deduplicated by database,
question and SQL, run again; where it finds nothing, does rule V decline, and on which value? With --where, for each
stored rule-V decline, which text columns hold each word of the question's value (a bounded LIKE probe per column).

With --resolve, rule E (round 46): each mention a stored resolve_entities step left unresolved, and the text
columns outside the value index that hold it whole (`decline.stored_holders`), beside the gold SQL.

    PYTHONPATH=$PWD python bench/bi_r46_absent.py [--where | --resolve]
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # bi_nokeys_data, as bench/bi_nokeys.py reads it

from bi_nokeys import engine_for  # noqa: E402
from sqlglot import exp  # noqa: E402

from orrery.bi import decline, tools  # noqa: E402
from orrery.bi.semantic import load  # noqa: E402
from orrery.bi.tools import BIContext  # noqa: E402

RESULTS = Path(__file__).parent / "results"
RULE_V = "the data holds no value like"


def _mention(answer: str) -> str:
    """The stored decline's value, as a query comparing a column with it: the steps store the SQL cut at 218
    characters, so the judgment is re-run on the value the decline named (the query had found nothing)."""
    value = ast.literal_eval(re.search(rf"{RULE_V} ('(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\")", answer)[1])
    return f"SELECT 1 FROM t WHERE c = {exp.Literal.string(value).sql()}"


def stored() -> dict[tuple[str, str, str], tuple[bool, bool]]:
    """(db, question, sql) -> (answerable, declined by rule V when stored), over every stored run (#1..#20)."""
    out: dict[tuple[str, str, str], tuple[bool, bool]] = {}
    for path in sorted(RESULTS.glob("bi_nokeys_*.json")):
        data = json.loads(path.read_text())
        for q in data.get("questions", []) if isinstance(data, dict) else []:
            declined = RULE_V in (q.get("answer") or "")
            sql = _mention(q["answer"]) if declined else q.get("sql")
            if sql and q.get("db"):
                key = (q["db"], q["question"], sql)
                out[key] = (q.get("gold") is not None, declined or out.get(key, (False, False))[1])
    return out


def holders(bi: BIContext, word: str) -> list[str]:
    """The text columns one of whose first values holds `word` (case aside), with one such value."""
    found = []
    for table, column, info in bi.semantic.columns():
        if not re.match(r"(VARCHAR|TEXT|CHAR|STRING)", str(info.get("type", "")), re.I):
            continue
        col, tab = tools.quote(bi.engine, column), tools.quote(bi.engine, table)
        sql = f"SELECT {col} FROM {tab} WHERE lower(CAST({col} AS TEXT)) LIKE '%{word.lower()}%' LIMIT 1"
        rows = bi.engine.execute(sql, max_rows=1).rows
        if rows:
            found.append(f"{table}.{column} ({str(rows[0][0])[:40]!r})")
    return found


def unresolved() -> tuple[dict[tuple[str, str], tuple[str | None, set[str]]], int]:
    """(db, question) -> (gold SQL, the mentions its stored resolve_entities steps left unresolved); and how many
    such steps were cut before their list (the steps are stored cut at 218 characters)."""
    out: dict[tuple[str, str], tuple[str | None, set[str]]] = {}
    cut = 0
    for path in sorted(RESULTS.glob("bi_nokeys_*.json")):
        data = json.loads(path.read_text())
        for q in data.get("questions", []) if isinstance(data, dict) else []:
            for step in q.get("steps", []):
                if step.startswith("resolve_entities: done "):
                    if not (m := re.search(r'"unresolved": (\[[^\]]*\])', step)):
                        cut += 1
                        continue
                    gold, seen = out.get((q["db"], q["question"]), (q.get("gold"), set()))
                    out[(q["db"], q["question"])] = (gold, seen | set(json.loads(m[1])))
    return out, cut


def resolve(contexts: dict[str, BIContext]) -> None:
    found, cut = unresolved()
    print(f"{len(found)} questions with a stored resolve_entities step, {cut} steps cut before their list")
    for (db, question), (gold, mentions) in sorted(found.items()):
        for mention in sorted(mentions):
            if holders := decline.stored_holders(context(contexts, db), mention):
                kind = "answerable" if gold else "unanswerable"
                print(f"{kind}: {db}: {question} | {mention!r} -> {holders}\n    gold: {gold}")


def context(contexts: dict[str, BIContext], db: str) -> BIContext:
    if db not in contexts:
        engine = engine_for(db)
        contexts[db] = BIContext(engine, load(engine.name, engine), None)
    return contexts[db]


def where(contexts: dict[str, BIContext]) -> None:
    for (db, question, sql), (answerable, was_declined) in sorted(stored().items()):
        if was_declined:
            bi = context(contexts, db)
            print(f"{db}: {question} ({'answerable' if answerable else 'unanswerable'})\n    SQL: {sql}")
            for word in sorted(set(re.findall(r"[^\W\d_]{3,}", question.lower()))):
                print(f"    {word}: {holders(bi, word)}")


def replay(contexts: dict[str, BIContext]) -> None:
    fired: dict[bool, list[str]] = {True: [], False: []}
    runs = stored()
    empty = 0
    for (db, question, sql), (answerable, was_declined) in sorted(runs.items()):
        bi = context(contexts, db)
        if not was_declined and tools.dry_run(bi.engine, sql, probe=bi.probe) != tools.NOTHING:
            continue
        empty += 1
        if absent := decline.absent_value(bi, sql, question):
            mark = " [declined when stored]" if was_declined else ""
            fired[answerable].append(f"{db}: {question} -> {absent!r}{mark}")
    print(f"{len(runs)} stored (question, SQL) pairs, {empty} find nothing now")
    for answerable, lines in fired.items():
        print(f"{'answerable' if answerable else 'unanswerable'} declined by rule V: {len(set(lines))}")
        print("\n".join(f"    {line}" for line in sorted(set(lines))))


def main() -> None:
    contexts: dict[str, BIContext] = {}
    if "--where" in sys.argv:
        where(contexts)
    elif "--resolve" in sys.argv:
        resolve(contexts)
    else:
        replay(contexts)


if __name__ == "__main__":
    main()
