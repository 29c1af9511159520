"""§8.5 of agent-package.md (building requests): expected values written out from the document."""

from __future__ import annotations

import copy
import json

import ada_url
import pytest
from http_support import http_arguments, http_tool

import nx_agent
from nx_agent.http import (
    HttpBaseUrl,
    HttpRequestBuilt,
    HttpRequestDescription,
    HttpRequestError,
    HttpRequestRefused,
    build_http_request,
    under_base_url,
)

BASE = "https://api.example.com"


def built(result: object) -> HttpRequestDescription:
    assert isinstance(result, HttpRequestBuilt), result
    assert result.ok is True
    return result.request


def refused(result: object, rule: str) -> HttpRequestError:
    assert isinstance(result, HttpRequestRefused), result
    assert result.ok is False
    error = result.error
    assert error.code == "invalid-request"
    assert error.rule == rule, error.message
    # case 35: every failure names the tool and starts with its prefix
    assert error.tool == "lookup_order"
    assert error.message.startswith("Tool 'lookup_order': ")
    return error


def test_exported_from_package_root() -> None:
    assert nx_agent.build_http_request is build_http_request


def test_case23_path_parameter_encoded() -> None:
    request = built(build_http_request(http_tool("get", "/orders/{orderId}"), http_arguments({"orderId": "A 1/2"})))
    assert request == {"method": "GET", "url": "https://api.example.com/orders/A%201%2F2", "headers": {}}
    assert "body" not in request


@pytest.mark.parametrize("base", ["https://api.example.com/v1/", "https://api.example.com/v1"])
def test_case24_base_path_joined_by_one_slash(base: str) -> None:
    request = built(build_http_request(http_tool("get", "/orders/{orderId}", base), http_arguments({"orderId": "7"})))
    assert request["url"] == "https://api.example.com/v1/orders/7"


def test_case25_query_in_order() -> None:
    query = [("q", "a&b=c"), ("page", "2"), ("q", "again"), ("empty", "")]
    request = built(build_http_request(http_tool("get", "/search"), http_arguments({}, query)))
    assert request["url"] == "https://api.example.com/search?q=a%26b%3Dc&page=2&q=again&empty="


def test_case26_only_unreserved_left() -> None:
    value = "AZaz09-._~!'()*:@$&+,;= é\U0001d11e"
    request = built(build_http_request(http_tool("get", "/x/{v}"), http_arguments({"v": value}, [("k y", "!'()*")])))
    assert request["url"] == (
        "https://api.example.com/x/AZaz09-._~%21%27%28%29%2A%3A%40%24%26%2B%2C%3B%3D%20%C3%A9%F0%9D%84%9E"
        "?k%20y=%21%27%28%29%2A"
    )


def test_case27_traversal_values() -> None:
    tool = http_tool("get", "/files/{name}")
    refused(build_http_request(tool, http_arguments({"name": ".."})), "dot-segment")
    refused(build_http_request(tool, http_arguments({"name": "."})), "dot-segment")
    assert built(build_http_request(tool, http_arguments({"name": "%2e%2e"})))["url"] == f"{BASE}/files/%252e%252e"
    assert built(build_http_request(tool, http_arguments({"name": "../../etc"})))["url"] == f"{BASE}/files/..%2F..%2Fetc"
    assert built(build_http_request(tool, http_arguments({"name": "..."})))["url"] == f"{BASE}/files/..."


def test_case28_dot_segment_from_literal_and_value() -> None:
    refused(build_http_request(http_tool("get", "/files/.{name}"), http_arguments({"name": "."})), "dot-segment")
    refused(build_http_request(http_tool("get", "/files/{a}{b}"), http_arguments({"a": ".", "b": "."})), "dot-segment")
    refused(build_http_request(http_tool("get", "/files/%2e{name}"), http_arguments({"name": "."})), "dot-segment")
    refused(build_http_request(http_tool("get", "/files/{name}%2E/x"), http_arguments({"name": "."})), "dot-segment")
    url = built(build_http_request(http_tool("get", "/files/.{name}"), http_arguments({"name": "env"})))["url"]
    assert url == f"{BASE}/files/.env"


