"""The docs site: it builds with warnings as errors, a page of it renders in a real headless browser
(Chromium, from Debian) and the screenshot is opened and looked at, and what the pages say is true
of the code (every error code, every command-line option, the formats' examples).

The build and the screenshot need the tools of ``docs/requirements.txt`` and ``chromium``, which
``.ci/run`` installs; without them those two tests are skipped here, and fail when
``NX_AGENT_REQUIRE_DOCS_TOOLS=1`` (as ``.ci/run`` sets it).
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REQUIRED = os.environ.get("NX_AGENT_REQUIRE_DOCS_TOOLS") == "1"


def _needs(found: bool, what: str) -> None:
    if found:
        return
    if REQUIRED:
        pytest.fail(f"{what} is not installed, and NX_AGENT_REQUIRE_DOCS_TOOLS=1")
    pytest.skip(f"{what} is not installed (.ci/run installs it: docs/requirements.txt, chromium)")


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built with ``mkdocs build --strict`` (a warning fails the build)."""
    _needs(all(importlib.util.find_spec(m) is not None for m in ("mkdocs", "material", "mkdocstrings")), "mkdocs")
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr
    return out


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site over HTTP on loopback, as a browser reads it."""
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def test_every_page_is_built(site: Path) -> None:
    for page in ("getting-started", "cli", "host-configuration", "descriptions", "error-codes", "runtime-differences",
                 "api/nx_agent", "api/ir", "api/schema", "api/http", "api/mcp", "api/adapters"):
        assert (site / page / "index.html").is_file(), page
    # The API reference holds the extension's functions with the stub's signatures and the
    # docstrings (here load_agent's account of the request function and of a result).
    ir_page = (site / "api" / "ir" / "index.html").read_text(encoding="utf-8")
    assert 'id="nx_agent.ir.evaluate_function"' in ir_page and "max_range_length" in ir_page
    api = (site / "api" / "nx_agent" / "index.html").read_text(encoding="utf-8")
    assert 'id="nx_agent.agent.compile.load_agent"' in api and "&quot;callId&quot;" in api
    # The docstrings' Sphinx markup is rendered, not shown.
    assert ":func:`" not in api and "``" not in api
    # Nothing is fetched from another host (no web fonts).
    assert "fonts.googleapis" not in ir_page


def test_a_page_renders_in_a_headless_browser(served: str, tmp_path: Path) -> None:
    browser = _chromium()
    _needs(browser is not None, "chromium")
    assert browser is not None
    from PIL import Image

    shot = tmp_path / "getting-started.png"
    done = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--disable-dev-shm-usage",
         # Loopback only: any other host name resolves to nothing.
         "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
         f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,1000",
         f"--screenshot={shot}", f"{served}/getting-started/"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0 and shot.is_file(), done.stderr[-2000:]
    with Image.open(shot) as opened:
        image = opened.convert("RGB")
    assert image.size == (1280, 1000)
    # The header bar is the theme's indigo across the top.
    r, g, b = image.getpixel((640, 10))
    assert b > 150 and r < 100 and g < 120, (r, g, b)
    # The page's body is white with dark text: the content column holds both, in quantity.
    content = image.crop((300, 100, 1000, 900))
    colours = content.getcolors(maxcolors=1 << 20)
    assert colours is not None
    dark = sum(count for count, (r, g, b) in colours if r + g + b < 200)
    light = sum(count for count, (r, g, b) in colours if r + g + b > 700)
    assert dark > 3000, f"too little text: {dark} dark pixels"
    assert light > content.size[0] * content.size[1] // 2
    # The navigation column on the left is drawn too.
    nav = image.crop((40, 100, 250, 500))
    nav_colours = nav.getcolors(maxcolors=1 << 20)
    assert nav_colours is not None and sum(c for c, (r, g, b) in nav_colours if r + g + b < 300) > 300


# -------------------------------------------------------------------------- the pages say what's true


def _source_codes() -> set[str]:
    codes: set[str] = set()
    for path in (ROOT / "python" / "nx_agent").rglob("*.py"):
        codes.update(re.findall(r'"((?:nx-agent|schema)-[a-z0-9-]+)"', path.read_text(encoding="utf-8")))
    error_rs = (ROOT / "rust" / "nx-ir-core" / "src" / "error.rs").read_text(encoding="utf-8")
    codes.update(re.findall(r'"(nx-ir-[a-z0-9-]+)"', error_rs))
    codes.update(["invalid-input", "invalid-context", "resource-limit", "evaluation-failed", "invalid-request",
                  "request-failed", "unknown-outcome", "aborted"])
    return codes


def test_the_error_codes_page_lists_every_code() -> None:
    page = (DOCS / "error-codes.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z0-9-]+)` \|", page, re.M))
    missing = sorted(_source_codes() - listed)
    assert missing == [], f"codes the page does not list: {missing}"


def test_the_cli_page_names_every_command_and_option() -> None:
    from nx_agent.cli import build_parser

    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name, parser in commands.items():
        assert f"nx-agent {name}" in page, name
        for action in parser._actions:
            for option in action.option_strings:
                if option.startswith("--") and option not in ("--help", "--json"):
                    assert option in page, f"{name} {option}"


def _json_blocks(page: str) -> list[object]:
    text = (DOCS / page).read_text(encoding="utf-8")
    return [json.loads(block) for block in re.findall(r"^```json\n(.*?)^```", text, re.M | re.S)]


def test_the_host_configuration_example_is_read_as_documented(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from nx_agent.mcp.host_config import read_host_config

    (document,) = _json_blocks("host-configuration.md")
    secret = tmp_path / "billing"
    secret.write_text("billing-token\n", encoding="utf-8")
    monkeypatch.setenv("SHOP_API_TOKEN", "shop-token")
    monkeypatch.setenv("SERVE_TOKEN", "serve-token")
    assert isinstance(document, dict)
    document["connections"]["billing"]["tokenFile"] = str(secret)
    config = read_host_config(document)
    assert config.token_for("shop") == "shop-token" and config.token_for("billing") == "billing-token"
    assert config.needs_no_token("local") and config.token_for("local") is None
    assert config.connections["local"].base_url == "http://127.0.0.1:8080"
    assert config.limits == {
        "max_operations": 100000, "max_arguments_size": 1000, "max_context_size": 1000, "max_memory": 268435456,
        "max_calls_per_conversation": 20,
    }
    assert config.tool_limits == {"find_plans": {"max_operations": 22}}
    assert config.call_id_prefix == "svc-a" and config.timeout == 10.0
    # The example's http object spells out the defaults, with a token.
    assert config.http.bearer_token() == "serve-token"
    assert config.http == type(config.http)(token="serve-token")


def test_the_descriptions_example_is_read_as_documented() -> None:
    from nx_agent.schema import load_descriptions

    (document,) = _json_blocks("descriptions.md")
    read = load_descriptions(document)  # type: ignore[arg-type]
    function = read.function("main.nx", "findPlans")
    assert function is not None and function.summary == "Finds the plans that fit a team."
    assert read.type("main.nx", "Names") is not None


def test_the_getting_started_snippets_run() -> None:
    text = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    (snippet,) = re.findall(r"^```python\n(.*?)^```", text, re.M | re.S)
    exec(compile(snippet, "docs/getting-started.md", "exec"), {})  # noqa: S102
