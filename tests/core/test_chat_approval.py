"""`orrery chat --ask TOOL`: a call of that tool waits for y/n at the terminal; no answer is no."""

from __future__ import annotations

import io
import sys

import pytest

import orrery.llm
from orrery.cli import main
from orrery.llm.scripted import ScriptedModel, call, turn


@pytest.fixture
def chat(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)

    def run(stdin: str, *args: str) -> tuple[int, ScriptedModel, str]:
        model = ScriptedModel([turn(call("calculate", expression="2+2")), "2 + 2 = 4"])
        monkeypatch.setattr(orrery.llm, "resolve_model", lambda spec: model)
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        monkeypatch.setattr(sys, "argv", ["orrery", "chat", "-m", "What is 2+2?", *args])
        with pytest.raises(SystemExit) as exc:
            main()
            raise SystemExit(0)
        out = capsys.readouterr()
        return int(exc.value.code or 0), model, out.out + out.err

    return run


def test_yes_runs_the_call(chat):
    code, model, out = chat("y\n", "--ask", "calculate")
    assert code == 0 and "Run calculate" in out and "Approval needed" in out and "Approved: calculate" in out
    assert model.requests[1]["messages"][-1].content == "4"


@pytest.mark.parametrize("answer", ["n\n", ""])  # "": end of input
def test_no_or_no_answer_denies_it(chat, answer):
    code, model, _ = chat(answer, "--ask", "calculate")
    assert code == 0 and model.requests[1]["messages"][-1].content.startswith("Denied:")


def test_without_ask_nothing_is_asked(chat):
    code, model, out = chat(
        "",
    )
    assert code == 0 and "Run calculate" not in out and model.requests[1]["messages"][-1].content == "4"


def test_asking_for_an_unknown_tool_is_one_line(chat):
    code, _, out = chat("", "--ask", "rm")
    assert code == 2 and "--ask 'rm': no such tool; the tools are calculate, get_fact, search" in out


def test_the_shared_tool_is_left_as_it_is(chat):
    from orrery.tools.builtin import calculate

    chat("y\n", "--ask", "calculate")
    assert calculate.requires_approval is False
