"""`nx_agent.agent.conversation.ConversationCalls`: the counts behind every host's
``maxCallsPerConversation`` (the rules are the module's)."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from nx_agent.agent import conversation as module
from nx_agent.agent.conversation import ConversationCalls, tool_call_cap


def http_tool(name: str, cap: Any = None) -> dict[str, Any]:
    config: dict[str, Any] = {"connection": {"name": "shop"}}
    if cap is not None:
        config["maxCallsPerConversation"] = cap
    return {"name": name, "kind": "http", "config": config}


def test_the_cap_is_the_lower_of_the_tools_and_the_hosts() -> None:
    assert tool_call_cap(http_tool("a", 3)) == 3
    assert tool_call_cap(http_tool("a", 3), 2) == 2 and tool_call_cap(http_tool("a", 3), 5) == 3
    assert tool_call_cap(http_tool("a"), 4) == 4 and tool_call_cap(http_tool("a")) is None
    assert tool_call_cap(http_tool("a", True)) is None  # not a number: no cap of its own


@pytest.mark.parametrize(("cap", "allowed"), [(0, 0), (1, 1), (2.5, 2), (3, 3)])
def test_a_tool_runs_at_most_its_cap(cap: float, allowed: int) -> None:
    calls = ConversationCalls([http_tool("a", cap)])
    outcomes = [calls.take("c", "a") for _ in range(5)]
    assert [outcome is None for outcome in outcomes] == [True] * allowed + [False] * (5 - allowed)
    refusal = outcomes[allowed]
    assert refusal is not None and refusal["error"]["limit"] == {"name": "maxCallsPerConversation", "value": cap}
    assert calls.made("c", "a") == allowed
    assert (calls.take("other", "a") is None) == (allowed > 0)


def test_a_call_given_back_does_not_count_and_uncapped_tools_are_not_counted() -> None:
    calls = ConversationCalls([http_tool("a", 1), http_tool("b")])
    assert calls.caps == {"a": 1}
    assert calls.take("c", "a") is None
    calls.give_back("c", "a")
    assert calls.take("c", "a") is None and calls.take("c", "a") is not None
    assert all(calls.take("c", "b") is None for _ in range(100))


def test_an_object_conversation_is_held_weakly_and_its_counts_go_with_it() -> None:
    class Run:
        pass

    calls = ConversationCalls([http_tool("a", 1)])
    run = Run()
    assert calls.take(run, "a") is None and calls.take(run, "a") is not None
    assert len(calls._by_object) == 1
    del run
    gc.collect()
    assert len(calls._by_object) == 0


def test_value_conversations_are_kept_among_the_most_recent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "MAX_CONVERSATIONS", 3)
    calls = ConversationCalls([http_tool("a", 1)])
    for name in ("c1", "c2", "c3"):
        assert calls.take(name, "a") is None
    calls.take("c1", "a")  # c1 used again: the least recent is now c2
    assert calls.take("c4", "a") is None
    assert list(calls._by_value) == ["c3", "c1", "c4"]


def test_a_host_cap_must_be_a_non_negative_integer() -> None:
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(ValueError):
            ConversationCalls([], max_calls_per_conversation=bad)  # type: ignore[arg-type]
