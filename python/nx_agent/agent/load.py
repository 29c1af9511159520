"""The run-time half of hosting an agent: :func:`load_agent` takes what was stored (definition
text and images), links the images and creates the tools; nothing of normalization or schemas is
loaded (see :mod:`nx_agent.agent.compile` for the other half)."""

import json
# collections.abc's own classes, from the module that defines them: collections.abc is one module
# more on a cold start (0.4 M instructions), and nothing else on the path loads it.
from _collections_abc import Iterable, Mapping, Sequence

from . import Record
from .._native import Limits, PreparedModule, Program, link_program, prepare_module
from .limits import (
    NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    NX_AGENT_DEFAULT_MAX_OPERATIONS,
)

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from collections.abc import Iterator
    from os import PathLike
    from typing import Any

    from ..errors import BundleError

    from .execute import AgentTool
    from .execute_host import AgentExecutor
    from .execute_http import AgentHttpRequestFunction

__all__ = ["BUNDLE_FORMAT", "BUNDLE_VERSION", "Images", "LoadedAgent", "load_agent", "load_bundle", "prepare_images", "read_bundle"]

#: The bundle format (:mod:`nx_agent.bundle` writes it): read here, where it loads, so that a bundle
#: loads with one module of the agent layer fewer.
BUNDLE_FORMAT = "nx-agent-bundle"
BUNDLE_VERSION = 1

PRELUDE = "@nx/prelude.nx"
Image = bytes | bytearray | memoryview | PreparedModule
Images = Mapping[str, Image] | Iterable[Image]
"""NX IR images: a mapping identity → image, or the images alone (each names its identity)."""

def prepare_images(images: "Images") -> "dict[str, PreparedModule]":
    """Each image prepared, by the identity it declares (a mapping's keys must agree with it)."""
    prepared: "dict[str, PreparedModule]" = {}
    pairs: "Iterable[tuple[str | None, Image]]"
    if isinstance(images, Mapping):
        pairs = images.items()
    else:
        pairs = ((None, image) for image in images)
    for key, image in pairs:
        module = image if isinstance(image, PreparedModule) else prepare_module(bytes(image))
        if key is not None and key != module.identity:
            raise ValueError(f"The image given as '{key}' is the module '{module.identity}'.")
        prepared[module.identity] = module
    return prepared


def _link(images: "Images", entry: str, allow_version_mismatch: bool = False) -> "Program":
    modules = prepare_images(images)
    if entry not in modules:
        raise ValueError(f"No image is the entry module '{entry}'; the images are {', '.join(sorted(modules)) or 'none'}.")
    return link_program(modules[entry], modules, allow_version_mismatch=allow_version_mismatch)


class LoadedAgent(Record, Sequence["AgentTool"]):
    """The tools of a stored agent, in definition order; ``agent["find_plans"]`` finds one by name."""

    __slots__ = ("definition", "program", "tools")

    definition: "dict[str, Any]"
    program: "Program"
    tools: "list[AgentTool]"

    def __init__(self, definition: "dict[str, Any]", program: "Program", tools: "list[AgentTool]") -> None:
        super().__init__(definition, program, tools)

    def __getitem__(self, key: "Any") -> "Any":
        if isinstance(key, str):
            for tool in self.tools:
                if tool.name == key:
                    return tool
            raise KeyError(key)
        return self.tools[key]

    def __len__(self) -> int:
        return len(self.tools)

    def __iter__(self) -> "Iterator[AgentTool]":
        return iter(self.tools)

    def stored(self) -> "dict[str, Any]":
        """``load_agent``'s arguments for this agent, without the host's functions: the definition
        text, the images and the options, as plain data that always pickles. Where it arrives,
        ``load_agent(**stored, request=..., executors=...)`` makes the same tools."""
        from .travel import stored_arguments

        return stored_arguments(self)

    # Pickling and copying: :mod:`nx_agent.agent.travel` (the tools are made again from the
    # definition, the program, the options and the host's functions; a copy shares them).
    def __reduce_ex__(self, protocol: "Any") -> "tuple[Any, ...]":
        from .travel import reduce_agent

        return reduce_agent(self, protocol)

    def __copy__(self) -> "LoadedAgent":
        return LoadedAgent(self.definition, self.program, list(self.tools))

    def __deepcopy__(self, memo: "dict[int, Any]") -> "LoadedAgent":
        import copy

        tools = [copy.deepcopy(tool, memo) for tool in self.tools]
        return LoadedAgent(copy.deepcopy(self.definition, memo), self.program, tools)


