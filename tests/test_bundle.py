"""Bundles, the lean import paths and the serverless handler (issue 17, item 5): a bundle written
by `nx-agent compile --bundle` loads in one call and answers as `load_agent` does; a damaged one
is refused with a code; `import nx_agent.ir` and the bundle's call path load only what they
need; the example handler answers in a fresh process as in-process tools do."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import travel_support as support
from nx_agent import NxIrError, examples, load_agent, load_bundle
from nx_agent.bundle import BundleError, bundle_bytes, read_bundle

ROOT = Path(__file__).resolve().parent.parent
HANDLER = ROOT / "examples" / "serverless" / "handler.py"
CALLS = [("find_plans", {"teamSize": 5}), ("find_plans", {"teamSize": "five"}), ("find_plans", {})]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bundle written by the command line from the bundled example's images and descriptions."""
    folder = tmp_path_factory.mktemp("bundle")
    paths = []
    for identity, image in examples.support_images().items():
        path = folder / (identity.replace("/", "__") + ".nxir")
        path.write_bytes(image)
        paths.append(str(path))
    (folder / "descriptions.json").write_text(json.dumps(examples.support_descriptions()))
    out = folder / "agent.bundle.json"
    subprocess.run(
        [sys.executable, "-m", "nx_agent", "compile", *paths, "--descriptions", str(folder / "descriptions.json"),
         "--bundle", "-o", str(out)],
        check=True, capture_output=True, text=True,
    )
    return out


def test_a_bundle_loads_in_one_call_and_answers_as_load_agent(bundle: Path) -> None:
    compiled = support.compiled()
    stored = load_agent(compiled.definition_text, compiled.images, request=support.shop)
    loaded = load_bundle(bundle, request=support.shop)
    assert loaded.definition == compiled.definition
    for name, value in [*CALLS, ("lookup_order", {"orderId": "A 1"})]:
        assert loaded[name].execute(value, call_id="c") == stored[name].execute(value, call_id="c")
    parts = read_bundle(bundle.read_bytes())
    assert parts["images"] == compiled.images and parts["descriptions"] == examples.support_descriptions()
    assert parts["entry"] == "main.nx"


def test_bundle_bytes_round_trip_without_descriptions() -> None:
    data = bundle_bytes(support.compiled())
    assert "descriptions" not in read_bundle(data)
    assert load_bundle(data, request=support.shop)["find_plans"].execute({"teamSize": 2}, call_id="c")["ok"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda doc: b"not json", "not JSON"),
        (lambda doc: json.dumps([1]).encode(), "not an nx-agent-bundle"),
        (lambda doc: json.dumps({**doc, "version": 2}).encode(), "version is 2"),
        (lambda doc: json.dumps({**doc, "images": []}).encode(), r"'images' \(an object\)"),
        (lambda doc: json.dumps({**doc, "images": {"main.nx": "zz"}}).encode(), "not hex"),
        (lambda doc: json.dumps({**doc, "images": {"main.nx": 5}}).encode(), "not hex"),
    ],
)
def test_a_damaged_bundle_is_refused_with_a_code(change: Any, message: str) -> None:
    document = json.loads(bundle_bytes(support.compiled()))
    with pytest.raises(BundleError, match=message) as error:
        load_bundle(change(document))
    assert error.value.code == "nx-agent-bundle"


def test_a_bundle_with_a_damaged_image_is_refused_by_the_reader() -> None:
    document = json.loads(bundle_bytes(support.compiled()))
    document["images"]["main.nx"] = document["images"]["main.nx"][:40]
    with pytest.raises(NxIrError) as error:
        load_bundle(json.dumps(document).encode(), request=support.shop)
    assert error.value.code.startswith("nx-ir-")


