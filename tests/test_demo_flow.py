"""``nx-agent demo --flow``: the bundled conversation flow (a component of our own, schema 6)
answered step by step from piped standard input, as a person at a terminal would."""

from __future__ import annotations

import json
import subprocess
import sys

from nx_agent import examples, ir


def demo(stdin: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "nx_agent", "demo", "--flow", *extra],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_the_flow_is_answered_from_the_terminal() -> None:
    ran = demo("Ada\n2\nlarge\nmaybe\n1\nn\n")
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert "1. What should we call you?" in lines
    assert "  2) coffee" in lines
    assert "  effect: What should we call you? -> Ada" in lines
    assert "  effect: Which size? -> large" in lines
    # An answer that is neither a number nor a label is asked again.
    assert "  answer with a number from 1 to 2 or one of: yes, no" in lines
    assert "Summary: Ada, coffee, large, yes" in lines
    assert ran.stderr == ""


def test_the_flow_starts_again_and_stops_at_the_end_of_input() -> None:
    ran = demo("Ada\n1\n1\n2\ny\nBob\n")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.count("1. What should we call you?") == 2
    assert "  effect: What should we call you? -> Bob" in ran.stdout
    assert "2. What would you like to drink?" in ran.stdout.split("-> Bob")[1]


def test_the_flow_in_json_mode_reports_every_step() -> None:
    ran = demo("Ada\n3\n1\n2\n", "--json")
    assert ran.returncode == 0, ran.stderr
    document = json.loads(ran.stdout)
    assert [step["effects"][0]["answer"] for step in document["steps"]] == ["Ada", "water", "small", "no"]
    assert document["steps"][-1]["state"] == {"answers": ["Ada", "water", "small", "no"], "step": 4}
    assert document["output"]["$type"] == "Summary"


def test_the_bundled_flow_text_is_its_own_explanation() -> None:
    program = examples.link_flow()
    assert program.entry.schema == 6
    assert ir.explain(program.entry) == examples.flow_text()
