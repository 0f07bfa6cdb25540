"""Round 73 (bench/bi_r73.md): work a BI question repeated, done once, the answers unchanged. The guard checks one
statement's text once per process; the shape check of a new request runs once (before the plan call), and again
after it only where it did not run before; a term field mapping asks about reads its nearest columns once; a
failed query is parsed once for the judgments and the repair note; the size of a result's cells is counted as
before; the no-model replays read no helper's branch sample as the newest record of a question."""

from __future__ import annotations

import datetime
import decimal
import importlib.util
import json
import uuid
from pathlib import Path
from unittest import mock

import pytest
import sqlglot

from orrery.bi import agent as agent_module
from orrery.bi import decline, guard, tools
from orrery.bi.agent import BIAgent
from orrery.bi.engines import Limits, _size, bound_bytes
from orrery.bi.guard import UnsafeQuery
from orrery.bi.tools import BIContext, CannotAnswer
from orrery.llm.scripted import ScriptedModel

ROOT = Path(__file__).parents[2]


@pytest.fixture
def shop(sqlite_bi) -> BIContext:
    """Customers by city and their orders (no declared keys: the layer is drafted)."""
    return sqlite_bi(
        "CREATE TABLE customers (cust_id INTEGER, cust_name TEXT, city TEXT);"
        "CREATE TABLE orders (order_id INTEGER, cust_id INTEGER, amount REAL, placed TEXT);",
        {
            "customers": [(i, f"Customer {i}", ("Leeds", "York", "Bath")[i % 3]) for i in range(9)],
            "orders": [(i, i % 9, 10.0 * i, f"2024-0{1 + i % 9}-01") for i in range(30)],
        },
    )


# -- the guard ---------------------------------------------------------------------------------------------
def test_a_statement_checked_again_is_not_parsed_again():
    sql = f"SELECT city, COUNT(*) FROM customers GROUP BY city /* {uuid.uuid4().hex} */"
    with mock.patch.object(guard, "_parse_one", wraps=guard._parse_one) as parse:
        first = guard.check(sql, "sqlite", limit=11)
        assert guard.check(sql, "sqlite", limit=11) == first == guard.check(sql, "sqlite", limit=11)
    assert parse.call_count == 1
    assert first.endswith("LIMIT 11")


def test_a_refused_statement_is_refused_each_time_and_the_limit_is_its_own():
    for _ in range(2):
        with pytest.raises(UnsafeQuery, match="not a read-only query"):
            guard.check("DELETE FROM customers", "sqlite")
        with pytest.raises(UnsafeQuery, match="unknown SQL dialect"):
            guard.check("SELECT 1", "oracle")
    sql = f"SELECT city FROM customers /* {uuid.uuid4().hex} */"
    assert guard.check(sql, "sqlite", limit=5).endswith("LIMIT 5")
    assert guard.check(sql, "sqlite", limit=50).endswith("LIMIT 50")
    assert guard.check(sql, "duckdb", limit=5).endswith("LIMIT 5")


# -- the size of a result's cells ---------------------------------------------------------------------------
class _Name(str):
    pass


# (cell, its size under a cap of 20): a text or bytes its length, a collection its items' (counting stops past the
# cap), any other cell 16
CELLS = [
    (3, 16),
    (2.5, 16),
    (True, 16),
    (None, 16),
    (decimal.Decimal("1.25"), 16),
    (datetime.date(2024, 1, 2), 16),
    (datetime.datetime(2024, 1, 2, 3, 4), 16),
    ("Leeds", 5),
    ("x" * 40, 40),
    (_Name("York"), 4),
    (b"\x00" * 30, 30),
    (bytearray(b"ab"), 2),
    ([1, "two", [3.0]], 35),
    ({"k": "v" * 30}, 31),
    (("a", None), 17),
    ({1, 2}, 32),
]


@pytest.mark.parametrize(("value", "size"), CELLS, ids=[type(v).__name__ for v, _ in CELLS])
def test_a_cells_size_is_counted_as_before(value, size):
    assert _size(value, 20) == size


def test_rows_are_cut_as_before():
    rows = [(1, "x" * 40, None), (2, [1, 2, 3], {"k": "v" * 30}), (3, "ok", decimal.Decimal("2"))]
    kept, note = bound_bytes(rows, Limits(max_cell_bytes=20, max_result_bytes=1000))
    assert kept[0] == (1, "x" * 20 + " ...[cut: 40 long]", None)
    assert kept[1] == (2, "[a list of 3 items, over 20 bytes: cut]", "[a dict of 1 items, over 20 bytes: cut]")
    assert kept[2] == (3, "ok", decimal.Decimal("2"))
    assert note == "3 value(s) longer than 20 characters/bytes were cut"


