"""Tool contexts (agent-package §5.3 step 5, §5.4): the host's record, filled in for one call.

A tool whose function declares context parameters is given the host's record, with ``callId`` set
to the call's, under each of their names; the model can never supply one (its keys of those names
are dropped, whatever they hold). The record is measured, with ``callId`` set, against its own cap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["context_record", "missing_context_message"]


def context_record(context: object, call_id: str) -> dict[str, Any] | None:
    """A copy of the host's record with ``callId`` set to this call's, or ``None`` when ``context`` is
    not a record with a string ``$type``. The host's own record is not changed."""
    if not isinstance(context, Mapping) or not isinstance(context.get("$type"), str):
        return None
    record = dict(context)
    record["callId"] = call_id
    return record


def missing_context_message(tool_name: str, parameters: Sequence[str], context: object) -> str:
    """The message of a call that gave no usable record to a tool that needs one."""
    names = ", ".join(f"'{name}'" for name in parameters)
    supplied = "none" if context is None else "one with no '$type'"
    return (
        f"Tool '{tool_name}' needs the host's tool context record, with its '$type', for its "
        f"parameter {names}; the call supplied {supplied}."
    )
