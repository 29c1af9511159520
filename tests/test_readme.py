"""The README's set-up commands and Python examples, as the README shows them."""

from __future__ import annotations

import re

import pytest

import readme


def test_the_two_set_up_commands() -> None:
    commands = readme.code_blocks("Set up", "bash")[0]
    assert "python3 -m pip install . && nx-agent demo" in commands
    assert "python3 -m pip install '.[test]' && python3 -m pytest -q && cargo test --workspace" in commands


@pytest.mark.parametrize("heading", ["Run an agent's tools", "Images and evaluation", "Schemas for tools"])
def test_the_example_runs(heading: str, capsys: pytest.CaptureFixture[str]) -> None:
    readme.module(heading)
    printed = capsys.readouterr().out
    if heading == "Run an agent's tools":
        assert re.fullmatch(r"\{'operations': \d+, 'inputSize': 5\}\n", printed)


def test_the_http_example_names_what_exists() -> None:
    block = readme.code_blocks("HTTP tools")[0]
    from nx_agent.http.client import request_with

    assert "from nx_agent.http.client import request_with" in block
    assert callable(request_with)


def test_the_command_line_section_lists_every_command() -> None:
    from nx_agent.cli import build_parser

    text = readme.section("Command line")
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command" or getattr(a, "choices", None))
    for name in commands.choices:  # type: ignore[union-attr]
        assert f"nx-agent {name}" in text, name
