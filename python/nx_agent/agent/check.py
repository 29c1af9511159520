"""``check_agent_tools``: whether a stored definition can run with a linked program (§4).

``definition_problems`` and ``tool_shape_problem`` are the same checks in the form
``create_agent_tools`` builds on: it adds its own (missing executor, missing request function) for
the tools not marked damaged.

Written in :mod:`nx_agent.agent.load`, the run-time half of the agent layer in one module (a
serverless cold start imports one module for the four), and given here under the names it always had.
"""

from .load import (
    SUPPORTED_FORMAT_VERSIONS,
    DefinitionProblems,
    check_agent_tools,
    definition_problems,
    tool_shape_problem,
)

__all__ = ["DefinitionProblems", "SUPPORTED_FORMAT_VERSIONS", "check_agent_tools", "definition_problems", "tool_shape_problem"]
