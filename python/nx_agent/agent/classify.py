"""Which result code a failed evaluation gets, from the runtime's diagnostics (agent-package §5.12).

The classifier reads codes, ``argument`` and ``limit`` only, never messages:

1. any ``nx-ir-resource-limit`` → ``resource-limit``, with the first such diagnostic's ``limit``;
2. a *boundary failure* is a diagnostic whose code is ``nx-ir-arguments`` or starts with
   ``nx-ir-boundary-``; if there are no diagnostics, or any is not a boundary failure naming an
   argument → ``evaluation-failed``;
3. otherwise ``invalid-context`` if any named argument is a context parameter, else ``invalid-input``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from ..ir import Diagnostic

if TYPE_CHECKING:
    from .shapes import ClassifiedFailure

__all__ = ["ClassifiedFailure", "RuntimeFailureCode", "classify_runtime_failure", "is_boundary_code"]

RESOURCE_LIMIT = "nx-ir-resource-limit"
_BOUNDARY_PREFIX = "nx-ir-boundary-"
_ARGUMENTS = "nx-ir-arguments"

RuntimeFailureCode = Literal["resource-limit", "evaluation-failed", "invalid-context", "invalid-input"]

if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        # The TypedDict shapes are made when first read (agent/shapes.py): a cold start runs none of
        # typing's work for them.
        if name in {'ClassifiedFailure'}:
            from . import shapes

            return getattr(shapes, name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_boundary_code(code: object) -> bool:
    """Whether a diagnostic code is of the boundary family (a value that does not fit its type)."""
    return isinstance(code, str) and (code == _ARGUMENTS or code.startswith(_BOUNDARY_PREFIX))


def _field(diagnostic: Diagnostic | Mapping[str, Any], name: str) -> Any:
    if isinstance(diagnostic, Mapping):
        return diagnostic.get(name)
    return getattr(diagnostic, name, None)


def classify_runtime_failure(
    diagnostics: Iterable[Diagnostic | Mapping[str, Any]],
    context_parameter_names: Collection[str],
) -> ClassifiedFailure:
    """The result code of a runtime failure; ``diagnostics`` are runtime :class:`~nx_agent.ir.Diagnostic`
    objects or their dict form (``code``, ``argument``, ``limit``)."""
    held = list(diagnostics)
    for diagnostic in held:
        if _field(diagnostic, "code") == RESOURCE_LIMIT:
            limit = _field(diagnostic, "limit")
            if isinstance(limit, Mapping):
                return {"code": "resource-limit", "limit": dict(limit)}
            return {"code": "resource-limit"}
    arguments = []
    for diagnostic in held:
        argument = _field(diagnostic, "argument")
        if not is_boundary_code(_field(diagnostic, "code")) or not isinstance(argument, str):
            return {"code": "evaluation-failed"}
        arguments.append(argument)
    if not arguments:
        return {"code": "evaluation-failed"}
    if any(argument in context_parameter_names for argument in arguments):
        return {"code": "invalid-context"}
    return {"code": "invalid-input"}