# -- the shape check of a plan ------------------------------------------------------------------------------
def test_the_shape_check_runs_once_for_a_new_request_and_after_the_plan_beside_a_result(shop, tmp_path):
    plan = {"request": "Count customers per city", "kind": "query", "values": [], "fields": ["city"]}
    sql = {"sql": "SELECT city, COUNT(*) FROM customers GROUP BY city"}
    again = {"request": "Count the customers of Leeds", "kind": "query", "values": ["Leeds"], "fields": []}
    leeds = {"sql": "SELECT COUNT(*) FROM customers WHERE city = 'Leeds'"}
    model = ScriptedModel([plan, sql, again, leeds])
    agent = BIAgent(model, shop.engine, store=tmp_path / "s.db", clarify=False, sql_mode="sql", prose=False)
    with mock.patch.object(agent_module, "shape_decline", wraps=decline.shape_decline) as shape:
        first = agent.ask("How many customers are in each city?")
        assert first.status == "completed" and sorted(first.rows) == [["Bath", 3], ["Leeds", 3], ["York", 3]]
        assert shape.call_count == 1  # before the plan call; not again after it on the same text
        second = agent.ask("and how many of them are in Leeds?")
    assert second.status == "completed" and second.rows == [[3]]
    assert shape.call_count == 2  # beside an earlier result: not before the plan, so after it


def test_a_question_the_shape_check_declines_makes_no_model_call(shop, tmp_path):
    model = ScriptedModel([])
    agent = BIAgent(model, shop.engine, store=tmp_path / "s.db", clarify=False, sql_mode="sql", prose=False)
    with mock.patch.object(agent_module, "shape_decline", wraps=decline.shape_decline) as shape:
        answer = agent.ask("Why do customers in Leeds order more?")
    assert answer.status == "declined" and model.index == 0 and shape.call_count == 1


# -- field mapping's question ---------------------------------------------------------------------------------
def test_a_term_asked_about_reads_its_nearest_columns_once(shop):
    shop.clarify = True
    with (
        mock.patch.object(tools, "nearest_columns", return_value=["customers.city"]) as near,
        mock.patch.object(decline, "nearest_columns", near),
    ):
        assert tools.ask_field(shop, "hometown", "customers.city") == {"table": "customers", "column": "city"}
    assert near.call_count == 1


def test_a_term_not_asked_about_is_declined_with_its_nearest_columns(shop):
    shop.clarify = False
    with (
        mock.patch.object(tools, "nearest_columns", return_value=["customers.city"]) as near,
        mock.patch.object(decline, "nearest_columns", near),
        pytest.raises(CannotAnswer, match="'hometown'; the nearest columns it holds: customers.city"),
    ):
        tools.ask_field(shop, "hometown", None)
    assert near.call_count == 1  # the decline's reason only: asking off reads no columns to offer
    shop.clarify = True
    with (
        mock.patch.object(tools, "nearest_columns", return_value=[]),
        mock.patch.object(decline, "nearest_columns", return_value=[]),
        pytest.raises(CannotAnswer, match="no field or value for 'hometown'$"),
    ):
        tools.ask_field(shop, "hometown", None)  # asking on, no column near: declined, nothing to ask


# -- a failed query ---------------------------------------------------------------------------------------------
def test_a_failed_query_is_parsed_once_for_its_repair(shop):
    sql = f"SELECT o.city FROM orders o JOIN customers c ON o.cust_id = c.cust_id /* {uuid.uuid4().hex} */"
    error = "no such column: o.city"
    with mock.patch.object(sqlglot, "parse_one", wraps=sqlglot.parse_one) as parse:
        moved = tools._requalified(shop, sql, error)
        assert tools._requalified(shop, sql, error) == moved  # the kept tree is not changed in place
        note = tools._real_columns(shop, sql, error)
    assert moved.startswith("SELECT c.city FROM orders AS o JOIN customers AS c ON o.cust_id = c.cust_id /*")
    assert "- c is customers; its columns: cust_id, cust_name, city" in note
    assert parse.call_count == 1


def test_a_query_sqlglot_cannot_read_names_no_table_and_moves_nothing(shop):
    sql = "SELECT o.city FROM orders o WHERE o.note = 'cut off"
    assert tools._requalified(shop, sql, "no such column: o.city") is None
    assert tools._real_columns(shop, sql, "no such column: o.city") == ""


# -- the replays' newest record -------------------------------------------------------------------------------
def _recompose():
    spec = importlib.util.spec_from_file_location("bi_recompose_r73", ROOT / "bench" / "bi_recompose.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _record(results: Path, name: str, date: str, questions: dict[str, str]) -> None:
    rows = [{"question": q, "status": s} for q, s in questions.items()]
    (results / f"bi_nokeys_{name}.json").write_text(json.dumps({"set": "dev", "date": date, "questions": rows}))


def test_the_newest_record_is_never_a_helpers_branch_sample(tmp_path):
    rc = _recompose()
    results = tmp_path / "results"
    results.mkdir()
    _record(results, "dev_here", "2026-11-26 10:00 UTC", {"q1": "error", "q2": "completed", "q3": "error"})
    _record(results, "dev_here_r64", "2026-11-27 19:55 UTC", {"q1": "completed"})
    _record(results, "dev_here_bi67b", "2026-11-27 23:09 UTC", {"q1": "declined", "q2": "declined"})
    _record(results, "dev_here_bi70", "2026-11-27 23:35 UTC", {"q4": "declined"})
    _record(results, "dev_here_r70", "2026-11-28 00:10 UTC", {"q3": "completed"})
    with mock.patch.object(rc, "HERE", tmp_path), mock.patch.object(rc, "_nokeys") as nokeys:
        nokeys.return_value.pending = lambda _name: False
        got = {q["question"]: q["status"] for _s, q in rc.newest()}
    # a later round's sample stands over the full run; no branch sample is read, not even for a question only it has
    assert got == {"q1": "completed", "q2": "completed", "q3": "completed"}
