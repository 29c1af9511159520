"""Writing a tool's result as JSON text in JavaScript's spelling (what the MCP server and the
OpenAI Agents adapter send, and an HTTP body): `json_text` against the standard library's
`json.dumps` of the same value, which spells floats and orders index keys otherwise. Both rows of
a group run in this session; the ratio between them is the figure.

Run: `python3 -m pytest benches/test_json_text_speed.py`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from nx_agent import examples
from nx_agent._js import json_text
from nx_agent.agent import compile_agent

PLANS = [
    {"$type": "Plan", "monthlyPrice": 49, "name": "Team", "seats": 10},
    {"$type": "Plan", "monthlyPrice": 99, "name": "Business", "seats": 50},
]


@pytest.mark.benchmark(group="findPlans result as JSON text")
def test_json_text_of_a_result(benchmark: Any) -> None:
    assert json.loads(benchmark(json_text, PLANS)) == PLANS


@pytest.mark.benchmark(group="findPlans result as JSON text")
def test_json_dumps_of_a_result_baseline(benchmark: Any) -> None:
    assert json.loads(benchmark(json.dumps, PLANS, separators=(",", ":"), ensure_ascii=False)) == PLANS


@pytest.mark.benchmark(group="support agent definition as JSON text")
def test_json_text_of_a_definition(benchmark: Any) -> None:
    definition = compile_agent(examples.support_images(), descriptions=examples.support_descriptions()).definition
    assert json.loads(benchmark(json_text, definition)) == definition


@pytest.mark.benchmark(group="support agent definition as JSON text")
def test_json_dumps_of_a_definition_baseline(benchmark: Any) -> None:
    definition = compile_agent(examples.support_images(), descriptions=examples.support_descriptions()).definition
    text = benchmark(json.dumps, definition, separators=(",", ":"), ensure_ascii=False)
    assert json.loads(text) == definition
