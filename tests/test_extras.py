"""A missing optional extra says which extra to install, and what needs no extra imports without it
(``nx_agent.mcp.host_config``, the format the README points to). Each case runs in a fresh
interpreter where the extra's packages cannot be imported."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

BLOCK = """
import sys
class _Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, _Blocked())
"""


def run_without(blocked: set[str], body: str) -> subprocess.CompletedProcess[str]:
    code = BLOCK.format(blocked=sorted(blocked)) + body
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60)


@pytest.mark.parametrize(
    ("module", "blocked", "extra"),
    [
        ("nx_agent.openai_agents", {"agents"}, "openai-agents"),
        ("nx_agent.pydantic_ai", {"pydantic_ai"}, "pydantic-ai"),
        ("nx_agent.mcp.server", {"mcp", "mcp_types"}, "mcp"),
        ("nx_agent.http.client", {"httpx"}, "http"),
    ],
)
def test_a_missing_extra_names_the_extra(module: str, blocked: set[str], extra: str) -> None:
    done = run_without(blocked, f"""
from nx_agent._extras import MissingExtraError
try:
    import {module}
except ModuleNotFoundError as error:
    assert isinstance(error, MissingExtraError) and isinstance(error, ImportError)
    print(str(error)); print(error.name); print(error.extra)
""")
    assert done.returncode == 0, done.stderr
    message, name, said_extra = done.stdout.splitlines()
    assert f"needs the '{extra}' extra: pip install 'nx-agent[{extra}]'" in message
    assert name.split(".")[0] in blocked and said_extra == extra


def test_host_config_imports_without_the_mcp_extra() -> None:
    done = run_without({"mcp", "mcp_types", "uvicorn", "starlette"}, """
import json
from nx_agent.mcp.host_config import read_host_config
from nx_agent.mcp import HostConfig, load_host_config
config = read_host_config({"connections": {"shop": {"noToken": True}}, "timeout": 5})
print(json.dumps([config.timeout, config.needs_no_token("shop"), config.token_for("shop")]))
try:
    from nx_agent.mcp import create_mcp_server
except ModuleNotFoundError as error:
    print(error)
""")
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert json.loads(first) == [5.0, True, None]
    assert "nx_agent.mcp needs the 'mcp' extra: pip install 'nx-agent[mcp]'" in second


def test_serve_without_the_mcp_extra_exits_4(tmp_path: object) -> None:
    done = run_without({"mcp", "mcp_types"}, f"""
import sys
from nx_agent import cli
code = cli.main(["demo", "--write", {str(tmp_path)!r}])
assert code == 0
import os
os.environ["NX_AGENT_TOKEN_SHOP"] = "t"
folder = {str(tmp_path)!r}
sys.exit(cli.main(["serve", folder + "/support.json", folder + "/main.nx.nxir", folder + "/agent.nx.nxir"]))
""")
    assert done.returncode == 4, done.stderr
    assert "serve needs the mcp extra: pip install 'nx-agent[mcp]'" in done.stderr
    assert "[nx-agent-cli-missing-extra]" in done.stderr and "Traceback" not in done.stderr


def test_another_missing_module_is_not_blamed_on_an_extra() -> None:
    from nx_agent._extras import MissingExtraError, missing_extra

    other = ModuleNotFoundError("No module named 'somewhere_else'", name="somewhere_else")
    assert missing_extra("x", "mcp", other, ("mcp",)) is other
    assert isinstance(missing_extra("x", "mcp", ModuleNotFoundError("m", name="mcp.server"), ("mcp",)), MissingExtraError)
