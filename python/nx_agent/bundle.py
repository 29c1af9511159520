"""A bundle: one file holding what the run-time half of an agent needs, loaded in one call.

A bundle is a JSON document (UTF-8)::

    {"format": "nx-agent-bundle", "version": 1, "entry": "main.nx",
     "definition": {...the stored definition...},
     "images": {"main.nx": "<the image's bytes in hex>", ...},
     "descriptions": {...}}                       # optional: the descriptions document

``nx-agent compile ... --bundle -o agent.bundle.json`` writes one (:func:`bundle_bytes` in
Python); :func:`load_bundle` reads it, prepares and links the images and creates the tools, as
:func:`~nx_agent.agent.load.load_agent` does with the definition and images stored apart. Nothing
in it is trusted: the images are validated whole, the definition is checked against the program.
A file that is not a bundle is refused with :class:`BundleError` (``nx-agent-bundle``).

Loading a bundle loads neither the schema package nor normalization nor the HTTP builder (that
one loads with the first call of an ``http`` tool): it is the serverless cold-start path.
"""

import json

from ._lazy import lazy_names

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from os import PathLike
    from typing import Any

    from .agent.compile import CompiledAgent
    from .errors import BundleError
    from .agent.load import LoadedAgent

__all__ = ["BUNDLE_FORMAT", "BundleError", "bundle_bytes", "load_bundle", "read_bundle"]

BUNDLE_FORMAT = "nx-agent-bundle"
BUNDLE_VERSION = 1

# BundleError is made by nx_agent.errors, loaded with the first refusal (nx_agent._lazy).
__getattr__, __dir__ = lazy_names(__name__, globals(), {"nx_agent.errors": ("BundleError",)})



def bundle_bytes(compiled: "CompiledAgent", *, descriptions: "Any" = None, entry: "str | None" = None) -> bytes:
    """The bundle of a compiled agent: its definition, its images and, when given, the
    descriptions document (so that a host can derive schemas again where the bundle goes)."""
    document: "dict[str, Any]" = {
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "entry": entry or compiled.program.entry.identity,
        "definition": compiled.definition,
        # Hex, not base64: bytes.fromhex needs no module loaded (binascii is a shared library to open).
        "images": {identity: image.hex() for identity, image in compiled.images.items()},
    }
    if descriptions is not None:
        document["descriptions"] = descriptions
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def read_bundle(source: "bytes | str | PathLike[str]") -> "dict[str, Any]":
    """A bundle's parts: ``{"entry", "definition", "images": {identity: bytes}, "descriptions"?}``.
    ``source`` is the bundle's bytes or a path to it."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        with open(source, "rb") as handle:
            data = handle.read()
    try:
        document = json.loads(data)
    except (ValueError, UnicodeDecodeError) as error:
        raise _refused(f"The bundle is not JSON: {error}.") from None
    if not isinstance(document, dict) or document.get("format") != BUNDLE_FORMAT:
        raise _refused(f"The document is not an {BUNDLE_FORMAT} (its 'format' is not '{BUNDLE_FORMAT}').")
    if document.get("version") != BUNDLE_VERSION:
        raise _refused(f"The bundle's version is {document.get('version')!r}; this nx-agent reads version {BUNDLE_VERSION}.")
    entry, definition, images = document.get("entry"), document.get("definition"), document.get("images")
    if not isinstance(entry, str) or not isinstance(definition, dict) or not isinstance(images, dict):
        raise _refused("A bundle holds 'entry' (a string), 'definition' (an object) and 'images' (an object).")
    decoded: "dict[str, bytes]" = {}
    for identity, text in images.items():
        try:
            image = bytes.fromhex(text) if isinstance(text, str) else None
        except ValueError:
            image = None
        if image is None:
            raise _refused(f"The image '{identity}' of the bundle is not hex text.")
        decoded[identity] = image
    parts: "dict[str, Any]" = {"entry": entry, "definition": definition, "images": decoded}
    if "descriptions" in document:
        parts["descriptions"] = document["descriptions"]
    return parts


def load_bundle(source: "bytes | str | PathLike[str]", **options: "Any") -> "LoadedAgent":
    """The tools of the agent a bundle holds, in one call: ``load_bundle(path, request=...)``.
    ``options`` are :func:`~nx_agent.agent.load.load_agent`'s (``request``, ``executors``, limits,
    ``validate_arguments``). Raises :class:`BundleError` for a file that is not a bundle, and what
    ``load_agent`` raises for images or a definition that cannot run."""
    from .agent.load import load_agent

    parts = read_bundle(source)
    return load_agent(parts["definition"], parts["images"], entry=parts["entry"], **options)


def _refused(message: str) -> "BundleError":
    from .errors import BundleError

    return BundleError(message)
