"""The limits a tool call runs under (agent-package §5.2): defaults, how a host's options are read,
and the runtime :class:`~nx_agent.ir.Limits` of one tool's function.

Every call gets the whole budget; a host raises or lowers the limits, and can turn none off: each
given value must be a non-negative safe integer (``0 ≤ n ≤ 2**53 − 1``).

Written in :mod:`nx_agent.agent.load`, the run-time half of the agent layer in one module (a
serverless cold start imports one module for the four), and given here under the names it always had.
"""

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from ..errors import AgentOptionError

from .. import _lazy_names as lazy_names
from .load import (
    NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    NX_AGENT_DEFAULT_MAX_OPERATIONS,
    CallLimits,
    name_cost,
    read_call_limits,
)

__all__ = [
    "AgentOptionError",
    "CallLimits",
    "NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE",
    "NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE",
    "NX_AGENT_DEFAULT_MAX_OPERATIONS",
    "name_cost",
    "read_call_limits",
]

# AgentOptionError is made by nx_agent.errors, loaded with the first refusal (nx_agent._lazy_names).
__getattr__, __dir__ = lazy_names(__name__, globals(), {"nx_agent.errors": ("AgentOptionError",)})
