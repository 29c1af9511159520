"""Property tests (hypothesis): no value, however hostile, moves a built request off its connection.

For generated path values and query names and values (URL-significant tokens, percent escapes,
slashes, backslashes, lone surrogates, control characters, Unicode look-alikes of dots and slashes,
and arbitrary code points), over several templates, base URLs and all five methods:

* a build either succeeds or is refused with a rule of §6.4; for non-empty values and names the only
  refusal is ``dot-segment``, exactly when a filled segment reads as ``.`` or ``..``, and the re-parse
  backstop (``outside-base-url``) is never reached;
* a built URL, re-parsed on its own with ``ada_url``, is its own ``href``, has the base's origin, no
  user information and no fragment, lies under the base path with every literal segment in place,
  gives back each value (lone surrogates as U+FFFD) and each query pair in order, and the method is
  the tool's.

The default profile generates 10,000 + 2,000 + 1,000 + 1,000 cases (derandomized); ``--slow`` ten times as many.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

import ada_url
from http_support import NO_BODY, http_arguments, http_tool
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import property_cases

from nx_agent.http import HTTP_REQUEST_RULES, HttpRequestBuilt, HttpRequestRefused, build_http_request

# Everything that means something to a URL parser, and look-alikes of it.
TOKENS = [
    "/", "//", "..", ".", "../", "/..", "./", "...", "%2e%2e", "%2E", "%2e", "%2f", "%2F", "%5c", "%00", "%", "%zz",
    "%252e", "%c0%ae", "%u002e", "?", "#", "@", "\\", "\\\\", ":", ";", "&", "=", "+", " ", "\t", "\r\n", "\n",
    "\u0000", "\u001f", "\u007f", "\u0085", "é", "日本", "\U0001d11e", "\ufeff", "\u200b", "\u202e",
    "\ud83d", "\udc00", "\ud800\udc00",
    # look-alikes: full-width dot and slash, ideographic and half-width stops, one-dot leader,
    # fraction and division slashes, full-width reverse solidus, full-width percent and colon
    "\uff0e", "\uff0f", "\u3002", "\uff61", "\u2024", "\u2044", "\u2215", "\uff3c", "\uff05", "\uff1a", "\uff20", "\uff03",
    "\uff1f", "\u0338", "\u2025", "\u2026",
    "https://evil.example", "//evil.example", "evil.example", "user:pw@", ":8080", "{", "}", "{id}", "'", '"',
    "<", ">", "`", "^", "|", "!", "(", ")", "*", "~", "-", "_", "a", "Z", "0", "orders", "admin", "v1",
]

# A value is drawn as two strings, which Hypothesis generates cheaply: one over an alphabet of
# private-use characters each standing for a token, and one of up to two arbitrary code points (lone
# surrogates included) spliced into it at a drawn position.
_TOKEN_BASE = 0xF0000
_TOKEN_ALPHABET = "".join(chr(_TOKEN_BASE + index) for index in range(len(TOKENS)))


def _tokens(text: str) -> str:
    return "".join(TOKENS[ord(character) - _TOKEN_BASE] for character in text)


def _splice(drawn: tuple[str, str, int]) -> str:
    tokens, characters, position = drawn
    cut = position % (len(tokens) + 1)
    return _tokens(tokens[:cut]) + characters + _tokens(tokens[cut:])


value = st.tuples(
    st.text(alphabet=_TOKEN_ALPHABET, min_size=1, max_size=5),
    st.text(alphabet=st.characters(exclude_categories=()), max_size=2),
    st.integers(0, 5),
).map(_splice)


@dataclass(frozen=True)
class Shape:
    base_url: str
    path: str
    # segments after the base path: a literal, or (prefix, placeholder names, suffix)
    segments: tuple[str | tuple[str, tuple[str, ...], str], ...]


SHAPES = [
    Shape("https://api.example.com", "/orders/{a}", ("orders", ("", ("a",), ""))),
    Shape(
        "https://api.example.com/v1",
        "/accounts/{a}/orders/{b}/lines",
        ("accounts", ("", ("a",), ""), "orders", ("", ("b",), ""), "lines"),
    ),
    Shape("https://api.example.com:8443/api/v2", "/files/{a}.json", ("files", ("", ("a",), ".json"))),
    Shape("https://api.example.com/v1", "/x/{a}{b}/end", ("x", ("", ("a", "b"), ""), "end")),
    Shape("https://api.example.com", "/x/.{a}", ("x", (".", ("a",), ""))),
    Shape("https://api.example.com/v1", "/x/%2e{a}/y", ("x", ("%2e", ("a",), ""), "y")),
    Shape("http://localhost:8787/api", "/{a}", (("", ("a",), ""),)),
    Shape("https://api.example.com/v1/", "/a/{a}/b/{a}", ("a", ("", ("a",), ""), "b", ("", ("a",), ""))),
]

METHODS = ["get", "post", "put", "patch", "delete"]
URL_CHARACTERS = re.compile(r"^[A-Za-z0-9\-._~:/?&=%]+$")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
_LONE = re.compile("[\ud800-\udfff]")


def well_formed(text: str) -> str:
    """What a UTF-16 string is once encoded: surrogate pairs joined, lone surrogates U+FFFD."""
    joined = _PAIR.sub(lambda m: chr(0x10000 + ((ord(m[0][0]) - 0xD800) << 10) + (ord(m[0][1]) - 0xDC00)), text)
    return _LONE.sub("\ufffd", joined)


def filled_text(segment: tuple[str, tuple[str, ...], str], values: dict[str, str]) -> str:
    prefix, names, suffix = segment
    return unquote(prefix) + "".join(well_formed(values[name]) for name in names) + unquote(suffix)


def check(shape: Shape, method: str, values: dict[str, str], query: list[tuple[str, str]], body: object) -> str:
    """Build one request and check every property; answers ``built`` or the refusal's rule."""
    names = sorted({name for seg in shape.segments if isinstance(seg, tuple) for name in seg[1]})
    args = http_arguments([(name, values[name]) for name in names], query, body)
    result = build_http_request(http_tool(method, shape.path, shape.base_url), args)
    context = repr((shape.path, values, query))
    dot_expected = any(
        isinstance(seg, tuple) and filled_text(seg, values) in (".", "..") for seg in shape.segments
    )
    if isinstance(result, HttpRequestRefused):
        rule = result.error.rule
        assert rule in HTTP_REQUEST_RULES, context
        assert result.error.code == "invalid-request"
        if rule == "dot-segment":
            assert dot_expected, context
        else:
            # values and names are never empty here, and the body is only given where allowed
            raise AssertionError(f"{context}: refused by {rule}: {result.error.message}")
        return rule
    assert isinstance(result, HttpRequestBuilt)
    assert not dot_expected, context
    request = result.request
    url = request["url"]
    assert request["method"] == method.upper(), context
    assert ("body" in request) == (method in ("post", "put", "patch")), context

    parsed = ada_url.URL(url)
    base = ada_url.URL(shape.base_url)
    assert parsed.href == url, context
    assert parsed.origin == base.origin, context
    assert parsed.username == parsed.password == parsed.hash == "", context
    assert URL_CHARACTERS.match(url), context

    base_path = base.pathname.rstrip("/")
    assert parsed.pathname.startswith(base_path + "/"), context
    segments = parsed.pathname[len(base_path) + 1 :].split("/")
    assert len(segments) == len(shape.segments), context
    for segment, expected in zip(segments, shape.segments):
        if isinstance(expected, str):
            assert segment == expected, context
        else:
            prefix, _, suffix = expected
            assert segment.startswith(prefix) and segment.endswith(suffix), context
            filled = segment[len(prefix) : len(segment) - len(suffix)]
            expected_text = "".join(well_formed(values[name]) for name in expected[1])
            assert unquote(filled, errors="strict") == expected_text, context

    pairs = [] if parsed.search == "" else [pair.split("=") for pair in parsed.search[1:].split("&")]
    assert all(len(pair) == 2 for pair in pairs), context
    decoded = [(unquote(n, errors="strict"), unquote(v, errors="strict")) for n, v in pairs]
    assert decoded == [(well_formed(n), well_formed(v)) for n, v in query], context
    return "built"


