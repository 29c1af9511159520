"""The README, run as a new user would: every shell command and every Python snippet, in order, in a
temporary folder (standing for the checkout), the snippets each as a script. Each command must exit
0 with no traceback; a server command is checked as a client sees it and then stopped.

What the walkthrough does not run itself, asserted here so that nothing is left out silently:

- a ``pip install`` is not repeated: the extras it names must be importable here (the test
  environment installed them), and ``.ci/run`` runs the README line of an install from the
  checkout itself on a clean machine;
- the test suite and the benchmarks (``python3 -m pytest``, ``cargo test``, ``benches/report.py``):
  ``.ci/run`` runs their README lines verbatim (this test is part of that suite);
- ``nxlang``: the NX toolchain is built from the NX repository and is not installed here; no later
  step reads what it would write;
- a snippet that imports an extra the test extra does not hold (``ray``) where that extra is not
  installed: reported in a warning; ``.ci/run`` installs it and sets ``NX_AGENT_REQUIRE_EXTRAS=1``,
  under which a missing one fails the test.

``--port 8000`` becomes a free port, so the test does not depend on 8000 being free. The SDK
snippets run offline, on each SDK's own test model, as they do without ``OPENAI_API_KEY``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path

import anyio
import pytest

import readme_walkthrough as walkthrough

ROOT = Path(__file__).resolve().parent.parent
CI_SCRIPT = ROOT / ".ci" / "run"


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "NX_AGENT_HOST_CONFIG")}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["NO_COLOR"] = "1"
    return env


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _serve_http(command: str, cwd: Path, env: dict[str, str]) -> str:
    """Start an ``nx-agent serve --http`` command, list its tools over MCP, then stop it with
    SIGINT (Ctrl-C): it must exit 130 without a traceback. Answers what it served."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    port = _free_port()
    command = re.sub(r"--port \d+", f"--port {port}", command)
    process = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        ready = ""
        while "streamable HTTP at" not in ready:
            line = process.stderr.readline()
            assert line, f"serve ended before it was ready: {ready}"
            ready += line
        assert re.search(rf"over (stateless )?streamable HTTP at http://127\.0\.0\.1:{port}/mcp", ready), ready

        url = f"http://127.0.0.1:{port}/mcp"
        token = env.get("NX_AGENT_SERVE_TOKEN")
        assert token, "the README sets the token HTTP clients send before serving over HTTP"

        async def listed() -> list[str]:
            async with httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    return [tool.name for tool in (await client.list_tools()).tools]

        names = anyio.run(listed)
        assert names == ["find_plans", "lookup_order", "open_ticket"]
        # Without the token, nothing is served.
        refused = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        assert refused.status_code == 401
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "Traceback" not in err
    return ready


def _run_python(step: walkthrough.Step, script: Path, cwd: Path, env: dict[str, str]) -> str:
    script.write_text(step.text, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL, check=False)
    where = f"README.md line {step.line} ({step.section})"
    assert done.returncode == 0, f"{where}:\n{done.stdout}\n{done.stderr}"
    assert "Traceback" not in done.stderr, where
    return done.stdout


