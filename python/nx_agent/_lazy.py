"""Names of a package loaded when first read (PEP 562), so that importing the package loads only
what a call path needs: ``import nx_agent`` loads the native module and the errors, and the agent
layer or the HTTP builder only when one of their names is read."""

# No ``from __future__ import annotations``: on the IR path nothing else loads __future__ (a
# tenth of a millisecond), so the annotations below are strings.
import sys

TYPE_CHECKING = False  # not typing's: see nx_agent/__init__.py
if TYPE_CHECKING:
    from typing import Any, Callable


def lazy_names(
    package: str, namespace: "dict[str, Any]", modules: "dict[str, tuple[str, ...]]"
) -> "tuple[Callable[[str], Any], Callable[[], list[str]]]":
    """``__getattr__`` and ``__dir__`` for ``package``: ``modules`` maps a module (relative to ``package``
    with one leading dot, such as ``".agent.compile"``, or absolute) to the names it gives; a name read is imported, then kept in
    ``namespace`` so that later reads find it directly."""
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> "Any":
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # __import__, not importlib.import_module: the importlib package loads warnings, half a
        # millisecond of a cold start where nothing loaded them yet.
        absolute = package + module if module.startswith(".") else module
        __import__(absolute)
        value = getattr(sys.modules[absolute], name)
        namespace[name] = value
        return value

    def __dir__() -> "list[str]":
        return sorted({*namespace, *where})

    return __getattr__, __dir__
