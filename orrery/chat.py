"""The generic agent as an app: a calculator and a fact lookup behind the plain loop."""

from __future__ import annotations

from typing import Any

from orrery.apps import App


def chat_agent(llm: Any = None, **config: Any) -> Any:
    """An `Agent` with the built-in tools; `llm` is a Model or a spec for `resolve_model`."""
    from orrery.agent.loop import Agent, AgentConfig
    from orrery.llm import resolve_model
    from orrery.tools.builtin import DEFAULT_TOOLS

    model = llm if hasattr(llm, "complete") else resolve_model(llm)
    return Agent(model, DEFAULT_TOOLS, AgentConfig(**config), tools_ref="orrery.tools.builtin:DEFAULT_TOOLS")


APP = App(
    name="chat",
    description="The generic agent: a safe calculator and a small fact store, in a ReAct or native tool loop.",
    agent="orrery.chat:chat_agent",
    inputs={"message": "a question"},
)
