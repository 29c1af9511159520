"""The agents the SDK adapter tests run: the bundled support agent (web search, ``find_plans``,
``lookup_order``, ``open_ticket``) and the corpus program ``agent-tool-context`` (``who_am_i``
answers the context's ``conversationId``, ``call_id_of`` the call's ``callId``).

Expected values: ``find_plans({teamSize: 5})`` is the one plan the corpus source builds (as in
``test_agent_e2e``); the sentences are agent-package §7's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from corpus_agents import CONTEXT_PROGRAM, compile_context_agent
from nx_agent import NxAgentToolError, compile_agent, examples, load_agent
from nx_agent.agent.compile import LoadedAgent

PLANS_5 = [{"$type": "Plan", "name": "Team", "seats": 5, "monthlyPrice": 20}]
# The record's fields in the order the IR stores and evaluates them: sorted (ir-format.md).
PLANS_5_TEXT = '[{"$type":"Plan","monthlyPrice":20,"name":"Team","seats":5}]'
LIMIT_SENTENCE = "NxAgentToolError: Tool 'find_plans' stopped at a limit on what one call may do."
NO_ANSWER_SENTENCE = "NxAgentToolError: Tool 'lookup_order' did not get an answer to its request."
UNAVAILABLE_SENTENCE = "NxAgentToolError: Tool 'who_am_i' is not available for this call."
SECRET = "https://billing.internal/v1/orders?token=sk-live-42"
REWORDED_SENTENCE = "NxAgentToolError: The order service is down. Try again later."
NO_PROVIDER_TOOL_MESSAGE = (
    "Tool 'web_search' is run by the model's provider, and 'provider_tool' gave no tool for it. "
    "Map it to the provider's tool, or answer None to leave it out."
)
LEAVE_OUT = {"provider_tool": lambda tool: None}
"""The adapters' option that leaves the provider tool (``web_search``) out."""

_SUPPORT = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
SUPPORT_DEFINITION = _SUPPORT.definition


def shop(call: dict[str, Any]) -> dict[str, Any]:
    """The shop's request function, answering locally: order ``A1`` is unknown to it, order
    ``down`` fails as a broken connection would (with a secret in its text)."""
    order = call["arguments"]["pathParams"][0]["value"] if call["arguments"]["pathParams"] else None
    if order == "A1":
        raise NxAgentToolError("order-not-found", "There is no order A1.", limit={"name": "orders", "value": 1})
    if order == "down":
        raise TypeError(f"fetch failed: {SECRET}")
    return {"status": 200, "body": {"orderId": order, "state": "shipped"}}


def support_agent(**options: Any) -> LoadedAgent:
    """The bundled support agent, loaded from what was stored, with the local shop."""
    return load_agent(_SUPPORT.definition_text, _SUPPORT.images, request=shop, **options)


def stored_schema(name: str) -> Any:
    """The input schema the support agent's definition stores for ``name``."""
    return next(tool["inputSchema"] for tool in SUPPORT_DEFINITION["tools"] if tool["name"] == name)


def context_agent() -> LoadedAgent | None:
    """The ``agent-tool-context`` corpus agent, or ``None`` without the corpus."""
    if CONTEXT_PROGRAM is None:
        return None
    compiled = compile_context_agent()
    return load_agent(compiled.definition_text, compiled.images)


def chat(conversation: str) -> dict[str, str]:
    """The host's context record for a conversation."""
    return {"$type": "ChatToolContext", "conversationId": conversation}


def reword(event: Any) -> None:
    """An ``on_result`` hook that tells the model its own sentence for every failure."""
    if not event["result"]["ok"]:
        raise NxAgentToolError("request-failed", "The order service is down. Try again later.")


class Journal:
    """An async ``on_result`` hook that notes when writing each call's event begins and ends."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    async def __call__(self, event: Any) -> None:
        self.lines.append(f"begins {event['call_id']}")
        await asyncio.sleep(0)
        self.lines.append(f"written {event['call_id']}")

    def assert_awaited_once_each(self, call_ids: str) -> None:
        """Each call's write began once and ended once, and ended after it began."""
        assert sorted(self.lines) == sorted(f"{step} {call}" for call in call_ids for step in ("begins", "written"))
        for call in call_ids:
            assert self.lines.index(f"begins {call}") < self.lines.index(f"written {call}")