def test_the_readme_runs_as_written(tmp_path: Path) -> None:
    steps = walkthrough.steps()
    ci = {walkthrough.without_comment(line.strip()) for line in CI_SCRIPT.read_text(encoding="utf-8").splitlines()}
    env = _environment()
    cwd = tmp_path
    outputs: dict[int, str] = {}
    not_run: list[tuple[str, str]] = []
    for number, step in enumerate(steps):
        if step.kind == "python":
            extra = walkthrough.extra_imported(step.text)
            if extra is not None and importlib.util.find_spec(walkthrough.OUTSIDE_TEST_EXTRA[extra]) is None:
                where = f"README.md line {step.line} ({step.section})"
                assert os.environ.get(walkthrough.REQUIRE_EXTRAS) != "1", f"{where}: the {extra} extra is not installed"
                not_run.append((f"the {extra} extra is not installed", where))
                continue
            outputs[step.line] = _run_python(step, tmp_path / f"snippet_{number}.py", cwd, env)
            continue
        line = walkthrough.without_comment(step.text)
        chain = walkthrough.parts(step.text)
        if any(part.startswith(walkthrough.RUN_BY_CI) for part in chain):
            assert line in ci, f"README.md line {step.line}: .ci/run must run {line!r}"
            not_run.append(("run by .ci/run", line))
            continue
        for part in chain:
            extras = walkthrough.installed_extras(part)
            if extras is not None:
                for extra in extras:
                    module = walkthrough.EXTRA_MODULES[extra]
                    assert importlib.util.find_spec(module) is not None, f"{part}: {module} is not installed"
                if " ." in part or " '." in part:
                    # An install from the checkout: CI makes it on a clean machine. One by name
                    # (nx-agent[mcp], from the index) is what the test extra installed here.
                    assert line in ci, f"README.md line {step.line}: .ci/run must run {line!r}"
                continue
            if part.startswith(walkthrough.NX_TOOLCHAIN):
                not_run.append(("NX toolchain", part))
                continue
            if part.startswith("cd "):
                cwd = (cwd / part[3:].strip()).resolve()
                assert cwd.is_dir(), part
                continue
            if part.startswith("export "):
                # The value as the shell gives it (a README export may run a command).
                name = part[len("export "):].partition("=")[0]
                done = subprocess.run(["bash", "-c", f'{part} && printf %s "${name}"'], cwd=cwd, env=env,
                                      capture_output=True, text=True, timeout=60, check=False)
                assert done.returncode == 0, f"README.md line {step.line}: {part}\n{done.stderr}"
                env[name] = done.stdout
                continue
            if part.startswith("nx-agent serve") and "--http" in part:
                outputs[step.line] = _serve_http(part, cwd, env)
                continue
            done = subprocess.run(["bash", "-c", part], cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=300, stdin=subprocess.DEVNULL, check=False)
            assert done.returncode == 0, f"README.md line {step.line}: {part}\n{done.stdout}\n{done.stderr}"
            assert "Traceback" not in done.stderr, part
            outputs[step.line] = done.stdout + done.stderr

    # Every command ran but these, each for the reason the module gives.
    extras = [f"{where}: {reason}" for reason, where in not_run if reason.endswith("extra is not installed")]
    if extras:
        warnings.warn(pytest.PytestWarning("README snippets not run: " + "; ".join(extras)), stacklevel=1)
    assert {reason for reason, _ in not_run if not reason.endswith("extra is not installed")} == {"run by .ci/run", "NX toolchain"}
    assert [command for reason, command in not_run if reason == "NX toolchain"] == [
        "nxlang codegen ./main.nx --target nx-ir --output ./generated",
        "nxlang codegen ./workspace --target nx-ir --entry app/main.nx --output ./generated",
        "nxlang ir explain ./generated/main.nxir",
    ]
    # What a reader sees: the demo's calls, the stored files, the tools, the offline SDK runs.
    printed = "\n".join(outputs.values())
    assert "find_plans({\"teamSize\": 5})" in printed
    assert "serving find_plans, lookup_order, open_ticket over stdio" in printed
    assert "Plans for 5: " in printed and '"name": "Team"' in printed.replace("'", '"')
    assert cwd == tmp_path, "the walkthrough ends where it began (cd .. after the example folder)"
    assert sorted(p.name for p in (tmp_path / "example").iterdir() if not p.name.startswith("snippet")) == sorted(
        ["main.nx.nxir", "agent.nx.nxir", "main.nx.descriptions.json", "support.json", "main.nx.nxir.txt", "agent.nx.nxir.txt",
         "agent.bundle.json", "find_plans.folded", "calls.jsonl", "host.json"]
    )


def test_the_walkthrough_sees_every_block() -> None:
    steps = walkthrough.steps()
    text = walkthrough.README.read_text(encoding="utf-8")
    fenced = re.findall(r"^```(\w*)$\n", text, re.M)
    opening = [language for language in fenced[::2]]
    assert sorted(set(opening)) == ["bash", "python", "sh", "text"], opening
    assert sum(1 for s in steps if s.kind == "python") == opening.count("python")
    assert len(steps) > 25


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("nx-agent run x --args '[5]'   # a comment", "nx-agent run x --args '[5]'"),
        ("nx-agent call x --input '{\"a#b\": 1}'", "nx-agent call x --input '{\"a#b\": 1}'"),
        ("export NX_AGENT_TOKEN_SHOP=…        # the token", "export NX_AGENT_TOKEN_SHOP=…"),
    ],
)
def test_comments_are_cut_outside_quotes(command: str, expected: str) -> None:
    assert walkthrough.without_comment(command) == expected


def test_installs_name_their_extras() -> None:
    assert walkthrough.installed_extras("python3 -m pip install .") == [""]
    assert walkthrough.installed_extras("python3 -m pip install -e '.[bench]'") == ["bench"]
    assert walkthrough.installed_extras("pip install 'nx-agent[mcp]'") == ["mcp"]
    assert walkthrough.installed_extras("nx-agent demo") is None
