from orrery.memory import Memory, SlidingWindow, estimate_tokens
from orrery.messages import Message, ToolCall


def multi_call_turn(i: int) -> list[Message]:
    calls = [ToolCall(f"{i}a", "search", {"query": f"q{i}a"}), ToolCall(f"{i}b", "search", {"query": f"q{i}b"})]
    return [
        Message("assistant", "", calls),
        Message("tool", "r" * 200, tool_call_id=f"{i}a"),
        Message("tool", "r" * 200, tool_call_id=f"{i}b"),
    ]


def conversation(turns: int) -> list[Message]:
    msgs = [Message("system", "sys"), Message("user", "task")]
    for i in range(turns):
        msgs += multi_call_turn(i)
    return msgs


def assert_no_orphans(msgs):
    for i, m in enumerate(msgs):
        if m.role == "tool":
            owner = next(p for p in reversed(msgs[:i]) if p.role != "tool")
            assert owner.role == "assistant" and any(c.id == m.tool_call_id for c in owner.tool_calls)


def test_short_term_memory_is_bounded_and_keeps_the_first_messages():
    mem = Memory(max_history=8)
    mem.add(*conversation(10))
    assert len(mem.messages) <= 8
    assert [m.content for m in mem.messages[:2]] == ["sys", "task"]
    assert_no_orphans(mem.messages)


def test_sliding_window_truncates_with_a_notice_that_keeps_query_history():
    msgs = conversation(30)
    out = SlidingWindow(max_tokens=600, max_messages=100)(msgs)
    assert out[:2] == msgs[:2]
    notice = out[2]
    assert notice.role == "user" and "Context truncated" in notice.content
    assert 'search({"query": "q0a"})' in notice.content and "q29b" in notice.content
    assert estimate_tokens(out) < estimate_tokens(msgs)
    assert out[-1] is msgs[-1]


def test_window_never_separates_a_multi_call_turn_from_its_results():
    msgs = conversation(12)
    for limit in range(5, 40):
        out = SlidingWindow(max_tokens=10_000, max_messages=limit)(msgs)
        assert_no_orphans(out)
        assert len(out) < len(msgs) or limit >= 36


def test_window_leaves_short_conversations_alone():
    msgs = conversation(2)
    assert SlidingWindow()(msgs) == msgs


def test_context_overflow_of_a_single_huge_message_still_returns_the_frame():
    msgs = [Message("system", "sys"), Message("user", "task"), Message("user", "x" * 100_000)]
    out = SlidingWindow(max_tokens=1000)(msgs)
    assert out[0].content == "sys" and "truncated" in out[2].content and len(out) == 3
