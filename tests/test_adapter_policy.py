"""The model-facing error policy of agent-package §7 (nx_agent.adapters.policy), cases §8.12 217–219."""

from __future__ import annotations

import pytest

from nx_agent import NxAgentToolError
from nx_agent.adapters.policy import FIXED_SENTENCES, fixed_sentence, model_facing_error, model_text

# The sentences of §7's table, for a tool named 't'.
SENTENCES = {
    "invalid-context": "Tool 't' is not available for this call.",
    "evaluation-failed": "Tool 't' failed while it ran.",
    "resource-limit": "Tool 't' stopped at a limit on what one call may do.",
    "invalid-request": "Tool 't' could not make a request from these arguments.",
    "request-failed": "Tool 't' did not get an answer to its request.",
    "aborted": "The call of tool 't' was cancelled.",
}

SECRET = "https://billing.internal/v1?token=sk-live-123"


def test_the_table_is_the_references() -> None:
    assert sorted(FIXED_SENTENCES) == sorted(SENTENCES)
    for code, sentence in SENTENCES.items():
        assert fixed_sentence(code, "t") == sentence


@pytest.mark.parametrize("code", sorted(SENTENCES))
def test_package_codes_get_the_fixed_sentence_and_nothing_else(code: str) -> None:
    error = {
        "code": code,
        "message": f"failed at {SECRET}",
        "diagnostics": [{"code": "nx-ir-x", "message": SECRET}],
        "limit": {"name": "maxOperations", "value": 100000},
    }
    shown = model_facing_error("t", error)
    assert isinstance(shown, NxAgentToolError)
    assert shown.code == code
    assert shown.message == SENTENCES[code]
    assert str(shown) == SENTENCES[code]
    assert not hasattr(shown, "diagnostics") and not hasattr(shown, "limit")
    assert shown.__cause__ is None
    assert model_text(shown) == f"NxAgentToolError: {SENTENCES[code]}"
    assert "billing" not in repr(vars(shown)) and "sk-live" not in model_text(shown)
    assert error["message"] == f"failed at {SECRET}"  # the host's copy is untouched


def test_invalid_input_keeps_its_reason_diagnostics_and_limit() -> None:
    diagnostics = [{"code": "nx-ir-boundary-type", "argument": "teamSize", "message": "teamSize is not an int"}]
    shown = model_facing_error(
        "find_plans", {"code": "invalid-input", "message": "Argument teamSize is wrong.", "diagnostics": diagnostics}
    )
    assert (shown.code, shown.message) == ("invalid-input", "Argument teamSize is wrong.")
    assert list(shown.diagnostics) == diagnostics
    assert not hasattr(shown, "limit")
    sized = model_facing_error(
        "find_plans",
        {"code": "invalid-input", "message": "too big", "limit": {"name": "maxArgumentsSize", "value": 1000}},
    )
    assert sized.limit == {"name": "maxArgumentsSize", "value": 1000}
    assert not hasattr(sized, "diagnostics")


@pytest.mark.parametrize("code", ["order-not-found", "request-failed-upstream", "constructor", "toString", "__proto__", "__class__", "get"])
def test_host_codes_keep_the_hosts_words(code: str) -> None:
    shown = model_facing_error("lookup_order", {"code": code, "message": "As the host wrote it.", "limit": {"name": "x"}})
    assert (shown.code, shown.message) == (code, "As the host wrote it.")
    assert shown.limit == {"name": "x"}
    assert model_text(shown) == "NxAgentToolError: As the host wrote it."


def test_the_shared_adapter_modules_import_no_sdk() -> None:
    import subprocess
    import sys

    code = (
        "import sys, nx_agent, nx_agent.adapters.policy, nx_agent.adapters.calls; "
        "print(sorted(m for m in ('agents', 'pydantic_ai', 'openai', 'httpx', 'mcp') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"
