"""§8.3 (base URL) and §8.4 (path template) of agent-package.md: expected values from the document."""

from __future__ import annotations

import pytest

from nx_agent.http import HttpBaseUrl, HttpPathTemplate, HttpProblem, parse_http_base_url, parse_http_path


def problem_of(result: HttpBaseUrl | HttpPathTemplate | HttpProblem) -> str:
    assert isinstance(result, HttpProblem), result
    assert result.ok is False
    return result.problem


# ---- §8.3 base URL ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["https://api.example.com", "https://api.example.com/"])
def test_case12_origin_with_or_without_slash(text: str) -> None:
    result = parse_http_base_url(text)
    assert result.to_dict() == {
        "ok": True,
        "prefix": "https://api.example.com",
        "origin": "https://api.example.com",
        "path": "",
    }


def test_case13_port_and_path() -> None:
    result = parse_http_base_url("https://api.example.com:8443/v1/")
    assert result == HttpBaseUrl("https://api.example.com:8443/v1", "https://api.example.com:8443", "/v1")
    assert parse_http_base_url("https://api.example.com/v1/accounts").ok is True


@pytest.mark.parametrize("text", ["api.example.com", "/v1", ""])
def test_case14_not_absolute(text: str) -> None:
    assert problem_of(parse_http_base_url(text)) == "it is not an absolute URL"


@pytest.mark.parametrize(
    ("text", "scheme"),
    [
        ("http://api.example.com", "http"),
        ("ftp://api.example.com", "ftp"),
        ("file:///etc/passwd", "file"),
        ("javascript:alert(1)", "javascript"),
    ],
)
def test_case15_schemes(text: str, scheme: str) -> None:
    assert problem_of(parse_http_base_url(text)) == f"its scheme is '{scheme}', not 'https'"


def test_case15_allow_insecure_admits_only_http() -> None:
    assert problem_of(parse_http_base_url("ftp://api.example.com", allow_insecure=True)) == "its scheme is 'ftp', not 'https'"


def test_case16_http_only_when_allowed() -> None:
    assert problem_of(parse_http_base_url("http://localhost:8787")) == "its scheme is 'http', not 'https'"
    assert parse_http_base_url("http://localhost:8787", allow_insecure=True).to_dict() == {
        "ok": True,
        "prefix": "http://localhost:8787",
        "origin": "http://localhost:8787",
        "path": "",
    }


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("https://api.example.com/v1?key=1", "it has a query"),
        ("https://api.example.com/v1?", "it has a query"),
        ("https://api.example.com/v1#top", "it has a fragment"),
        ("https://api.example.com/v1#", "it has a fragment"),
        ("https://user:secret@api.example.com", "it has user information"),
        ("https://user@api.example.com", "it has user information"),
        ("https://@api.example.com", "it has user information"),
    ],
)
def test_case17_query_fragment_user(text: str, problem: str) -> None:
    assert problem_of(parse_http_base_url(text)) == problem


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("https://API.example.com", "https://api.example.com"),
        ("https://api.example.com:443/v1", "https://api.example.com/v1"),
        ("https://api.example.com/v1/../admin", "https://api.example.com/admin"),
        ("https://api.example.com/a b", "https://api.example.com/a%20b"),
    ],
)
def test_case18_rewrites_name_the_spelling(text: str, canonical: str) -> None:
    assert problem_of(parse_http_base_url(text)) == f"a URL parser reads it as '{canonical}'; write it that way"


def test_case18_backslashes() -> None:
    assert "reads it as" in problem_of(parse_http_base_url("https:\\\\api.example.com"))


# ---- §8.4 path template ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "placeholders"),
    [
        ("/", ()),
        ("/orders", ()),
        ("/orders/{orderId}", ("orderId",)),
        ("/accounts/{account_id}/orders/{orderId}/lines", ("account_id", "orderId")),
        ("/files/{name}.json", ("name",)),
        ("/a/{x}/b/{x}", ("x",)),
        ("/v1.2/it~em_s-x/a:b@c;d=e,f+g!$&'()*", ()),
        ("/caf%C3%A9/{id}", ("id",)),
    ],
)
def test_case19_placeholders(path: str, placeholders: tuple[str, ...]) -> None:
    result = parse_http_path(path)
    assert isinstance(result, HttpPathTemplate)
    assert result.placeholders == placeholders


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("orders", "does not begin with '/'"),
        ("", "does not begin with '/'"),
        ("https://evil.example/x", "does not begin with '/'"),
        ("/orders/{orderId", "is not closed"),
        ("/orders/{a{b}}", "is not closed"),
        ("/orders/orderId}", "closes no placeholder"),
        ("/orders/{}", "not named by an identifier"),
        ("/orders/{order-id}", "not named by an identifier"),
        ("/orders/{1st}", "not named by an identifier"),
        ("/orders/{ id }", "not named by an identifier"),
        ("/orders?state=open", '"?" at offset 7 is not a URL path character'),
        ("/orders#top", '"#" at offset 7'),
        ("/orders\\admin", "is not a URL path character"),
        ("/my orders", '" " at offset 3'),
        ("/café", "is not a URL path character"),
        ("/orders/%zz", "not followed by two hexadecimal digits"),
        ("/orders/%4", "not followed by two hexadecimal digits"),
        ("/orders/\u0000", "is not a URL path character"),
    ],
)
def test_case20_refused(path: str, fragment: str) -> None:
    assert fragment in problem_of(parse_http_path(path))


def test_case20_exact_texts() -> None:
    # §6.2 message templates, written out.
    assert problem_of(parse_http_path("/orders/{orderId")) == "the '{' at offset 8 is not closed"
    assert problem_of(parse_http_path("/orders/orderId}")) == "the '}' at offset 15 closes no placeholder"
    assert problem_of(parse_http_path("/orders/{order-id}")) == "the placeholder '{order-id}' is not named by an identifier"
    assert problem_of(parse_http_path("/orders/%zz")) == "the '%' at offset 8 is not followed by two hexadecimal digits"
    assert problem_of(parse_http_path("/orders/\u0000")) == 'the character "\\u0000" at offset 8 is not a URL path character'
    assert problem_of(parse_http_path("/orders\\admin")) == 'the character "\\\\" at offset 7 is not a URL path character'


@pytest.mark.parametrize(
    "path", ["/orders/../admin", "/orders/./x", "/..", "/.", "/orders/..", "/a/%2e%2e/b", "/a/.%2E/b", "/a/%2E/b"]
)
def test_case21_literal_dot_segments(path: str) -> None:
    assert "has the segment" in problem_of(parse_http_path(path))


def test_case21_segment_named() -> None:
    assert problem_of(parse_http_path("/orders/../admin")) == "it has the segment '..'"
    assert problem_of(parse_http_path("/a/.%2E/b")) == "it has the segment '.%2E'"


@pytest.mark.parametrize("path", ["/v1.2/x", "/.well-known/x", "/a/.../b", "/a/..b", "/files/.{name}"])
def test_case22_accepted(path: str) -> None:
    assert parse_http_path(path).ok is True
