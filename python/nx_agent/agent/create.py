"""``create_agent_tools`` and ``evaluate_http_arguments`` (agent-package §5.1, §5.8).

Creation reads the limits, refuses an executor for one of the package's own kinds, runs the
definition checks of §4 (:mod:`nx_agent.agent.check`) and adds its own (a request function for
``http`` tools, an executor for each host kind); with any problem it raises
:class:`~nx_agent.agent.diagnostics.NxAgentError` holding all of them, and returns no tools.

Written in :mod:`nx_agent.agent.load`, the run-time half of the agent layer in one module (a
serverless cold start imports one module for the four), and given here under the names it always had.
"""

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from ..errors import AgentExecutorError

from .. import _lazy_names as lazy_names
from .load import EvaluateHttpArgumentsResult, create_agent_tools, evaluate_http_arguments

__all__ = ["AgentExecutorError", "EvaluateHttpArgumentsResult", "create_agent_tools", "evaluate_http_arguments"]

# AgentExecutorError is made by nx_agent.errors, loaded with the first refusal (nx_agent._lazy_names).
__getattr__, __dir__ = lazy_names(__name__, globals(), {"nx_agent.errors": ("AgentExecutorError",)})
