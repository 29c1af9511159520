"""HTTP tools: reading connections and path templates, and building the request a tool makes.

Everything here is pure and never sends anything; :mod:`nx_agent.http.client` holds the request
functions over ``httpx`` (the optional ``http`` extra), imported only from there. ``ada_url`` is
imported on first use.

Modules: ``base_url`` (§6.1, §6.6 re-parse), ``path`` (§6.2), ``arguments`` (§6.3), ``encoding``
(§6.5, §6.7), ``build`` (§6.4, §6.8), ``call`` (§6.10 call and answer types), ``client`` (§6.11),
``connections`` (a connection's default token variable, and its requests routed to another base URL).
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
from .call import CancelSignal, HttpRequestCall, HttpRequestCallLike, HttpResponse
from .encoding import body_json, encode_component
from .problem import HttpProblem

__all__ = [
    "HTTP_REQUEST_RULES",
    "HTTP_TOOL_METHODS",
    "BuildHttpRequestResult",
    "CancelSignal",
    "HttpArgumentsData",
    "HttpBaseUrl",
    "HttpParam",
    "HttpRequestBuilt",
    "HttpRequestCall",
    "HttpRequestCallLike",
    "HttpRequestDescription",
    "HttpRequestError",
    "HttpRequestRefused",
    "HttpRequestRule",
    "HttpResponse",
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
