"""nx-agent: host the tools of NX agents in Python.

The Rust core (``nx_agent._native``) reads, validates and links NX IR images; ``nx_agent.ir`` is
its public face. Every error the package raises derives from :class:`NxError`.
"""

import sys

from ._native import NxError, NxIrError, __version__  # the classes nx_agent.errors names


def _lazy_names(
    package: str, namespace: "dict[str, Any]", modules: "dict[str, tuple[str, ...]]"
) -> "tuple[Callable[[str], Any], Callable[[], list[str]]]":
    """Names of a module loaded when first read (PEP 562), so that importing it loads only what a
    call path needs (``import nx_agent`` loads the native module alone; the agent layer or the HTTP
    builder load when one of their names is read). Written here, not in a module of its own: every
    path loads this package, and a module more is a fifth of a millisecond of a cold start.

    ``__getattr__`` and ``__dir__`` for ``package``: ``modules`` maps a module (relative to ``package``
    with one leading dot, such as ``".agent.compile"``, or absolute) to the names it gives; a name read is imported, then kept in
    ``namespace`` so that later reads find it directly."""
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> "Any":
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # __import__, not importlib.import_module: the importlib package loads warnings, half a
        # millisecond of a cold start where nothing loaded them yet.
        absolute = package + module if module.startswith(".") else module
        __import__(absolute)
        value = getattr(sys.modules[absolute], name)
        namespace[name] = value
        return value

    def __dir__() -> "list[str]":
        return sorted({*namespace, *where})

    return __getattr__, __dir__


# Not ``typing.TYPE_CHECKING``: importing typing costs a cold start milliseconds where nothing
# loaded it yet. Type checkers read a module-level ``TYPE_CHECKING`` as true all the same. For the
# same reason the modules a bundle's first call loads (tests/test_bundle.py lists the path) have no
# ``from __future__ import annotations`` (the ``__future__`` module alone is a fifth of a
# millisecond): an annotation that names more than a builtin is written as a string.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable

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
    from .agent.load import load_bundle
    from .http import build_http_request

# The agent layer and the HTTP builder load when one of their names is first read (_lazy_names above):
# ``import nx_agent`` (and ``nx_agent.ir``) loads the native module alone.
__getattr__, __dir__ = _lazy_names(
    __name__,
    globals(),
    {
        ".agent": ('AgentTool', 'CancelToken', 'compile_agent', 'create_agent_tools', 'evaluate_http_arguments', 'load_agent', 'AGENT_DEFINITION_FORMAT_VERSION', 'FUNCTION_TOOL_ANNOTATIONS', 'HTTP_TOOL_METHODS', 'NX_AGENT_TOOL_CONTEXT', 'TOOL_NAME_PATTERN', 'WEB_SEARCH_TOOL_ANNOTATIONS', 'NormalizeAgentResult', 'NxAgentDiagnostic', 'NxAgentError', 'NxAgentToolError', 'check_agent_tools', 'definition_text', 'http_tool_annotations', 'is_http_tool_method', 'is_tool_name', 'normalize_agent', 'to_snake_case',),
        ".http": ("build_http_request",),
        ".agent.load": ("load_bundle",),  # nx_agent.bundle gives it too
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
