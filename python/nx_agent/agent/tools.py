"""The package's own tool types: ``FunctionTool``, ``WebSearchTool`` and ``HttpTool`` (§3.9–§3.11)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .annotations import (
    FUNCTION_TOOL_ANNOTATIONS,
    WEB_SEARCH_TOOL_ANNOTATIONS,
    annotations_copy,
    http_tool_annotations,
    is_http_tool_method,
)
from .definition import (
    WEB_SEARCH_DEFAULT_DESCRIPTION,
    WEB_SEARCH_DEFAULT_NAME,
    empty_object_schema,
    http_output_schema,
)
from .describe import MISSING, describe_value, is_empty, is_number
from .report import Report, subject_of
from .tool_functions import AgentSchemaSource, read_function, resolve_description, resolve_name

__all__ = ["normalize_function_tool", "normalize_http_tool", "normalize_web_search_tool"]


def normalize_function_tool(
    report: Report,
    schemas: AgentSchemaSource,
    tool_context_type: tuple[str, str] | None,
    value: Mapping[str, Any],
    path: str,
) -> dict[str, Any] | None:
    """A ``function`` tool, or ``None`` when this tool had an error."""
    errors_before = report.error_count
    facts = read_function(report, schemas, tool_context_type, value, path, "function")
    if facts is None:
        return None
    if facts.input_schema is not None and facts.output_schema is None:
        subject = subject_of(facts.name, path)
        for reason in facts.result_reasons or ["the result type has no JSON form"]:
            report.add(
                "warning",
                "nx-agent-inexpressible-result",
                path,
                f"{subject} has no output schema: {reason}",
                tool=facts.name,
                declaration=facts.declaration,
            )
    if (
        report.error_count > errors_before
        or facts.name is None
        or facts.description is None
        or facts.input_schema is None
    ):
        return None
    tool: dict[str, Any] = {
        "name": facts.name,
        "description": facts.description,
        "inputSchema": facts.input_schema,
    }
    if facts.output_schema is not None:
        tool["outputSchema"] = facts.output_schema
    tool["annotations"] = annotations_copy(FUNCTION_TOOL_ANNOTATIONS)
    tool["kind"] = "function"
    tool["config"] = {"function": facts.reference, "contextParameters": facts.context_parameters}
    return tool


def normalize_web_search_tool(report: Report, value: Mapping[str, Any], path: str) -> dict[str, Any] | None:
    """A ``provider`` tool, or ``None`` when this tool had an error."""
    errors_before = report.error_count
    name = resolve_name(report, value, path, WEB_SEARCH_DEFAULT_NAME)
    description = resolve_description(report, value, path, name, WEB_SEARCH_DEFAULT_DESCRIPTION)
    domains = value.get("allowedDomains", MISSING)
    if not is_empty(domains) and not (
        isinstance(domains, (list, tuple)) and all(isinstance(domain, str) for domain in domains)
    ):
        report.error(
            "nx-agent-unknown-tool-type",
            f"{path}.allowedDomains",
            f"{path} is not a well-formed WebSearchTool: 'allowedDomains' is not a list of strings.",
            tool=name,
        )
    if report.error_count > errors_before or name is None or description is None:
        return None
    config: dict[str, Any] = {"provider": "web_search"}
    if isinstance(domains, (list, tuple)) and domains:
        config["allowedDomains"] = list(domains)
    return {
        "name": name,
        "description": description,
        "inputSchema": empty_object_schema(),
        "annotations": annotations_copy(WEB_SEARCH_TOOL_ANNOTATIONS),
        "kind": "provider",
        "config": config,
    }


def normalize_http_tool(
    report: Report,
    schemas: AgentSchemaSource,
    tool_context_type: tuple[str, str] | None,
    allow_insecure_base_url: bool,
    value: Mapping[str, Any],
    path: str,
) -> dict[str, Any] | None:
    """An ``http`` tool, or ``None`` when this tool had an error. Nothing is evaluated or contacted."""
    from ..http import HttpProblem, parse_http_base_url, parse_http_path

    errors_before = report.error_count
    # The function is read first, so that every other diagnostic of the tool can carry its name.
    facts = read_function(report, schemas, tool_context_type, value, path, "arguments")
    tool = None if facts is None else facts.name
    subject = subject_of(tool, path)

    connection = value.get("connection", MISSING)
    connection_name: str | None = None
    base_url: str | None = None
    if (
        not isinstance(connection, Mapping)
        or not isinstance(connection.get("name"), str)
        or not isinstance(connection.get("baseUrl"), str)
    ):
        report.error(
            "nx-agent-http-base-url",
            f"{path}.connection",
            f"{subject}: its connection is {describe_value(connection)}, not an HttpConnection with a 'name' "
            "and a 'baseUrl'.",
            tool=tool,
        )
    else:
        connection_name = connection["name"]
        authored_base = connection["baseUrl"]
        base = parse_http_base_url(authored_base, allow_insecure=allow_insecure_base_url)
        if isinstance(base, HttpProblem):
            report.error(
                "nx-agent-http-base-url",
                f"{path}.connection.baseUrl",
                f"{subject}: the base URL '{authored_base}' of connection '{connection_name}' cannot be used: "
                f"{base.problem}.",
                tool=tool,
            )
        else:
            base_url = base.prefix

    method = value.get("method", MISSING)
    if not is_http_tool_method(method):
        report.error(
            "nx-agent-unknown-tool-type",
            f"{path}.method",
            f"{subject} is not a well-formed HttpTool: its method is {describe_value(method)}, not one of get, "
            "post, put, patch and delete.",
            tool=tool,
        )

    template = value.get("path", MISSING)
    placeholders: list[str] | None = None
    if not isinstance(template, str):
        report.error(
            "nx-agent-http-path",
            f"{path}.path",
            f"{subject}: its path is {describe_value(template)}, not a string.",
            tool=tool,
        )
    else:
        parsed = parse_http_path(template)
        if isinstance(parsed, HttpProblem):
            report.error(
                "nx-agent-http-path",
                f"{path}.path",
                f"{subject}: the path '{template}' cannot be used: {parsed.problem}.",
                tool=tool,
            )
        else:
            placeholders = list(parsed.placeholders)

    max_calls = value.get("maxCallsPerConversation", MISSING)
    if not is_empty(max_calls) and not is_number(max_calls):
        report.error(
            "nx-agent-unknown-tool-type",
            f"{path}.maxCallsPerConversation",
            f"{subject} is not a well-formed HttpTool: 'maxCallsPerConversation' is {describe_value(max_calls)}, "
            "not a number.",
            tool=tool,
        )

    if (
        report.error_count > errors_before
        or facts is None
        or facts.name is None
        or facts.description is None
        or facts.input_schema is None
        or connection_name is None
        or base_url is None
        or not isinstance(method, str)
        or not is_http_tool_method(method)
        or not isinstance(template, str)
        or placeholders is None
    ):
        return None
    config: dict[str, Any] = {
        "arguments": facts.reference,
        "contextParameters": facts.context_parameters,
        "connection": {"name": connection_name, "baseUrl": base_url},
        "method": method,
        "path": template,
        "pathPlaceholders": placeholders,
    }
    if is_number(max_calls):
        config["maxCallsPerConversation"] = max_calls
    return {
        "name": facts.name,
        "description": facts.description,
        "inputSchema": facts.input_schema,
        "outputSchema": http_output_schema(),
        "annotations": annotations_copy(http_tool_annotations(method)),
        "kind": "http",
        "config": config,
    }
