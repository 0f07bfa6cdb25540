"""orrery: LLM agents that call tools in a loop, plan, check their own work and forecast.

Names load on first use (PEP 562), so a consumer of events (`orrery.trace`, `orrery.console`) or the CLI
does not import the agent package or any provider.
"""

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "Agent": "orrery.agent.loop",
    "AgentConfig": "orrery.agent.loop",
    "RunResult": "orrery.agent.loop",
    "Validator": "orrery.agent.loop",
    "PendingApproval": "orrery.agent.loop",
    "PlanAgent": "orrery.agent.planner",
    "RouterAgent": "orrery.agent.router",
    "Event": "orrery.events",
    "Status": "orrery.events",
    "ConfigError": "orrery.errors",
    "DataError": "orrery.errors",
    "ModelError": "orrery.errors",
    "OrreryError": "orrery.errors",
    "ToolError": "orrery.errors",
    "Model": "orrery.llm",
    "ScriptedModel": "orrery.llm",
    "resolve_model": "orrery.llm",
    "Memory": "orrery.memory",
    "SlidingWindow": "orrery.memory",
    "Message": "orrery.messages",
    "ModelResponse": "orrery.messages",
    "ToolCall": "orrery.messages",
    "ToolSpec": "orrery.messages",
    "Usage": "orrery.messages",
    "Session": "orrery.sessions",
    "SessionConflict": "orrery.sessions",
    "open_store": "orrery.sessions",
    "NeedsClarification": "orrery.tools",
    "RunContext": "orrery.tools",
    "Tool": "orrery.tools",
    "Toolset": "orrery.tools",
    "after": "orrery.tools",
    "tool": "orrery.tools",
    "CallLedger": "orrery.tools",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'orrery' has no attribute {name!r}")
    return getattr(import_module(_EXPORTS[name]), name)
