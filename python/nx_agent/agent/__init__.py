"""The agent layer: normalize an evaluated ``Agent`` into a definition, check it against a program.

Modules: ``definition`` (format constants and shapes), ``annotations`` (the fixed MCP hints),
``names`` (tool names), ``diagnostics`` (diagnostics and errors), ``describe`` (JavaScript-like
value readings, over the package's shared ``nx_agent._js``), ``normalize`` (``normalize_agent``),
``check`` (``check_agent_tools``); ``create``, ``execute`` (the tools, their prepared calls and
tool contexts; with ``execute_http`` and ``execute_host``), ``limits``, ``results``, ``cancel`` and
``classify`` (running tools); ``compile`` (``compile_agent``, ``load_agent``).
"""

from .. import _lazy_names as lazy_names

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py

if TYPE_CHECKING:
    from typing import Any

    from .annotations import (
        FUNCTION_TOOL_ANNOTATIONS,
        HTTP_TOOL_METHODS,
        WEB_SEARCH_TOOL_ANNOTATIONS,
        http_tool_annotations,
        is_http_tool_method,
    )
    from .cancel import CancelToken
    from .check import check_agent_tools
    from .classify import classify_runtime_failure
    from .compile import CompiledAgent, LoadedAgent, compile_agent, load_agent
    from ..errors import AgentExecutorError, AgentOptionError
    from .create import create_agent_tools, evaluate_http_arguments
    from .execute import AgentTool, FunctionAgentTool
    from .execute_host import HostAgentTool, ToolCallContext
    from .execute_http import HttpAgentTool
    from .limits import (
        NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
        NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
        NX_AGENT_DEFAULT_MAX_OPERATIONS,
    )
    from .results import ToolError, ToolFailure, ToolResult, ToolSuccess, ToolUsage
    from .definition import (
        AGENT_DEFINITION_FORMAT_VERSION,
        NX_AGENT_TOOL_CONTEXT,
        PACKAGE_TOOL_KINDS,
        definition_text,
        is_function_tool,
        is_http_tool,
        is_provider_tool,
    )
    from .diagnostics import NxAgentDiagnostic, NxAgentError, NxAgentToolError
    from .host_tools import ToolDescriber, ToolDescriberContext
    from .names import TOOL_NAME_PATTERN, TOOL_NAME_PATTERN_SOURCE, is_tool_name, to_snake_case
    from .normalize import NormalizeAgentResult, normalize_agent
    from .tool_functions import AgentSchemaSource


# The frozen record class of the agent layer, written here (and not in a module of its own) because
# every module that uses it is in this package, which loads first: one module fewer on a cold start.
class Record:
    """A frozen record class without ``dataclasses`` (which loads ``inspect``, a few milliseconds of a
    serverless cold start): fields in order with defaults, keyword or positional construction,
    equality, hashing, ``repr``, immutability, pickling and copying.

    Subclasses set ``__slots__`` to their field names and ``_defaults`` to the defaults of the
    last fields; a default that is a ``list`` or ``dict`` is copied for each record."""

    __slots__: "tuple[str, ...]" = ()
    _defaults: "dict[str, Any]" = {}

    def __init__(self, *args: "Any", **kwargs: "Any") -> None:
        fields = type(self).__slots__
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes {len(fields)} fields, {len(args)} were given")
        values = dict(zip(fields, args))
        for name, value in kwargs.items():
            if name not in fields or name in values:
                raise TypeError(f"{type(self).__name__} got an unexpected or repeated field {name!r}")
            values[name] = value
        for name in fields:
            if name not in values:
                if name not in self._defaults:
                    raise TypeError(f"{type(self).__name__} needs the field {name!r}")
                default = self._defaults[name]
                values[name] = type(default)() if isinstance(default, (list, dict)) else default
            object.__setattr__(self, name, values[name])

    def _values(self) -> "tuple[Any, ...]":
        return tuple(getattr(self, name) for name in type(self).__slots__)

    def __setattr__(self, name: str, value: "Any") -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self).__slots__)
        return f"{type(self).__name__}({shown})"

    def __reduce__(self) -> "tuple[Any, ...]":
        return (type(self), self._values())


