"""What a request function is handed for one call (§5.5 step 4, §6.10) and what it answers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict, Union

from .arguments import HttpArgumentsData
from .build import HttpRequestDescription


class CancelSignal(Protocol):
    """A cancellation flag for a synchronous call (``nx_agent``'s ``CancelToken`` is one)."""

    @property
    def cancelled(self) -> bool:
        """Whether the call was asked to stop."""
        ...


class _HttpResponseStatus(TypedDict):
    status: int


class HttpResponse(_HttpResponseStatus, total=False):
    """A request function's answer, which becomes the tool's output: ``status`` and ``body``.

    ``body`` is the parsed JSON of the response text, or the text itself when it is not JSON. A
    non-2xx status is an answer, not a failure.
    """

    body: Any


@dataclass(frozen=True, slots=True)
class HttpRequestCall:
    """One call of an ``http`` tool, as a request function receives it.

    ``request`` is the built request (method, url, headers, body); ``arguments`` the structured
    arguments it was built from (forward them with ``tool_name`` to rebuild it elsewhere);
    ``call_id`` identifies the call (an idempotency key for writes); ``connection`` names the
    connection (what credentials are chosen by); ``annotations`` are the tool's MCP hints
    (``readOnlyHint`` decides whether a failed call's fate is unknown); ``cancel`` is the caller's
    cancellation flag for a synchronous call, if any.
    """

    request: HttpRequestDescription
    arguments: HttpArgumentsData
    call_id: str
    tool_name: str
    connection: str
    annotations: Mapping[str, bool]
    cancel: CancelSignal | None = None

    @property
    def read_only(self) -> bool:
        """Whether the tool is read-only (``readOnlyHint`` is true: only ``get`` tools)."""
        return self.annotations.get("readOnlyHint") is True

    @classmethod
    def from_mapping(cls, call: Mapping[str, Any]) -> HttpRequestCall:
        """Read the reference's call record ``{request, arguments, callId, toolName, connection,
        annotations, cancel?}`` (what ``execute`` hands a request function)."""
        return cls(
            request=call["request"],
            arguments=call["arguments"],
            call_id=call["callId"],
            tool_name=call["toolName"],
            connection=call["connection"],
            annotations=call["annotations"],
            cancel=call.get("cancel"),
        )

    def to_mapping(self) -> dict[str, Any]:
        """The reference's call record, keys in its order (``cancel`` only when there is one)."""
        record: dict[str, Any] = {
            "request": self.request,
            "arguments": self.arguments,
            "callId": self.call_id,
            "toolName": self.tool_name,
            "connection": self.connection,
            "annotations": self.annotations,
        }
        if self.cancel is not None:
            record["cancel"] = self.cancel
        return record


HttpRequestCallLike = Union[HttpRequestCall, Mapping[str, Any]]
"""A call as a request function accepts it: the dataclass, or the reference's call record."""


def as_call(call: HttpRequestCallLike) -> HttpRequestCall:
    """``call`` as an :class:`HttpRequestCall`."""
    return call if isinstance(call, HttpRequestCall) else HttpRequestCall.from_mapping(call)
