"""`execute` never raises for a tool failure (agent-package §5.3 step 9), whatever the model sends
and whatever the host passes: generated inputs, contexts and call ids over every executable tool of
the fixture agent. Each result is a well-formed result of §5.9 with a code of §5.10."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_programs import execute_definition, link_execute_program
from nx_agent.agent.create import create_agent_tools
from nx_agent.agent.results import PACKAGE_ERROR_CODES

PROGRAM = link_execute_program()
TOOLS = [
    tool
    for tool in create_agent_tools(
        json.loads(json.dumps(execute_definition())),
        PROGRAM,
        request=lambda call: {"status": 200, "body": None},
        executors={"builtin": lambda tool, value, call: "found"},
    )
    if hasattr(tool, "execute")
]
NAMES = ["teamSize", "n", "orderId", "context", "note", "first", "second", "$type", "callId", "conversationId", "__proto__"]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=80),
    st.sampled_from(["ChatToolContext", "AuditToolContext", "conv_9", "five", ""]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
records = st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=8), values, max_size=5)
contexts = st.one_of(
    st.none(),
    values,
    records.map(lambda r: {"$type": "ChatToolContext", **r}),
    st.fixed_dictionaries({"$type": st.just("ChatToolContext"), "conversationId": st.text(max_size=20)}),
)
call_ids = st.one_of(st.text(max_size=12), st.none(), st.integers(), st.just("t1:0:0"))
CODES = set(PACKAGE_ERROR_CODES)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool=st.sampled_from(TOOLS), value=st.one_of(records, values), context=contexts, call_id=call_ids)
def test_execute_answers_a_result_and_never_raises(tool: Any, value: Any, context: Any, call_id: Any) -> None:
    result = tool.execute(value, call_id=call_id, context=context)
    assert result["ok"] in (True, False)
    if result["ok"]:
        assert list(result)[:2] == ["ok", "output"]
        return
    error = result["error"]
    assert error["code"] in CODES, result
    assert isinstance(error["message"], str) and error["message"]
    assert set(error) <= {"code", "message", "diagnostics", "limit"}
    assert set(result) <= {"ok", "error", "usage"}
    assert None not in error.values()
