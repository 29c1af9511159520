"""nx-agent: host the tools of NX agents in Python.

The Rust core (``nx_agent._native``) reads, validates and links NX IR images; ``nx_agent.ir`` is
its public face. Every error the package raises derives from :class:`NxError`.
"""

from ._native import __version__
from .errors import NxError, NxIrError
from .http import build_http_request

__all__ = ["NxError", "NxIrError", "__version__", "build_http_request"]
