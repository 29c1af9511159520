"""What the command line prints: text for people (coloured only when the stream is a terminal and
``NO_COLOR`` is unset), one JSON document for programs (``--json``), and errors on stderr with
their diagnostic code and where they are, never a traceback."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from ..errors import NxError

__all__ = [
    "EXIT_FAILED",
    "EXIT_INPUT",
    "EXIT_INTERRUPTED",
    "EXIT_MISSING_EXTRA",
    "EXIT_OK",
    "EXIT_USAGE",
    "CliError",
    "Output",
    "Style",
    "colour_enabled",
    "error_document",
    "to_json",
]

EXIT_OK = 0
"""The command did what it was asked."""
EXIT_FAILED = 1
"""The evaluation (``run``) or the tool call (``call``) ran and failed with a code."""
EXIT_USAGE = 2
"""The command line itself is wrong (unknown command or option, missing argument, bad limit)."""
EXIT_INPUT = 3
"""An input cannot be used: a missing or unreadable file, a damaged image, bad JSON, images that do
not link, an unknown function or tool, a definition or agent with diagnostics."""
EXIT_MISSING_EXTRA = 4
"""The command needs an optional extra that is not installed (``http`` for HTTP tools, ``mcp``)."""
EXIT_INTERRUPTED = 130
"""Interrupted by SIGINT (Ctrl-C), as a shell reports a process that a signal stopped."""


class CliError(NxError):
    """A refusal of the command line: ``code``, the ``path`` it is about (a file, an option) and
    the process ``exit_code``; ``details`` are diagnostics as dicts; ``hint`` says what to do."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        path: str | None = None,
        exit_code: int = EXIT_INPUT,
        details: Iterable[Mapping[str, Any]] = (),
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.path = path
        self.exit_code = exit_code
        self.details = [dict(detail) for detail in details]
        self.hint = hint


def colour_enabled(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when ``NO_COLOR`` is set to anything but ``""``."""
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


class Style:
    """ANSI styles, or the text unchanged when colour is off."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def green(self, text: str) -> str:
        return self._wrap("32", text)

    def yellow(self, text: str) -> str:
        return self._wrap("33", text)

    def cyan(self, text: str) -> str:
        return self._wrap("36", text)


def to_json(value: Any, *, indent: int | None = 2) -> str:
    """``value`` as JSON text (non-ASCII kept; anything JSON has no form for, as its ``str``)."""
    return json.dumps(value, ensure_ascii=False, indent=indent, default=str)


def _diagnostic_dicts(error: BaseException) -> list[dict[str, Any]]:
    if isinstance(error, CliError):
        return error.details
    found = getattr(error, "diagnostics", None) or ()
    out = []
    for diagnostic in found:
        to_dict = getattr(diagnostic, "to_dict", None)
        out.append(to_dict() if callable(to_dict) else dict(diagnostic))
    return out


def error_document(error: BaseException) -> dict[str, Any]:
    """An error as ``{"code", "message", "path"?, "diagnostics"?}``."""
    document: dict[str, Any] = {
        "code": getattr(error, "code", None) or "nx-agent-error",
        "message": str(error),
    }
    path = getattr(error, "path", None) if isinstance(error, CliError) else None
    if path:
        document["path"] = path
    diagnostics = _diagnostic_dicts(error)
    if diagnostics:
        document["diagnostics"] = diagnostics
    hint = getattr(error, "hint", None) if isinstance(error, CliError) else None
    if hint:
        document["hint"] = hint
    return document


#: Words of the JavaScript reference's messages, as a person reads them (text output only: the
#: ``--json`` document keeps each message as the package and the reference runtimes spell it).
_FOR_PEOPLE = (
    (" is undefined, which JSON cannot hold", " is missing"),
    (" is undefined", " is missing"),
    ("non-negative safe integer", "whole number from 0 to 2**53 - 1"),
)


def for_people(message: str) -> str:
    """A message with the JavaScript words of :data:`_FOR_PEOPLE` put as a person reads them."""
    for words, plain in _FOR_PEOPLE:
        message = message.replace(words, plain)
    return message


def _where(diagnostic: Mapping[str, Any]) -> str:
    parts = []
    for key in ("path", "declaration", "argument"):
        value = diagnostic.get(key)
        if isinstance(value, Mapping):
            value = value.get("module")
        if value:
            parts.append(f"{key} {value}")
    span = diagnostic.get("span")
    if isinstance(span, Mapping) and "start" in span:
        parts.append(f"span {span.get('start')}..{span.get('end')}")
    return ", ".join(parts)


class Output:
    """Where a command writes: ``json`` chooses one JSON document over text for people."""

    def __init__(self, json_mode: bool) -> None:
        self.json = json_mode
        self.style = Style(colour_enabled(sys.stdout))
        self.err_style = Style(colour_enabled(sys.stderr))

    def line(self, text: str = "") -> None:
        """A line for people (stdout)."""
        print(text)

    def document(self, value: Any) -> None:
        """The one JSON document of a ``--json`` run (stdout)."""
        print(to_json(value))

    def note(self, text: str) -> None:
        """A remark on stderr (warnings, progress), never part of the answer."""
        print(f"nx-agent: {text}", file=sys.stderr)

    def error(self, error: BaseException, *, prefix: str = "") -> None:
        """An error on stderr: ``--json`` as ``{"error": ...}``, else its message, code and diagnostics."""
        document = error_document(error)
        if self.json:
            print(to_json({"error": document}), file=sys.stderr)
            return
        self.failure_text(document, prefix=prefix)

    def failure_text(self, document: Mapping[str, Any], *, prefix: str = "") -> None:
        """An error document for people, on stderr: one line with the message and code, then each
        diagnostic once (where it is, and its own message when it adds to the first line), the
        limit reached and a hint."""
        style = self.err_style
        path = f"{document['path']}: " if document.get("path") else ""
        diagnostics = [d for d in document.get("diagnostics") or [] if isinstance(d, Mapping)]
        message = for_people(str(document["message"]))
        if len(diagnostics) > 1:
            # The message joins every diagnostic's: say how many, and list them below.
            message = f"{len(diagnostics)} problems"
        print(f"nx-agent: {style.red('error')}: {prefix}{path}{message} [{style.bold(document['code'])}]", file=sys.stderr)
        for diagnostic in diagnostics:
            where = _where(diagnostic)
            own = str(diagnostic.get("message") or "")
            code = diagnostic.get("code")
            if len(diagnostics) == 1 and own in (document["message"], ""):
                if where:
                    print(f"  at {where}", file=sys.stderr)
                continue
            where = f"at {where}: " if where else ""
            tag = f" [{code}]" if code and code != document["code"] else ""
            print(f"  - {where}{for_people(own)}{tag}", file=sys.stderr)
        limit = document.get("limit")
        if isinstance(limit, Mapping):
            print(f"  limit {limit.get('name')} = {limit.get('value')}", file=sys.stderr)
        hint = document.get("hint")
        if hint:
            print(f"  hint: {hint}", file=sys.stderr)
