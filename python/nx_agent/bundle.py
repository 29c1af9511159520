"""A bundle: one file holding what the run-time half of an agent needs, loaded in one call.

A bundle is a JSON document (UTF-8)::

    {"format": "nx-agent-bundle", "version": 1, "entry": "main.nx",
     "definition": {...the stored definition...},
     "images": {"main.nx": "<the image's bytes in hex>", ...},
     "descriptions": {...}}                       # optional: the descriptions document

``nx-agent compile ... --bundle -o agent.bundle.json`` writes one (:func:`bundle_bytes` in
Python); :func:`load_bundle` reads it, prepares and links the images and creates the tools, as
:func:`~nx_agent.agent.load.load_agent` does with the definition and images stored apart. The
reading half is written in :mod:`nx_agent.agent.load` (one module fewer on a cold start, where
``nx_agent.load_bundle`` is found) and given here too. Nothing
in it is trusted: the images are validated whole, the definition is checked against the program.
A file that is not a bundle is refused with :class:`BundleError` (``nx-agent-bundle``).

Loading a bundle loads neither the schema package nor normalization nor the HTTP builder (that
one loads with the first call of an ``http`` tool): it is the serverless cold-start path.
"""

import json

from . import _lazy_names as lazy_names
from .agent.load import BUNDLE_FORMAT, BUNDLE_VERSION, load_bundle, read_bundle

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from typing import Any

    from .agent.compile import CompiledAgent
    from .errors import BundleError

__all__ = ["BUNDLE_FORMAT", "BundleError", "bundle_bytes", "load_bundle", "read_bundle"]

# BundleError is made by nx_agent.errors, loaded with the first refusal (nx_agent._lazy_names).
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
