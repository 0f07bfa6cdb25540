"""Round 60: the planner names 'how many shipments' as 'shipment number'; a trailing count word is no head, so the
term is held by the table whose description names shipments (orrery/bi/decline.py: `names_the_data`), and field
mapping does not decline the question. A head word the data lacks stays missing."""

from __future__ import annotations

import pytest

from orrery.bi.decline import missing_fields
from orrery.bi.tools import BIContext

QUESTION = "How many shipments arrived after their commit date?"


@pytest.fixture
def shipments(sqlite_bi) -> BIContext:
    bi = sqlite_bi(
        "CREATE TABLE lines (line_id INTEGER, commit_date TEXT, receipt_date TEXT);",
        {"lines": [(i, f"2024-01-{10 + i:02d}", f"2024-01-{8 + 2 * i:02d}") for i in range(1, 9)]},
    )
    bi.semantic.tables["lines"]["description"] = "one shipment line of an order"
    return bi


@pytest.mark.parametrize("term", ["shipment number", "shipment count"])
def test_a_count_word_after_the_noun_is_no_head(shipments, term):
    assert missing_fields(shipments, [term], QUESTION) == []


def test_a_head_the_data_lacks_stays_missing(shipments):
    question = "How many shipment fee numbers arrived after their commit date?"
    assert missing_fields(shipments, ["shipment fee number"], question) == ["shipment fee number"]