def test_case28_dot_segment_message() -> None:
    error = refused(build_http_request(http_tool("get", "/files/{name}"), http_arguments({"name": ".."})), "dot-segment")
    assert error.message == "Tool 'lookup_order': the path has the segment '..' once its placeholders are filled."


def test_case29_missing_path_parameter() -> None:
    error = refused(build_http_request(http_tool("get", "/orders/{orderId}"), http_arguments()), "missing-path-parameter")
    assert "{orderId}" in error.message
    assert error.message == "Tool 'lookup_order': the arguments hold no path parameter for the placeholder '{orderId}'."


def test_case30_undeclared_path_parameter() -> None:
    error = refused(
        build_http_request(http_tool("get", "/orders"), http_arguments({"orderId": "A1"})), "undeclared-path-parameter"
    )
    assert "'orderId'" in error.message
    assert error.message == (
        "Tool 'lookup_order': the path '/orders' has no placeholder for the path parameter 'orderId'."
    )


def test_case31_duplicate_path_parameter() -> None:
    twice = http_arguments([("orderId", "A1"), ("orderId", "A2")])
    error = refused(build_http_request(http_tool("get", "/orders/{orderId}"), twice), "duplicate-path-parameter")
    assert error.message == "Tool 'lookup_order': the path parameter 'orderId' is given twice."


def test_case32_empty_path_parameter() -> None:
    error = refused(
        build_http_request(http_tool("get", "/orders/{orderId}"), http_arguments({"orderId": ""})), "empty-path-parameter"
    )
    assert error.message == "Tool 'lookup_order': the path parameter 'orderId' is empty."


def test_case33_placeholder_twice() -> None:
    request = built(build_http_request(http_tool("get", "/a/{x}/b/{x}"), http_arguments({"x": "1"})))
    assert request["url"] == f"{BASE}/a/1/b/1"


def test_case34_empty_query_name() -> None:
    error = refused(build_http_request(http_tool("get", "/search"), http_arguments({}, [("", "x")])), "empty-query-name")
    assert error.message == "Tool 'lookup_order': a query parameter has an empty name."


def test_case36_body_without_type_at_any_depth() -> None:
    body = {
        "$type": "NewOrder",
        "sku": "X",
        "quantity": 2,
        "lines": [{"$type": "Line", "note": {"$type": "Note", "text": "gift"}}, "plain", 3, None, True],
        "shipping": {"$type": "Shipping.express", "days": 1},
    }
    before = copy.deepcopy(body)
    request = built(build_http_request(http_tool("post", "/orders"), http_arguments({}, [], body)))
    assert request["method"] == "POST"
    assert request["headers"] == {"content-type": "application/json"}
    assert json.loads(request["body"]) == {
        "sku": "X",
        "quantity": 2,
        "lines": [{"note": {"text": "gift"}}, "plain", 3, None, True],
        "shipping": {"days": 1},
    }
    assert "$type" not in request["body"]
    assert body == before


def test_case37_body_example() -> None:
    body = {"$type": "NewOrder", "sku": "X", "quantity": 2}
    request = built(build_http_request(http_tool("post", "/orders"), http_arguments({}, [], body)))
    assert request["body"] == '{"sku":"X","quantity":2}'
    assert list(request["headers"].items()) == [("content-type", "application/json")]


@pytest.mark.parametrize(
    ("body", "text"),
    [("A1", '"A1"'), (7, "7"), (True, "true"), ([1, {"$type": "T", "a": 1}], '[1,{"a":1}]')],
)
def test_case38_any_json_value(body: object, text: str) -> None:
    request = built(build_http_request(http_tool("put", "/orders/1"), http_arguments({}, [], body)))
    assert request["body"] == text
    assert request["headers"] == {"content-type": "application/json"}


