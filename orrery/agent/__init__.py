from orrery.agent.loop import Agent, AgentConfig, RunResult, Validator

__all__ = ["Agent", "AgentConfig", "RunResult", "Validator"]
