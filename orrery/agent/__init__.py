from orrery.agent.loop import Agent, AgentConfig, RunResult, StopRun, Validator
from orrery.agent.planner import PlanAgent, TurnResult
from orrery.agent.router import RouterAgent, RouterConfig, RouterResult

__all__ = ["Agent", "AgentConfig", "PlanAgent", "RouterAgent", "RouterConfig", "RouterResult", "RunResult", "StopRun",
           "TurnResult", "Validator"]
