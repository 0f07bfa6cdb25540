"""The BI agent with the real embedded model (Qwen2.5-Coder-0.5B through llama.cpp): a question over
Chinook answered with grammar-constrained plans and query parts, and a question the data cannot answer."""

from __future__ import annotations

import pytest

from orrery.bi.agent import BIAgent
from orrery.llm import resolve_model

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def local():
    return resolve_model("local")


def test_embedded_model_answers_a_chinook_question(local, chinook, tmp_path):
    agent = BIAgent(local, chinook, store=tmp_path / "s.db", clarify=False, prose=False)
    r = agent.ask("How many tracks are in the Blues genre?")
    assert r.status == "completed", r.answer
    assert r.rows == [[81]] and "JOIN Genre" in r.sql and r.sql.endswith("LIMIT 1000")
    assert [t["key"] for t in r.todos][-2:] == ["build_query", "execute_query"]
    assert agent.bi_memory[-1].query_metadata["query"] == r.sql


def test_embedded_model_declines_what_the_data_cannot_answer(local, chinook, tmp_path):
    agent = BIAgent(local, chinook, store=tmp_path / "s.db", clarify=False, prose=False)
    r = agent.ask("What is the favourite colour of each customer?")
    assert r.status == "declined" and r.sql is None, (r.status, r.sql, r.answer)