@pytest.mark.parametrize("method", ["post", "put", "patch"])
def test_case39_methods_with_body(method: str) -> None:
    request = built(build_http_request(http_tool(method, "/orders"), http_arguments({}, [], {"a": 1})))
    assert request["method"] == method.upper()


@pytest.mark.parametrize("method", ["get", "delete"])
def test_case39_methods_refusing_body(method: str) -> None:
    error = refused(build_http_request(http_tool(method, "/orders"), http_arguments({}, [], {"a": 1})), "body-not-allowed")
    assert method.upper() in error.message
    assert error.message == f"Tool 'lookup_order': the arguments hold a body, and a {method.upper()} request carries none."


@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_case40_no_body_no_headers(method: str) -> None:
    request = built(build_http_request(http_tool(method, "/orders"), http_arguments()))
    assert request["headers"] == {}
    assert "body" not in request


def test_case41_no_auth_or_idempotency_header() -> None:
    request = built(build_http_request(http_tool("post", "/orders"), http_arguments({}, [], {"a": 1})))
    assert list(request["headers"]) == ["content-type"]


def test_case42_rebuild_from_structured_arguments() -> None:
    tool = http_tool("post", "/orders/{orderId}/lines", "https://api.example.com/v1")
    canonical = http_arguments({"orderId": "A 1"}, [("source", "agent")], {"$type": "Line", "sku": "X"})
    first = built(build_http_request(tool, canonical))
    structured = json.loads(
        json.dumps(
            {
                "pathParams": [{"name": "orderId", "value": "A 1"}],
                "query": [{"name": "source", "value": "agent"}],
                "body": {"$type": "Line", "sku": "X"},
            }
        )
    )
    second = built(build_http_request(json.loads(json.dumps(tool)), structured))
    assert second == first
    assert first["url"] == "https://api.example.com/v1/orders/A%201/lines?source=agent"


def test_built_arguments_are_the_structured_form() -> None:
    canonical = http_arguments({"orderId": "A1"}, [("source", "agent")], {"$type": "Line", "sku": "X"})
    result = build_http_request(http_tool("post", "/orders/{orderId}"), canonical)
    assert isinstance(result, HttpRequestBuilt)
    assert result.arguments == {
        "pathParams": [{"name": "orderId", "value": "A1"}],
        "query": [{"name": "source", "value": "agent"}],
        "body": {"$type": "Line", "sku": "X"},
    }
    assert list(result.request) == ["method", "url", "headers", "body"]


# ---- §8.5 cases 43-51: the re-parse check on its own ---------------------------------------

BASE_V1 = HttpBaseUrl("https://api.example.com/v1", "https://api.example.com", "/v1")
BASE_ROOT = HttpBaseUrl("https://api.example.com", "https://api.example.com", "")


def with_prefix(prefix: str) -> HttpBaseUrl:
    return HttpBaseUrl(prefix, BASE_V1.origin, BASE_V1.path)


@pytest.mark.parametrize(
    ("path", "query"),
    [("/", ""), ("/orders/A%201%2F2", ""), ("/orders", "?q=a%26b&page=2"), ("/files/...", ""), ("/files/%252e%252e", ""), ("/a//b", "?empty=")],
)
def test_case43_accepted(path: str, query: str) -> None:
    assert under_base_url(BASE_V1, path, query) == f"https://api.example.com/v1{path}{query}"


def test_case43_root_base() -> None:
    assert under_base_url(BASE_ROOT, "/orders", "") == "https://api.example.com/orders"


