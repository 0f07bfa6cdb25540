"""Round 33 (bench/bi.md, round 33): the SQL-parts call's worked examples are drafted from the connected database's own
layer (shots.py), so the names the 0.5B model copies from them are real ones: its tables, columns and values, its
year written the way it keeps years (a number column compared with the year, a date through year()). On databases
of their own: firms' yearly investment (the year a number named 'fy'), and sales with dated orders."""

from __future__ import annotations

import json
import re

import pytest

from orrery.bi.compose import QueryParts, compose
from orrery.bi.shots import drafted_shots
from orrery.bi.tools import dry_run, write_sql
from orrery.llm.scripted import ScriptedModel

FIRMS = (
    "CREATE TABLE firms (code TEXT, name TEXT, sector TEXT);"
    "CREATE TABLE invest (firm TEXT, fy INTEGER, amount REAL, staff INTEGER);"
)
FIRM_ROWS = {
    "firms": [(f"F{i}", f"Firm {i}", ["Steel", "Autos", "Oil"][i % 3]) for i in range(6)],
    "invest": [(f"F{i}", y, 10.0 + i + y % 7, 100 + y % 13) for i in range(6) for y in range(1935, 1955)],
}
SALES = (
    "CREATE TABLE orders (order_id INTEGER, placed DATE, channel TEXT, amount DECIMAL(10,2));"
    "CREATE TABLE customers (cust_id INTEGER, segment TEXT);"
)
SALES_ROWS = {
    "orders": [(i, f"{2020 + i % 4}-0{1 + i % 9}-15", ["web", "store"][i % 2], 5.0 * i) for i in range(80)],
    "customers": [(i, ["Retail", "Wholesale"][i % 2]) for i in range(10)],
}


@pytest.fixture
def firms(sqlite_bi):
    return sqlite_bi(FIRMS, FIRM_ROWS)


@pytest.fixture
def sales(sqlite_bi):
    return sqlite_bi(SALES, SALES_ROWS)


def shots(bi) -> list[tuple[str, dict]]:
    turns = drafted_shots(bi)
    return [(u.content, json.loads(a.content)) for u, a in zip(turns[::2], turns[1::2], strict=True)]


def _named(user: str) -> tuple[set[str], set[tuple[str, str]]]:
    """The tables and (table, column) pairs an example's schema shows."""
    tables, columns, table = set(), set(), None
    for line in user.split("\n"):
        if m := re.match(r"TABLE (\w+)", line):
            table = m.group(1)
            tables.add(table)
        elif (m := re.match(r"  (\w+) ", line)) and table:
            columns.add((table, m.group(1)))
    return tables, columns


@pytest.mark.parametrize("which", ["firms", "sales"])
def test_the_examples_name_only_the_connected_databases_tables_and_columns(which, request):
    bi = request.getfixturevalue(which)
    drafted = shots(bi)
    assert (
        len(drafted) == 6
    )  # a filter and a year, a top one by count and by a total, an average per group, a count, a HAVING
    real = {(t, c) for t, c, _ in bi.semantic.columns()}
    for user, reply in drafted:
        tables, columns = _named(user)
        assert tables and tables <= set(bi.semantic.tables) and columns <= real
        written = " ".join(" ".join(v) for v in reply.values() if isinstance(v, list))
        assert set(re.findall(r"(\w+)\.(\w+)", written)) <= columns  # the reply's names are the schema's shown
    assert not re.search(r"Course|Enrollment|TakenOn", json.dumps(drafted))


def test_the_year_is_written_the_way_the_database_keeps_it(firms, sales):
    # 'fy' says no unit of time by its name: the drafted layer's range (1935 to 1954) says it holds years
    [(_, firm_year)] = [s for s in shots(firms) if "year" not in s[0] and re.search(r"in \d{4}\?", s[0])]
    assert "invest.fy = 1954" in firm_year["where"]
    [(_, sale_year)] = [s for s in shots(sales) if re.search(r"in \d{4}\?", s[0])]
    assert "year(orders.placed) = 2023" in sale_year["where"]


@pytest.mark.parametrize("which", ["firms", "sales"])
def test_the_drafted_examples_run_on_their_database_and_return_rows(which, request):
    bi = request.getfixturevalue(which)
    for user, reply in shots(bi):
        tables = re.findall(r"TABLE (\w+)", user)
        resolved = [
            {"mention": v, "table": t, "column": c, "value": v}
            for v, t, c in re.findall(r"- '([^']+)' is (\w+)\.(\w+) =", user)
        ]
        question = user.rsplit("Question: ", 1)[1]
        sql = compose(QueryParts(**reply), bi.semantic, tables, resolved, bi.engine.dialect, question, bi.values)
        assert dry_run(bi.engine, sql) is None, (question, sql)  # it runs and finds a row
        assert bi.engine.execute(sql).rows


def test_a_layer_with_no_indexed_text_to_filter_by_drafts_none(sqlite_bi):
    bi = sqlite_bi("CREATE TABLE readings (sensor INTEGER, celsius REAL);", {"readings": [(1, 20.5), (2, 21.0)]})
    assert drafted_shots(bi) == []  # the SQL step falls back to prompts/query_examples.yaml


def test_the_sql_parts_call_shows_the_connected_databases_examples(firms):
    firms.model = ScriptedModel([json.dumps({"select": ["count(*)"]})])
    user = "Schema:\nTABLE invest\n  fy INTEGER\n\nQuestion: How many rows of investment in 1950?"
    write_sql(firms, "parts", "You fill in the parts of one SQL query.", user, ["invest"], [], "rows in 1950")
    [messages] = firms.model.seen
    shown = "\n".join(m.content for m in messages[1:-1])
    assert "invest.fy = 1954" in shown and "TakenOn" not in shown