json_body = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    max_leaves=6,
)


@settings(max_examples=property_cases(10_000))
@given(
    shape=st.sampled_from(SHAPES),
    a=value,
    b=value,
    query=st.lists(st.tuples(value, value), max_size=3),
)
def test_get_request_stays_under_base_url(shape: Shape, a: str, b: str, query: list[tuple[str, str]]) -> None:
    check(shape, "get", {"a": a, "b": b}, query, NO_BODY)


@settings(max_examples=property_cases(2_000))
@given(
    shape=st.sampled_from(SHAPES),
    method=st.sampled_from(METHODS),
    a=value,
    b=value,
    query=st.lists(st.tuples(value, value), max_size=2),
    body=json_body,
)
def test_any_method_keeps_method_and_origin(
    shape: Shape, method: str, a: str, b: str, query: list[tuple[str, str]], body: object
) -> None:
    check(shape, method, {"a": a, "b": b}, query, body if method in ("post", "put", "patch") else NO_BODY)


@settings(max_examples=property_cases(1_000))
@given(
    shape=st.sampled_from(SHAPES),
    pieces=st.lists(st.sampled_from([".", "..", "%2e", "%2E", "\uff0e", "a"]), min_size=1, max_size=3),
)
def test_dot_values_refused_exactly_when_a_segment_is_a_dot_segment(shape: Shape, pieces: list[str]) -> None:
    value_text = "".join(pieces)
    check(shape, "get", {"a": value_text, "b": value_text}, [], NO_BODY)


member = st.one_of(st.none(), st.text(max_size=3), st.integers(), st.just("http"), st.just({}), st.just({"connection": {}}))
param = st.dictionaries(st.sampled_from(["name", "value"]), st.one_of(st.text(max_size=3), st.integers()))
malformed_arguments = st.one_of(
    st.none(),
    st.text(max_size=3),
    st.dictionaries(
        st.sampled_from(["pathParams", "query", "body"]), st.one_of(st.none(), st.lists(param, max_size=2))
    ),
)


@settings(max_examples=property_cases(1_000))
@given(tool=st.dictionaries(st.sampled_from(["name", "kind", "config"]), member), args=malformed_arguments)
def test_malformed_input_refused_with_a_rule(tool: dict[str, object], args: object) -> None:
    result = build_http_request(tool, args)
    assert isinstance(result, HttpRequestRefused)
    assert result.error.rule in HTTP_REQUEST_RULES
    assert result.error.message.startswith(("The tool: ", f"Tool '{tool.get('name')}': "))