@pytest.mark.parametrize(
    ("path", "query"),
    [
        ("/files/..", ""),
        ("/files/../../admin", ""),
        ("/./orders", ""),
        ("/files/%2e%2e", ""),
        ("/files/.%2E/x", ""),
        ("/a b", ""),
        ("/a\\b", ""),
        ("/caf\u00e9", ""),
        ("/x\n", ""),
        ("/x\ty", ""),
        ("/x", "?q=a b"),
        ("/x", "?q='quoted'"),
    ],
)
def test_case44_rewritten_text_refused(path: str, query: str) -> None:
    assert under_base_url(BASE_V1, path, query) is None


@pytest.mark.parametrize("path", ["/accounts/X?/orders", "/accounts/X#/orders", "/accounts/X?admin=1", "/accounts/X#"])
def test_case45_path_ended_early_refused(path: str) -> None:
    assert ada_url.URL(f"https://api.example.com/v1{path}").href == f"https://api.example.com/v1{path}"
    assert under_base_url(BASE_V1, path, "") is None


@pytest.mark.parametrize("query", ["?q=a#b", "?"])
def test_case45_query_cut_short_refused(query: str) -> None:
    assert under_base_url(BASE_V1, "/orders", query) is None


@pytest.mark.parametrize(
    "prefix",
    ["https://evil.example/v1", "http://api.example.com/v1", "https://api.example.com:8443/v1", "https://api.example.com.evil.example/v1"],
)
def test_case46_other_origins(prefix: str) -> None:
    assert under_base_url(with_prefix(prefix), "/orders", "") is None


@pytest.mark.parametrize(
    "prefix", ["https://user@api.example.com/v1", "https://user:secret@api.example.com/v1", "https://:secret@api.example.com/v1"]
)
def test_case47_user_information(prefix: str) -> None:
    assert ada_url.URL(f"{prefix}/orders").origin == BASE_V1.origin
    assert under_base_url(with_prefix(prefix), "/orders", "") is None


@pytest.mark.parametrize(
    "prefix", ["https://api.example.com/v10", "https://api.example.com/v1x", "https://api.example.com/v2", "https://api.example.com"]
)
def test_case48_sibling_paths(prefix: str) -> None:
    assert under_base_url(with_prefix(prefix), "/orders", "") is None


@pytest.mark.parametrize("path", ["0/orders", ""])
def test_case48_path_not_starting_with_slash(path: str) -> None:
    assert under_base_url(BASE_V1, path, "") is None


@pytest.mark.parametrize("prefix", ["https://API.example.com/v1", "https://api.example.com:443/v1", "HTTPS://api.example.com/v1"])
def test_case49_spelling_differences(prefix: str) -> None:
    parsed = ada_url.URL(f"{prefix}/orders")
    assert parsed.origin == BASE_V1.origin
    assert parsed.pathname == "/v1/orders"
    assert under_base_url(with_prefix(prefix), "/orders", "") is None


@pytest.mark.parametrize(
    ("prefix", "path"), [("https://api.example.com/v1/orders#", "/orders"), ("https://api.example.com/v1/#", "/")]
)
def test_case50_fragment_in_prefix(prefix: str, path: str) -> None:
    parsed = ada_url.URL(prefix + path)
    assert parsed.href == prefix + path
    assert parsed.pathname == BASE_V1.path + path
    assert parsed.hash != ""
    assert under_base_url(with_prefix(prefix), path, "") is None


@pytest.mark.parametrize("prefix", ["", "https://", "/v1", "api.example.com/v1"])
def test_case51_not_urls(prefix: str) -> None:
    assert under_base_url(with_prefix(prefix), "/orders", "") is None


# ---- §8.5 cases 52-56: values that are not what the builder expects ------------------------

_ABSENT = object()


@pytest.mark.parametrize(
    "value",
    [
        None,
        "A1",
        7,
        [],
        _ABSENT,
        {"pathParams": "orderId"},
        {"pathParams": [{"name": "orderId"}]},
        {"pathParams": [{"name": "orderId", "value": 7}]},
        {"pathParams": [["orderId", "A1"]]},
        {"pathParams": [{"name": "orderId", "value": "A1"}], "query": [None]},
    ],
)
def test_case52_arguments_of_wrong_shape(value: object) -> None:
    refused(build_http_request(http_tool("get", "/orders/{orderId}"), value), "arguments")


