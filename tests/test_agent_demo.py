"""`nx-agent demo`: compiles the bundled support agent and runs `find_plans` and `lookup_order`
(against a request function that answers locally) with their usage, the calls first and the
definition only on request; `--write DIR` writes the files the README's commands use."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from nx_agent import cli, examples, ir
from nx_agent.agent import compile_agent


def test_demo_shows_the_calls_first_and_the_definition_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == (
        "Compiled the bundled support agent: 4 tools (web_search, find_plans, lookup_order, open_ticket); "
        "store its definition and 2 images (@nx/agent/agent.nx, main.nx)."
    )
    assert len(lines) < 20, out
    assert lines[3] == 'find_plans({"teamSize": 5})  [call demo:1]'
    outputs = re.findall(r"^  output: (.*)$", out, re.M)
    assert json.loads(outputs[0]) == [{"$type": "Plan", "name": "Team", "seats": 5, "monthlyPrice": 20}]
    assert json.loads(outputs[1]) == {"status": 200, "body": {"orderId": "A 1", "state": "shipped"}}
    assert "  request function handed: GET https://api.example.com/orders/A%201" in out
    usages = re.findall(r"^  used (\d+) operations, input size (\d+)$", out, re.M)
    assert [size for _, size in usages] == ["5", "5"]
    assert all(int(operations) > 0 for operations, _ in usages)
    assert "nx-agent demo --definition" in lines[-1] and "nx-agent demo --write DIR" in lines[-1]

    assert cli.main(["demo", "--definition"]) == 0
    out = capsys.readouterr().out
    calls, _, printed = out.partition("\nThe definition to store:\n")
    assert "find_plans(" in calls
    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    assert json.loads(printed) == compiled.definition


def test_demo_write_holds_every_file_the_readme_uses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "example"
    assert cli.main(["demo", "--write", str(folder)]) == 0
    out = capsys.readouterr().out
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(
        ["main.nx.nxir", "agent.nx.nxir", "main.nx.descriptions.json", "support.json", "main.nx.nxir.txt", "agent.nx.nxir.txt"]
    )
    for name in names:
        assert f"  {name} " in out
    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    assert (folder / "support.json").read_text(encoding="utf-8") == compiled.definition_text
    assert (folder / "main.nx.nxir").read_bytes() == compiled.images["main.nx"]
    assert (folder / "agent.nx.nxir").read_bytes() == compiled.images["@nx/agent/agent.nx"]
    assert json.loads((folder / "main.nx.descriptions.json").read_text(encoding="utf-8")) == examples.support_descriptions()
    # The explain texts are what explain prints of the images, and assemble back to them.
    for image in ("main.nx.nxir", "agent.nx.nxir"):
        assert ir.explain((folder / image).read_bytes()) == (folder / f"{image}.txt").read_text(encoding="utf-8")
    # compile over the written files writes the very definition written.
    again = tmp_path / "again.json"
    argv = ["compile", str(folder / "main.nx.nxir"), str(folder / "agent.nx.nxir"),
            "--descriptions", str(folder / "main.nx.descriptions.json"), "-o", str(again)]
    assert cli.main(argv) == 0
    assert again.read_text(encoding="utf-8") == compiled.definition_text
    capsys.readouterr()

    assert cli.main(["--json", "demo", "--write", str(folder)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert sorted(document["files"]) == names


def test_demo_write_into_a_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert cli.main(["demo", "--write", str(blocker / "sub")]) == 3
    err = capsys.readouterr().err
    assert "[nx-agent-cli-file]" in err and "Traceback" not in err
