"""``nx-agent explain`` and ``nx-agent run`` on an image the NX project's own writer wrote:
``tests/fixtures/reference-written/booking.nxir``, a schema 6 module built with ``nx-ir`` 0.10.0's
model and laid out by its ``write_nx_ir_image`` (see the README beside it). The expected explain
text is ``nx-ir`` 0.10.0's explain of the same bytes, and each run's value, operations and input
size are what ``nx-ir-runtime`` 0.10.0 gives; the oracle crate writes them
(``oracle/examples/write_reference_fixture.rs``) and checks that they are current
(``oracle/tests/reference_written.rs``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nx_agent import cli
from nx_agent.cli import images

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "reference-written"
IMAGE = str(FIXTURE / "booking.nxir")
EXPLAIN = (FIXTURE / "booking.explain.txt").read_text(encoding="utf-8")
RUNS: dict[str, Any] = json.loads((FIXTURE / "booking.runs.json").read_text(encoding="utf-8"))


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_fixture_is_a_schema_6_image_of_the_reference_writer() -> None:
    data = Path(IMAGE).read_bytes()
    assert data[:4] == b"NXIR" and data[4] == 6
    assert RUNS["runtime"] == "nx-ir-runtime 0.10.0" and RUNS["image"] == "booking.nxir"
    # The runs were made under run's default limits, so its usage report is comparable.
    assert (RUNS["maxOperations"], RUNS["maxInputSize"]) == (images.DEFAULT_MAX_OPERATIONS, images.DEFAULT_MAX_INPUT_SIZE)


def test_explain_prints_what_the_reference_explain_prints(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "explain", IMAGE)
    assert (code, err) == (0, "")
    assert out == EXPLAIN


def test_explain_json_names_the_schema_and_the_prelude_link(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "explain", IMAGE, "--json")
    assert code == 0
    document = json.loads(out)
    assert document["explain"] == EXPLAIN
    assert (document["identity"], document["schema"], document["size"]) == ("booking.nx", 6, Path(IMAGE).stat().st_size)
    assert document["links"] == [{"identity": "@nx/prelude.nx", "version": "1", "fingerprint": 3805895034114390176}]
    assert document["functions"] == ["nights", "quote", "stay", "checkedNights"]


@pytest.mark.parametrize(
    "run", RUNS["runs"], ids=[f"{r['function']}({json.dumps(r['arguments'])})" for r in RUNS["runs"]]
)
def test_run_gives_the_reference_runtimes_value_and_usage(capsys: pytest.CaptureFixture[str], run: dict[str, Any]) -> None:
    argv = ["run", IMAGE, "--function", run["function"], "--args", json.dumps(run["arguments"]), "--json"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    document = json.loads(out)
    assert document["ok"] is True
    assert document["value"] == run["value"]
    assert document["usage"] == {"operations": run["operations"], "inputSize": run["inputSize"]}


def test_run_prints_the_value_and_usage_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    [stay] = [r for r in RUNS["runs"] if r["function"] == "stay"]
    code, out, err = run_cli(capsys, "run", IMAGE, "--function", "stay", "--args", json.dumps(stay["arguments"]))
    assert (code, err) == (0, "")
    value, _, usage = out.rpartition("used ")
    assert json.loads(value) == stay["value"]
    assert usage == f"{stay['operations']} operations, input size {stay['inputSize']}\n"
