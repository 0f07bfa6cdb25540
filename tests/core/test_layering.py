"""The ast check that apps compose the core's public hooks (`tests/layering.py`): what it finds, and the core's
own app (`chat`) is clean. The lead runs `python tests/layering.py` for the apps' list."""

import textwrap

from layering import ROOT, app_violations, violations

REACHES = """
from orrery.agent.loop import Agent, _refused
from orrery.agent import loop as core_loop
from orrery.agent.planner import PlanAgent


class Mine(PlanAgent):
    def _handle(self, *a):
        self._remember()
        return super()._execute(*a)

    def _own_helper(self):  # a private name of its own is the app's business
        return self._mine


def build():
    return core_loop._is_json(1), Agent._step
"""

CLEAN = """
from orrery.agent.loop import Agent, AgentConfig
from orrery.agent.planner import PlanAgent


class Mine(PlanAgent):
    def hook(self):
        return self._mine


def build(model):
    return Agent(model, [], AgentConfig(max_rounds=2)).run("q").output
"""


def test_every_kind_of_reach_into_the_core_is_found(tmp_path):
    path = tmp_path / "agent.py"
    path.write_text(textwrap.dedent(REACHES))
    assert set(violations(path)) == {
        "2: imports orrery.agent.loop._refused",
        "8: Mine overrides _handle",
        "9: Mine reaches _remember",
        "10: Mine reaches _execute",
        "17: uses core_loop._is_json",
        "17: uses Agent._step",
    }


def test_code_on_public_names_only_passes(tmp_path):
    toy = tmp_path / "orrery" / "toy"
    toy.mkdir(parents=True)
    (toy / "agent.py").write_text(textwrap.dedent(CLEAN))
    assert violations(toy / "agent.py") == [] and app_violations(tmp_path / "orrery") == {}
    (toy / "bad.py").write_text("from orrery.tools.core import _x\n")
    assert app_violations(tmp_path / "orrery") == {"orrery/toy/bad.py": ["1: imports orrery.tools.core._x"]}


def test_the_core_chat_app_uses_public_names_only():
    assert violations(ROOT / "chat.py") == [] and violations(ROOT / "replay.py") == []


def test_no_app_reaches_a_private_name_of_the_core():
    """Every app (bi, markets, forecast, research, mcp, recall, chat) composes the core's public hooks."""
    from layering import app_files

    scanned = {p.relative_to(ROOT).parts[0] for p in app_files()}
    assert {"bi", "markets", "forecast", "research", "mcp", "recall", "chat.py"} <= scanned
    assert app_violations() == {}
