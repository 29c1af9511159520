"""HTTP tools: reading connections and path templates, and building the request a tool makes.

Everything here is pure and never sends anything; :mod:`nx_agent.http.client` holds the request
functions over ``httpx`` (an optional extra). ``ada_url`` is imported on first use.
"""

from .arguments import HttpArgumentsData, HttpParam, read_http_arguments
from .base_url import HttpBaseUrl, parse_http_base_url, under_base_url
from .path import HttpPathTemplate, HttpPlaceholder, is_dot_segment, parse_http_path
from .build import (
    HTTP_REQUEST_RULES,
    HTTP_TOOL_METHODS,
    BuildHttpRequestResult,
    HttpRequestBuilt,
    HttpRequestDescription,
    HttpRequestError,
    HttpRequestRefused,
    HttpRequestRule,
    build_http_request,
)
from .encoding import body_json, encode_component
from .problem import HttpProblem

__all__ = [
    "HTTP_REQUEST_RULES",
    "HTTP_TOOL_METHODS",
    "BuildHttpRequestResult",
    "HttpArgumentsData",
    "HttpBaseUrl",
    "HttpParam",
    "HttpRequestBuilt",
    "HttpRequestDescription",
    "HttpRequestError",
    "HttpRequestRefused",
    "HttpRequestRule",
    "HttpPathTemplate",
    "HttpPlaceholder",
    "HttpProblem",
    "body_json",
    "build_http_request",
    "encode_component",
    "is_dot_segment",
    "parse_http_base_url",
    "parse_http_path",
    "read_http_arguments",
    "under_base_url",
]
