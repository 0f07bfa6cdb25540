from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from orrery.research.board import EMPTY_NOTES, EMPTY_SOURCES, SourceBoard
from orrery.research.types import Document


def test_empty_board_renders_placeholders() -> None:
    text = SourceBoard().render()
    assert "(0 sources)" in text and EMPTY_SOURCES in text and EMPTY_NOTES in text


def test_render_lists_sources_in_order_with_dates_and_notes() -> None:
    board = SourceBoard()
    board.add("a", "Fed minutes", date(2025, 10, 1), "says cuts likely", url="https://fed")
    board.add_document(Document("b", "Market at 42%", "", datetime(2025, 10, 16, 23, tzinfo=UTC)), "market prior")
    board.add("c", "Undated blog", None, "weak")
    board.edit_note("  base rate 40%; market 42%  ")
    text = board.render()
    assert text.index("[1] Fed minutes (2025-10-01) id=a") < text.index("[2] Market at 42% (2025-10-16) id=b")
    assert "[3] Undated blog (undated) id=c" in text
    assert "url: https://fed" in text and "why: says cuts likely" in text
    assert text.endswith("## Notes\nbase rate 40%; market 42%")


def test_re_adding_replaces_in_place_and_remove() -> None:
    board = SourceBoard()
    board.add("a", "A", None, "first")
    board.add("b", "B", None, "b")
    board.add("a", "A", None, "better reason")
    assert [s.id for s in board.sources] == ["a", "b"] and board.sources[0].why == "better reason"
    board.remove("a")
    assert "a" not in board and len(board) == 1
    with pytest.raises(KeyError):
        board.remove("a")


def test_dict_roundtrip_through_json() -> None:
    board = SourceBoard()
    board.add("a", "A", datetime(2025, 1, 2, 3, tzinfo=UTC), "why", "https://a")
    board.edit_note("note")
    restored = SourceBoard.from_dict(json.loads(json.dumps(board.to_dict())))
    assert restored == board and restored.render() == board.render()
