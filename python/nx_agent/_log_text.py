"""Log lines that a client cannot forge or flood.

A string a client chose (a JSON-RPC id, a call id, a tool name, a path) reaches the logs, and a
newline in it would start a line of the client's own. :func:`quoted` is how the package's own
log calls put such a string in a line: bounded in length, in double quotes, with every character
that could break or disguise a line escaped. :class:`EscapingFormatter` is the formatter
``nx-agent serve`` logs through: it escapes the same characters in every record's message, and
indents the lines of a traceback, so that a line at the start of the log is always a record.
"""

from __future__ import annotations

import logging
import re
from typing import Final

__all__ = ["CONTINUATION", "MAX_LOGGED_CHARS", "MAX_MESSAGE_CHARS", "EscapingFormatter", "bounded", "escaped", "quoted"]

MAX_LOGGED_CHARS: Final = 200
"""The most characters of one client-supplied value that :func:`quoted` keeps."""
MAX_MESSAGE_CHARS: Final = 8_000
"""The most characters of one log message that :class:`EscapingFormatter` keeps."""
CONTINUATION: Final = "  | "
"""What starts each further line of a record (a traceback's)."""

# C0 and C1 controls, DEL, the line and paragraph separators, and the bidirectional overrides and
# isolates (which can make a line read other than it is).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_QUOTED = re.compile('[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"\\\\]')
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def bounded(text: str, limit: int) -> str:
    """``text``, or its beginning and end with how much was left out between them when it is longer
    than ``limit`` characters."""
    if len(text) <= limit:
        return text
    keep = max(limit // 2, 1)
    left_out = len(text) - 2 * keep
    return f"{text[:keep]}…({left_out} characters left out)…{text[-keep:]}"


def escaped(text: str) -> str:
    """``text`` with every character that could break or disguise a line escaped (``\\n``, ``\\x1b``,
    ``\\u2028``, …)."""
    return _UNSAFE.sub(_escape_one, text)


def quoted(value: object, limit: int = MAX_LOGGED_CHARS) -> str:
    """A client-supplied value as a log line shows it: its text bounded to ``limit`` characters, in
    double quotes, with quotes, backslashes and line-breaking characters escaped."""
    return '"' + _UNSAFE_QUOTED.sub(_escape_one, bounded(str(value), limit)) + '"'


class EscapingFormatter(logging.Formatter):
    """A formatter whose every record is one line (its message escaped, and bounded to
    :data:`MAX_MESSAGE_CHARS`), followed by its traceback, if any, each line of it escaped and
    begun with :data:`CONTINUATION`."""

    def format(self, record: logging.LogRecord) -> str:
        safe = logging.makeLogRecord(record.__dict__)
        safe.msg = escaped(bounded(record.getMessage(), MAX_MESSAGE_CHARS))
        safe.args = None
        exc_info, stack_info = record.exc_info, record.stack_info
        safe.exc_info = None
        safe.exc_text = None
        safe.stack_info = None
        lines = [super().format(safe)]
        blocks = []
        if exc_info:
            blocks.append(record.exc_text or self.formatException(exc_info))
        if stack_info:
            blocks.append(self.formatStack(stack_info))
        for block in blocks:
            lines.extend(CONTINUATION + escaped(line) for line in block.splitlines())
        return "\n".join(lines)
