"""``maxCallsPerConversation`` enforced: how many times each tool ran in each conversation.

The agent package stores an ``http`` tool's ``maxCallsPerConversation`` and leaves counting to
the host ("a host may impose a lower cap"). Every host this project ships counts with a
:class:`ConversationCalls`: the MCP server per session, the SDK adapters per run. A host may also
set a cap of its own, ``max_calls_per_conversation``, for every tool: a tool's cap is then the
lower of the two (a tool with neither has none).

A call is counted when it is let through (:meth:`ConversationCalls.take`), before it runs, so
that calls running at the same time cannot pass the cap together; a call whose arguments were
refused (``invalid-input``: nothing ran, nothing was sent) is given back
(:meth:`ConversationCalls.give_back`). Once a tool's calls in a conversation reach its cap, the
next is refused with a ``resource-limit`` failure whose ``limit`` is ``{"name":
"maxCallsPerConversation", "value": cap}`` and whose message tells the model, in the host's own
words, that the tool cannot be called again in this conversation (:func:`cap_error`: the model
is shown it as it is, not §7's fixed sentence about one call's limits, so that it stops asking).

A conversation is any key: an object (a session, a run's own object) is held weakly, and its
counts go when it does; a plain value (a run id, a host's conversation id) is kept among the
:data:`MAX_CONVERSATIONS` most recently used.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, Final

from .diagnostics import NxAgentToolError
from .results import ToolFailure, failure

__all__ = ["CALL_CAP_LIMIT", "MAX_CONVERSATIONS", "ConversationCalls", "cap_error", "tool_call_cap"]

CALL_CAP_LIMIT: Final = "maxCallsPerConversation"
"""The ``limit`` name of a refusal at a tool's cap."""
MAX_CONVERSATIONS: Final = 10_000
"""How many conversations keyed by a plain value (a string, a number) keep their counts."""

_PLAIN = (str, bytes, int, float, tuple, type(None))


def tool_call_cap(tool: Mapping[str, Any], host_cap: int | None = None) -> float | None:
    """The most times ``tool`` (a stored tool, or a tool ``create_agent_tools`` made) may run in
    one conversation: the lower of its stored ``maxCallsPerConversation`` and ``host_cap``;
    ``None`` when neither is set."""
    config = tool.get("config")
    stored = config.get(CALL_CAP_LIMIT) if isinstance(config, Mapping) else None
    caps = [cap for cap in (stored, host_cap) if isinstance(cap, (int, float)) and not isinstance(cap, bool)]
    return min(caps) if caps else None


def _shown(cap: float) -> int | float:
    return int(cap) if float(cap).is_integer() else cap


def _refusal(tool_name: str, cap: float) -> ToolFailure:
    if cap < 1:
        message = f"Tool '{tool_name}' may not be called in a conversation: do not call it."
    else:
        times = "once" if cap < 2 else f"{int(cap)} times"
        message = (
            f"Tool '{tool_name}' may be called at most {times} in a conversation, and this conversation has "
            "reached that: do not call it again here."
        )
    return failure("resource-limit", message, limit={"name": CALL_CAP_LIMIT, "value": _shown(cap)})


def cap_error(refusal: ToolFailure) -> NxAgentToolError:
    """What the model is told of a refusal at a tool's cap: its code, message and limit as they are."""
    error = refusal["error"]
    return NxAgentToolError(error["code"], error["message"], limit=error.get("limit"))


class ConversationCalls:
    """The calls of each tool in each conversation, against each tool's cap (see the module).

    ``tools`` are the tools served (stored tools, or what ``create_agent_tools`` answered);
    ``max_calls_per_conversation`` is the host's own cap for every tool (``None``: only the
    tools' own). Safe to share between threads."""

    def __init__(self, tools: Iterable[Mapping[str, Any]], *, max_calls_per_conversation: int | None = None) -> None:
        if max_calls_per_conversation is not None and (
            isinstance(max_calls_per_conversation, bool)
            or not isinstance(max_calls_per_conversation, int)
            or max_calls_per_conversation < 0
        ):
            raise ValueError(
                f"max_calls_per_conversation must be a non-negative integer or None, got {max_calls_per_conversation!r}"
            )
        self.caps: dict[str, float] = {}
        for tool in tools:
            cap = tool_call_cap(tool, max_calls_per_conversation)
            if cap is not None:
                self.caps[str(tool["name"])] = cap
        # Reentrant: a weak reference's callback may run (garbage collection) while the lock is held.
        self._lock = threading.RLock()
        self._by_object: dict[int, tuple[weakref.ref[Any], dict[str, int]]] = {}
        self._by_value: OrderedDict[Hashable, dict[str, int]] = OrderedDict()

    def _counts(self, conversation: object) -> dict[str, int]:
        """The counts of ``conversation`` (called with the lock held)."""
        if not isinstance(conversation, _PLAIN):
            identity = id(conversation)
            held = self._by_object.get(identity)
            if held is not None and held[0]() is conversation:
                return held[1]
            try:
                reference = weakref.ref(conversation, self._forgetter(identity))
            except TypeError:
                pass  # not weakly referenceable: counted by value below
            else:
                counts: dict[str, int] = {}
                self._by_object[identity] = (reference, counts)
                return counts
        value: Hashable = conversation
        known = self._by_value.get(value)
        if known is not None:
            self._by_value.move_to_end(value)
            return known
        fresh: dict[str, int] = {}
        self._by_value[value] = fresh
        while len(self._by_value) > MAX_CONVERSATIONS:
            self._by_value.popitem(last=False)
        return fresh

    def _forgetter(self, identity: int) -> Callable[[weakref.ref[Any]], None]:
        """What drops a conversation's counts when its object goes."""

        def forget(reference: weakref.ref[Any]) -> None:
            with self._lock:
                held = self._by_object.get(identity)
                if held is not None and held[0] is reference:
                    del self._by_object[identity]

        return forget

    def take(self, conversation: object, tool_name: str) -> ToolFailure | None:
        """Count a call of ``tool_name`` in ``conversation`` and answer ``None``; or, when the tool's
        calls there have reached its cap, count nothing and answer the ``resource-limit`` refusal."""
        cap = self.caps.get(tool_name)
        if cap is None:
            return None
        with self._lock:
            counts = self._counts(conversation)
            made = counts.get(tool_name, 0)
            if made + 1 > cap:
                return _refusal(tool_name, cap)
            counts[tool_name] = made + 1
        return None

    def give_back(self, conversation: object, tool_name: str) -> None:
        """Uncount a call :meth:`take` let through that did not run (its arguments were refused)."""
        if tool_name not in self.caps:
            return
        with self._lock:
            counts = self._counts(conversation)
            if counts.get(tool_name, 0) > 0:
                counts[tool_name] -= 1

    def made(self, conversation: object, tool_name: str) -> int:
        """How many calls of ``tool_name`` are counted in ``conversation``."""
        with self._lock:
            return self._counts(conversation).get(tool_name, 0)
