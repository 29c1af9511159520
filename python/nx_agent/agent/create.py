"""``create_agent_tools`` and ``evaluate_http_arguments`` (agent-package §5.1, §5.8).

Creation reads the limits, refuses an executor for one of the package's own kinds, runs the
definition checks of §4 (:mod:`nx_agent.agent.check`) and adds its own (a request function for
``http`` tools, an executor for each host kind); with any problem it raises
:class:`~nx_agent.agent.diagnostics.NxAgentError` holding all of them, and returns no tools.
"""

from _collections_abc import Mapping  # not collections.abc: see load.py

from .. import _lazy_names as lazy_names
from .._native import Limits, Program
from .check import definition_problems, tool_shape_problem
from .execute import AgentTool, FunctionAgentTool, PreparedCall, failure
from .limits import (
    NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    NX_AGENT_DEFAULT_MAX_OPERATIONS,
    CallLimits,
    read_call_limits,
)

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, Union

    from .cancel import CancelToken
    from ..errors import AgentExecutorError
    from .diagnostics import NxAgentDiagnostic
    from .execute_host import AgentExecutor
    from .execute_http import AgentHttpRequestFunction
    from .results import ToolFailure

__all__ = ["AgentExecutorError", "EvaluateHttpArgumentsResult", "create_agent_tools", "evaluate_http_arguments"]

_OWN_KINDS = {
    "function": "which the package runs itself",
    "http": "which the package runs itself",
    "provider": "which the package describes and never runs",
}

RuntimeOptions = Mapping[str, "Any"] | Limits | None

# AgentExecutorError is made by nx_agent.errors, loaded with the first refusal (nx_agent._lazy_names).
__getattr__, __dir__ = lazy_names(__name__, globals(), {"nx_agent.errors": ("AgentExecutorError",)})


def _context_names(config: "Mapping[str, Any]") -> "list[str]":
    return [parameter["name"] for parameter in config["contextParameters"]]


def _prepare(program: "Program", tool: "Mapping[str, Any]", limits: "CallLimits", check: bool = False) -> "PreparedCall":
    config = tool["config"]
    reference = config["function"] if tool["kind"] == "function" else config["arguments"]
    if check:
        from .input_check import InputCheck

    input_check = InputCheck(tool["name"], tool["inputSchema"]) if check else None
    return PreparedCall(program, reference, _context_names(config), tool["name"], limits, input_check)


