"""Tools: typed functions whose signature and docstring become a JSON schema.

@tool
def calculate(expression: str) -> str:
    '''Evaluate an arithmetic expression.

    Args:
        expression: e.g. "25 * 4"
    '''
"""

from orrery.tools.core import CallLedger, NeedsClarification, RunContext, Tool, ToolResult, Toolset, after, tool

__all__ = ["CallLedger", "NeedsClarification", "RunContext", "Tool", "ToolResult", "Toolset", "after", "tool"]
