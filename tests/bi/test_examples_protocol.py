"""The measuring protocol of the approved-examples benchmark (bench/bi_memory_primed.py): the embedded model with no
memory of prompt states, primed before every call, so a reply is a function of its request; a request the memory
left unchanged replays the empty condition's reply."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from orrery.llm.local import LocalModel
from orrery.messages import Message, ToolCall, ToolSpec

# loaded by its path: bench/ on sys.path would shadow packages by its scripts' names (bench/mcp.py is not `mcp`)
_SPEC = importlib.util.spec_from_file_location(
    "bi_memory_primed", Path(__file__).parents[2] / "bench" / "bi_memory_primed.py"
)
_PRIMED = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_PRIMED)
PRIME, Primed, request_key = _PRIMED.PRIME, _PRIMED.Primed, _PRIMED.request_key

CALC = ToolSpec("calculate", "Evaluate an arithmetic expression.", {"type": "object", "properties": {}})


def test_the_memory_of_prompt_states_is_set_only_when_asked(monkeypatch, tmp_path):
    import xllamacpp

    made = []
    monkeypatch.setattr(xllamacpp, "Server", lambda params: made.append(params) or object())
    default = xllamacpp.CommonParams().cache_ram_mib
    for kwargs in ({}, {"cache_ram_mib": 0}):
        LocalModel(tmp_path / "m.gguf", layout="json", **kwargs).load()
    assert [p.cache_ram_mib for p in made] == [default, 0]


def _fake(monkeypatch, model, replies):
    """`model`'s llama.cpp answering `replies` in turn (the priming request answers '.'); returns the requests."""
    monkeypatch.setattr(model, "_load_locked", lambda: None)
    requests = []

    def chat(request):
        requests.append(request)
        return {"choices": [{"message": {"content": "."}}]}

    def chunks(request):
        requests.append(request)
        yield {"choices": [{"delta": {"content": replies.pop(0)}}], "timings": {"prompt_n": 10, "predicted_n": 3}}

    monkeypatch.setattr(model, "chat", chat)
    monkeypatch.setattr(model, "chunks", chunks)
    return requests


def test_every_decoded_call_is_primed_and_a_same_request_is_replayed(monkeypatch):
    model = Primed()
    requests = _fake(monkeypatch, model, ["four", "five"])
    ask = [Message("user", "2+2?")]
    first = list(model.stream(ask))[-1].response
    again = list(model.stream([Message("user", "2+2?")]))[-1].response
    other = list(model.stream([Message("user", "2+3?")]))[-1].response
    assert (first.content, again.content, other.content) == ("four", "four", "five")
    assert requests[0] is PRIME and requests[2] is PRIME and len(requests) == 4  # the replay asked nothing
    assert (model.calls, model.replays) == (3, 1) and model.replayed_s >= 0
    model.forget()
    requests = _fake(monkeypatch, model, ["four"])
    list(model.stream(ask))
    assert model.replays == 1 and len(requests) == 2  # forgotten between questions: primed and decoded again


def test_a_replayed_reply_is_a_copy(monkeypatch):
    model = Primed()
    _fake(monkeypatch, model, ['{"sql": "SELECT 1"}'])
    got = list(model.stream([Message("user", "q")]))[-1].response
    got.content = "changed by the caller"
    assert list(model.stream([Message("user", "q")]))[-1].response.content == '{"sql": "SELECT 1"}'


def test_no_memo_decodes_every_call(monkeypatch):
    model = Primed(memo=False)
    requests = _fake(monkeypatch, model, ["a", "b"])
    replies = [list(model.stream([Message("user", "q")]))[-1].response.content for _ in range(2)]
    assert replies == ["a", "b"] and len(requests) == 4 and model.replays == 0


def test_the_request_key_is_what_the_model_is_shown():
    def asked(call_id, content="6", tools=(CALC,), **rest):
        call = ToolCall(call_id, "calculate", {"expression": "2*3"})
        msgs = [
            Message("user", "2*3?"),
            Message("assistant", "", [call]),
            Message("tool", content, tool_call_id=call_id),
        ]
        return request_key(msgs, list(tools), **{"tool_choice": "auto", "schema": None, "max_tokens": None} | rest)

    assert asked("call_a") == asked("call_b")  # the random call ids are not shown
    assert len({asked("call_a"), asked("call_a", "7"), asked("call_a", tools=()), asked("call_a", max_tokens=9)}) == 4
    assert asked("call_a", catalogue=[CALC]) != asked("call_a")


@pytest.mark.integration
def test_a_primed_call_answers_one_request_the_same_whatever_came_before():
    model = Primed(memo=False, max_tokens=24)
    ask = [Message("system", "Answer in one short sentence."), Message("user", "Name a colour of the sky.")]
    first = list(model.stream(ask))[-1].response.content
    list(model.stream([Message("user", "Write the numbers from one to ten in words.")]))
    assert list(model.stream(ask))[-1].response.content == first
    assert model.last_timings.get("cache_n", 0) < 16  # processed anew after the priming request, not restored