# Loaded when first read (nx_agent._lazy_names): a host that only runs tools never loads normalize.
__getattr__, __dir__ = lazy_names(
    __name__,
    globals(),
    {
        ".annotations": ('FUNCTION_TOOL_ANNOTATIONS', 'HTTP_TOOL_METHODS', 'WEB_SEARCH_TOOL_ANNOTATIONS', 'http_tool_annotations', 'is_http_tool_method',),
        ".cancel": ('CancelToken',),
        ".check": ('check_agent_tools',),
        ".classify": ('classify_runtime_failure',),
        ".compile": ('CompiledAgent', 'compile_agent',),
        ".load": ('LoadedAgent', 'load_agent',),
        ".create": ('create_agent_tools', 'evaluate_http_arguments',),
        ".execute": ('AgentTool', 'FunctionAgentTool',),
        ".execute_host": ('HostAgentTool', 'ToolCallContext',),
        ".execute_http": ('HttpAgentTool',),
        ".limits": ('NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE', 'NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE', 'NX_AGENT_DEFAULT_MAX_OPERATIONS',),
        "nx_agent.errors": ('AgentExecutorError', 'AgentOptionError',),
        ".results": ('ToolError', 'ToolFailure', 'ToolResult', 'ToolSuccess', 'ToolUsage',),
        ".definition": ('AGENT_DEFINITION_FORMAT_VERSION', 'NX_AGENT_TOOL_CONTEXT', 'PACKAGE_TOOL_KINDS', 'definition_text', 'is_function_tool', 'is_http_tool', 'is_provider_tool',),
        ".diagnostics": ('NxAgentDiagnostic', 'NxAgentError', 'NxAgentToolError',),
        ".host_tools": ('ToolDescriber', 'ToolDescriberContext',),
        ".names": ('TOOL_NAME_PATTERN', 'TOOL_NAME_PATTERN_SOURCE', 'is_tool_name', 'to_snake_case',),
        ".normalize": ('NormalizeAgentResult', 'normalize_agent',),
        ".tool_functions": ('AgentSchemaSource',),
    },
)

__all__ = [
    "AgentExecutorError",
    "AgentOptionError",
    "AgentTool",
    "CancelToken",
    "CompiledAgent",
    "FunctionAgentTool",
    "HostAgentTool",
    "HttpAgentTool",
    "LoadedAgent",
    "NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE",
    "NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE",
    "NX_AGENT_DEFAULT_MAX_OPERATIONS",
    "ToolCallContext",
    "ToolError",
    "ToolFailure",
    "ToolResult",
    "ToolSuccess",
    "ToolUsage",
    "classify_runtime_failure",
    "compile_agent",
    "create_agent_tools",
    "evaluate_http_arguments",
    "load_agent",
    "AGENT_DEFINITION_FORMAT_VERSION",
    "AgentSchemaSource",
    "FUNCTION_TOOL_ANNOTATIONS",
    "HTTP_TOOL_METHODS",
    "NX_AGENT_TOOL_CONTEXT",
    "NormalizeAgentResult",
    "NxAgentDiagnostic",
    "NxAgentError",
    "NxAgentToolError",
    "PACKAGE_TOOL_KINDS",
    "TOOL_NAME_PATTERN",
    "TOOL_NAME_PATTERN_SOURCE",
    "ToolDescriber",
    "ToolDescriberContext",
    "WEB_SEARCH_TOOL_ANNOTATIONS",
    "check_agent_tools",
    "definition_text",
    "http_tool_annotations",
    "is_function_tool",
    "is_http_tool",
    "is_http_tool_method",
    "is_provider_tool",
    "is_tool_name",
    "normalize_agent",
    "to_snake_case",
]
