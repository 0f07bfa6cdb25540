from orrery.agent.loop import Agent, AgentConfig, RunResult, StopRun, Validator
from orrery.agent.planner import PlanAgent, PlanResult
from orrery.agent.router import RouterAgent, RouterConfig, RouterResult

__all__ = [
    "Agent",
    "AgentConfig",
    "PlanAgent",
    "PlanResult",
    "RouterAgent",
    "RouterConfig",
    "RouterResult",
    "RunResult",
    "StopRun",
    "Validator",
]