def load_agent(
    definition_text: "str | bytes | Mapping[str, Any]",
    images: "Images",
    *,
    entry: str = "main.nx",
    request: "AgentHttpRequestFunction | None" = None,
    executors: "Mapping[str, AgentExecutor] | None" = None,
    max_operations: int = NX_AGENT_DEFAULT_MAX_OPERATIONS,
    max_arguments_size: int = NX_AGENT_DEFAULT_MAX_ARGUMENTS_SIZE,
    max_context_size: int = NX_AGENT_DEFAULT_MAX_CONTEXT_SIZE,
    runtime: "Mapping[str, Any] | Limits | None" = None,
    validate_arguments: bool = False,
    allow_version_mismatch: bool = False,
    tool_limits: "Mapping[str, Mapping[str, int]] | None" = None,
) -> "LoadedAgent":
    """Link the stored ``images`` and create the tools of the stored definition.

    ``definition_text`` is the stored text (or the parsed definition); the options are
    :func:`~nx_agent.agent.create.create_agent_tools`'s; ``allow_version_mismatch`` is
    :func:`~nx_agent.ir.link_program`'s. Raises :class:`~nx_agent.NxIrError` when the images do
    not link and :class:`~nx_agent.agent.diagnostics.NxAgentError` when the definition cannot run
    with them. ``agent["find_plans"]`` is a tool by name; iterate for all of them.

    ``request`` makes the requests of ``http`` tools (needed when the definition has one). For
    each call it is handed one dict, the request already built and checked::

        {"request": {"method": "GET", "url": "https://api.example.com/orders/A1",
                     "headers": {...}, "body": "..."},          # body only when there is one
         "arguments": {"pathParams": [...], "query": [...], "body": ...},  # what NX evaluated
         "callId": "turn-1:0", "toolName": "lookup_order", "connection": "shop",
         "annotations": {"readOnlyHint": True, ...},
         "cancel": CancelToken}                                # from execute(..., cancel=...) only

    and answers the response as ``{"status": 200, "body": ...}`` (the whole answer becomes the
    tool's output; a non-2xx status is an answer, not a failure), or an awaitable of it for
    ``aexecute``. To choose the failure code it raises
    :class:`~nx_agent.NxAgentToolError` (``NxAgentToolError("request-failed", "...")``); any other
    exception is ``request-failed`` with its text. ``nx_agent.http.client.request_with(token_for)``
    is one over ``httpx`` (bearer tokens, no redirects, a timeout, a body cap). The request
    function and ``executors`` travel with a pickled agent when they pickle themselves; otherwise
    pickling raises ``HostFunctionNotPicklable``: send ``agent.stored()`` and load it again here.

    Each tool's ``execute(input, call_id=...)`` never raises for a tool failure; it answers::

        {"ok": True, "output": [...], "usage": {"operations": 17, "inputSize": 5}}
        {"ok": False, "error": {"code": "invalid-input", "message": "Expected teamSize to be a number.",
                                "diagnostics": [...]},   # diagnostics and limit when there are some
         "usage": {"operations": 1, "inputSize": 5}}     # usage once the call began
    """
    if isinstance(definition_text, (str, bytes)):
        import json

        definition = json.loads(definition_text)
    else:
        definition = dict(definition_text)
    program = _link(images, entry, allow_version_mismatch)
    from .create import create_agent_tools

    tools = create_agent_tools(
        definition,
        program,
        request=request,
        executors=executors,
        max_operations=max_operations,
        max_arguments_size=max_arguments_size,
        max_context_size=max_context_size,
        runtime=runtime,
        validate_arguments=validate_arguments,
        tool_limits=tool_limits,
    )
    return LoadedAgent(definition, program, tools)


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
    ``options`` are :func:`load_agent`'s (``request``, ``executors``, limits,
    ``validate_arguments``). Raises :class:`BundleError` for a file that is not a bundle, and what
    ``load_agent`` raises for images or a definition that cannot run."""
    parts = read_bundle(source)
    return load_agent(parts["definition"], parts["images"], entry=parts["entry"], **options)


def _refused(message: str) -> "BundleError":
    from ..errors import BundleError

    return BundleError(message)
