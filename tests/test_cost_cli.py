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
from test_cli import agent_files  # noqa: F401 - a fixture
from test_cli import run_cli as run

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


@pytest.fixture
def agent(tmp_path: Path, agent_files: tuple[list[str], str]) -> list[str]:
    """``[definition, *images]`` of the bundled support agent, as ``compile`` stores them."""
    images, descriptions = agent_files
    definition = tmp_path / "support.json"
    assert cli.main(["compile", *images, "--descriptions", descriptions, "-o", str(definition)]) == 0
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


# ---------------------------------------------------------------------------------------- diff

#: The bundled agent's findPlans, changed to answer two plans: a build that costs more.
TWO_PLANS = """\
function findPlans(teamSize: int, maxMonthlyPrice?: int): Plan* =
  [<Plan monthlyPrice=20 name="Team" seats=teamSize />, <Plan monthlyPrice=45 name="Business" seats=50 />]
"""


def support_texts() -> dict[str, str]:
    from importlib import resources

    return {
        identity: resources.files("nx_agent.examples").joinpath(name).read_text(encoding="utf-8")
        for identity, (name, _) in examples.SUPPORT_MODULES.items()
    }


def write_build(folder: Path, texts: dict[str, str]) -> list[str]:
    """A build of the support agent in ``folder``: its images and the definition compiled from them."""
    folder.mkdir()
    images = []
    for identity, (_, version) in examples.SUPPORT_MODULES.items():
        links = [other for key, other in texts.items() if key != identity]
        path = folder / (identity.replace("/", "__") + ".nxir")
        path.write_bytes(ir.assemble(texts[identity], version=version, links=links))
        images.append(str(path))
    descriptions = folder.parent / f"{folder.name}.descriptions.json"
    descriptions.write_text(json.dumps(examples.support_descriptions()), encoding="utf-8")
    definition = folder / "support.json"
    assert cli.main(["compile", *images, "--descriptions", str(descriptions), "-o", str(definition)]) == 0
    return [str(definition), *images]


