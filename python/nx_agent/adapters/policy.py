"""What a model is told when a tool call fails (agent-package §7), for every adapter.

The model is told why only for ``invalid-input`` (its own arguments were wrong, so it can do
better) and for a code the host chose itself (a request function or executor raised an
:class:`~nx_agent.NxAgentToolError`): those keep their message, diagnostics and limit. For the
package's other codes the reason may hold what the model must not see (a context record, an
internal URL, a budget), so the model gets a fixed sentence naming only the tool, and the host
reads the real reason in the result its ``on_result`` hook receives.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ..agent.diagnostics import NxAgentToolError

__all__ = [
    "FIXED_SENTENCES",
    "fixed_sentence",
    "model_facing_error",
    "model_text",
]

FIXED_SENTENCES: Mapping[str, str] = MappingProxyType(
    {
        "invalid-context": "Tool '{tool}' is not available for this call.",
        "evaluation-failed": "Tool '{tool}' failed while it ran.",
        "resource-limit": "Tool '{tool}' stopped at a limit on what one call may do.",
        "invalid-request": "Tool '{tool}' could not make a request from these arguments.",
        "request-failed": "Tool '{tool}' did not get an answer to its request.",
        "aborted": "The call of tool '{tool}' was cancelled.",
    }
)
"""The sentence the model gets for each package code other than ``invalid-input``; ``{tool}`` is
the tool's name."""


def fixed_sentence(code: str, tool_name: str) -> str | None:
    """The fixed sentence for ``code`` about ``tool_name``, or ``None`` when the model is told why
    (``invalid-input``, or a code the host chose). Codes match exactly."""
    template = FIXED_SENTENCES.get(code) if type(code) is str else None
    return None if template is None else template.format(tool=tool_name)


def model_facing_error(tool_name: str, error: Mapping[str, Any]) -> NxAgentToolError:
    """The error to show the model for a failed result's ``error`` (``{code, message,
    diagnostics?, limit?}``).

    A package code other than ``invalid-input`` gives ``NxAgentToolError(code, <fixed sentence>)``
    with no diagnostics and no limit; any other code gives ``NxAgentToolError(code, message)``
    with the error's ``diagnostics`` and ``limit`` when it has them.
    """
    code = error["code"]
    sentence = fixed_sentence(code, tool_name)
    if sentence is not None:
        return NxAgentToolError(code, sentence)
    diagnostics = error.get("diagnostics")
    limit = error.get("limit")
    return NxAgentToolError(
        code,
        str(error["message"]),
        diagnostics=list(diagnostics) if diagnostics is not None else None,
        limit=dict(limit) if limit is not None else None,
    )


def model_text(error: NxAgentToolError) -> str:
    """The text a model is sent for a model-facing error: ``NxAgentToolError: <message>``, as the
    reference's adapter sends it."""
    return f"NxAgentToolError: {error.message}"
