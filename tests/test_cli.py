"""The command line: every command's output for people and with --json, exit codes for bad
inputs (missing files, damaged images, bad JSON, unknown functions and tools), colour, and what a
bare start loads. Expected values: the bundled example's catalog and the corpus' results."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from corpus import NO_CORPUS, CorpusProgram, over_corpus, programs
from corpus import image as corpus_image
from http_server import Recorder, server  # noqa: F401 - the loopback server fixture
from nx_agent import cli, examples, ir
from nx_agent.agent.compile import compile_agent
from nx_agent.http.connections import token_env_name

PROGRAMS = programs()
needs_corpus = pytest.mark.skipif(not PROGRAMS, reason=NO_CORPUS)


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


# --------------------------------------------------------------------------------------------------
# Fixtures: the example program and the support agent as files, as a user would hold them.

PLANS_5 = [{"$type": "Plan", "name": "Team", "seats": 5, "monthlyPrice": 20}]
EXAMPLE_PLANS_5 = [
    {"$type": "Plan", "monthlyPrice": 20, "name": "Team", "seats": 10},
    {"$type": "Plan", "monthlyPrice": 45, "name": "Business", "seats": 50},
]


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def plans_images(tmp_path: Path) -> tuple[str, str]:
    """The example program's images: (entry, catalog)."""
    paths = []
    for identity in (examples.ENTRY, "plans/catalog.nx"):
        path = tmp_path / (identity.replace("/", "__") + ".nxir")
        path.write_bytes(examples.prepare(identity).to_bytes())
        paths.append(str(path))
    return paths[0], paths[1]


@pytest.fixture
def agent_files(tmp_path: Path) -> tuple[list[str], str]:
    """The support agent's images and descriptions document as files."""
    images = []
    for identity, data in examples.support_images().items():
        path = tmp_path / (identity.replace("/", "__") + ".nxir")
        path.write_bytes(data)
        images.append(str(path))
    descriptions = tmp_path / "descriptions.json"
    descriptions.write_text(json.dumps(examples.support_descriptions()), encoding="utf-8")
    return images, str(descriptions)


@pytest.fixture
def stored_agent(tmp_path: Path, agent_files: tuple[list[str], str]) -> list[str]:
    """``[definition, *images]`` as ``compile`` stored them."""
    images, descriptions = agent_files
    definition = tmp_path / "support.json"
    assert cli.main(["compile", *images, "--descriptions", descriptions, "-o", str(definition)]) == 0
    return [str(definition), *images]


# --------------------------------------------------------------------------------------------------
# explain, assemble, link


def test_explain_json_describes_the_module(plans_images: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "explain", plans_images[1], "--json")
    assert code == 0 and err == ""
    document = json.loads(out)
    assert document["identity"] == "plans/catalog.nx"
    assert document["version"] == "1"
    assert document["functions"] == ["planNames"]
    assert document["explain"] == examples.text("plans/catalog.nx")


def test_assemble_with_links_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main_text = tmp_path / "main.txt"
    main_text.write_text(examples.text("plans/main.nx"), encoding="utf-8")
    catalog_text = tmp_path / "catalog.txt"
    catalog_text.write_text(examples.text("plans/catalog.nx"), encoding="utf-8")
    out_path = tmp_path / "main.nxir"
    code, out, _ = run_cli(capsys, "--json", "assemble", str(main_text), "--link", str(catalog_text), "-o", str(out_path))
    assert code == 0
    document = json.loads(out)
    assert document["output"] == str(out_path)
    assert document["identity"] == "plans/main.nx"
    assert document["links"][0]["identity"] == "plans/catalog.nx"
    assert out_path.read_bytes() == examples.prepare("plans/main.nx").to_bytes()
    code, out, _ = run_cli(capsys, "assemble", str(catalog_text), "--version", "1", "-o", str(tmp_path / "c.nxir"))
    assert code == 0
    assert out.startswith(f"{tmp_path / 'c.nxir'}: ") and 'module plans/catalog.nx version "1"' in out


