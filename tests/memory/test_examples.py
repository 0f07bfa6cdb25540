"""Approved question -> SQL examples: only approvals are stored, per connection; nearest pairs, leave-one-out."""

from __future__ import annotations

import pytest

from orrery.errors import DataError
from orrery.recall import ApprovedExamples
from orrery.recall.examples import as_prompt

REVENUE = ("What is the total revenue per region?", "SELECT r_name, SUM(o_totalprice) FROM orders GROUP BY r_name")
CUSTOMERS = ("How many customers are there?", "SELECT COUNT(*) FROM customer")


def test_a_rejected_answer_is_never_stored_and_withdraws_an_approval(target):
    mem = ApprovedExamples(target)
    assert mem.reject("tpch", *REVENUE) == 0
    assert mem.list("tpch") == [] and mem.examples("tpch", REVENUE[0]) == []
    mem.approve("tpch", *REVENUE)
    assert mem.reject("tpch", *REVENUE) == 1
    assert mem.list("tpch") == []


def test_examples_are_the_nearest_approved_pairs_of_the_connection_only(target):
    mem = ApprovedExamples(target)
    first = mem.approve("tpch", *REVENUE)
    assert mem.approve("tpch", *REVENUE) == first  # approving twice stores once
    mem.approve("tpch", *CUSTOMERS, parts={"select": ["count(*)"]})
    mem.approve("chinook", "What is the revenue per genre?", "SELECT g.Name, SUM(il.UnitPrice) FROM genre g")

    near = mem.examples("tpch", "revenue by region, please", k=1)
    assert [(e.question, e.sql) for e in near] == [REVENUE]
    assert {e.question for e in mem.examples("tpch", "revenue", k=5)} == {REVENUE[0]}  # not chinook's
    assert mem.examples("tpch", REVENUE[0], k=5, leave_one_out=True) == []  # a question never retrieves itself
    assert "Question: How many customers are there?\nSQL: SELECT COUNT(*)" in as_prompt(mem.list("tpch"))
    [customers] = mem.examples("tpch", "number of customers", k=1)
    assert customers.extra == {"parts": {"select": ["count(*)"]}} and customers.sql == CUSTOMERS[1]

    assert mem.remove("chinook", first) is False  # another connection's id
    assert mem.remove("tpch", first) is True
    assert [e.question for e in mem.list("tpch")] == [CUSTOMERS[0]]


@pytest.mark.parametrize("question,sql", [("", "SELECT 1"), ("q", "  "), ("q" * 3000, "SELECT 1")])
def test_an_empty_or_huge_example_is_refused(tmp_path, question, sql):
    with pytest.raises(DataError):
        ApprovedExamples(tmp_path / "m.db").approve("tpch", question, sql)


def test_a_connection_name_is_checked(tmp_path):
    with pytest.raises(DataError, match="not a valid id"):
        ApprovedExamples(tmp_path / "m.db").approve("../etc", *CUSTOMERS)
