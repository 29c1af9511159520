"""Reading what the command line is given: files, JSON (inline or ``@FILE``), images and programs.

Every refusal is a :class:`~.output.CliError` naming the file or option it is about."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import ir
from ..errors import NxIrError
from .output import EXIT_USAGE, CliError


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


#: The prelude's identity: built in, never passed as a file.
PRELUDE = "@nx/prelude.nx"


class ImageFiles(dict[str, ir.PreparedModule]):
    """Images read from files, by the identity each declares; ``paths`` gives each one's file."""

    def __init__(self) -> None:
        super().__init__()
        self.paths: dict[str, str] = {}

    def where(self, identity: str) -> str:
        """``FILE (module IDENTITY)``, or the identity alone for a module no file holds."""
        path = self.paths.get(identity)
        return f"{path} (module {identity})" if path else identity


def read_images(paths: Sequence[str]) -> ImageFiles:
    """Each image by the identity it declares; two files of one identity are refused."""
    modules = ImageFiles()
    for path in paths:
        module = read_image(path)
        if module.identity in modules.paths:
            raise CliError(
                f"this image is the module '{module.identity}', as {modules.paths[module.identity]} is",
                code="nx-agent-cli-duplicate-module",
                path=path,
            )
        modules.paths[module.identity] = path
        modules[module.identity] = module
    return modules


def _link_hint(error: NxIrError, modules: ImageFiles, entry: str) -> str:
    """What to do about a refused link, naming the files: a missing module's image to pass, or a
    version to assemble with."""
    hints = []
    for identity, module in modules.items():
        for link in module.links:
            target = modules.get(link.identity)
            if error.code == "nx-ir-link-missing-module" and target is None and link.identity != PRELUDE:
                hints.append(
                    f"{modules.where(identity)} links {link.identity}, which none of the images given holds: "
                    f"pass its image file too"
                )
            elif error.code == "nx-ir-link-version" and target is not None and target.version != link.version:
                hints.append(
                    f"{modules.where(identity)} was built against {link.identity} version \"{link.version}\", "
                    f"and {modules.where(link.identity)} is version \"{target.version}\": give the image of that "
                    f"version (from explain text: nx-agent assemble TEXT --version {link.version} -o IMAGE), "
                    "or pass --allow-version-mismatch"
                )
    if error.code == "nx-ir-link-missing-module" and not hints and entry not in modules:
        hints.append(f"no image given is the entry module {entry}")
    return "; ".join(hints)


def link_checked(
    modules: ImageFiles, entry: str, *, allow_version_mismatch: bool = False, option: str = "--entry"
) -> ir.Program:
    """The program of ``entry`` linked against ``modules``; a refusal names the files involved and
    what to pass (:class:`~.output.CliError`, exit 3)."""
    if entry not in modules:
        known = ", ".join(modules.where(identity) for identity in modules) or "none"
        raise CliError(f"no image given is the entry module '{entry}' (the images: {known})",
                       code="nx-agent-cli-entry", path=option)
    try:
        return ir.link_program(modules[entry], modules, allow_version_mismatch=allow_version_mismatch)
    except NxIrError as error:
        hint = _link_hint(error, modules, entry)
        raise CliError(
            str(error),
            code=error.code,
            path=modules.paths.get(entry),
            details=[d.to_dict() for d in error.diagnostics],
            hint=hint or None,
        ) from None


def link_files(entry_path: str, others: Sequence[str], *, allow_version_mismatch: bool = False) -> ir.Program:
    """The program of the entry image linked against the other images (the prelude is built in)."""
    modules = read_images(list(dict.fromkeys([entry_path, *others])))
    entry = next(iter(modules))
    return link_checked(modules, entry, allow_version_mismatch=allow_version_mismatch, option=entry_path)


#: The largest limit the command line takes: ``2**53 - 1``, the agent layer's bound (a JSON number
#: still exact everywhere), for every command alike.
MAX_LIMIT = 2**53 - 1


def limit_option(text: str | None, option: str, default: int | None = None) -> int | None:
    """A limit option's value: a whole number from 0 to :data:`MAX_LIMIT`; ``default`` when not
    given. Anything else is a usage error naming ``option`` alone."""
    if text is None:
        return default
    plain = text.replace("_", "")
    if not plain.isdigit() or not plain.isascii() or int(plain) > MAX_LIMIT:
        raise CliError(
            f"must be a whole number from 0 to {MAX_LIMIT} (2**53 - 1), got {text!r}",
            code="nx-agent-cli-usage", path=option, exit_code=EXIT_USAGE,
        )
    return int(plain)