def test_case52_messages() -> None:
    tool = http_tool("get", "/orders/{orderId}")
    assert refused(build_http_request(tool, None), "arguments").message == (
        "Tool 'lookup_order': the arguments are not a record."
    )
    assert refused(build_http_request(tool, {"pathParams": "orderId"}), "arguments").message == (
        "Tool 'lookup_order': 'pathParams' is not a list."
    )
    assert refused(build_http_request(tool, {"pathParams": [], "query": [None]}), "arguments").message == (
        "Tool 'lookup_order': 'query[0]' is not a record with a string 'name' and a string 'value'."
    )


def test_case53_function_kind() -> None:
    tool = {**http_tool("get", "/orders"), "kind": "function"}
    refused(build_http_request(tool, http_arguments()), "not-an-http-tool")


@pytest.mark.parametrize("not_a_tool", [None, _ABSENT, "lookup_order", 7, [http_tool("get", "/orders")]])
def test_case53_not_a_tool(not_a_tool: object) -> None:
    result = build_http_request(not_a_tool, http_arguments())
    assert isinstance(result, HttpRequestRefused)
    error = result.error
    assert (error.code, error.tool, error.rule) == ("invalid-request", "", "not-an-http-tool")
    assert error.message.startswith("The tool: it is ")
    assert error.message.endswith(", not an http tool.")


def test_case53_exact_message_for_null_and_list() -> None:
    result = build_http_request(None, http_arguments())
    assert isinstance(result, HttpRequestRefused)
    assert result.error.message == "The tool: it is null, not an http tool."
    result = build_http_request([1], http_arguments())
    assert isinstance(result, HttpRequestRefused)
    assert result.error.message == "The tool: it is a list, not an http tool."


@pytest.mark.parametrize(
    ("tool", "name", "message"),
    [
        ({}, "", "The tool: its kind is undefined, not 'http'."),
        ({"name": 7, "kind": "http"}, "", "The tool: its 'config' is undefined, not a record."),
        (
            {"name": "lookup_order", "kind": "http", "config": None},
            "lookup_order",
            "Tool 'lookup_order': its 'config' is null, not a record.",
        ),
        (
            {"name": "lookup_order", "kind": "http", "config": {}},
            "lookup_order",
            "Tool 'lookup_order': its 'config.connection' is undefined, not a record.",
        ),
        (
            {**http_tool("get", "/orders"), "kind": "function"},
            "lookup_order",
            "Tool 'lookup_order': its kind is the string \"function\", not 'http'.",
        ),
    ],
)
def test_case54_exact_messages(tool: object, name: str, message: str) -> None:
    result = build_http_request(tool, http_arguments())
    assert isinstance(result, HttpRequestRefused)
    assert (result.error.tool, result.error.rule, result.error.message) == (name, "not-an-http-tool", message)
    assert result.error.to_dict() == {"code": "invalid-request", "tool": name, "rule": "not-an-http-tool", "message": message}


@pytest.mark.parametrize("method", ["GET", "head"])
def test_case55_method(method: str) -> None:
    tool = http_tool("get", "/orders")
    config = tool["config"]
    assert isinstance(config, dict)
    error = refused(build_http_request({**tool, "config": {**config, "method": method}}, http_arguments()), "method")
    assert error.message == f"Tool 'lookup_order': its method, \"{method}\", is not one of get, post, put, patch and delete."


@pytest.mark.parametrize("base", ["https://api.example.com?x=1", "ftp://api.example.com", "https://API.example.com"])
def test_case55_base_url(base: str) -> None:
    refused(build_http_request(http_tool("get", "/orders", base), http_arguments()), "base-url")


