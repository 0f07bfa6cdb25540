"""The research agent with scripted models: one action per step, the pinned board, the sliding
window, the date bound through the tools, submit's checks, limits and replay."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from research_fakes import EPOCH, VOCAB, random_corpus

from orrery.llm.scripted import ScriptedModel, call, turn
from orrery.memory import SlidingWindow
from orrery.messages import Message
from orrery.research.agent import ResearchAgent, ResearchResult, search_queries, sliding_window
from orrery.research.board import EMPTY_SOURCES
from orrery.research.runner import replay_trajectory
from orrery.research.search import SqliteIndex
from orrery.research.types import Document

BOUND = "2024-06-01"
DOCS = [
    Document(
        "poll-march",
        "Election poll: Alice leads",
        "Alice leads Bob by 8 points in the election poll.",
        datetime(2024, 3, 1, tzinfo=UTC),
    ),
    Document(
        "debate-may",
        "Election debate recap",
        "Bob did well in the election debate; the poll gap narrows.",
        datetime(2024, 5, 20, tzinfo=UTC),
    ),
    Document(
        "result-nov",
        "Election result: Alice wins",
        "Alice won the election with 54 percent.",
        datetime(2024, 11, 6, tzinfo=UTC),
    ),
    Document(
        "exit-poll",
        "Exit poll election Alice",
        "Exit poll: Alice ahead in the election.",
        datetime(2024, 6, 1, 0, 0, 1, tzinfo=UTC),
    ),  # one second after the bound
    Document("undated-blog", "Election musings", "Who will win the election? Alice or Bob.", None),
]
LATE = {"result-nov", "exit-poll", "undated-blog"}
QUESTION = "Will Alice win the 2024 election?"


@pytest.fixture
def index(tmp_path: Path) -> SqliteIndex:
    return SqliteIndex.create(tmp_path / "index.sqlite", DOCS)


def agent_with(turns: list, index: SqliteIndex, **kwargs) -> tuple[ResearchAgent, ScriptedModel]:
    """The loop alone (one trial), unless the test asks for more."""
    model = ScriptedModel(turns)
    return ResearchAgent(model, index, **{"trials": 1, **kwargs}), model


def submit_script() -> list:
    return [
        turn(call("search", query="election poll")),
        turn(call("add_source", id="poll-march", why="Alice leads by 8")),
        turn(call("submit", probability=0.7, rationale="Alice leads the poll [1].")),
    ]


def tool_messages(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.role == "tool"]


def test_submit_ends_the_run_with_a_typed_result(index) -> None:
    agent, model = agent_with(submit_script(), index)
    result = agent.run(QUESTION, before=BOUND, question_id="q1")
    assert isinstance(result, ResearchResult)
    assert (result.status, result.probability, result.question_id) == ("completed", 0.7, "q1")
    assert result.rationale == "Alice leads the poll [1]."
    assert [s.id for s in result.sources] == ["poll-march"]
    assert result.steps == 3 == len(model.requests)
    assert result.usage.total == 3 * 15
    assert result.before == "2024-06-01T00:00:00+00:00"
    kinds = [e["kind"] for e in result.trajectory.events]
    assert kinds[0] == "run_start" and kinds[-1] == "final" and kinds.count("model_reply") == 3
    assert json.loads(json.dumps(result.to_dict()))["probability"] == 0.7


def test_one_action_per_step(index) -> None:
    agent, model = agent_with(
        [turn(call("search", query="election poll"), call("search", query="alice")), *submit_script()[1:]], index
    )
    result = agent.run(QUESTION, before=BOUND)
    first, second = tool_messages(model.requests[1]["messages"])
    assert "id=poll-march" in first.content
    assert second.content.startswith("Error: only 1 tool call per step")
    assert result.steps == len(model.requests) == 3
    assert agent.agent.current_run.ctx.deps.queries == ["election poll"]


def test_board_is_pinned_at_index_2_and_refreshed(index) -> None:
    agent, model = agent_with(submit_script(), index)
    agent.run(QUESTION, before=BOUND)
    boards = [r["messages"][2] for r in model.requests]
    assert all(b.pinned and b.content.startswith("# Source board") for b in boards)
    assert EMPTY_SOURCES in boards[0].content and EMPTY_SOURCES in boards[1].content
    assert "id=poll-march" in boards[2].content and "why: Alice leads by 8" in boards[2].content
    for r in model.requests:  # exactly one board per request, never stored in history
        assert sum(m.content.startswith("# Source board") for m in r["messages"]) == 1
    assert not any(m.pinned for m in agent.agent.current_run.memory.messages)


def test_edit_note_shows_on_the_next_board(index) -> None:
    agent, model = agent_with([turn(call("edit_note", text="Alice +8 in March")), *submit_script()], index)
    agent.run(QUESTION, before=BOUND)
    assert "## Notes\nAlice +8 in March" in model.requests[1]["messages"][2].content


def test_truncation_notice_keeps_the_query_history(index) -> None:
    queries = [f"election poll {w}" for w in VOCAB]
    agent, model = agent_with(
        [turn(call("search", query=q)) for q in queries] + submit_script(),
        index,
        context=sliding_window(max_tokens=400, max_messages=6),
        max_rounds=20,
    )
    result = agent.run(QUESTION, before=BOUND)
    assert result.status == "completed"
    last = model.requests[-1]["messages"]
    assert last[2].pinned  # the board goes in after the window
    notice = next(m for m in last if m.content.startswith("[Context truncated"))
    for q in queries:
        assert f'search("{q}")' in notice.content
    assert len(last) < 2 * len(queries)


@pytest.mark.parametrize("budget", range(150, 700, 50))
def test_window_never_splits_a_multi_call_turn_from_its_results(index, budget: int) -> None:
    pairs = [turn(call("search", query=f"election {w}"), call("edit_note", text=w * 20)) for w in VOCAB]
    agent, model = agent_with(pairs + submit_script(), index, context=sliding_window(budget, 40), max_rounds=20)
    agent.run(QUESTION, before=BOUND)
    for r in model.requests:
        msgs = r["messages"]
        for i, m in enumerate(msgs):
            if m.role == "tool":
                owners = [a for a in msgs[:i] if any(c.id == m.tool_call_id for c in a.tool_calls)]
                assert owners, f"tool result {m.name} lost its assistant turn (budget {budget})"
            for c in m.tool_calls:
                assert any(t.tool_call_id == c.id for t in msgs[i + 1 :]), "assistant turn lost a result"


def test_search_queries_describe_only_searches() -> None:
    m = Message("assistant", tool_calls=[call("search", query="a b"), call("edit_note", text="x")])
    assert search_queries(m) == ['search("a b")']
    assert isinstance(sliding_window(), SlidingWindow)


# --------------------------------------------------------------------------- the date bound


def returned_ids(messages: list[Message]) -> set[str]:
    return {i for m in tool_messages(messages) for i in re.findall(r"id=(\S+)", m.content)}


def test_date_bound_holds_through_the_agent_even_when_the_model_asks(index) -> None:
    turns = [
        turn(call("search", query="election result Alice wins")),
        turn(call("search", query="exit poll", before="2030-01-01")),  # not a parameter: refused
        turn(call("search", query="election musings")),
        turn(call("add_source", id="result-nov", why="I know it exists")),  # never seen: refused
        turn(call("search", query="election debate poll")),
        turn(call("add_source", id="debate-may", why="gap narrows")),
        turn(call("submit", probability=0.6, rationale="[1]")),
    ]
    agent, model = agent_with(turns, index)
    result = agent.run(QUESTION, before=BOUND)
    seen = returned_ids(model.requests[-1]["messages"])
    assert seen and not seen & LATE
    assert "invalid arguments for 'search'" in tool_messages(model.requests[2]["messages"])[-1].content
    assert "unknown id 'result-nov'" in tool_messages(model.requests[4]["messages"])[-1].content
    assert [s.id for s in result.sources] == ["debate-may"]
    assert result.trajectory.events[0]["options"] == {"before": "2024-06-01T00:00:00+00:00"}


def test_without_a_bound_the_run_is_bound_to_now(index) -> None:
    agent, model = agent_with([turn(call("search", query="election result Alice wins musings")), "done", "done"], index)
    result = agent.run(QUESTION)
    found = tool_messages(model.requests[1]["messages"])[0].content
    assert "id=result-nov" in found and "undated-blog" not in found  # past documents, but never undated ones
    assert datetime.fromisoformat(result.before) <= datetime.now(UTC)
    assert f"Today is {result.before[:10]}" in model.requests[0]["messages"][1].content


def test_random_bounds_never_leak_through_the_search_tool(make_local) -> None:
    rng = random.Random(7)
    docs = random_corpus(rng, 200)
    by_id = {d.id: d for d in docs}
    backend = make_local(docs)
    for _ in range(15):
        bound = EPOCH + timedelta(seconds=rng.randint(0, 2 * 365 * 86400))
        queries = [" ".join(rng.sample(VOCAB, 2)) for _ in range(4)]
        model = ScriptedModel([turn(call("search", query=q)) for q in queries] + ["done", "done"])
        ResearchAgent(model, backend, k=20).run(QUESTION, before=bound)
        ids = returned_ids(model.requests[-1]["messages"])
        assert ids, "the queries should find something"
        for i in ids:
            assert by_id[i].date is not None and by_id[i].date <= bound


def test_question_row_freeze_date_is_the_default_bound(index) -> None:
    row = {"id": "q9", "question": QUESTION, "freeze_date": BOUND, "background": "A two-way race."}
    agent, model = agent_with([turn(call("search", query="election result Alice wins")), "x", "x"], index)
    result = agent.run(row)
    assert result.question_id == "q9" and result.before.startswith(BOUND)
    assert not returned_ids(model.requests[-1]["messages"]) & LATE
    prompt = model.requests[0]["messages"][1].content
    assert "A two-way race." in prompt and f"Today is {BOUND}" in prompt


# --------------------------------------------------------------------------- submit


def test_submit_is_offered_only_once_a_source_is_on_the_board(index) -> None:
    agent, model = agent_with([turn(call("submit", probability=0.5, rationale="[1]")), *submit_script()], index)
    agent.run(QUESTION, before=BOUND)
    assert model.requests[0]["tools"] == ["search", "edit_note"]
    assert "'submit' is not available yet" in tool_messages(model.requests[1]["messages"])[0].content
    assert model.requests[2]["tools"] == ["search", "add_source", "edit_note"]
    assert model.requests[3]["tools"] == ["search", "add_source", "edit_note", "submit"]


@pytest.mark.parametrize(
    ("probability", "rationale", "error"),
    [
        (1.5, "[1]", "probability must be between 0 and 1"),
        (-0.1, "[1]", "probability must be between 0 and 1"),
        (0.5, "Polls say so.", "cites no source on the board"),
        (0.5, "See [2].", "cites no source on the board"),
    ],
)
def test_submit_refuses_bad_forecasts(index, probability: float, rationale: str, error: str) -> None:
    script = submit_script()
    agent, model = agent_with(
        [*script[:2], turn(call("submit", probability=probability, rationale=rationale)), script[2]], index
    )
    result = agent.run(QUESTION, before=BOUND)
    refusal = tool_messages(model.requests[3]["messages"])[-1].content
    assert refusal.startswith("Error:") and error in refusal
    assert (result.status, result.probability, result.steps) == ("completed", 0.7, 4)


def test_rationale_may_cite_a_source_by_id(index) -> None:
    script = submit_script()
    agent, _ = agent_with([*script[:2], turn(call("submit", probability=0.4, rationale="per poll-march"))], index)
    assert agent.run(QUESTION, before=BOUND).probability == 0.4


def test_a_prose_reply_ends_the_run_without_a_forecast(index) -> None:
    agent, model = agent_with(["I think 70%.", "Still 70%."], index)
    result = agent.run(QUESTION, before=BOUND)
    assert (result.status, result.probability, result.steps, len(model.requests)) == ("invalid", None, 1, 1)
    assert model.requests[0]["tool_choice"] == "required"
    assert "You did not submit" in result.errors[0]


# --------------------------------------------------------------------------- limits and replay


def test_step_limit_is_a_clean_status(index) -> None:
    agent, model = agent_with([turn(call("search", query=f"election {w}")) for w in VOCAB], index, max_rounds=4)
    result = agent.run(QUESTION, before=BOUND)
    assert (result.status, result.steps, len(model.requests), result.probability) == ("max_rounds", 4, 4, None)


def test_token_limit_is_a_clean_status(index) -> None:
    agent, _ = agent_with([turn(call("search", query=f"election {w}")) for w in VOCAB], index, max_tokens=40)
    result = agent.run(QUESTION, before=BOUND)
    assert (result.status, result.steps) == ("max_tokens", 3)


def test_a_saved_trajectory_replays_to_the_same_forecast(index, tmp_path: Path) -> None:
    agent, _ = agent_with(submit_script(), index, trace=tmp_path / "run.trace.jsonl")
    result = agent.run({"id": "q1", "question": QUESTION}, before=BOUND)
    saved = json.loads(json.dumps(result.to_dict()))
    again = replay_trajectory(saved, index)
    assert (again.probability, [s.id for s in again.sources]) == (0.7, ["poll-march"])
    assert [m.to_dict() for m in map(Message.from_dict, saved["trajectory"]["messages"])] == saved["trajectory"][
        "messages"
    ]
    trace = [json.loads(line) for line in (tmp_path / "run.trace.jsonl").read_text().splitlines()]
    assert [e["kind"] for e in trace] == [e["kind"] for e in saved["trajectory"]["events"]]
    assert ResearchResult.from_dict(saved).sources == result.sources


def test_guided_mode_narrows_the_tools_so_a_small_model_makes_progress(index) -> None:
    script = [
        turn(call("search", query="election poll")),
        turn(call("add_source", id="poll-march", why="Alice leads")),
        turn(call("edit_note", text="Alice +8")),
        turn(call("search", query="election debate")),
        turn(call("add_source", id="debate-may", why="gap narrows")),
        turn(call("submit", probability=0.6, rationale="[1] [2]")),
    ]
    agent, model = agent_with(script, index, guided=True, max_sources=2)
    result = agent.run(QUESTION, before=BOUND)
    assert [r["tools"] for r in model.requests] == [
        ["search", "edit_note"],
        ["add_source"],  # a search found documents: pick one before searching again
        ["search", "add_source", "edit_note", "submit"],
        ["search", "add_source", "submit"],  # never two notes in a row
        ["add_source", "submit"],
        ["edit_note", "submit"],  # the board is full
    ]
    assert result.status == "completed"


def test_a_repeated_search_is_run_again_with_a_hint(index) -> None:
    agent, model = agent_with(
        [
            turn(call("search", query="election poll")),
            turn(call("search", query="Election Poll")),
            *submit_script()[1:],
        ],
        index,
    )
    result = agent.run(QUESTION, before=BOUND)
    assert tool_messages(model.requests[2]["messages"])[-1].content.startswith("You already ran this search")
    assert model.requests[2]["tools"]  # the core's answer-on-repeat is off: the tools stay offered
    assert result.status == "completed"


def test_add_source_offers_only_ids_the_searches_returned(index) -> None:
    agent, model = agent_with(submit_script(), index)
    agent.run(QUESTION, before=BOUND)
    ctx = agent.agent.current_run.ctx
    spec = next(t for t in agent.agent.tools.specs(ctx) if t.name == "add_source")
    assert spec.parameters["properties"]["id"]["enum"] == ["debate-may"]  # poll-march is on the board


def test_add_source_is_offered_only_while_a_result_is_not_on_the_board(index) -> None:
    script = [
        turn(call("search", query="zebra unicorn")),
        turn(call("search", query="election poll")),
        turn(call("add_source", id="poll-march", why="Alice leads by 8")),
        turn(call("submit", probability=0.7, rationale="Alice leads the poll [1].")),
    ]
    agent, model = agent_with(script, index)
    agent.run(QUESTION, before=BOUND)
    assert "add_source" not in model.requests[1]["tools"]  # the first search found nothing
    assert "add_source" in model.requests[2]["tools"]


def test_guided_mode_breaks_a_repeated_search(index) -> None:
    script = [
        turn(call("search", query="zebra")),
        turn(call("search", query="zebra")),
        turn(call("edit_note", text="Nothing on zebras.")),
        turn(call("search", query="election poll")),
        turn(call("add_source", id="poll-march", why="Alice leads by 8")),
        turn(call("submit", probability=0.7, rationale="Alice leads the poll [1].")),
    ]
    agent, model = agent_with(script, index, guided=True)
    result = agent.run(QUESTION, before=BOUND)
    assert "search" in model.requests[1]["tools"] and "search" not in model.requests[2]["tools"]
    assert "edit_note" in model.requests[2]["tools"] and "search" in model.requests[3]["tools"]
    assert result.probability == 0.7


def test_a_rationale_quoting_a_number_no_source_holds_is_rewritten_once(index) -> None:
    script = submit_script()[:2] + [
        turn(call("submit", probability=0.7, rationale="The market gives 23% [1].")),  # nowhere on the board
        turn(call("submit", probability=0.7, rationale="Alice leads by 8 points [1], so 70% in 2024.")),
    ]
    agent, model = agent_with(script, index)
    result = agent.run(QUESTION, before=BOUND)
    refusal = tool_messages(model.requests[3]["messages"])[-1].content
    assert "23%" in refusal and "Submit again" in refusal
    assert result.status == "completed" and result.ungrounded == []  # 8 from the source, 70% the forecast, 2024 asked


def test_a_second_ungrounded_rationale_stands_and_its_numbers_are_reported(index) -> None:
    bad = turn(call("submit", probability=0.6, rationale="Polls show 61 percent [1]."))
    agent, _ = agent_with(submit_script()[:2] + [bad, bad], index)
    result = agent.run(QUESTION, before=BOUND)
    assert (result.status, result.probability, result.ungrounded) == ("completed", 0.6, ["61"])


def test_stream_yields_the_steps_and_ends_with_the_research_result(index) -> None:
    agent, _ = agent_with(submit_script(), index)
    events = list(agent.stream(QUESTION, before=BOUND))
    assert events[0].kind == "run_start" and [e.kind for e in events].count("final") == 1
    assert any(e.kind == "state" and e.name == "board" and "poll-march" in e.value for e in events)
    assert isinstance(events[-1].result, ResearchResult) and events[-1].result.probability == 0.7
