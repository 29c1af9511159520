"""The command line points of issue 20 ("the first ten minutes"), each with its exit code and message
and never a traceback: serve's port, --version, the range-length limit, one rule for every limit
option, --timeout and --call-id, compile --root, result lines, the input-schema check of call,
error texts that name files and say what to do, and http tools whose connection has no token.
SIGINT during a long run is in test_interrupt.py; demo in test_agent_demo.py."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from http_server import Recorder, server  # noqa: F401 - the loopback server fixture
from nx_agent import __version__, cli

MAX_LIMIT = 2**53 - 1


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """The files ``nx-agent demo --write`` gives (the README's walkthrough folder)."""
    assert cli.main(["demo", "--write", str(tmp_path / "example")]) == 0
    return tmp_path / "example"


def agent(example: Path) -> list[str]:
    return [str(example / name) for name in ("support.json", "main.nx.nxir", "agent.nx.nxir")]


def images(example: Path) -> list[str]:
    return [str(example / name) for name in ("main.nx.nxir", "agent.nx.nxir")]


def nx_agent(*argv: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nx_agent", *argv], capture_output=True, text=True,
                          timeout=timeout, env=env, stdin=subprocess.DEVNULL, check=False)


def with_token(**extra: str) -> dict[str, str]:
    env = {**os.environ, "NX_AGENT_TOKEN_SHOP": "shop-token", **extra}
    env.pop("NX_AGENT_HOST_CONFIG", None)
    return env


# ------------------------------------------------------------------------------------ serve


def test_serve_on_a_port_in_use_says_so(example: Path) -> None:
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    port = busy.getsockname()[1]
    try:
        done = nx_agent("serve", *agent(example), "--http", "--port", str(port),
                        env=with_token(NX_AGENT_SERVE_TOKEN="serve-token"))
    finally:
        busy.close()
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert f"--port: cannot listen on 127.0.0.1:{port}: Address already in use" in done.stderr
    assert "[nx-agent-cli-port]" in done.stderr


@pytest.mark.parametrize("port", ["-1", "70000", "80.5", "http"])
def test_serve_refuses_a_port_out_of_range(example: Path, capsys: pytest.CaptureFixture[str], port: str) -> None:
    code, out, err = run_cli(capsys, "serve", *agent(example), "--http", "--port", port)
    assert code == 2 and out == ""
    assert f"--port: must be a port number from 0 to 65535 (0: any free port), got '{port}' [nx-agent-cli-usage]" in err


def test_serve_port_without_http_is_a_usage_error(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "serve", *agent(example), "--port", "8000")
    assert code == 2
    assert "--port: only --http listens on a port (stdio has none) [nx-agent-cli-usage]" in err


def test_serve_names_a_missing_or_damaged_image(example: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    definition, main, library = agent(example)
    missing = str(tmp_path / "missing.nxir")
    code, _, err = run_cli(capsys, "serve", definition, missing, library)
    assert code == 3
    assert f"{missing}: cannot read the file: No such file or directory [nx-agent-cli-file]" in err
    damaged = tmp_path / "damaged.nxir"
    damaged.write_bytes(Path(main).read_bytes()[:100])
    code, _, err = run_cli(capsys, "serve", definition, str(damaged), library)
    assert code == 3
    assert err.startswith(f"nx-agent: error: {damaged}: NX IR image is malformed") and "[nx-ir-malformed]" in err


def test_serve_refuses_a_connection_without_a_token(example: Path, tmp_path: Path) -> None:
    env = with_token()
    del env["NX_AGENT_TOKEN_SHOP"]
    done = nx_agent("serve", *agent(example), env=env)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert "connection 'shop' has no bearer token: set NX_AGENT_TOKEN_SHOP" in done.stderr
    assert '"noToken": true' in done.stderr and "[nx-agent-host-config]" in done.stderr
    # The host configuration says the connection needs none: the server starts (and ends with stdin).
    config = tmp_path / "host.json"
    config.write_text(json.dumps({"connections": {"shop": {"noToken": True}}}), encoding="utf-8")
    done = nx_agent("serve", *agent(example), "--host-config", str(config), env=env)
    assert done.returncode == 0, done.stderr
    assert "serving find_plans, lookup_order, open_ticket over stdio" in done.stderr


# ----------------------------------------------------------------------------- --version, limits


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"nx-agent {__version__}\n"


RANGE = """module ranges.nx fingerprint 1
links @nx/prelude.nx version "1" fingerprint 16429037828798365428
requires ranges-v1
entrypoints functions [count] components []

function count(n: int) =
  for i in <@nx/prelude.nx:Range end=n endInclusive=false start=0 /> yield
    0
"""


def test_run_sets_the_range_length_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "ranges.txt"
    text.write_text(RANGE, encoding="utf-8")
    image = str(tmp_path / "ranges.nxir")
    assert run_cli(capsys, "assemble", str(text), "-o", image)[0] == 0
    code, _, err = run_cli(capsys, "run", image, "--function", "count", "--args", "[20]", "--max-range-length", "10")
    assert code == 1
    assert "A range of 20 integers is longer than the limit of 10. [nx-ir-resource-limit]" in err
    code, out, _ = run_cli(capsys, "run", image, "--function", "count", "--args", "[20]", "--max-range-length", "20", "--json")
    assert code == 0 and json.loads(out)["value"] == [0] * 20


def test_call_sets_the_range_length_and_call_depth_limits(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # find_plans reads no range: the options are read and passed on (a bad one is refused).
    argv = ["call", *agent(example), "find_plans", "--input", '{"teamSize": 5}', "--call-id", "c1"]
    assert run_cli(capsys, *argv, "--max-range-length", "10", "--max-call-depth", "5")[0] == 0
    code, _, err = run_cli(capsys, *argv, "--max-range-length", "-1")
    assert code == 2 and "--max-range-length: must be a whole number" in err


@pytest.mark.parametrize(
    ("option", "value", "ok"),
    [
        ("--max-operations", str(MAX_LIMIT), True),
        ("--max-operations", str(MAX_LIMIT + 1), False),
        ("--max-operations", "-1", False),
        ("--max-operations", "1e6", False),
        ("--max-operations", "1_000_000", True),
        ("--max-range-length", str(MAX_LIMIT + 1), False),
        ("--max-call-depth", "abc", False),
    ],
)
def test_run_and_call_read_limits_by_one_rule(
    example: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, ok: bool
) -> None:
    run = ["run", *images(example), "--function", "findPlans", "--args", "[5]"]
    call = ["call", *agent(example), "find_plans", "--input", '{"teamSize": 5}', "--call-id", "c1"]
    for argv in (run, call):
        code, _, err = run_cli(capsys, *argv, option, value)
        if ok:
            assert code == 0, err
            continue
        assert code == 2
        # One line naming the one option that is wrong, in words for people.
        assert err == (
            f"nx-agent: error: {option}: must be a whole number from 0 to {MAX_LIMIT} (2**53 - 1), "
            f"got {value!r} [nx-agent-cli-usage]\n"
        )
        assert "safe integer" not in err


def test_each_limit_error_names_only_its_option(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "run", *images(example), "--function", "findPlans", "--max-input-size", "-5")
    assert code == 2 and "--max-input-size:" in err and "--max-operations" not in err
    code, _, err = run_cli(capsys, "call", *agent(example), "find_plans", "--input", "{}", "--call-id", "c",
                           "--max-context-size", "x")
    assert code == 2 and "--max-context-size:" in err and "--max-operations" not in err


@pytest.mark.parametrize("timeout", ["-1", "0", "nan", "inf", "soon"])
def test_call_refuses_a_timeout_that_is_not_positive(example: Path, capsys: pytest.CaptureFixture[str], timeout: str) -> None:
    code, out, err = run_cli(capsys, "call", *agent(example), "find_plans", "--input", '{"teamSize": 5}',
                             "--call-id", "c1", "--timeout", timeout)
    assert code == 2 and out == ""
    assert f"--timeout: must be a number of seconds greater than 0, got '{timeout}' [nx-agent-cli-usage]" in err


def test_call_refuses_an_empty_call_id(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "call", *agent(example), "find_plans", "--input", '{"teamSize": 5}', "--call-id", "")
    assert code == 2 and out == ""
    assert "--call-id: give the call a non-empty id" in err and "[nx-agent-cli-usage]" in err


def test_compile_root_lists_the_functions(example: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, "compile", *images(example), "--root", "nope", "-o", str(tmp_path / "d.json"))
    assert code == 3
    assert "--root: main.nx has no function 'nope' (its functions: findPlans, lookupOrder, openTicket, root)" in err


def test_result_lines_do_not_read_as_argparse_usage(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["run", *images(example), "--function", "findPlans", "--args", "[5]"],
                 ["call", *agent(example), "find_plans", "--input", '{"teamSize": 5}', "--call-id", "c1"],
                 ["demo"]):
        code, out, _ = run_cli(capsys, *argv)
        assert code == 0
        assert not any(line.lstrip().startswith("usage:") for line in out.splitlines()), out
        assert "used " in out and " operations, input size " in out


# ------------------------------------------------------------------------------- call's input check


def test_call_checks_the_input_schema_as_the_mcp_server_does(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["call", *agent(example), "find_plans", "--call-id", "c1", "--json", "--input"]
    code, out, _ = run_cli(capsys, *argv, '{"teamSize": 5.5}')
    result = json.loads(out)
    assert code == 1 and result["error"]["code"] == "invalid-input"
    assert result["error"]["message"] == (
        "The arguments of tool 'find_plans' do not fit its input schema: at /teamSize: 5.5 is not of type \"integer\"."
    )
    code, out, _ = run_cli(capsys, *argv, '{"teamSize": 5, "extra": 1}')
    assert code == 1
    assert "Additional properties are not allowed ('extra' was unexpected)" in json.loads(out)["error"]["message"]
    # The MCP server refuses the same arguments with the same message.
    from nx_agent.agent.input_check import check_input
    from nx_agent.agent.compile import load_agent

    loaded = load_agent((example / "support.json").read_text(encoding="utf-8"),
                        [Path(p).read_bytes() for p in images(example)], request=lambda call: {"status": 200})
    refused = check_input(loaded["find_plans"], {"teamSize": 5.5})
    assert refused is not None and refused["error"]["message"] == result["error"]["message"]
    # --no-schema-check leaves the input to the NX runtime, which takes 5.5 at an int site (as
    # both reference runtimes do) and leaves out a key that is no parameter.
    code, out, _ = run_cli(capsys, *argv, '{"teamSize": 5.5, "extra": 1}', "--no-schema-check")
    assert code == 0 and json.loads(out)["output"][0]["seats"] == 5.5


# --------------------------------------------------------------------------------------- error texts


def test_link_errors_name_the_files_and_what_to_pass(example: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main = str(example / "main.nx.nxir")
    code, _, err = run_cli(capsys, "run", main, "--function", "findPlans", "--args", "[5]")
    assert code == 3
    assert err.startswith(f"nx-agent: error: {main}: ") and "[nx-ir-link-missing-module]" in err
    assert f"hint: {main} (module main.nx) links @nx/agent/agent.nx, which none of the images given holds: " \
           "pass its image file too" in err
    # The library assembled without its version: the hint names both files and the version to use.
    unversioned = str(tmp_path / "agent0.nxir")
    assert run_cli(capsys, "assemble", str(example / "agent.nx.nxir.txt"), "-o", unversioned)[0] == 0
    for argv in (["link", main, unversioned], ["tools", str(example / "support.json"), main, unversioned]):
        code, _, err = run_cli(capsys, *argv)
        assert code == 3 and "[nx-ir-link-version]" in err
        assert (f'hint: {main} (module main.nx) was built against @nx/agent/agent.nx version "b06c00c30be50ada", '
                f'and {unversioned} (module @nx/agent/agent.nx) is version ""') in err
        assert "nx-agent assemble TEXT --version b06c00c30be50ada -o IMAGE" in err


def test_several_diagnostics_are_listed_once_each(example: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"formatVersion": 1, "name": "a", "instructions": "x",
                               "tools": [{"name": "x", "kind": "function", "config": {}}, {"name": "y"}]}), encoding="utf-8")
    code, _, err = run_cli(capsys, "tools", str(bad), *images(example))
    assert code == 3
    lines = err.splitlines()
    assert lines[0] == f"nx-agent: error: {bad}: 2 problems [nx-agent-invalid-definition]"
    assert lines[1].startswith("  - at path tools[0]: tools[0] of the definition cannot be run")
    assert lines[2].startswith("  - at path tools[1]: tools[1] of the definition cannot be run")
    assert len(lines) == 3 and ".; " not in err


def test_javascript_words_are_put_for_people(example: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    definition = json.loads((example / "support.json").read_text(encoding="utf-8"))
    del definition["tools"][1]["config"]["function"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(definition), encoding="utf-8")
    code, _, err = run_cli(capsys, "tools", str(broken), *images(example))
    assert code == 3 and "undefined" not in err
    assert "its 'config.function' is missing, not the module and the name of a function." in err
    # --json keeps the message as the package (and @nx-lang/agent) spell it.
    code, _, err = run_cli(capsys, "--json", "tools", str(broken), *images(example))
    assert "its 'config.function' is undefined" in json.loads(err)["error"]["message"]


def test_a_file_that_is_no_definition_says_so(example: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"formatVersion": 1}', encoding="utf-8")
    code, _, err = run_cli(capsys, "tools", str(other), *images(example))
    assert code == 3
    assert err == (f"nx-agent: error: {other}: this is not an agent definition: it has no 'tools' list "
                   "(nx-agent compile writes one) [nx-agent-cli-definition]\n")
    assert "undefined" not in err


def test_a_refused_argument_gets_the_parameters_as_a_hint(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "run", *images(example), "--function", "findPlans", "--args", '[5, ["x"]]')
    assert code == 1 and "[nx-ir-boundary-type]" in err
    assert "  hint: findPlans takes teamSize: integer, maxMonthlyPrice: integer (optional)" in err
    code, out, _ = run_cli(capsys, "run", *images(example), "--function", "findPlans", "--args", '["five"]', "--json")
    assert json.loads(out)["error"]["hint"] == "findPlans takes teamSize: integer, maxMonthlyPrice: integer (optional)"


# ------------------------------------------------------------------------------ http without a token


def test_call_refuses_an_http_tool_without_a_token(
    example: Path, server: tuple[str, Recorder], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, recorder = server
    monkeypatch.delenv("NX_AGENT_TOKEN_SHOP", raising=False)
    argv = ["call", *agent(example), "lookup_order", "--input", '{"orderId": "A 1"}', "--call-id", "c9",
            "--base-url", f"shop={base}"]
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert ("lookup_order: tool 'lookup_order' sends its requests over the connection 'shop', which has no token: "
            "set NX_AGENT_TOKEN_SHOP to its bearer token, or pass --no-token if it needs none [nx-agent-cli-no-token]") in err
    assert recorder.requests == []
    code, out, err = run_cli(capsys, *argv, "--no-token", "--json")
    assert code == 0, err
    assert recorder.requests[0]["authorization"] is None
    code, _, err = run_cli(capsys, "call", *agent(example), "find_plans", "--input", '{"teamSize": 5}',
                           "--call-id", "c", "--no-token")
    assert code == 2 and "--no-token is for http tools" in err


def test_a_request_function_without_a_token_warns_once_per_connection(
    server: tuple[str, Recorder], caplog: pytest.LogCaptureFixture
) -> None:
    from nx_agent.http.client import request_with

    base, recorder = server
    call = {
        "request": {"method": "GET", "url": f"{base}/orders/1", "headers": {}},
        "arguments": {}, "callId": "c1", "toolName": "lookup_order",
        "connection": "shop", "annotations": {"readOnlyHint": True},
    }
    with caplog.at_level("WARNING", logger="nx_agent.http"), request_with(lambda connection: None) as request:
        request(call)
        request({**call, "callId": "c2"})
    warnings = [r.getMessage() for r in caplog.records if r.name == "nx_agent.http"]
    assert warnings == ["connection 'shop' has no bearer token: its requests are sent without authorization"]
    assert [r["authorization"] for r in recorder.requests] == [None, None]


def test_process_exit_codes_have_no_traceback(example: Path) -> None:
    started = time.monotonic()
    done = nx_agent("run", *images(example), "--function", "findPlans", "--max-operations", "-1")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    done = nx_agent("serve", *agent(example), "--http", "--port", "70000")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert time.monotonic() - started < 60
