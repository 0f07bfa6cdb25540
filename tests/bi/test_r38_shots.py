"""Round 38 (bench/bi.md, round 38, rule S): beside the top one by count, the drafted worked examples rank by a
measure's total ('Which channel has the highest total amount?' -> `ORDER BY sum(orders.amount) DESC LIMIT 1`), so
a question ranking by an amount is shown that shape, not only `count(*)` (bench/bi_memory.md round 16 (B): 'Which
state has the highest sales?' copied the count). No measure, no such example."""

from __future__ import annotations

import json

from orrery.bi.compose import QueryParts, compose
from orrery.bi.shots import drafted_shots

SALES = "CREATE TABLE orders (order_id INTEGER, placed DATE, channel TEXT, amount DECIMAL(10,2));"
ROWS = {"orders": [(i, f"{2020 + i % 4}-0{1 + i % 9}-15", ["web", "store"][i % 2], 5.0 * i) for i in range(80)]}


def replies(bi) -> dict[str, dict]:
    turns = drafted_shots(bi)
    return {
        u.content.rsplit("Question: ", 1)[1]: json.loads(a.content)
        for u, a in zip(turns[::2], turns[1::2], strict=True)
    }


def test_a_ranking_by_the_measures_total_is_drafted_beside_the_ranking_by_count(sqlite_bi):
    bi = sqlite_bi(SALES, ROWS)
    drafted = replies(bi)
    ranked = drafted["Which channel has the highest total amount?"]
    assert ranked["order_by"] == ["sum(orders.amount) DESC"] and ranked["limit"] == 1
    assert drafted["Which channel has the most orders?"]["order_by"] == ["count(*) DESC"]
    sql = compose(QueryParts(**ranked), bi.semantic, ["orders"], [], bi.engine.dialect, "", bi.values)
    assert bi.engine.execute(sql).rows == [("store",)]  # the odd orders: 5 * (1 + 3 + ... + 79) beats the even ones


def test_no_measure_no_ranking_by_a_total(sqlite_bi):
    rows = [(i, f"{2020 + i % 4}-0{1 + i % 9}-15", ["web", "store"][i % 2]) for i in range(40)]
    bi = sqlite_bi("CREATE TABLE orders (order_id INTEGER, placed DATE, channel TEXT);", {"orders": rows})
    questions = replies(bi)
    assert "Which channel has the most orders?" in questions
    assert not any("highest total" in q for q in questions)