def test_diff_of_two_builds_of_the_bundled_agent(agent: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old_bundle = tmp_path / "old.bundle.json"
    descriptions = tmp_path / "descriptions.json"
    assert cli.main(["compile", *agent[1:], "--descriptions", str(descriptions), "--bundle", "-o", str(old_bundle)]) == 0
    texts = support_texts()
    original = "function findPlans(teamSize: int, maxMonthlyPrice?: int): Plan* =\n  <Plan monthlyPrice=20 name=\"Team\" seats=teamSize />\n"
    assert original in texts["main.nx"]
    texts["main.nx"] = texts["main.nx"].replace(original, TWO_PLANS)
    new = write_build(tmp_path / "new", texts)
    capsys.readouterr()
    inputs = tmp_path / "calls.jsonl"
    inputs.write_text('{"tool": "find_plans", "input": {"teamSize": 5}}\n'
                      '{"tool": "find_plans", "input": {"teamSize": 40, "maxMonthlyPrice": 50}}\n', encoding="utf-8")

    def operations(stored: list[str], input_text: str) -> int:
        code, out, _ = run(capsys, "call", *stored, "find_plans", "--input", input_text, "--call-id", "c", "--json")
        assert code == 0
        return int(json.loads(out)["usage"]["operations"])

    before = [operations(agent, '{"teamSize": 5}'), operations(agent, '{"teamSize": 40, "maxMonthlyPrice": 50}')]
    after = [operations(new, '{"teamSize": 5}'), operations(new, '{"teamSize": 40, "maxMonthlyPrice": 50}')]
    assert before[0] == 17 and after[0] > before[0]
    code, out, _ = run(capsys, "cost", "diff", str(old_bundle), str(tmp_path / "new"), "--inputs", str(inputs), "--json")
    assert code == 0
    document = json.loads(out)
    rows = document["rows"]
    assert sorted((r["before"], r["after"]) for r in rows) == sorted(zip(before, after))
    assert [abs(r["change"]) for r in rows] == sorted((abs(r["change"]) for r in rows), reverse=True)
    for row in rows:
        assert row["change"] == row["after"] - row["before"]
        assert row["percent"] == pytest.approx(100 * row["change"] / row["before"])
    most = document["mostMoved"]
    assert most["tool"] == "find_plans" and most["profile"]["total"] == rows[0]["after"]
    assert {d["declaration"] for d in most["profile"]["declarations"]} >= {"main.nx::findPlans", "main.nx::Plan"}
    plan = next(d for d in most["profile"]["declarations"] if d["declaration"] == "main.nx::Plan")
    assert plan["calls"] == 2
    # --fail-over: a rise above the percentage fails, one below passes; the table is for people.
    rise = max(r["percent"] for r in rows)
    code, out, _ = run(capsys, "cost", "diff", str(old_bundle), str(tmp_path / "new"), "--inputs", str(inputs),
                       "--fail-over", str(int(rise) - 1))
    assert code == 1
    assert f"+{rows[0]['change']:,}" in out and "rose more than" in out
    assert "profile of the call that moved most" in out
    code, _, _ = run(capsys, "cost", "diff", str(old_bundle), str(tmp_path / "new"), "--inputs", str(inputs),
                     "--fail-over", str(int(rise) + 1))
    assert code == 0


def test_diff_of_a_corpus_program_against_itself_moves_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    require_corpus()
    program = next(p for p in programs() if p.name == "evaluation-cost")
    path = tmp_path / "main.nxir"
    path.write_bytes(corpus_image(program, program.modules["main.nx"]))
    inputs = tmp_path / "args.jsonl"
    inputs.write_text("[]\n", encoding="utf-8")
    counts = json.loads((program.path / "expected" / "operations.json").read_text())["counts"]
    code, out, _ = run(capsys, "cost", "diff", str(path), str(path), "--function", "forRange", "--inputs", str(inputs),
                       "--fail-over", "0", "--json")
    assert code == 0
    (row,) = json.loads(out)["rows"]
    assert row["before"] == row["after"] == counts["main.nx::forRange"] and row["change"] == 0
    assert json.loads(out)["mostMoved"] is None


# -------------------------------------------------------------------------------------- budget


def test_budget_writes_per_tool_limits_that_serve_and_the_agent_layer_apply(
    agent: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NX_AGENT_TOKEN_SHOP", "shop-token")
    inputs = tmp_path / "calls.jsonl"
    inputs.write_text("".join(json.dumps({"tool": "find_plans", "input": {"teamSize": n}}) + "\n" for n in (1, 5, 50)),
                      encoding="utf-8")
    config_path = tmp_path / "host.json"
    config_path.write_text(json.dumps({"limits": {"maxOperations": 100000}, "timeout": 5}), encoding="utf-8")
    code, out, _ = run(capsys, "cost", "budget", *agent, "--inputs", str(inputs), "--margin", "50",
                       "--host-config", str(config_path), "--json")
    assert code == 0
    document = json.loads(out)
    # find_plans costs 17 operations whatever the team size: 17 and half again, rounded up. Its
    # input size is the usage's inputSize, 5 for each of these (as `nx-agent call` reports it).
    code, called, _ = run(capsys, "call", *agent, "find_plans", "--input", '{"teamSize": 50}', "--call-id", "c", "--json")
    assert json.loads(called)["usage"] == {"operations": 17, "inputSize": 5}
    assert document["tools"]["find_plans"] == {"maxOperations": 26, "measured": 17, "fit": "constant", "largestInputSize": 5}
    written = json.loads(config_path.read_text())
    assert written == {"limits": {"maxOperations": 100000}, "timeout": 5, "tools": {"find_plans": {"maxOperations": 26}}}
    # The server reads it: find_plans runs under its own budget, the others under the shared one.
    from nx_agent.mcp.host_config import load_host_config

    config = load_host_config(str(config_path))
    assert config.tool_limits == {"find_plans": {"max_operations": 26}}
    from nx_agent.agent.load import load_agent

    tight = load_agent(Path(agent[0]).read_text(), [ir.prepare_module(Path(p).read_bytes()) for p in agent[1:]],
                       request=lambda call: None, tool_limits={"find_plans": {"max_operations": 16}})
    answer = tight["find_plans"].execute({"teamSize": 5}, call_id="c")
    assert answer["ok"] is False and answer["error"]["code"] == "resource-limit"
    assert answer["error"]["limit"] == {"name": "maxOperations", "value": 16}
    pytest.importorskip("mcp")
    from nx_agent.mcp.command import build_server

    server = build_server(agent[0], agent[1:], config, "main.nx")
    assert server.tools["find_plans"].execute({"teamSize": 5}, call_id="c")["usage"]["operations"] == 17
    assert server.tools["find_plans"]._call.limits.max_operations == 26  # type: ignore[attr-defined]
