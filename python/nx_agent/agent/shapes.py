"""The TypedDict shapes of the agent layer: the stored definition (``nx_agent.agent.definition``),
a call's result (``nx_agent.agent.results``) and a classified runtime failure
(``nx_agent.agent.classify``). They are for type checkers and readers; those modules give them on
first read, so that a cold start does no ``typing`` work for them."""

from __future__ import annotations

from typing import Any, Literal, TypedDict, Union

__all__ = [
    "DeclarationName",
    "ToolAnnotations",
    "ContextParameter",
    "FunctionToolConfig",
    "HttpConnectionConfig",
    "HttpToolConfig",
    "ProviderToolConfig",
    "NormalizedFunctionTool",
    "NormalizedHttpTool",
    "NormalizedProviderTool",
    "NormalizedHostTool",
    "NormalizedAgent",
    "NormalizedTool",
    "ToolUsage",
    "ToolLimit",
    "ToolError",
    "ToolSuccess",
    "ToolFailure",
    "ToolResult",
    "ClassifiedFailure",
]

RuntimeFailureCode = Literal["resource-limit", "evaluation-failed", "invalid-context", "invalid-input"]

# --- The stored definition (agent-package §2) ---------------------------------------------------

class DeclarationName(TypedDict):
    """A declaration by module identity and name, as a canonical ``Function`` record names one."""

    module: str
    name: str


class ToolAnnotations(TypedDict):
    """The four MCP hints, in this key order."""

    readOnlyHint: bool
    destructiveHint: bool
    idempotentHint: bool
    openWorldHint: bool


class ContextParameter(TypedDict):
    """A parameter the host fills with its tool context record."""

    name: str
    type: DeclarationName


class FunctionToolConfig(TypedDict):
    """``config`` of a ``function`` tool: ``{function, contextParameters}``."""

    function: DeclarationName
    contextParameters: list[ContextParameter]


class HttpConnectionConfig(TypedDict):
    """A connection as an ``http`` tool stores it: ``baseUrl`` without a trailing ``/``."""

    name: str
    baseUrl: str


class _HttpToolConfigRequired(TypedDict):
    arguments: DeclarationName
    contextParameters: list[ContextParameter]
    connection: HttpConnectionConfig
    method: Literal["get", "post", "put", "patch", "delete"]
    path: str
    pathPlaceholders: list[str]


class HttpToolConfig(_HttpToolConfigRequired, total=False):
    """``config`` of an ``http`` tool; ``maxCallsPerConversation`` (last) only when authored."""

    maxCallsPerConversation: float


class _ProviderToolConfigRequired(TypedDict):
    provider: Literal["web_search"]


class ProviderToolConfig(_ProviderToolConfigRequired, total=False):
    """``config`` of a ``provider`` tool; ``allowedDomains`` only when non-empty."""

    allowedDomains: list[str]


class _ToolHead(TypedDict):
    name: str
    description: str
    inputSchema: dict[str, Any]


class _ToolTail(TypedDict):
    annotations: ToolAnnotations


class _OptionalOutput(TypedDict, total=False):
    outputSchema: dict[str, Any]


class NormalizedFunctionTool(_ToolHead, _ToolTail, _OptionalOutput):
    """A ``FunctionTool``: ``name, description, inputSchema, outputSchema?, annotations, kind, config``."""

    kind: Literal["function"]
    config: FunctionToolConfig


class NormalizedHttpTool(_ToolHead, _ToolTail):
    """An ``HttpTool``: its ``outputSchema`` is always the fixed HTTP output schema."""

    outputSchema: dict[str, Any]
    kind: Literal["http"]
    config: HttpToolConfig


class NormalizedProviderTool(_ToolHead, _ToolTail):
    """A ``WebSearchTool``: no ``outputSchema``, no ``execute``; the model's provider runs it."""

    kind: Literal["provider"]
    config: ProviderToolConfig


class _HostToolOptional(TypedDict, total=False):
    title: str
    outputSchema: dict[str, Any]


class NormalizedHostTool(_ToolHead, _ToolTail, _HostToolOptional):
    """A tool of a host kind, as its describer described it (``title`` only from a describer)."""

    kind: str
    config: dict[str, Any]


NormalizedTool = Union[NormalizedFunctionTool, NormalizedHttpTool, NormalizedProviderTool, NormalizedHostTool]


class _LimitsShape(TypedDict, total=False):
    maxSteps: float
    maxToolCalls: float


class _DocumentShape(TypedDict):
    title: str
    text: str


class _AgentRequired(TypedDict):
    formatVersion: int
    name: str
    instructions: str
    documents: list[_DocumentShape]
    limits: _LimitsShape
    tools: list[NormalizedTool]


class NormalizedAgent(_AgentRequired, total=False):
    """A definition: ``formatVersion, name, description?, model?, instructions, documents, limits, tools``."""

    description: str
    model: str


# --- A call's result (agent-package §5.9) --------------------------------------------------------

class ToolUsage(TypedDict, total=False):
    """What one call used: ``operations`` and ``inputSize``, as the runtime reported them."""

    operations: int
    inputSize: int


class _ToolLimitName(TypedDict):
    name: str


class ToolLimit(_ToolLimitName, total=False):
    """The limit a call met: ``{"name", "value"?}``."""

    value: int


class _ToolErrorHead(TypedDict):
    code: str
    message: str


class ToolError(_ToolErrorHead, total=False):
    """Why a call failed: ``code``, ``message``, and ``diagnostics``/``limit`` when there are any."""

    diagnostics: list[dict[str, Any]]
    limit: ToolLimit


class _ToolSuccessHead(TypedDict):
    ok: Literal[True]
    output: Any


class ToolSuccess(_ToolSuccessHead, total=False):
    """A call that succeeded: ``ok, output, usage?``."""

    usage: ToolUsage


class _ToolFailureHead(TypedDict):
    ok: Literal[False]
    error: ToolError


class ToolFailure(_ToolFailureHead, total=False):
    """A call that failed: ``ok, error, usage?``."""

    usage: ToolUsage


ToolResult = Union[ToolSuccess, ToolFailure]


# --- A classified runtime failure (agent-package §5.12) -----------------------------------------

class _ClassifiedCode(TypedDict):
    code: RuntimeFailureCode


class ClassifiedFailure(_ClassifiedCode, total=False):
    """``{"code"}``, and ``limit`` (``{"name", "value"?}``) for a resource limit that named one."""

    limit: dict[str, Any]
