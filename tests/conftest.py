"""Shared fixtures: the corpus (where present) and the bundled example."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


# ---- hypothesis: the "nx-default" profile, or "slow" with --slow (see hypothesis_profiles.py) -----

import hypothesis_profiles  # noqa: E402
import pytest  # noqa: E402


# A shell starts a background job (`cmd &`, as a script without job control runs one) with SIGINT
# ignored, and a process keeps an ignored signal ignored across exec: every nx-agent process the
# tests start to Ctrl-C would then never see it. The tests send SIGINT on purpose, so they run
# with Python's own handler, which a child resets to the default.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow",
        action="store_true",
        default=False,
        help="run property tests under the 'slow' hypothesis profile (10x the examples, random seeds)",
    )


def pytest_configure(config: pytest.Config) -> None:
    hypothesis_profiles.load("slow" if config.getoption("--slow") else "nx-default")


# ---- the conformance corpus: say at the end whether the tests that need it ran -------------------


def pytest_unconfigure(config: pytest.Config) -> None:
    """After pytest's own last line: whether the corpus tests ran, and if not how many did not
    and how to run them."""
    terminalreporter = config.pluginmanager.get_plugin("terminalreporter")
    if terminalreporter is None or not hasattr(terminalreporter, "stats"):
        return
    from corpus import ENV, NO_CORPUS, corpus_dir

    skipped = 0
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(report, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        if NO_CORPUS in reason:
            skipped += 1
    root = corpus_dir()
    if root is not None:
        terminalreporter.write_line(f"NX IR conformance corpus: {root} (the tests that need it run)")
    elif skipped:
        terminalreporter.write_line(
            f"NX IR conformance corpus not found: {skipped} tests that need it did not run (skipped; a test "
            f"over the corpus' programs counts once). Set {ENV} to a copy of nx-ir-conformance, or place it "
            "at ../shared/nx-ir-conformance beside the checkout, to run them.",
            yellow=True,
            bold=True,
        )
