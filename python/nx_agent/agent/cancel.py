"""Cancelling a synchronous tool call: the counterpart of the reference's abort signal.

A call checks its token before it begins (a cancelled call does nothing and answers ``aborted``); the
token is handed on to the request function (``call["cancel"]``) and to a host executor, which may
check it while they work. ``aexecute`` uses :mod:`asyncio` cancellation instead.
"""

from __future__ import annotations

import threading

__all__ = ["CancelToken"]


class CancelToken:
    """A flag one side sets and the other reads; :meth:`cancel` may be called from any thread."""

    __slots__ = ("_event",)

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask every call that holds this token to stop."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """Whether :meth:`cancel` was called."""
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until cancelled or ``timeout`` seconds pass; answer whether it was cancelled."""
        return self._event.wait(timeout)

    @classmethod
    def cancelled_token(cls) -> CancelToken:
        """A token that is cancelled already."""
        token = cls()
        token.cancel()
        return token

    def __repr__(self) -> str:
        return f"CancelToken(cancelled={self.cancelled})"