def test_assemble_refuses_bad_text_with_its_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "bad.txt"
    text.write_text("this is not explain text\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "assemble", str(text), "-o", str(tmp_path / "x.nxir"))
    assert code == 3 and out == ""
    assert f"{text}: " in err and "[nx-ir-" in err
    assert not (tmp_path / "x.nxir").exists()


def test_link_json_lists_the_modules(plans_images: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "link", *plans_images, "--json")
    assert code == 0
    document = json.loads(out)
    assert document["entry"] == "plans/main.nx"
    assert [(m["identity"], m["version"], m["functions"]) for m in document["modules"]] == [
        ("plans/main.nx", "", ["findPlans"]),
        ("plans/catalog.nx", "1", ["planNames"]),
    ]


def test_link_without_a_module_is_bad_input(plans_images: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "link", plans_images[0])
    assert code == 3 and out == ""
    assert "[nx-ir-link-missing-module]" in err and "plans/catalog.nx" in err
    code, out, err = run_cli(capsys, "--json", "link", plans_images[0])
    assert code == 3 and out == ""
    assert json.loads(err)["error"]["code"] == "nx-ir-link-missing-module"


# --------------------------------------------------------------------------------------------------
# run


def test_run_positional_and_named_arguments(plans_images: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "run", *plans_images, "--function", "findPlans", "--args", "[5]")
    assert code == 0 and err == ""
    value, _, usage = out.rpartition("]\n")
    assert json.loads(value + "]") == EXAMPLE_PLANS_5
    assert re.fullmatch(r"used \d+ operations, input size 1\n", usage)

    code, out, _ = run_cli(capsys, "run", *plans_images, "--function", "findPlans", "--args", '{"teamSize": 5}', "--json")
    assert code == 0
    document = json.loads(out)
    assert document["ok"] is True and document["value"] == EXAMPLE_PLANS_5
    direct = ir.call_function(
        examples.link_example(), {"$type": "Function", "module": "plans/main.nx", "name": "findPlans"},
        {"teamSize": 5}, max_operations=10**6, max_input_size=10**6,
    )
    assert document["usage"] == {"operations": direct.operations, "inputSize": direct.input_size}


def test_run_reads_arguments_from_a_file(tmp_path: Path, plans_images: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    args = tmp_path / "args.json"
    args.write_text("[12]", encoding="utf-8")
    code, out, _ = run_cli(capsys, "run", *plans_images, "--function", "findPlans", "--args", f"@{args}", "--json")
    assert code == 0
    assert [plan["name"] for plan in json.loads(out)["value"]] == ["Business"]


def test_run_failure_is_exit_1_with_the_code(plans_images: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["run", *plans_images, "--function", "findPlans", "--args", "[5]", "--max-operations", "3"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 1 and out == ""
    assert "findPlans failed: " in err and "[nx-ir-resource-limit]" in err
    code, out, err = run_cli(capsys, *argv, "--json")
    assert code == 1 and err == ""
    document = json.loads(out)
    assert document["ok"] is False
    assert document["error"]["code"] == "nx-ir-resource-limit"
    assert document["error"]["diagnostics"][0]["limit"] == {"name": "maxOperations", "value": 3}

    code, out, err = run_cli(capsys, "run", *plans_images, "--function", "findPlans", "--args", '["five"]')
    assert code == 1 and "[nx-ir-boundary-type]" in err and "argument teamSize" in err


@pytest.mark.parametrize(
    ("argv", "code", "diagnostic"),
    [
        (["--function", "nope"], 3, "nx-ir-missing-entrypoint"),
        (["--function", "findPlans", "--args", "[5"], 3, "nx-agent-cli-json"),
        (["--function", "findPlans", "--args", '"5"'], 3, "nx-agent-cli-json"),
        (["--function", "findPlans", "--args", "[NaN]"], 3, "nx-agent-cli-json"),
        (["--function", "findPlans", "--args", "@/nonexistent/args.json"], 3, "nx-agent-cli-file"),
        (["--function", "findPlans", "--max-operations", "-1"], 2, "nx-agent-cli-usage"),
    ],
)
def test_run_bad_inputs(
    plans_images: tuple[str, str], capsys: pytest.CaptureFixture[str], argv: list[str], code: int, diagnostic: str
) -> None:
    got, out, err = run_cli(capsys, "run", *plans_images, *argv)
    assert got == code and out == ""
    assert f"[{diagnostic}]" in err
    assert "Traceback" not in err
    got, out, err = run_cli(capsys, "--json", "run", *plans_images, *argv)
    assert got == code and out == ""
    assert json.loads(err)["error"]["code"] == diagnostic


def test_run_unknown_function_names_the_known_ones(plans_images: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "run", *plans_images, "--function", "nope")
    assert code == 3
    assert "--function: plans/main.nx has no function 'nope' (its functions: findPlans)" in err


RUN_CASES = [
    (program, entry)
    for program in PROGRAMS
    if (program.path / "program.json").is_file()
    for entry in json.loads((program.path / "program.json").read_text(encoding="utf-8")).get("entrypoints", [])
]


def _key(entry: dict[str, Any]) -> str:
    key = f"{entry['module']}::{entry['function']}"
    return f"{key}#{entry['case']}" if "case" in entry else key



@over_corpus(("program", "entry"), RUN_CASES, ids=[f"{p.name}:{_key(e)}" for p, e in RUN_CASES])
def test_run_corpus_entrypoints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], program: CorpusProgram, entry: dict[str, Any]
) -> None:
    """Each corpus entrypoint through ``run --json``: the value of results.json, the count of
    operations.json, and a failing one's code from diagnostics.json (exit 1)."""
    files = {}
    for identity, module in program.modules.items():
        path = tmp_path / (identity.replace("/", "__").replace("@", "at_") + ".nxir")
        path.write_bytes(corpus_image(program, module))
        files[identity] = str(path)
    entry_file = files.pop(entry["module"])
    key = _key(entry)
    argv = ["run", entry_file, *files.values(), "--function", entry["function"], "--json",
            "--args", json.dumps(entry.get("arguments", [])), "--max-operations", str(2**40)]
    code, out, err = run_cli(capsys, *argv)
    document = json.loads(out)
    expected_dir = program.path / "expected"
    if entry.get("fails"):
        diagnostic = json.loads((expected_dir / "diagnostics.json").read_text(encoding="utf-8"))[key]
        assert code == 1, err
        assert document["error"]["code"] == diagnostic["code"]
        assert document["error"]["diagnostics"][0].get("argument") == diagnostic.get("argument")
        return
    assert code == 0, err
    assert document["value"] == json.loads((expected_dir / "results.json").read_text(encoding="utf-8"))[key]
    operations = expected_dir / "operations.json"
    count = json.loads(operations.read_text(encoding="utf-8")).get("counts", {}).get(key) if operations.is_file() else None
    if count is not None:
        assert document["usage"]["operations"] == count


# --------------------------------------------------------------------------------------------------
# compile, tools, call


def test_compile_writes_the_definition_to_store(
    tmp_path: Path, agent_files: tuple[list[str], str], capsys: pytest.CaptureFixture[str]
) -> None:
    images, descriptions = agent_files
    definition = tmp_path / "support.json"
    code, out, err = run_cli(capsys, "compile", *images, "--descriptions", descriptions, "-o", str(definition))
    assert code == 0 and err == ""
    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    assert definition.read_text(encoding="utf-8") == compiled.definition_text
    assert out.splitlines()[0] == f"{definition}: agent support, 4 tools (web_search, find_plans, lookup_order, open_ticket)"
    code, out, _ = run_cli(capsys, "compile", *images, "--descriptions", descriptions, "-o", str(definition), "--json")
    document = json.loads(out)
    assert document["tools"] == ["web_search", "find_plans", "lookup_order", "open_ticket"]
    assert document["images"] == {"@nx/agent/agent.nx": images[1], "main.nx": images[0]}
    assert document["warnings"] == []


def test_compile_without_the_library_image_is_bad_input(
    tmp_path: Path, agent_files: tuple[list[str], str], capsys: pytest.CaptureFixture[str]
) -> None:
    images, descriptions = agent_files
    code, out, err = run_cli(capsys, "compile", images[0], "--descriptions", descriptions, "-o", str(tmp_path / "d.json"))
    assert code == 3 and out == ""
    assert "[nx-ir-link-missing-module]" in err
    code, _, err = run_cli(capsys, "compile", *images, "--entry", "other.nx", "-o", str(tmp_path / "d.json"))
    assert code == 3 and "[nx-agent-cli-entry]" in err and "no image given is the entry module 'other.nx'" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    code, _, err = run_cli(capsys, "compile", *images, "--descriptions", str(bad), "-o", str(tmp_path / "d.json"))
    assert code == 3 and f"{bad}: not JSON" in err and "[nx-agent-cli-json]" in err


def test_tools_lists_name_kind_description_parameters(stored_agent: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "tools", *stored_agent)
    assert code == 0 and err == ""
    assert "find_plans (function, read-only)\n  Finds the plans that fit a team.\n" in out
    assert "  teamSize: integer, required - Number of people who need a seat.\n" in out
    assert "  maxMonthlyPrice: integer, optional - Upper price limit per month, in dollars.\n" in out
    assert "web_search (provider, read-only, run by the model's provider)" in out
    assert "open_ticket (http, destructive)" in out
    assert "\x1b[" not in out

    code, out, _ = run_cli(capsys, "tools", *stored_agent, "--json")
    listed = json.loads(out)["tools"]
    definition = json.loads(Path(stored_agent[0]).read_text(encoding="utf-8"))
    assert [(t["name"], t["kind"], t["description"]) for t in listed] == [
        (t["name"], t["kind"], t["description"]) for t in definition["tools"]
    ]
    assert [t["inputSchema"] for t in listed] == [t["inputSchema"] for t in definition["tools"]]
    assert listed[1]["parameters"] == [
        {"name": "teamSize", "type": "integer", "required": True, "description": "Number of people who need a seat."},
        {"name": "maxMonthlyPrice", "type": "integer", "required": False, "description": "Upper price limit per month, in dollars."},
    ]


def test_call_prints_the_output_and_usage(stored_agent: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "call", *stored_agent, "find_plans", "--input", '{"teamSize": 5}', "--call-id", "c1")
    assert code == 0 and err == ""
    value, _, usage = out.rpartition("]\n")
    assert json.loads(value + "]") == PLANS_5
    assert re.fullmatch(r"used \d+ operations, input size 5\n", usage)
    code, out, _ = run_cli(capsys, "call", *stored_agent, "find_plans", "--input", '{"teamSize": 5}', "--call-id", "c1", "--json")
    result = json.loads(out)
    assert result["ok"] is True and result["output"] == PLANS_5
    assert result["usage"]["inputSize"] == 5 and result["usage"]["operations"] > 0


def test_call_failure_is_exit_1(stored_agent: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["call", *stored_agent, "find_plans", "--input", '{"teamSize": "five"}', "--call-id", "c1"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 1 and out == ""
    assert "tool find_plans failed: " in err and "[invalid-input]" in err
    code, out, _ = run_cli(capsys, *argv, "--json")
    result = json.loads(out)
    assert code == 1 and result["ok"] is False and result["error"]["code"] == "invalid-input"
    code, out, _ = run_cli(capsys, "call", *stored_agent, "find_plans", "--input", '{"teamSize": 5}',
                           "--call-id", "c1", "--max-operations", "3", "--json")
    result = json.loads(out)
    assert code == 1 and result["error"]["code"] == "resource-limit"
    assert result["error"]["limit"] == {"name": "maxOperations", "value": 3}


@pytest.mark.parametrize(
    ("tool", "extra", "code", "diagnostic"),
    [
        ("nope", [], 3, "nx-agent-cli-unknown-tool"),
        ("web_search", [], 3, "nx-agent-cli-not-runnable"),
        ("find_plans", ["--context", "{"], 3, "nx-agent-cli-json"),
        ("find_plans", ["--max-operations", "-1"], 2, "nx-agent-cli-usage"),
        ("find_plans", ["--base-url", "shop=http://127.0.0.1:1"], 2, "nx-agent-cli-usage"),
        ("lookup_order", ["--base-url", "nowhere=http://127.0.0.1:1"], 2, "nx-agent-cli-usage"),
        ("lookup_order", ["--base-url", "shop=ftp://127.0.0.1"], 2, "nx-agent-cli-usage"),
    ],
)
def test_call_bad_inputs(
    stored_agent: list[str], capsys: pytest.CaptureFixture[str], tool: str, extra: list[str], code: int, diagnostic: str
) -> None:
    got, out, err = run_cli(capsys, "call", *stored_agent, tool, "--input", "{}", "--call-id", "c1", *extra)
    assert got == code and out == ""
    assert f"[{diagnostic}]" in err and "Traceback" not in err


def test_call_unknown_tool_names_the_tools(stored_agent: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "call", *stored_agent, "nope", "--input", "{}", "--call-id", "c1")
    assert code == 3
    assert "nope: the agent has no tool 'nope' (its tools: web_search, find_plans, lookup_order, open_ticket)" in err


def test_stored_files_that_are_bad_inputs(tmp_path: Path, stored_agent: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    definition, *images = stored_agent
    damaged = tmp_path / "damaged.nxir"
    data = bytearray(Path(images[0]).read_bytes())
    damaged.write_bytes(bytes(data[: len(data) // 2]))
    not_json = tmp_path / "def.txt"
    not_json.write_text("not json", encoding="utf-8")
    a_list = tmp_path / "list.json"
    a_list.write_text("[]", encoding="utf-8")
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"formatVersion": 1, "tools": [{"name": "x"}]}), encoding="utf-8")
    cases = [
        ([definition, str(tmp_path / "missing.nxir")], "nx-agent-cli-file", "missing.nxir"),
        ([definition, str(damaged), images[1]], "nx-ir-", "damaged.nxir"),
        ([str(not_json), *images], "nx-agent-cli-json", "def.txt"),
        ([str(a_list), *images], "nx-agent-cli-json", "list.json"),
        ([str(wrong), *images], "nx-agent-", ""),
        ([definition, images[0]], "nx-ir-link-missing-module", ""),
    ]
    for files, diagnostic, where in cases:
        for command in (["tools", *files], ["call", *files, "find_plans", "--input", "{}", "--call-id", "c"]):
            code, out, err = run_cli(capsys, *command)
            assert code == 3 and out == "", (command, err)
            assert f"[{diagnostic}" in err and where in err and "Traceback" not in err, (command, err)


@needs_corpus
def test_compile_and_call_a_context_tool(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """agent-tool-context: compiled with the host's context record, its who_am_i tool reads the
    conversation from --context (the corpus source answers ``context.conversationId``)."""
    program = next(p for p in PROGRAMS if p.name == "agent-tool-context")
    files = []
    for identity, module in program.modules.items():
        path = tmp_path / (identity.replace("/", "__").replace("@", "at_") + ".nxir")
        path.write_bytes(corpus_image(program, module))
        files.append(str(path))
    descriptions = tmp_path / "descriptions.json"
    descriptions.write_text(json.dumps({"modules": {"main.nx": {"functions": {
        "whoAmI": {"description": "Says which conversation the call belongs to."},
        "callIdOf": {"description": "Echoes the call's id; any host context will do."},
        "seatCount": {"description": "Counts the seats a team needs, up to a cap."},
    }}}}), encoding="utf-8")
    definition = tmp_path / "agent.json"
    code, _, err = run_cli(capsys, "compile", *files, "--descriptions", str(descriptions), "-o", str(definition),
                           "--tool-context-type", "context.nx::ChatToolContext")
    assert code == 0, err
    context = json.dumps({"$type": "ChatToolContext", "conversationId": "conv_9"})
    code, out, err = run_cli(capsys, "call", str(definition), *files, "who_am_i", "--input", "{}", "--call-id", "t:1",
                             "--context", context, "--json")
    assert code == 0, err
    assert json.loads(out)["output"] == "conv_9"
    code, out, _ = run_cli(capsys, "call", str(definition), *files, "call_id_of", "--input", "{}", "--call-id", "t:2",
                           "--context", context, "--json")
    assert json.loads(out)["output"] == "t:2"
    code, out, _ = run_cli(capsys, "call", str(definition), *files, "who_am_i", "--input", "{}", "--call-id", "t:3", "--json")
    assert code == 1 and json.loads(out)["error"]["code"] == "invalid-context"


def test_call_an_http_tool_with_a_token_from_the_environment(
    stored_agent: list[str], server: tuple[str, Recorder], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, recorder = server
    monkeypatch.setenv("NX_AGENT_TOKEN_SHOP", "secret-1")
    code, out, err = run_cli(capsys, "call", *stored_agent, "lookup_order", "--input", '{"orderId": "A 1"}',
                             "--call-id", "c9", "--base-url", f"shop={base}", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["ok"] is True and result["output"]["status"] == 200
    assert recorder.requests[0]["method"] == "GET"
    assert recorder.requests[0]["path"] == "/orders/A%201"
    assert recorder.requests[0]["authorization"] == "Bearer secret-1"
    assert result["output"]["body"]["path"] == "/orders/A%201"


def test_token_variable_names() -> None:
    assert token_env_name("shop") == "NX_AGENT_TOKEN_SHOP"
    assert token_env_name("billing-api.v2") == "NX_AGENT_TOKEN_BILLING_API_V2"


def test_call_an_http_tool_without_httpx_says_so(
    stored_agent: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "nx_agent.http.client", None)
    code, out, err = run_cli(capsys, "call", *stored_agent, "lookup_order", "--input", '{"orderId": "A 1"}', "--call-id", "c")
    assert code == 4 and out == ""
    assert "needs httpx: pip install 'nx-agent[http]'" in err and "[nx-agent-cli-missing-extra]" in err
    # a function tool of the same agent still runs
    code, _, _ = run_cli(capsys, "call", *stored_agent, "find_plans", "--input", '{"teamSize": 5}', "--call-id", "c")
    assert code == 0


# --------------------------------------------------------------------------------------------------
# demo, output, exit codes, light start


def test_demo_json_holds_the_definition_and_two_results(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "demo", "--json")
    assert code == 0
    document = json.loads(out)
    compiled = compile_agent(examples.support_images(), descriptions=examples.support_descriptions())
    assert document["definition"] == compiled.definition
    assert document["images"] == ["@nx/agent/agent.nx", "main.nx"]
    first, second = document["calls"]
    assert first["tool"] == "find_plans" and first["result"]["output"] == PLANS_5
    assert second["requests"][0]["url"] == "https://api.example.com/orders/A%201"
    assert second["result"]["output"] == {"status": 200, "body": {"orderId": "A 1", "state": "shipped"}}


def test_demo_ir_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--json", "demo", "--ir")
    assert code == 0
    document = json.loads(out)
    assert [m["identity"] for m in document["modules"]] == ["plans/main.nx", "plans/catalog.nx"]
    assert document["call"]["value"] == EXAMPLE_PLANS_5
    assert document["explain"] == examples.text("plans/main.nx")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_terminal_without_no_color(
    stored_agent: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    assert cli.main(["tools", *stored_agent]) == 0
    assert "\x1b[1mfind_plans\x1b[0m" in terminal.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    plain = _Terminal()
    monkeypatch.setattr(sys, "stdout", plain)
    assert cli.main(["tools", *stored_agent]) == 0
    assert "\x1b[" not in plain.getvalue() and "find_plans (function, read-only)" in plain.getvalue()
    piped = io.StringIO()
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setattr(sys, "stdout", piped)
    assert cli.main(["tools", *stored_agent]) == 0
    assert "\x1b[" not in piped.getvalue()


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["frobnicate"], ["run"], ["call", "d.json", "i.nxir", "tool", "--input", "{}"], ["run", "x", "--function"]):
        with pytest.raises(SystemExit) as exited:
            cli.main(argv)
        assert exited.value.code == 2
        assert "usage: nx-agent" in capsys.readouterr().err


def test_help_documents_the_exit_codes_and_variables() -> None:
    text = cli.build_parser().format_help()
    for line in ("0  done", "1  the evaluation (run) or the tool call (call) failed with a code", "2  usage error",
                 "3  bad input", "4  an optional extra is missing", "NO_COLOR", "NX_AGENT_TOKEN_<CONNECTION>", "--json"):
        assert line in text
    assert cli.EXIT_USAGE == 2 and cli.EXIT_INPUT == 3 and cli.EXIT_MISSING_EXTRA == 4
    subcommands = cli.build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(subcommands) == {"demo", "explain", "assemble", "link", "run", "compile", "tools", "call", "serve", "cost"}


HEAVY = ("httpx", "mcp", "agents", "pydantic_ai", "pydantic", "jsonschema_rs", "ada_url", "openai", "anyio")
ADAPTERS = ("nx_agent.mcp", "nx_agent.openai_agents", "nx_agent.pydantic_ai", "nx_agent.tool_json",
            "nx_agent.adapters", "nx_agent.http.client", "nx_agent.schema")
PROBE = """
import json, sys
{body}
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _loaded(body: str) -> list[str]:
    result = subprocess.run([sys.executable, "-c", PROBE.format(body=body)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    loaded: list[str] = json.loads(result.stderr.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    "body",
    [
        "import nx_agent",
        "import runpy\nsys.argv = ['nx-agent', '--help']\ntry:\n    runpy.run_module('nx_agent', run_name='__main__')\n"
        "except SystemExit as e:\n    assert e.code == 0",
    ],
    ids=["import", "help"],
)
def test_a_bare_start_loads_no_adapter_and_no_optional_dependency(body: str) -> None:
    loaded = _loaded(body)
    assert "nx_agent" in loaded and "nx_agent._native" in loaded
    assert [m for m in loaded if m.split(".")[0] in HEAVY] == []
    assert [m for m in loaded if any(m == a or m.startswith(a + ".") for a in ADAPTERS)] == []
    # asyncio (~25 ms) is imported only by the coroutine paths that need it.
    assert [m for m in loaded if m.split(".")[0] in ("asyncio", "_asyncio")] == []


def test_a_process_with_bad_input_exits_3_without_a_traceback(tmp_path: Path) -> None:
    missing = tmp_path / "missing.nxir"
    result = subprocess.run(
        [sys.executable, "-m", "nx_agent", "--json", "explain", str(missing)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 3 and result.stdout == ""
    assert "Traceback" not in result.stderr
    error = json.loads(result.stderr)["error"]
    assert error["code"] == "nx-agent-cli-file" and error["path"] == str(missing)
