"""The exception hierarchy: every error nx_agent raises is an :class:`NxError`.

``NxError`` and ``NxIrError`` are defined by the native module, so that the Rust core raises them
directly; both carry ``code`` (the first diagnostic's code) and ``diagnostics``.
"""

from ._native import Diagnostic, NxError, NxIrError

__all__ = ["Diagnostic", "NxError", "NxIrError"]
