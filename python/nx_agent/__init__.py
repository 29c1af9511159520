"""nx-agent: host the tools of NX agents in Python.

The Rust core (``nx_agent._native``) reads, validates and links NX IR images; ``nx_agent.ir`` is
its public face. Every error the package raises derives from :class:`NxError`.
"""

from ._lazy import lazy_names
from ._native import NxError, NxIrError, __version__  # the classes nx_agent.errors names

# Not ``typing.TYPE_CHECKING``: importing typing costs a cold start milliseconds where nothing
# loaded it yet. Type checkers read a module-level ``TYPE_CHECKING`` as true all the same. For the
# same reason the modules a bundle's first call loads (tests/test_bundle.py lists the path) have no
# ``from __future__ import annotations`` (the ``__future__`` module alone is a fifth of a
# millisecond): an annotation that names more than a builtin is written as a string.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from .agent import (
        AgentTool,
        CancelToken,
        compile_agent,
        create_agent_tools,
        evaluate_http_arguments,
        load_agent,
        AGENT_DEFINITION_FORMAT_VERSION,
        FUNCTION_TOOL_ANNOTATIONS,
        HTTP_TOOL_METHODS,
        NX_AGENT_TOOL_CONTEXT,
        TOOL_NAME_PATTERN,
        WEB_SEARCH_TOOL_ANNOTATIONS,
        NormalizeAgentResult,
        NxAgentDiagnostic,
        NxAgentError,
        NxAgentToolError,
        check_agent_tools,
        definition_text,
        http_tool_annotations,
        is_http_tool_method,
        is_tool_name,
        normalize_agent,
        to_snake_case,
    )
    from .bundle import load_bundle
    from .http import build_http_request

# The agent layer and the HTTP builder load when one of their names is first read (nx_agent._lazy):
# ``import nx_agent`` (and ``nx_agent.ir``) loads the native module and the errors alone.
__getattr__, __dir__ = lazy_names(
    __name__,
    globals(),
    {
        ".agent": ('AgentTool', 'CancelToken', 'compile_agent', 'create_agent_tools', 'evaluate_http_arguments', 'load_agent', 'AGENT_DEFINITION_FORMAT_VERSION', 'FUNCTION_TOOL_ANNOTATIONS', 'HTTP_TOOL_METHODS', 'NX_AGENT_TOOL_CONTEXT', 'TOOL_NAME_PATTERN', 'WEB_SEARCH_TOOL_ANNOTATIONS', 'NormalizeAgentResult', 'NxAgentDiagnostic', 'NxAgentError', 'NxAgentToolError', 'check_agent_tools', 'definition_text', 'http_tool_annotations', 'is_http_tool_method', 'is_tool_name', 'normalize_agent', 'to_snake_case',),
        ".http": ("build_http_request",),
        ".bundle": ("load_bundle",),
    },
)

__all__ = ["NxError", "NxIrError", "__version__", "build_http_request", "load_bundle"]
__all__ += [
    "AgentTool",
    "CancelToken",
    "compile_agent",
    "create_agent_tools",
    "evaluate_http_arguments",
    "load_agent",
    "AGENT_DEFINITION_FORMAT_VERSION",
    "FUNCTION_TOOL_ANNOTATIONS",
    "HTTP_TOOL_METHODS",
    "NX_AGENT_TOOL_CONTEXT",
    "NormalizeAgentResult",
    "NxAgentDiagnostic",
    "NxAgentError",
    "NxAgentToolError",
    "TOOL_NAME_PATTERN",
    "WEB_SEARCH_TOOL_ANNOTATIONS",
    "check_agent_tools",
    "definition_text",
    "http_tool_annotations",
    "is_http_tool_method",
    "is_tool_name",
    "normalize_agent",
    "to_snake_case",
]