def _fresh(script: str, *args: str) -> Any:
    """What ``script`` prints, run as a serverless runtime starts Python: a fresh interpreter with
    no site hooks (``-S``; the search path passed on), so that no ``.pth`` file of this machine
    loads a module first and hides what the package loads."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run([sys.executable, "-S", "-c", script, *args], check=True, capture_output=True, text=True, env=env)
    return json.loads(done.stdout)


HEAVY = ["typing", "importlib", "warnings", "dataclasses", "inspect", "jsonschema_rs", "ada_url", "httpx", "decimal", "asyncio", "__future__"]
OURS_NOT_NEEDED = ["nx_agent.schema", "nx_agent.http", "nx_agent.agent.normalize", "nx_agent.agent.compile", "nx_agent.mcp", "nx_agent.cli"]
# Loaded by what the path below never meets: a refusal (the error classes), an absent member of a
# stored tool (the absent value), a tool of a host kind.
OURS_NOT_MET = ["nx_agent.errors", "nx_agent._missing", "nx_agent.agent.execute_host", "nx_agent.ir", "nx_agent.agent.results"]
# The run-time half of the agent layer is written in nx_agent.agent.load; these modules give its names.
MOVED_INTO_LOAD = {
    "nx_agent.agent.limits": ["CallLimits", "NX_AGENT_DEFAULT_MAX_OPERATIONS", "name_cost", "read_call_limits"],
    "nx_agent.agent.check": ["DefinitionProblems", "SUPPORTED_FORMAT_VERSIONS", "check_agent_tools", "definition_problems"],
    "nx_agent.agent.create": ["EvaluateHttpArgumentsResult", "create_agent_tools", "evaluate_http_arguments"],
}


def test_import_nx_agent_ir_loads_the_native_module_alone() -> None:
    loaded = _fresh("import json, sys; import nx_agent.ir; print(json.dumps(sorted(sys.modules)))")
    assert sorted(m for m in loaded if m.startswith("nx_agent")) == ["nx_agent", "nx_agent._native", "nx_agent.ir"]
    assert [m for m in HEAVY if m in loaded] == []


def test_the_bundle_call_path_loads_no_schema_normalize_or_http_module(bundle: Path) -> None:
    loaded = _fresh(
        "import json, sys; from nx_agent import load_bundle\n"
        "agent = load_bundle(sys.argv[1], request=lambda call: {'status': 200})\n"
        "assert agent['find_plans'].execute({'teamSize': 5}, call_id='c')['ok']\n"
        "print(json.dumps(sorted(sys.modules)))",
        str(bundle),
    )
    assert [m for m in HEAVY if m in loaded] == []
    assert [m for m in loaded if any(m == o or m.startswith(o + ".") for o in OURS_NOT_NEEDED)] == []
    assert [m for m in OURS_NOT_MET if m in loaded] == []
    assert [m for m in MOVED_INTO_LOAD if m in loaded] == []
    ours = sorted(m for m in loaded if m.startswith("nx_agent"))
    # execute_http: the example agent has an http tool (lookup_order); its module loads with the tools.
    assert ours == [
        "nx_agent", "nx_agent._native", "nx_agent.agent", "nx_agent.agent.execute", "nx_agent.agent.execute_http",
        "nx_agent.agent.load",
    ]


def test_the_modules_the_run_time_half_moved_from_give_the_same_objects() -> None:
    import importlib

    from nx_agent.agent import load

    for name, names in MOVED_INTO_LOAD.items():
        module = importlib.import_module(name)
        assert all(getattr(module, one) is getattr(load, one) for one in names)
        assert set(names) <= set(module.__all__)
    from nx_agent.agent.create import AgentExecutorError
    from nx_agent.agent.limits import AgentOptionError
    from nx_agent.errors import AgentExecutorError as executor_error, AgentOptionError as option_error

    assert (AgentExecutorError, AgentOptionError) == (executor_error, option_error)


def test_the_serverless_handler_in_a_fresh_process(bundle: Path, tmp_path: Path) -> None:
    shutil.copy(HANDLER, tmp_path / "handler.py")
    shutil.copy(bundle, tmp_path / "agent.bundle.json")
    events = [
        {"name": name, "input": value, "callId": f"c{i}"} for i, (name, value) in enumerate(CALLS)
    ] + [
        {"body": json.dumps({"name": "find_plans", "input": {"teamSize": 7}, "callId": "h1"})},
        {"body": "not json"},
        {"name": "web_search", "input": {}, "callId": "p"},
        {"name": "nothing", "input": {}, "callId": "n"},
    ]
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import handler\n"
        "events = json.loads(sys.argv[2])\n"
        "print(json.dumps({'answers': [handler.handler(e, None) for e in events], 'modules': sorted(sys.modules)}))"
    )
    out = _fresh(script, str(tmp_path), json.dumps(events))
    answers = out["answers"]
    tools = load_agent(support.compiled().definition_text, support.compiled().images, request=support.shop)
    for (name, value), event, answer in zip(CALLS, events, answers):
        assert answer == tools[name].execute(value, call_id=event["callId"])
    http = answers[len(CALLS)]
    assert http["statusCode"] == 200 and json.loads(http["body"]) == tools["find_plans"].execute({"teamSize": 7}, call_id="h1")
    assert answers[len(CALLS) + 1]["statusCode"] == 400
    assert json.loads(answers[len(CALLS) + 1]["body"])["error"]["code"] == "invalid-request"
    assert answers[-2]["error"]["code"] == "invalid-request" and answers[-1]["error"]["code"] == "invalid-request"
    assert "httpx" not in out["modules"]  # no http tool was called: the client was never made


def test_the_format_versions_a_check_reads_are_the_definition_format() -> None:
    from nx_agent.agent.check import SUPPORTED_FORMAT_VERSIONS
    from nx_agent.agent.definition import AGENT_DEFINITION_FORMAT_VERSION

    assert SUPPORTED_FORMAT_VERSIONS == (AGENT_DEFINITION_FORMAT_VERSION,)
