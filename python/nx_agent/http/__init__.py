"""HTTP tools: reading connections and path templates, and building the request a tool makes.

Everything here is pure and never sends anything; :mod:`nx_agent.http.client` holds the request
functions over ``httpx`` (an optional extra). ``ada_url`` is imported on first use.
"""

from .base_url import HttpBaseUrl, parse_http_base_url, under_base_url
from .path import HttpPathTemplate, HttpPlaceholder, is_dot_segment, parse_http_path
from .problem import HttpProblem

__all__ = [
    "HttpBaseUrl",
    "HttpPathTemplate",
    "HttpPlaceholder",
    "HttpProblem",
    "is_dot_segment",
    "parse_http_base_url",
    "parse_http_path",
    "under_base_url",
]
