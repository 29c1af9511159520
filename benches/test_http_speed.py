"""``build_http_request`` per call, beside a baseline measured in the same run.

Run: `python3 -m pip install ".[bench]" && python3 -m pytest benches/test_http_speed.py`.

The baseline builds the same URL with ``urllib.parse.quote`` and string concatenation: no checks,
no dot-segment rule, no WHATWG re-parse. The builder does all of §6.4 (reading the tool and the
arguments, the 14 rules, per-value encoding and the re-parse with ``ada_url``); the ratio is what the
figure means. ``extra_info["ratio_to_baseline"]`` holds the ratio of medians, measured with
``timeit`` in the same test (printed with ``-s``).
"""

from __future__ import annotations

import json
import sys
import timeit
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from http_support import http_arguments, http_tool  # noqa: E402

from nx_agent.http import HttpRequestBuilt, build_http_request  # noqa: E402

GET_TOOL = http_tool("get", "/orders/{orderId}", "https://api.example.com/v1")
GET_ARGUMENTS = http_arguments({"orderId": "A 1/2"}, [("q", "a&b"), ("page", "2")])
GET_URL = "https://api.example.com/v1/orders/A%201%2F2?q=a%26b&page=2"

POST_TOOL = http_tool("post", "/orders/{orderId}/lines", "https://api.example.com/v1")
POST_ARGUMENTS = http_arguments({"orderId": "A1"}, [("source", "agent")], {"$type": "Line", "sku": "X", "quantity": 2})
POST_URL = "https://api.example.com/v1/orders/A1/lines?source=agent"


def get_baseline() -> str:
    return (
        "https://api.example.com/v1/orders/"
        + quote("A 1/2", safe="")
        + "?"
        + "&".join(quote(n, safe="") + "=" + quote(v, safe="") for n, v in (("q", "a&b"), ("page", "2")))
    )


def post_baseline() -> tuple[str, str]:
    body = {"$type": "Line", "sku": "X", "quantity": 2}
    url = (
        "https://api.example.com/v1/orders/"
        + quote("A1", safe="")
        + "/lines?"
        + quote("source", safe="")
        + "="
        + quote("agent", safe="")
    )
    return url, json.dumps({k: v for k, v in body.items() if k != "$type"}, separators=(",", ":"))


def ratio(measured: Callable[[], Any], baseline: Callable[[], Any]) -> float:
    def best(function: Callable[[], Any]) -> float:
        return min(timeit.repeat(function, number=2_000, repeat=7)) / 2_000

    return best(measured) / best(baseline)


def build_get() -> Any:
    return build_http_request(GET_TOOL, GET_ARGUMENTS)


def build_post() -> Any:
    return build_http_request(POST_TOOL, POST_ARGUMENTS)


@pytest.mark.benchmark(group="build a GET request per call")
def test_build_http_request_get(benchmark: Any) -> None:
    result = benchmark(build_get)
    assert isinstance(result, HttpRequestBuilt)
    assert result.request["url"] == GET_URL
    benchmark.extra_info["ratio_to_baseline"] = round(ratio(build_get, get_baseline), 1)
    print(f"\nbuild_http_request GET / quote baseline: {benchmark.extra_info['ratio_to_baseline']}x")


@pytest.mark.benchmark(group="build a GET request per call")
def test_quote_baseline_get(benchmark: Any) -> None:
    assert benchmark(get_baseline) == GET_URL


@pytest.mark.benchmark(group="build a POST request with a body per call")
def test_build_http_request_post(benchmark: Any) -> None:
    result = benchmark(build_post)
    assert isinstance(result, HttpRequestBuilt)
    assert result.request["url"] == POST_URL
    assert result.request["body"] == '{"sku":"X","quantity":2}'
    benchmark.extra_info["ratio_to_baseline"] = round(ratio(build_post, post_baseline), 1)
    print(f"\nbuild_http_request POST / quote+json baseline: {benchmark.extra_info['ratio_to_baseline']}x")


@pytest.mark.benchmark(group="build a POST request with a body per call")
def test_quote_json_baseline_post(benchmark: Any) -> None:
    assert benchmark(post_baseline) == (POST_URL, '{"sku":"X","quantity":2}')
