"""The README's adapter examples (read from README.md), run through each SDK with a model that calls find_plans and
lookup_order and then answers with what the tools returned (no network, no model)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import readme
from adapter_agents import PLANS_5


def test_the_openai_agents_example(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("agents")
    from agents import set_tracing_disabled
    from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call

    readme_openai_agents = readme.module("OpenAI Agents SDK")

    def answer(call: ModelCall) -> Any:
        outputs = [item["output"] for item in call.input if isinstance(item, dict) and item.get("type") == "function_call_output"]
        return [assistant_message(" | ".join(outputs))]

    model = ScriptedModel(
        [
            [function_call("find_plans", {"teamSize": 5}, call_id="call_1"), function_call("lookup_order", {"orderId": "A1"}, call_id="call_2")],
            ModelStep.respond(answer),
        ]
    )
    set_tracing_disabled(True)
    try:
        said = asyncio.run(readme_openai_agents.ask("Which plans fit a team of 5?", model=model))
    finally:
        set_tracing_disabled(False)
    plans, order = said.split(" | ")
    assert json.loads(plans) == PLANS_5
    assert json.loads(order) == {"status": 200, "body": {"state": "shipped"}}
    printed = capsys.readouterr().out.splitlines()
    assert sorted(line.split(" ")[:2] for line in printed) == [["find_plans", "call_1"], ["lookup_order", "call_2"]]


def test_the_pydantic_ai_example(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pydantic_ai")
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    readme_pydantic_ai = readme.module("pydantic-ai")

    def model(messages: list[Any], info: Any) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(
                parts=[ToolCallPart("find_plans", {"teamSize": 5}, tool_call_id="call_1"), ToolCallPart("lookup_order", {"orderId": "A1"}, tool_call_id="call_2")]
            )
        returned = [part.content for part in messages[-1].parts if isinstance(part, ToolReturnPart)]
        return ModelResponse(parts=[TextPart(json.dumps(returned))])

    said = asyncio.run(readme_pydantic_ai.ask("Which plans fit a team of 5?", model=FunctionModel(model)))
    assert json.loads(said) == [PLANS_5, {"status": 200, "body": {"state": "shipped"}}]
    printed = capsys.readouterr().out.splitlines()
    assert sorted(line.split(" ")[:2] for line in printed) == [["find_plans", "call_1"], ["lookup_order", "call_2"]]
