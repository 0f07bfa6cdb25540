"""Round 59 (bench/bi_r59.md): `BIAgent(candidates=N)` writes the query up to N ways (the parts with the drafted
shots, the parts with the other shots, the SQL over the DDL), runs each, and keeps the result most agree on; a tie,
a failed candidate or one that found nothing leaves the first (today's) query; N=1 costs no extra model call."""

from __future__ import annotations

from orrery.bi.agent import BIAgent
from orrery.bi.semantic import load
from orrery.bi.tools import BIContext, agreed_query
from orrery.bi.vote import agreed, result_of
from orrery.llm.scripted import ScriptedModel

PLAN = {"request": "Count the nations", "kind": "query", "values": [], "fields": []}
ASK = "How many nations are there?"
WRONG = {
    "select": ["count(DISTINCT nation.n_regionkey)"],
    "where": [],
    "group_by": [],
    "having": [],
    "order_by": [],
    "limit": None,
}  # 5 regions, not 25 nations


def parts(*select: str, where: list[str] = ()) -> dict:
    return {"select": list(select), "where": list(where), "group_by": [], "having": [], "order_by": [], "limit": None}


def ask(engine, tmp_path, turns: list, candidates: int):
    model = ScriptedModel([PLAN, *turns])
    agent = BIAgent(model, engine, store=tmp_path / "s.db", clarify=False, prose=False, candidates=candidates)
    return agent.ask(ASK), model


def test_two_candidates_that_agree_win_over_the_first(tpch, tmp_path):
    first = WRONG  # 5
    answer, model = ask(tpch, tmp_path, [first, parts("count(*)"), {"sql": "SELECT count(*) FROM nation"}], 3)
    assert answer.status == "completed" and answer.rows == [[25]], answer
    assert len(model.requests) == 4  # the plan and three candidates
    assert '"agreement": "2 of 3 candidates"' in next(t for t in answer.todos if t["key"] == "build_query")["result"]


def test_a_tie_keeps_the_first(tpch, tmp_path):
    first = WRONG
    others = [parts("max(nation.n_nationkey)"), {"sql": "SELECT count(*) FROM nation"}]
    answer, _ = ask(tpch, tmp_path, [first, *others], 3)
    assert answer.status == "completed" and answer.rows == [[5]]


def test_candidates_that_found_nothing_have_no_vote(tpch):
    bi = BIContext(tpch, load("tpch", tpch), ScriptedModel([]))
    nothing = {"sql": "SELECT n_name FROM nation WHERE n_name = 'ATLANTIS'"}
    first = {"sql": "SELECT count(DISTINCT n_regionkey) FROM nation"}
    assert agreed_query(bi, first, [nothing, dict(nothing)])["sql"] == first["sql"]


def test_failed_candidates_never_win_nor_decline(tpch, tmp_path):
    # the second declines (no columns), the third fails twice: the first stands, the question is answered
    failing = [parts(), {"sql": "SELECT count(*) FROM nowhere"}, {"sql": "SELECT count(*) FROM nowhere"}]
    answer, model = ask(tpch, tmp_path, [WRONG, *failing], 3)
    assert answer.status == "completed" and answer.rows == [[5]] and len(model.requests) == 5, answer


def test_one_candidate_makes_no_extra_model_call(tpch, tmp_path):
    answer, model = ask(tpch, tmp_path, [WRONG], 1)
    assert answer.status == "completed" and answer.rows == [[5]] and len(model.requests) == 2


def test_results_agree_whatever_the_column_order_and_rounding():
    a = result_of([("GERMANY", 1.0000001), ("FRANCE", 2.5)])
    assert a == result_of([(2.5, "FRANCE"), (1.0, "GERMANY")]) and a != result_of([("GERMANY", 1.0)])
    assert result_of([]) is None
    assert agreed([a, None, None]) == 0 and agreed([None, a, a]) == 1 and agreed([a, a, None]) == 0
