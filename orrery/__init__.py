"""orrery: LLM agents that call tools in a loop, plan, check their own work and forecast."""

from orrery.agent.loop import Agent, AgentConfig, RunResult, Validator
from orrery.errors import ConfigError, DataError, ModelError, OrreryError, ToolError
from orrery.events import Event
from orrery.llm import Model, ScriptedModel, resolve_model
from orrery.memory import Memory, SlidingWindow
from orrery.messages import Message, ModelResponse, ToolCall, ToolSpec, Usage
from orrery.tools import NeedsClarification, RunContext, Tool, Toolset, after, tool

__version__ = "0.1.0"

__all__ = [
    "Agent", "AgentConfig", "ConfigError", "DataError", "Event", "Memory", "Message", "Model", "ModelError",
    "ModelResponse", "NeedsClarification", "OrreryError", "RunContext", "RunResult", "ScriptedModel",
    "SlidingWindow", "Tool", "ToolCall", "ToolError", "ToolSpec", "Toolset", "Usage", "Validator", "after",
    "resolve_model", "tool",
]
