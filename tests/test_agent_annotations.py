"""agent-package.md §8.2: the fixed annotations of each tool type."""

from __future__ import annotations

from typing import Any

import pytest

import nx_agent
from nx_agent.agent.annotations import (
    FUNCTION_TOOL_ANNOTATIONS,
    HTTP_TOOL_METHODS,
    WEB_SEARCH_TOOL_ANNOTATIONS,
    http_tool_annotations,
    is_http_tool_method,
)

HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]


def hints(annotations: Any) -> list[bool]:
    return [annotations[hint] for hint in HINTS]


# 7.
def test_function_tool() -> None:
    assert hints(FUNCTION_TOOL_ANNOTATIONS) == [True, False, True, False]
    assert list(FUNCTION_TOOL_ANNOTATIONS) == HINTS


# 8.
def test_web_search_tool() -> None:
    assert hints(WEB_SEARCH_TOOL_ANNOTATIONS) == [True, False, True, True]
    assert list(WEB_SEARCH_TOOL_ANNOTATIONS) == HINTS


# 9.
@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("get", [True, False, True, True]),
        ("post", [False, True, False, True]),
        ("put", [False, True, True, True]),
        ("patch", [False, True, False, True]),
        ("delete", [False, True, True, True]),
    ],
)
def test_http_tool(method: str, expected: list[bool]) -> None:
    assert HTTP_TOOL_METHODS == ("get", "post", "put", "patch", "delete")
    assert hints(http_tool_annotations(method)) == expected
    assert list(http_tool_annotations(method)) == HINTS


# 10.
@pytest.mark.parametrize(
    "table",
    [FUNCTION_TOOL_ANNOTATIONS, WEB_SEARCH_TOOL_ANNOTATIONS, *(http_tool_annotations(m) for m in HTTP_TOOL_METHODS)],
)
def test_tables_are_immutable(table: Any) -> None:
    with pytest.raises(TypeError):
        table["readOnlyHint"] = False
    with pytest.raises(TypeError):
        del table["openWorldHint"]
    with pytest.raises(AttributeError):
        table.clear()
    assert nx_agent.NX_AGENT_TOOL_CONTEXT == {"module": "@nx/agent/agent.nx", "name": "ToolContext"}
    with pytest.raises(TypeError):
        nx_agent.NX_AGENT_TOOL_CONTEXT["name"] = "Other"  # type: ignore[index]


# 11.
@pytest.mark.parametrize("value", ["GET", "head", "", None, 1])
def test_is_http_tool_method_is_exact(value: object) -> None:
    assert not is_http_tool_method(value)
    assert all(is_http_tool_method(method) for method in HTTP_TOOL_METHODS)
