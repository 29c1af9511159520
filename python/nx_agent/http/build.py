"""Building the request an ``http`` tool makes (§6.4–§6.8): pure, never raises, sends nothing."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal, TypedDict, Union, get_args

from .._js import MISSING, describe_value, js_json, js_string
from .arguments import HttpArgumentsData, read_http_arguments
from .base_url import HttpBaseUrl, parse_http_base_url, under_base_url
from .encoding import body_json, encode_component
from .path import HttpPathTemplate, is_dot_segment, parse_http_path
from .problem import HttpProblem

HttpRequestRule = Literal[
    "not-an-http-tool",
    "method",
    "base-url",
    "path-template",
    "arguments",
    "undeclared-path-parameter",
    "duplicate-path-parameter",
    "empty-path-parameter",
    "missing-path-parameter",
    "dot-segment",
    "empty-query-name",
    "outside-base-url",
    "body-not-allowed",
    "body-not-json",
]
"""The rule a refused build broke, one per check of §6.4."""

HTTP_REQUEST_RULES: Final[tuple[HttpRequestRule, ...]] = get_args(HttpRequestRule)
"""Every rule, in the order of the checks."""

HTTP_TOOL_METHODS: Final = ("get", "post", "put", "patch", "delete")


class _HttpRequestHead(TypedDict):
    method: str
    url: str
    headers: dict[str, str]


class HttpRequestDescription(_HttpRequestHead, total=False):
    """A request to make: ``method`` (upper-case), ``url``, ``headers`` and, when there is one, ``body``.

    ``headers`` is ``{"content-type": "application/json"}`` when there is a body and ``{}`` otherwise;
    ``body`` is JSON text without ``$type`` keys. Key order ``method, url, headers, body``.
    """

    body: str


@dataclass(frozen=True, slots=True)
class HttpRequestError:
    """Why a request could not be built: the tool's name (``""`` if it has none), the rule, a sentence."""

    code: Literal["invalid-request"]
    tool: str
    rule: HttpRequestRule
    message: str

    def to_dict(self) -> dict[str, str]:
        """``{"code", "tool", "rule", "message"}``, the reference's error object."""
        return {"code": self.code, "tool": self.tool, "rule": self.rule, "message": self.message}


@dataclass(frozen=True, slots=True)
class HttpRequestBuilt:
    """A built request, and the structured arguments it was built from (what a request function gets)."""

    request: HttpRequestDescription
    arguments: HttpArgumentsData
    ok: Literal[True] = True


@dataclass(frozen=True, slots=True)
class HttpRequestRefused:
    """A refused build."""

    error: HttpRequestError
    ok: Literal[False] = False


BuildHttpRequestResult = Union[HttpRequestBuilt, HttpRequestRefused]


# Both readers are pure functions of a string with immutable answers; a tool's base URL and path are
# read on every call, so the answers are kept (bounded) rather than parsed again.
@lru_cache(maxsize=1024)
def _base_url_of(text: str) -> HttpBaseUrl | HttpProblem:
    return parse_http_base_url(text, allow_insecure=True)


@lru_cache(maxsize=1024)
def _path_of(text: str) -> HttpPathTemplate | HttpProblem:
    return parse_http_path(text)


def build_http_request(tool: object, arguments: object) -> BuildHttpRequestResult:
    """Build the request a normalized ``http`` tool makes for one evaluated ``HttpArguments`` value.

    ``tool`` is a tool of a normalized definition (a JSON ``dict`` with ``name``, ``kind: "http"`` and
    ``config``); ``arguments`` is the canonical ``HttpArguments`` record (``{"$type": "HttpArguments",
    "pathParams": [...], "query": [...], "body": ...}``) or its structured form. Method, scheme, host,
    port and the fixed path come only from the tool: each path value and query name and value is
    percent-encoded on its own, a segment that comes out as ``.`` or ``..`` is refused, and the URL is
    re-parsed (WHATWG) and refused unless it reads exactly as built under the connection's base URL.

    Answers :class:`HttpRequestBuilt` (``ok``, ``request``, ``arguments``) or
    :class:`HttpRequestRefused` whose ``error`` names the rule of §6.4 it broke. Never raises.
    """
    return _build(tool, arguments)


def _refuse(name: str, rule: HttpRequestRule, text: str) -> HttpRequestRefused:
    subject = f"Tool '{name}'" if name else "The tool"
    return HttpRequestRefused(HttpRequestError("invalid-request", name, rule, f"{subject}: {text}"))


