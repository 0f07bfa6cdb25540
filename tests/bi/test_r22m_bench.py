"""Round 22's measure reads its population right (bench/bi_memory.py): the corrections are the answerable questions
whose newest stored answer declined for a field, once each, and a stored reason's terms are read back as written."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

# loaded by its path, and sys.path put back after it (the script puts bench/ first): bench/ on sys.path would
# shadow packages by its scripts' names (bench/mcp.py is not `mcp`)
_SPEC = importlib.util.spec_from_file_location("bi_memory", Path(__file__).parents[2] / "bench" / "bi_memory.py")
BENCH = importlib.util.module_from_spec(_SPEC)
_PATH = list(sys.path)
_SPEC.loader.exec_module(BENCH)
sys.path[:] = _PATH

FIELD = "Cannot answer from this data: the data has no field or value for 'clients'"


def row(question: str, gold: str | None, status: str, answer: str, db: str = "c") -> dict:
    return {"set": "s", "db": db, "question": question, "gold": gold, "status": status, "answer": answer, "file": "f"}


def test_a_reasons_terms_are_read_back_as_quoted():
    assert BENCH.declined_terms(FIELD) == ["clients"]
    two = "the data has no field or value for 'kids per woman', \"driver's age\""
    assert BENCH.declined_terms(two) == ["kids per woman", "driver's age"]
    assert BENCH.declined_terms("the data has no field for 'paid' (what 'the best-paid' ranks by)") == ["paid"]
    assert BENCH.declined_terms("the data holds no value 'Games'") == []  # a value, not a field


def test_only_answerable_field_declines_are_corrected_once_each():
    answers = [
        row("How many clients?", "SELECT 1", "declined", FIELD),
        row("how many clients", "SELECT 1", "declined", FIELD),  # the same question again (case, '?'): once
        row("How many porsches?", None, "declined", FIELD),  # unanswerable: a right decline, nothing to correct
        row("How many Games?", "SELECT 2", "declined", "the data holds no value 'Games'"),  # a value decline
        row("How many rows?", "SELECT 3", "completed", "3"),  # answered
        row("How many clients?", "SELECT 1", "declined", FIELD, db="d"),  # another database: its own
    ]
    got = BENCH.field_corrections(answers)
    assert [(p["db"], p["question"], p["sql"]) for p in got] == [
        ("c", "How many clients?", "SELECT 1"),
        ("d", "How many clients?", "SELECT 1"),
    ]
