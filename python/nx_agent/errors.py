"""The exception hierarchy: every error nx_agent raises is an :class:`NxError`.

``NxError`` and ``NxIrError`` are defined by the native module, so that the Rust core raises them
directly; both carry ``code`` (the first diagnostic's code) and ``diagnostics``. The Python layer's
own refusals of a host's options and files are here too, and each is also re-exported by the module
that raises it (:mod:`nx_agent.bundle`, :mod:`nx_agent.agent.limits`, :mod:`nx_agent.agent.create`).
This module loads with the first of them raised: a cold start that raises none never makes them
(an exception class over ``NxError`` and a builtin costs a tenth of a millisecond to create).
"""

from ._native import Diagnostic, NxError, NxIrError

__all__ = ["AgentExecutorError", "AgentOptionError", "BundleError", "Diagnostic", "NxError", "NxIrError"]


class BundleError(NxError, ValueError):
    """Bytes that are not a bundle this version reads (``code`` ``nx-agent-bundle``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.code = "nx-agent-bundle"


class AgentOptionError(NxError, ValueError):
    """An option of ``create_agent_tools`` or ``evaluate_http_arguments`` that cannot be used
    (the reference's ``RangeError``; also a ``ValueError``; ``code`` ``nx-agent-option``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.code = "nx-agent-option"


class AgentExecutorError(NxError, TypeError):
    """An executor registered for one of the package's own kinds (the reference's ``TypeError``;
    ``code`` ``nx-agent-executor``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.code = "nx-agent-executor"
