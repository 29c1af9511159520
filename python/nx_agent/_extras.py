"""Optional extras: a module that needs one says which to install when its dependency is missing.

``from nx_agent.openai_agents import ...`` without the ``openai-agents`` extra raises
:class:`MissingExtraError` (a ``ModuleNotFoundError``, so ``except ImportError`` still catches it)
whose message names the extra and the command that installs it.
"""

from __future__ import annotations

__all__ = ["MissingExtraError", "missing_extra"]


class MissingExtraError(ModuleNotFoundError):
    """An optional dependency is not installed; ``extra`` names the extra that brings it."""

    def __init__(self, feature: str, extra: str, error: ModuleNotFoundError) -> None:
        super().__init__(
            f"{feature} needs the '{extra}' extra: pip install 'nx-agent[{extra}]' (No module named {error.name!r})",
            name=error.name,
        )
        self.extra = extra


def missing_extra(feature: str, extra: str, error: ModuleNotFoundError, modules: tuple[str, ...]) -> ModuleNotFoundError:
    """``error`` as a :class:`MissingExtraError` when the missing module is one of ``modules`` (the
    extra's own dependencies, by top-level name); any other missing module as it is."""
    top = (error.name or "").split(".")[0]
    return MissingExtraError(feature, extra, error) if top in modules else error
