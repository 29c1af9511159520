"""Reading what the command line is given: files, JSON (inline or ``@FILE``), images and programs.

Every refusal is a :class:`~.output.CliError` naming the file or option it is about."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import ir
from ..errors import NxIrError
from .output import CliError


def _file_error(path: str, error: OSError) -> CliError:
    reason = error.strerror or str(error)
    return CliError(f"cannot read the file: {reason}", code="nx-agent-cli-file", path=path)


def read_bytes(path: str) -> bytes:
    """The bytes of ``path``."""
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise _file_error(path, error) from None


def read_text(path: str) -> str:
    """The UTF-8 text of ``path``."""
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CliError(f"not UTF-8 text: {error.reason} at byte {error.start}", code="nx-agent-cli-file", path=path) from None


def write_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to ``path``."""
    try:
        Path(path).write_bytes(data)
    except OSError as error:
        raise CliError(f"cannot write the file: {error.strerror or error}", code="nx-agent-cli-file", path=path) from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(text: str, where: str) -> Any:
    """``text`` parsed as strict JSON (no ``NaN``/``Infinity``); ``where`` names it in the error."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except ValueError as error:
        raise CliError(f"not JSON: {error}", code="nx-agent-cli-json", path=where) from None


def json_option(value: str, option: str) -> Any:
    """An option's JSON: the text itself, or ``@FILE`` for the contents of a file."""
    if value.startswith("@"):
        return parse_json(read_text(value[1:]), value[1:])
    return parse_json(value, option)


def read_json_file(path: str) -> Any:
    """The JSON document in ``path``."""
    return parse_json(read_text(path), path)


def read_image(path: str) -> ir.PreparedModule:
    """The image in ``path``, validated; a damaged one is refused with the runtime's code."""
    data = read_bytes(path)
    try:
        return ir.prepare_module(data)
    except NxIrError as error:
        details = [d.to_dict() for d in error.diagnostics]
        raise CliError(str(error), code=error.code, path=path, details=details) from None


def read_images(paths: Sequence[str]) -> dict[str, ir.PreparedModule]:
    """Each image by the identity it declares; two files of one identity are refused."""
    modules: dict[str, ir.PreparedModule] = {}
    seen: dict[str, str] = {}
    for path in paths:
        module = read_image(path)
        if module.identity in seen:
            raise CliError(
                f"this image is the module '{module.identity}', as {seen[module.identity]} is",
                code="nx-agent-cli-duplicate-module",
                path=path,
            )
        seen[module.identity] = path
        modules[module.identity] = module
    return modules


def link_files(entry_path: str, others: Sequence[str], *, allow_version_mismatch: bool = False) -> ir.Program:
    """The program of the entry image linked against the other images (the prelude is built in)."""
    entry = read_image(entry_path)
    modules = read_images(others)
    modules.setdefault(entry.identity, entry)
    return ir.link_program(entry, modules, allow_version_mismatch=allow_version_mismatch)
