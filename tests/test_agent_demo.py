"""`nx-agent demo`: compiles the bundled support agent, prints its definition and runs `find_plans`
and `lookup_order` (against a request function that answers locally) with their usage."""

from __future__ import annotations

import json
import re

import pytest

from nx_agent import cli, examples
from nx_agent.agent import compile_agent


def test_demo_prints_the_definition_and_runs_two_tools(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    head, _, rest = out.partition("\n")
    assert head.startswith("Compiled the support agent; store its definition and 2 images (@nx/agent/agent.nx, main.nx).")
    printed, _, calls = rest.partition("\n\n")
    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    assert json.loads(printed) == compiled.definition
    assert [t["name"] for t in json.loads(printed)["tools"]] == ["web_search", "find_plans", "lookup_order", "open_ticket"]

    outputs = re.findall(r"^  output: (.*)$", calls, re.M)
    assert json.loads(outputs[0]) == [{"$type": "Plan", "name": "Team", "seats": 5, "monthlyPrice": 20}]
    assert json.loads(outputs[1]) == {"status": 200, "body": {"orderId": "A 1", "state": "shipped"}}
    assert "  request function handed: GET https://api.example.com/orders/A%201" in calls
    usages = re.findall(r"^  usage: (\d+) operations, input size (\d+)$", calls, re.M)
    assert [size for _, size in usages] == ["5", "5"]
    assert all(int(operations) > 0 for operations, _ in usages)
