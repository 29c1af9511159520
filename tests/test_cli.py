"""The command line: the demo, explain, assemble and link."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from nx_agent import cli, examples


def test_demo_links_and_explains_the_bundled_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--ir"]) == 0
    out = capsys.readouterr().out
    assert "linked 2 modules:" in out
    assert "plans/catalog.nx" in out
    assert "findPlans(teamSize=5) -> Team, Business (" in out
    assert out.endswith(examples.text("plans/main.nx"))


def test_assemble_explain_and_link_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for identity, (name, version) in examples.MODULES.items():
        (tmp_path / name).write_text(examples.text(identity), encoding="utf-8")
        args = ["assemble", str(tmp_path / name), "-o", str(tmp_path / f"{name}.nxir")]
        assert cli.main([*args, "--version", version]) == 0
    main = tmp_path / "plans__main.nx.nxir.txt.nxir"
    catalog = tmp_path / "plans__catalog.nx.nxir.txt.nxir"
    capsys.readouterr()
    assert cli.main(["explain", str(main)]) == 0
    assert capsys.readouterr().out == examples.text("plans/main.nx")
    assert cli.main(["link", str(main), str(catalog)]) == 0
    assert "plans/catalog.nx version \"1\"" in capsys.readouterr().out


def test_failures_are_reported_with_their_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.nxir"
    bad.write_bytes(b"not an image")
    assert cli.main(["explain", str(bad)]) == 3
    assert "[nx-ir-format]" in capsys.readouterr().err


def test_python_dash_m_runs_the_command_line() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "nx_agent", "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert "demo" in result.stdout
