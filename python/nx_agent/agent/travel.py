"""Pickling and copying of the agent layer: tools, loaded agents, and what they hold.

A pickle of a tool or a :class:`~nx_agent.agent.compile.LoadedAgent` carries plain data and the
host's functions, never a pointer: the stored definition (or the one tool's definition), the
:class:`~nx_agent.ir.Program` (its own pickle: the images, linked again when unpickled), the
options the tools were made with (limits, ``validate_arguments``), and the host's request
function and executors. Unpickling makes the tools again with
:func:`~nx_agent.agent.create.create_agent_tools`, so a pickled definition is checked against
its program as a stored one is (a refusal is :class:`~nx_agent.agent.diagnostics.NxAgentError`
with its codes; damaged program bytes are :class:`~nx_agent.ir.NxIrError`).

The request function and the executors are the host's. They travel when they pickle (a
module-level function, a ``functools.partial`` of one, an object of an importable class; under
Ray or Dask, whose cloudpickle pickles lambdas and closures by value, those too). When
one does not (a lambda, a closure, a bound method of an open HTTP client), pickling raises
:class:`HostFunctionNotPicklable` naming the tool and the function. Then send
``agent.stored()`` instead (the definition text, the images and the options: plain data that
always pickles) and give the functions where it is unpickled:
``load_agent(**stored, request=..., executors=...)``.

``copy.copy`` and ``copy.deepcopy`` make new tool objects at once (no re-check): ``deepcopy``
copies the definition; the program (immutable) and the host's functions are shared.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import NxError

if TYPE_CHECKING:
    from .._native import Program
    from .execute import PreparedCall
    from .load import LoadedAgent
    from .execute import AgentTool

__all__ = ["HostFunctionNotPicklable", "stored_arguments"]


class HostFunctionNotPicklable(NxError, pickle.PicklingError):
    """A tool's request function or executor that cannot be pickled (``code``
    ``nx-agent-host-function``); the message names the tool, the function and the way round."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.code = "nx-agent-host-function"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), self.args, self.__dict__)


def _options(call: PreparedCall | None) -> dict[str, Any]:
    """The options of ``create_agent_tools`` a tool was made with."""
    if call is None:
        return {}
    limits = call.call_limits
    runtime = {
        name: value
        for name, value in (
            ("max_call_depth", limits.max_call_depth),
            ("max_range_length", limits.max_range_length),
            ("max_memory", limits.max_memory),
        )
        if value is not None
    }
    return {
        "max_operations": limits.max_operations,
        "max_arguments_size": limits.max_arguments_size,
        "max_context_size": limits.max_context_size,
        "runtime": runtime or None,
        "validate_arguments": call.check is not None,
    }


def _checked(function: Any, what: str, tool: str, protocol: int) -> Any:
    """``function`` when it pickles; :class:`HostFunctionNotPicklable` when it does not."""
    try:
        pickle.dumps(function, protocol)
    except Exception as error:  # noqa: BLE001 - whatever pickle raised, the answer is the same
        if _pickled_by_cloudpickle():
            return function
        raise HostFunctionNotPicklable(
            f"Tool '{tool}' cannot be pickled: its {what} {function!r} cannot be "
            f"({type(error).__name__}: {error}). Give a {what} that pickles (a module-level function, or "
            "an object of an importable class), or pickle agent.stored() instead and call "
            "load_agent(**stored, request=..., executors=...) where it is unpickled."
        ) from error
    return function


def _pickled_by_cloudpickle() -> bool:
    """Whether the pickling under way is cloudpickle's (Ray's, Dask's): its ``dump`` is a Python
    frame above this one, where the standard pickler has none. cloudpickle pickles lambdas and
    closures by value, so a function it takes travels there."""
    import sys

    frame = sys._getframe(1)
    while frame is not None:
        if "cloudpickle" in str(frame.f_globals.get("__name__", "")):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _host_functions(tool: AgentTool, protocol: int) -> tuple[Any, Any]:
    """The tool's request function and executors (as ``create_agent_tools`` takes them), checked."""
    from .execute_host import HostAgentTool
    from .execute_http import HttpAgentTool

    if isinstance(tool, HttpAgentTool):
        return _checked(tool._request, "request function", tool.name, protocol), None
    if isinstance(tool, HostAgentTool):
        return None, {tool.kind: _checked(tool._executor, f"executor for the kind '{tool.kind}'", tool.name, protocol)}
    return None, None


def reduce_tool(tool: AgentTool, protocol: int) -> tuple[Any, ...]:
    call: PreparedCall | None = getattr(tool, "_call", None)
    request, executors = _host_functions(tool, protocol)
    program = None if call is None else call.program
    return (_restore_tool, (tool.definition, program, _options(call), request, executors))


def _restore_tool(
    definition: Mapping[str, Any], program: Program | None, options: Mapping[str, Any], request: Any, executors: Any
) -> AgentTool:
    from .create import create_agent_tools

    # Only function and http tools read the program; the definition check needs it for them alone.
    return create_agent_tools([definition], program, request=request, executors=executors, **options)[0]  # type: ignore[arg-type]


def copy_tool(tool: AgentTool, memo: dict[int, Any] | None = None) -> AgentTool:
    """A new tool object holding what ``tool`` holds; with ``memo`` (``deepcopy``), its definition copied."""
    new = object.__new__(type(tool))
    for cls in type(tool).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if hasattr(tool, slot):
                object.__setattr__(new, slot, getattr(tool, slot))
    if memo is not None:
        new.definition = copy.deepcopy(tool.definition, memo)
    return new


def _agent_parts(agent: LoadedAgent, protocol: int | None) -> tuple[dict[str, Any], Any, Any]:
    """The options, request function and executors an agent's tools were made with."""
    options: dict[str, Any] = {}
    request: Any = None
    executors: dict[str, Any] = {}
    for tool in agent.tools:
        call = getattr(tool, "_call", None)
        if call is not None and not options:
            options = _options(call)
        if protocol is None:
            continue
        tool_request, tool_executors = _host_functions(tool, protocol)
        request = request if tool_request is None else tool_request
        executors.update(tool_executors or {})
    return options, request, executors or None


def reduce_agent(agent: LoadedAgent, protocol: int) -> tuple[Any, ...]:
    options, request, executors = _agent_parts(agent, protocol)
    return (_restore_agent, (agent.definition, agent.program, options, request, executors))


def _restore_agent(
    definition: dict[str, Any], program: Program, options: Mapping[str, Any], request: Any, executors: Any
) -> LoadedAgent:
    from .load import LoadedAgent
    from .create import create_agent_tools

    tools = create_agent_tools(definition, program, request=request, executors=executors, **options)
    return LoadedAgent(definition=definition, program=program, tools=tools)


def stored_arguments(agent: LoadedAgent) -> dict[str, Any]:
    """``load_agent``'s arguments for ``agent`` without the host's functions: the definition text,
    the images (the built-in prelude aside) and the options. Plain data, so it always pickles."""
    from .load import PRELUDE
    from .definition import definition_text

    images = {m.identity: m.to_bytes() for m in agent.program.modules if m.identity != PRELUDE}
    options, _, _ = _agent_parts(agent, None)
    return {
        "definition_text": definition_text(agent.definition),
        "images": images,
        "entry": agent.program.entry.identity,
        "allow_version_mismatch": agent.program.allow_version_mismatch,
        **options,
    }
