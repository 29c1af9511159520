"""Tool contexts (agent-package §5.3 step 5, §5.4): the host's record, filled in for one call.

A tool whose function declares context parameters is given the host's record, with ``callId`` set
to the call's, under each of their names; the model can never supply one (its keys of those names
are dropped, whatever they hold). The record is measured, with ``callId`` set, against its own cap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from typing import Any

__all__ = ["context_record", "missing_context_message", "plain_copy"]


def plain_copy(value: object) -> dict[Any, Any] | None:
    """A plain dict copy of a mapping a host handed in, or ``None`` when it is not a mapping or
    reading it raises. A dict, subclasses too, is read from its storage (as the runtime reads it),
    so none of a subclass's own methods run; another mapping is read through its methods."""
    try:
        if isinstance(value, dict):
            return dict(dict.items(value))
        if isinstance(value, Mapping):
            return dict(value)
    except Exception:  # noqa: BLE001 - a mapping whose own methods (or keys' __hash__) raise
        return None
    return None


def context_record(context: object, call_id: str) -> dict[str, Any] | None:
    """A copy of the host's record with ``callId`` set to this call's, or ``None`` when ``context`` is
    not a record with a string ``$type`` (or a mapping that cannot be read). The host's own record is
    not changed."""
    record = plain_copy(context)
    try:
        if record is None or not isinstance(record.get("$type"), str):
            return None
        record["callId"] = call_id
    except Exception:  # noqa: BLE001 - a key whose own __eq__ raises
        return None
    return record


def missing_context_message(tool_name: str, parameters: Sequence[str], context: object) -> str:
    """The message of a call that gave no usable record to a tool that needs one."""
    names = ", ".join(f"'{name}'" for name in parameters)
    supplied = "none" if context is None else "one with no '$type'"
    return (
        f"Tool '{tool_name}' needs the host's tool context record, with its '$type', for its "
        f"parameter {names}; the call supplied {supplied}."
    )
