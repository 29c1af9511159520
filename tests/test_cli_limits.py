"""The command line's memory ceiling and explain's output limit: `run --max-memory`, `call
--max-memory`, `explain --max-output`, each refusing a bad value as a usage error (exit 2, one
line, no traceback), and `compile` on a program that links the DAG type image.

Expected values: the limits' names and defaults are the runtime's documented ones (README
"Images and evaluation": `max_memory` 256 MiB, limit `memory`; `explain`'s `max_output` 64 MiB,
limit `maxOutput`); `grow` is tests/test_memory_limit.py's program (2^22 bytes of text from
`grow(22, "x")`, past a 1 MiB ceiling); the DAG images are tests/fixtures/dag's
(rust/nx-ir-core/tests/dag_images.rs writes them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nx_agent import cli, examples, ir
from test_cli import run_cli
from test_dag_images import NODES, dag_agent_images, peak
from test_memory_limit import GROW_DEFINITION, ONE_MIB, grow_images

MEMORY_LIMIT = {"name": "memory", "value": ONE_MIB}


@pytest.fixture
def grow_files(tmp_path: Path) -> tuple[str, str]:
    """``(definition, image)``: `grow` stored as a function tool, and its image."""
    image = tmp_path / "grow.nxir"
    image.write_bytes(grow_images()["grow.nx"])
    definition = tmp_path / "grower.json"
    definition.write_text(json.dumps(GROW_DEFINITION), encoding="utf-8")
    return str(definition), str(image)


def test_run_stops_at_max_memory(grow_files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    image = grow_files[1]
    argv = ["run", image, "--function", "grow", "--args", '[22, "x"]', "--max-memory", str(ONE_MIB)]
    code, out, err = run_cli(capsys, *argv)
    assert code == 1 and out == ""
    assert "grow failed: " in err and "[nx-ir-resource-limit]" in err and "Traceback" not in err
    code, out, err = run_cli(capsys, *argv, "--json")
    document = json.loads(out)
    assert code == 1 and err == "" and document["ok"] is False
    assert document["error"]["code"] == "nx-ir-resource-limit"
    assert document["error"]["diagnostics"][0]["limit"] == MEMORY_LIMIT
    code, out, _ = run_cli(capsys, "run", image, "--function", "grow", "--args", '[10, "x"]',
                           "--max-memory", str(ONE_MIB), "--json")
    assert code == 0 and json.loads(out)["value"] == "x" * 1024


def test_call_past_max_memory_is_a_resource_limit_result(grow_files: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["call", *grow_files, "grow", "--input", '{"n": 22, "s": "x"}', "--call-id", "c1", "--entry", "grow.nx",
            "--max-memory", str(ONE_MIB)]
    code, out, err = run_cli(capsys, *argv)
    assert code == 1 and out == ""
    assert "tool grow failed: " in err and "[resource-limit]" in err
    assert f"limit memory = {ONE_MIB}" in err
    code, out, _ = run_cli(capsys, *argv, "--json")
    result = json.loads(out)
    assert code == 1 and result["ok"] is False
    assert result["error"]["code"] == "resource-limit" and result["error"]["limit"] == MEMORY_LIMIT
    code, out, _ = run_cli(capsys, "call", *grow_files, "grow", "--input", '{"n": 10, "s": "x"}', "--call-id", "c2",
                           "--entry", "grow.nx", "--max-memory", str(ONE_MIB), "--json")
    assert code == 0 and json.loads(out)["output"] == "x" * 1024


def test_explain_stops_at_max_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    nodes = tmp_path / "nodes.nxir"
    nodes.write_bytes(NODES)  # 2^48 concatenations of "ab" in 50 nodes: past any small limit
    code, out, err = run_cli(capsys, "explain", str(nodes), "--max-output", "4096")
    assert code == 3 and out == ""
    assert err.startswith(f"nx-agent: error: {nodes}: ") and "[nx-ir-resource-limit]" in err
    assert "--max-output" in err and "Traceback" not in err
    code, out, err = run_cli(capsys, "--json", "explain", str(nodes), "--max-output", "4096")
    error = json.loads(err)["error"]
    assert code == 3 and out == ""
    assert error["code"] == "nx-ir-resource-limit" and error["path"] == str(nodes)
    assert error["diagnostics"][0]["limit"] == {"name": "maxOutput", "value": 4096}


def test_explain_within_max_output_prints_the_whole_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = tmp_path / "catalog.nxir"
    image.write_bytes(examples.prepare("plans/catalog.nx").to_bytes())
    text = examples.text("plans/catalog.nx")
    size = len(text.encode("utf-8"))
    code, out, _ = run_cli(capsys, "explain", str(image), "--max-output", str(size))
    assert code == 0 and out == text
    code, out, err = run_cli(capsys, "--json", "explain", str(image), "--max-output", "10")
    assert code == 3 and out == ""
    assert json.loads(err)["error"]["diagnostics"][0]["limit"] == {"name": "maxOutput", "value": 10}


BAD_LIMITS = ["-1", "1.5", "lots", "", str(2**53)]


@pytest.mark.parametrize("value", BAD_LIMITS)
@pytest.mark.parametrize("command", ["run", "call", "explain"])
def test_a_bad_limit_is_a_one_line_usage_error(
    grow_files: tuple[str, str], capsys: pytest.CaptureFixture[str], command: str, value: str
) -> None:
    definition, image = grow_files
    argv = {
        "run": ["run", image, "--function", "grow", "--args", '[1, "x"]', "--max-memory", value],
        "call": ["call", definition, image, "grow", "--input", '{"n": 1, "s": "x"}', "--call-id", "c1", "--entry", "grow.nx",
                 "--max-memory", value],
        "explain": ["explain", image, "--max-output", value],
    }[command]
    option = argv[-2]
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert err == f"nx-agent: error: {option}: must be a whole number from 0 to {2**53 - 1} (2**53 - 1), got {value!r} [nx-agent-cli-usage]\n"
    code, out, err = run_cli(capsys, "--json", *argv)
    error = json.loads(err)["error"]
    assert code == 2 and out == "" and error["code"] == "nx-agent-cli-usage" and error["path"] == option


def test_a_process_given_a_bad_ceiling_exits_2_without_a_traceback(grow_files: tuple[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "nx_agent", "run", grow_files[1], "--function", "grow", "--max-memory", "lots"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--max-memory" in done.stderr and "Traceback" not in done.stderr


def test_the_help_names_the_options_and_their_defaults() -> None:
    commands = cli.build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    ceiling = f"{ir.Limits().max_memory:,}"
    assert ceiling == "268,435,456"  # 256 MiB, the documented default
    for name in ("run", "call"):
        text = " ".join(commands[name].format_help().split())
        assert f"--max-memory N bytes of values the" in text and f"(default {ceiling}, 256 MiB)" in text, name
    text = " ".join(commands["explain"].format_help().split())
    assert "--max-output N most bytes of text to write (default 67,108,864, 64 MiB)" in text


def test_compile_over_a_type_dag_exits_with_a_code_and_stays_small(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = []
    for identity, data in dag_agent_images().items():
        path = tmp_path / (identity.replace("/", "__") + ".nxir")
        path.write_bytes(data)
        paths.append(str(path))
    output = tmp_path / "dag.json"
    code, used = peak(lambda: cli.main(["--json", "compile", *paths, "-o", str(output)]))
    captured = capsys.readouterr()
    # Refused as a type with no JSON form (exit 3: an agent with diagnostics), nothing written.
    assert code == 3 and captured.out == "" and not output.exists()
    error = json.loads(captured.err)["error"]
    assert error["code"] == "nx-agent-inexpressible-parameter" and "Traceback" not in captured.err
    assert used < 64 << 20, used
    # The refusal quotes the type's spelling bounded (its beginning and end): a few KB at most,
    # never the 130 KB the image's budget of type views spells, nor the 3^60 views of the tree.
    assert len(captured.err) < 8_000, len(captured.err)
    assert "characters left out" in error["message"]