def create_agent_tools(
    definition: "Mapping[str, Any] | Sequence[Mapping[str, Any]]",
    program: "Program",
    *,
    request: "AgentHttpRequestFunction | None" = None,
    executors: "Mapping[str, AgentExecutor] | None" = None,
    max_operations: int = NX_AGENT_DEFAULT_MAX_OPERATIONS,
    max_arguments_size: int = NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    max_context_size: int = NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    runtime: "RuntimeOptions" = None,
    validate_arguments: bool = False,
    tool_limits: "Mapping[str, Mapping[str, int]] | None" = None,
) -> "list[AgentTool]":
    """One tool per stored tool, in order, each with ``execute``/``aexecute`` except ``provider`` tools.

    ``definition`` is a stored definition (a dict) or its bare tool list; ``program`` the linked
    program its functions are in. ``request`` makes the requests of ``http`` tools (required when
    there is one); ``executors`` maps each host kind to the function that runs its tools. Every call
    gets ``max_operations``, a model input up to ``max_arguments_size`` and a context record up to
    ``max_context_size``; ``runtime`` passes the runtime's ``max_call_depth``, ``max_range_length``
    and ``max_memory`` (a mapping or an :class:`~nx_agent.ir.Limits`; a call past ``max_memory``,
    bytes of values, is a ``resource-limit`` result with limit ``memory``).
    ``validate_arguments=True`` makes each ``function`` and ``http`` tool check its input against its
    input schema before it evaluates anything (:mod:`nx_agent.agent.input_check`: a refusal is an
    ``invalid-input`` result with no usage); by default the runtime checks the arguments against the
    parameter types, as agent-package §5.3 does. ``tool_limits`` gives a tool its own limits by its
    name (``{"find_plans": {"max_operations": 500}}``; what it leaves out is the shared limit), as
    ``nx-agent cost budget`` recommends them.

    Raises :class:`~nx_agent.agent.limits.AgentOptionError` for a limit that is not a non-negative
    safe integer, :class:`AgentExecutorError` for an executor of a package kind, and
    :class:`~nx_agent.agent.diagnostics.NxAgentError` with every problem of the definition.
    """
    limits = read_call_limits(
        max_operations=max_operations,
        max_arguments_size=max_arguments_size,
        max_context_size=max_context_size,
        runtime=runtime,
    )
    executors = dict(executors or {})
    for kind, what in _OWN_KINDS.items():
        if kind in executors:
            from ..errors import AgentExecutorError

            raise AgentExecutorError(f"An executor is registered for the kind '{kind}', {what}.")
    problems = definition_problems(definition, program)
    diagnostics = list(problems.diagnostics)
    for index, tool in enumerate(problems.tools):
        if index in problems.damaged:
            continue
        kind, name, path = tool["kind"], tool["name"], f"tools[{index}]"
        if kind == "http" and request is None:
            from .diagnostics import NxAgentDiagnostic  # the problems' path only

            diagnostics.append(
                NxAgentDiagnostic(
                    "error",
                    "nx-agent-missing-request-function",
                    f"Tool '{name}' is an http tool, and no 'request' function was supplied to make its requests.",
                    path,
                    name,
                )
            )
        elif kind not in _OWN_KINDS and kind not in executors:
            from .diagnostics import NxAgentDiagnostic

            diagnostics.append(
                NxAgentDiagnostic(
                    "error",
                    "nx-agent-missing-executor",
                    f"Tool '{name}' is of kind '{kind}', and no executor is registered for that kind.",
                    path,
                    name,
                )
            )
    if diagnostics:
        from .diagnostics import NxAgentError

        raise NxAgentError(diagnostics)
    tools: "list[AgentTool]" = []
    own_limits = {
        name: read_call_limits(
            max_operations=given.get("max_operations", max_operations),
            max_arguments_size=given.get("max_arguments_size", max_arguments_size),
            max_context_size=given.get("max_context_size", max_context_size),
            runtime=runtime,
        )
        for name, given in (tool_limits or {}).items()
    }
    for tool in problems.tools:
        kind = tool["kind"]
        tool_call_limits = own_limits.get(tool["name"], limits)
        if kind == "function":
            tools.append(FunctionAgentTool(tool, _prepare(program, tool, tool_call_limits, validate_arguments)))
        elif kind == "http":
            assert request is not None
            from .execute_http import HttpAgentTool  # the first http tool loads it

            tools.append(HttpAgentTool(tool, _prepare(program, tool, tool_call_limits, validate_arguments), request))
        elif kind == "provider":
            tools.append(AgentTool(tool))
        else:
            from .execute_host import HostAgentTool  # the first tool of a host kind loads it

            tools.append(HostAgentTool(tool, executors[kind]))
    return tools


if TYPE_CHECKING:
    EvaluateHttpArgumentsResult = Union[dict[str, Any], ToolFailure]
else:
    EvaluateHttpArgumentsResult = dict  # the same at run time: both are dicts
"""``{"ok": True, "arguments", "request", "usage"}``, or a failed result."""


def evaluate_http_arguments(
    tool: "Mapping[str, Any]",
    program: "Program",
    input: "Any",
    *,
    call_id: str,
    context: "Any" = None,
    cancel: "CancelToken | None" = None,
    max_operations: int = NX_AGENT_DEFAULT_MAX_OPERATIONS,
    max_arguments_size: int = NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    max_context_size: int = NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    runtime: "RuntimeOptions" = None,
) -> "EvaluateHttpArgumentsResult":
    """Evaluate an ``http`` tool's arguments and build its request, sending nothing (§5.8).

    Answers ``{"ok": True, "arguments", "request", "usage"}``; a failure is the result ``execute``
    would answer for the same call (a damaged or non-``http`` tool is ``invalid-request``). Raises only
    for a limit option that cannot be used."""
    limits = read_call_limits(
        max_operations=max_operations,
        max_arguments_size=max_arguments_size,
        max_context_size=max_context_size,
        runtime=runtime,
    )
    problem = tool_shape_problem(tool)
    if problem is not None:
        return failure("invalid-request", f"The tool cannot be run: {problem}.")
    if tool["kind"] != "http":
        return failure("invalid-request", f"Tool '{tool['name']}' is of kind '{tool['kind']}', not 'http'.")
    from .execute_http import HttpAgentTool

    http_tool = HttpAgentTool(tool, _prepare(program, tool, limits), _never_called)
    prepared = http_tool.prepare(input, call_id, context, cancel)
    if isinstance(prepared, dict):
        return prepared
    call = prepared.call
    return {"ok": True, "arguments": call["arguments"], "request": call["request"], "usage": prepared.usage}


def _never_called(call: "dict[str, Any]") -> "Mapping[str, Any]":
    raise AssertionError("evaluate_http_arguments sends nothing")
