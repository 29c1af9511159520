"""``nx-agent cost``: profile, curve, diff and budget, on the bundled agent, on a corpus program and on
a quadratic-cost program, with their numbers checked."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from corpus import programs, require_corpus
from corpus import image as corpus_image
from nx_agent import cli, examples, ir
from nx_agent.cost import plot as cost_plot
from nx_agent.profile import profile_function

#: A tool whose cost is quadratic in ``n`` (a range inside a range) and one linear in it.
PAIRS = """\
module pairs.nx fingerprint 1801
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1
entrypoints functions [pairs steps] components []

function pairs(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    for j in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
      (i mul j)

function steps(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    (i add 1)
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def agent(tmp_path: Path) -> list[str]:
    """``[definition, *images]`` of the bundled support agent, as ``compile`` stores them."""
    images = []
    for identity, data in examples.support_images().items():
        path = tmp_path / (identity.replace("/", "__") + ".nxir")
        path.write_bytes(data)
        images.append(str(path))
    descriptions = tmp_path / "descriptions.json"
    descriptions.write_text(json.dumps(examples.support_descriptions()), encoding="utf-8")
    definition = tmp_path / "support.json"
    assert cli.main(["compile", *images, "--descriptions", str(descriptions), "-o", str(definition)]) == 0
    return [str(definition), *images]


@pytest.fixture
def pairs(tmp_path: Path) -> str:
    path = tmp_path / "pairs.nxir"
    path.write_bytes(ir.assemble(PAIRS))
    return str(path)


def pairs_count(n: int) -> int:
    """What the reference rules charge for ``pairs(n)``: as the evaluator reports it."""
    program = ir.prepare_program(ir.assemble(PAIRS))
    return int(ir.evaluate_function(program, "pairs", [n], max_operations=10**9).usage["operations"])


# ------------------------------------------------------------------------------------- profile


def test_profile_of_a_tool_of_the_bundled_agent(agent: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    collapsed, speedscope = tmp_path / "fp.folded", tmp_path / "fp.speedscope.json"
    code, out, _ = run(capsys, "cost", "profile", *agent, "find_plans", "--input", '{"teamSize": 5}',
                       "--collapsed", str(collapsed), "--speedscope", str(speedscope), "--json")
    assert code == 0
    document = json.loads(out)
    code, called, _ = run(capsys, "call", *agent, "find_plans", "--input", '{"teamSize": 5}', "--call-id", "c1", "--json")
    operations = json.loads(called)["usage"]["operations"]
    assert document["total"] == document["usage"]["operations"] == operations == 17
    by_name = {d["declaration"]: d for d in document["declarations"]}
    assert by_name["main.nx::findPlans"]["total"] == 17 and by_name["main.nx::findPlans"]["calls"] == 1
    assert by_name["main.nx::Plan"]["calls"] == 1
    assert sum(k["operations"] for k in document["kinds"]) == 17
    lines = collapsed.read_text().splitlines()
    assert sum(int(line.rsplit(" ", 1)[1]) for line in lines) == 17
    assert "main.nx::findPlans;main.nx::Plan 6" in lines
    assert sum(json.loads(speedscope.read_text())["profiles"][0]["weights"]) == 17
    # The table for people names the same numbers.
    code, text, _ = run(capsys, "cost", "profile", *agent, "find_plans", "--input", '{"teamSize": 5}')
    assert code == 0 and "total 17 operations" in text
    assert any(line.split()[:4] == ["main.nx::findPlans", "function", "11", "17"] for line in text.splitlines())


def test_profile_shows_where_the_budget_ran_out(agent: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "cost", "profile", *agent, "find_plans", "--input", '{"teamSize": 5}',
                       "--max-operations", "10", "--json")
    assert code == 1
    document = json.loads(out)
    assert document["error"]["code"] == "resource-limit"
    assert document["total"] == document["usage"]["operations"] <= 10
    assert document["ranOut"]["path"][0] == "main.nx::findPlans"


def test_profile_of_a_corpus_program(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    require_corpus()
    program = next(p for p in programs() if p.name == "evaluation-cost")
    path = tmp_path / "main.nxir"
    path.write_bytes(corpus_image(program, program.modules["main.nx"]))
    counts = json.loads((program.path / "expected" / "operations.json").read_text())["counts"]
    for function in ("forRange", "valueCall", "content"):
        code, out, _ = run(capsys, "cost", "profile", str(path), "--function", function, "--json")
        assert code == 0
        assert json.loads(out)["total"] == counts[f"main.nx::{function}"]


# --------------------------------------------------------------------------------------- curve


def test_a_quadratic_tool_fits_quadratic_and_its_plot_renders(pairs: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stem = tmp_path / "pairs"
    code, out, _ = run(capsys, "cost", "curve", pairs, "--function", "pairs", "--vary", "n=1..300", "--points", "10",
                       "--largest", "1000", "--margin", "25", "--plot", str(stem), "--json")
    assert code == 0
    document = json.loads(out)
    assert document["fit"]["model"] == "quadratic"
    assert document["fit"]["relative"] < 1e-9
    for point in document["points"]:
        assert point["operations"] == pairs_count(point["size"])
    # 6n² + 8n + 10 operations: at n = 1000 that is 6,008,010, and 25% on top, rounded up.
    assert [p["operations"] for p in document["points"][:3]] == [24, 50, 138]
    assert round(document["predicted"]) == 6_008_010
    assert document["budget"] == math.ceil(6_008_010 * 1.25) == 7_510_013
    others = {c["model"]: c["relative"] for c in document["candidates"]}
    assert others["linear"] > 0.3 and others["n log n"] > 0.1
    png, svg = stem.with_suffix(".png"), stem.with_suffix(".svg")
    assert document["plots"] == [str(png), str(svg)]
    # The PNG is a real picture: 700x450 pixels, mostly white, with the orange points and the blue
    # curve drawn (its closing look is in the report of the change that added it).
    from PIL import Image

    with Image.open(png) as picture:
        assert picture.size == (700, 450)
        colours = picture.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None
    white = sum(count for count, rgb in colours if rgb == (255, 255, 255))
    orange = sum(count for count, (r, g, b) in colours if r > 230 and 100 < g < 150 and b < 60)
    blue = sum(count for count, (r, g, b) in colours if r < 60 and 100 < g < 140 and b > 160)
    assert white > 700 * 450 // 2 and orange > 100 and blue > 300
    assert svg.read_text(encoding="utf-8").lstrip().startswith("<?xml") and "quadratic" in svg.read_text(encoding="utf-8")


def test_a_linear_tool_fits_linear_from_an_inputs_file(pairs: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text("".join(json.dumps({"n": n}) + "\n" for n in (1, 5, 10, 50, 100)), encoding="utf-8")
    # By input size, every {"n": ...} is the same size: --vary is what measures growth in a value.
    code, out, _ = run(capsys, "cost", "curve", pairs, "--function", "steps", "--vary", "n=0..1000", "--points", "6", "--json")
    assert code == 0
    document = json.loads(out)
    assert document["fit"]["model"] == "linear" and document["fit"]["formula"] == "5·n + 10"
    assert [p["size"] for p in document["points"]] == [0, 200, 400, 600, 800, 1000]
    assert document["budget"] == math.ceil((5 * 1000 + 10) * 1.25)
    code, out, _ = run(capsys, "cost", "curve", pairs, "--function", "steps", "--inputs", str(inputs), "--json")
    assert code == 0
    assert [p["operations"] for p in json.loads(out)["points"]] == [5 * n + 10 for n in (1, 5, 10, 50, 100)]


def test_curve_of_the_bundled_agent_is_constant(agent: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "cost", "curve", *agent, "find_plans", "--vary", "teamSize=1..10000", "--points", "12",
                       "--largest", "100000")
    assert code == 0
    assert "best fit: constant  17" in out
    assert "recommended maxOperations for teamSize up to 100,000 with a 25% margin: 22" in out
    assert "▁" * 12 in out


def test_without_matplotlib_the_curve_is_a_sparkline(pairs: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("nx_agent.cli.cost.have_matplotlib", lambda: False)
    code, out, err = run(capsys, "cost", "curve", pairs, "--function", "pairs", "--vary", "n=0..7", "--points", "8",
                         "--plot", str(tmp_path / "none"))
    assert code == 4
    assert cost_plot.sparkline([pairs_count(n) for n in range(8)]) in out
    assert "nx-agent[plot]" in err and not (tmp_path / "none.png").exists()


def test_sparkline_scales_from_least_to_most() -> None:
    assert cost_plot.sparkline([1, 2, 3, 4, 5, 6, 7, 8]) == "▁▂▃▄▅▆▇█"
    assert cost_plot.sparkline([5, 5]) == "▁▁"


def test_profile_total_equals_a_plain_call_on_the_quadratic_program() -> None:
    program = ir.prepare_program(ir.assemble(PAIRS))
    profile = profile_function(program, "pairs", [20], max_operations=10**6)
    assert profile.total == pairs_count(20) == 6 * 400 + 8 * 20 + 10
    kinds: dict[str, Any] = {k.kind: k for k in profile.kinds}
    assert kinds["binary"].count == 400


def test_the_cli_page_documents_every_cost_subcommand_and_option() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    cost = cli.build_parser()._subparsers._group_actions[0].choices["cost"]  # type: ignore[union-attr]
    subcommands = cost._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(subcommands) == {"profile", "curve", "diff", "budget"}
    for name, parser in subcommands.items():
        assert f"nx-agent cost {name}" in page, name
        for action in parser._actions:
            for option in action.option_strings:
                if option.startswith("--") and option not in ("--help", "--json"):
                    assert option in page, f"cost {name} {option}"