def test_case55_base_url_message() -> None:
    error = refused(build_http_request(http_tool("get", "/orders", "ftp://api.example.com"), http_arguments()), "base-url")
    assert error.message == (
        "Tool 'lookup_order': the base URL of connection 'shop' cannot be used: its scheme is 'ftp', not 'https'."
    )


@pytest.mark.parametrize(("path", "args"), [("orders", {}), ("/orders/../admin", {}), ("/orders?x={id}", {"id": "1"})])
def test_case55_path_template(path: str, args: dict[str, str]) -> None:
    refused(build_http_request(http_tool("get", path), http_arguments(args)), "path-template")


def test_case55_path_template_message() -> None:
    error = refused(build_http_request(http_tool("get", "orders"), http_arguments()), "path-template")
    assert error.message == "Tool 'lookup_order': the path 'orders' cannot be used: it does not begin with '/'."


def test_case56_stored_http_base_builds() -> None:
    tool = http_tool("get", "/orders/{id}", "http://localhost:8787/api")
    assert built(build_http_request(tool, http_arguments({"id": "1"})))["url"] == "http://localhost:8787/api/orders/1"


# ---- §8.5 case 57: no value can change where the request goes ------------------------------

ATTACKS = [
    "https://evil.example/",
    "//evil.example/x",
    "\\\\evil.example\\x",
    "@evil.example",
    "x@evil.example",
    ":8080",
    "a/../../admin",
    "a?admin=1",
    "a#frag",
    "a\r\nHost: evil.example",
    "a\u0000b",
    "%2e%2e%2fadmin",
    "..%2f..%2fadmin",
    "\ufeff",  # the document's invisible non-empty character (§9.21): both likely code points
    "\u200b",
    "a b",
    "\ud800",
]


@pytest.mark.parametrize("value", ATTACKS)
def test_case57_attack_values(value: str) -> None:
    tool = http_tool("get", "/orders/{id}", "https://api.example.com/v1")
    request = built(build_http_request(tool, http_arguments({"id": value}, [(value, value)])))
    url = ada_url.URL(request["url"])
    assert url.href == request["url"]
    assert url.origin == "https://api.example.com"
    segments = url.pathname.split("/")
    assert segments[:3] == ["", "v1", "orders"]
    assert len(segments) == 4
    assert url.hash == ""
    assert request["method"] == "GET"
    assert len(list(ada_url.URLSearchParams(url.search).items())) == 1


# ---- §6.7 body details ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "text"),
    [
        (2.0, "2"),  # JS writes an integral number without ".0"
        (None, "null"),
        ({"n": 0.5, "m": 1e21, "s": 1e-7}, '{"n":0.5,"m":1e+21,"s":1e-7}'),
        ("\ud800", '"\\ud800"'),  # JSON.stringify escapes a lone surrogate
        ({"b": 1, "2": 2, "1": 1}, '{"1":1,"2":2,"b":1}'),  # JS orders array-index keys first
        ("é\u2028", '"é\u2028"'),
    ],
)
def test_body_written_as_javascript_writes_it(body: object, text: str) -> None:
    request = built(build_http_request(http_tool("post", "/orders"), http_arguments({}, [], body)))
    assert request["body"] == text


@pytest.mark.parametrize("body", [{1: "x"}, {"a": {1, 2}}, [b"bytes"], object()])
def test_body_not_json(body: object) -> None:
    error = refused(build_http_request(http_tool("post", "/orders"), http_arguments({}, [], body)), "body-not-json")
    assert error.message == "Tool 'lookup_order': the body is not a JSON value."


def test_body_cycle_is_not_json() -> None:
    cycle: list[object] = []
    cycle.append(cycle)
    refused(build_http_request(http_tool("post", "/orders"), http_arguments({}, [], cycle)), "body-not-json")


def test_url_problems_found_before_body_problems() -> None:
    args = http_arguments({"name": ".."}, [], {"a": 1})
    refused(build_http_request(http_tool("get", "/files/{name}"), args), "dot-segment")