def _build(tool: object, arguments: object) -> BuildHttpRequestResult:
    held_name = tool.get("name", MISSING) if isinstance(tool, dict) else MISSING
    name = held_name if isinstance(held_name, str) else ""
    if not isinstance(tool, dict):
        return _refuse(name, "not-an-http-tool", f"it is {describe_value(tool)}, not an http tool.")
    kind = tool.get("kind", MISSING)
    if kind != "http" or not isinstance(kind, str):
        return _refuse(name, "not-an-http-tool", f"its kind is {describe_value(kind)}, not 'http'.")
    config = tool.get("config", MISSING)
    if not isinstance(config, dict):
        return _refuse(name, "not-an-http-tool", f"its 'config' is {describe_value(config)}, not a record.")
    connection = config.get("connection", MISSING)
    if not isinstance(connection, dict):
        text = f"its 'config.connection' is {describe_value(connection)}, not a record."
        return _refuse(name, "not-an-http-tool", text)
    method = config.get("method", MISSING)
    if not isinstance(method, str) or method not in HTTP_TOOL_METHODS:
        text = f"its method, {js_json(method)}, is not one of get, post, put, patch and delete."
        return _refuse(name, "method", text)
    connection_name = js_string(connection.get("name", MISSING))
    # Both schemes are read: which one a deployment allows was settled when the definition was made,
    # and the origin check below holds the request to whichever the connection has.
    base = _base_url_of(js_string(connection.get("baseUrl", MISSING)))
    if not base.ok:
        text = f"the base URL of connection '{connection_name}' cannot be used: {base.problem}."
        return _refuse(name, "base-url", text)
    path_template = js_string(config.get("path", MISSING))
    template = _path_of(path_template)
    if not template.ok:
        return _refuse(name, "path-template", f"the path '{path_template}' cannot be used: {template.problem}.")
    data = read_http_arguments(arguments)
    if isinstance(data, str):
        return _refuse(name, "arguments", f"{data}.")

    values: dict[str, str] = {}
    for param in data["pathParams"]:
        param_name = param["name"]
        if param_name not in template.placeholders:
            text = f"the path '{path_template}' has no placeholder for the path parameter '{param_name}'."
            return _refuse(name, "undeclared-path-parameter", text)
        if param_name in values:
            return _refuse(name, "duplicate-path-parameter", f"the path parameter '{param_name}' is given twice.")
        if param["value"] == "":
            return _refuse(name, "empty-path-parameter", f"the path parameter '{param_name}' is empty.")
        values[param_name] = param["value"]
    pieces: list[str] = []
    for part in template.parts:
        if isinstance(part, str):
            pieces.append(part)
            continue
        value = values.get(part.name)
        if value is None:
            text = f"the arguments hold no path parameter for the placeholder '{{{part.name}}}'."
            return _refuse(name, "missing-path-parameter", text)
        pieces.append(encode_component(value))
    path = "".join(pieces)
    for segment in path.split("/"):
        if is_dot_segment(segment):
            text = f"the path has the segment '{segment}' once its placeholders are filled."
            return _refuse(name, "dot-segment", text)

    pairs: list[str] = []
    for param in data["query"]:
        if param["name"] == "":
            return _refuse(name, "empty-query-name", "a query parameter has an empty name.")
        pairs.append(f"{encode_component(param['name'])}={encode_component(param['value'])}")
    # The rules above should make this impossible to fail, and it is what says so: the URL of the
    # request is the one this check answers.
    url = under_base_url(base, path, "?" + "&".join(pairs) if pairs else "")
    if url is None:
        text = f"the URL it builds is not under the base URL of connection '{connection_name}'."
        return _refuse(name, "outside-base-url", text)

    upper = method.upper()
    if "body" not in data:
        return HttpRequestBuilt({"method": upper, "url": url, "headers": {}}, data)
    if method == "get" or method == "delete":
        return _refuse(name, "body-not-allowed", f"the arguments hold a body, and a {upper} request carries none.")
    body = body_json(data["body"])
    if body is None:
        return _refuse(name, "body-not-json", "the body is not a JSON value.")
    request: HttpRequestDescription = {
        "method": upper,
        "url": url,
        "headers": {"content-type": "application/json"},
        "body": body,
    }
    return HttpRequestBuilt(request, data)
