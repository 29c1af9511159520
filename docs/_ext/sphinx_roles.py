"""A griffe extension for the docs site: the package's docstrings are written with Sphinx's inline
markup (``:func:`~nx_agent.ir.explain```, ````literal````, a paragraph ending ``::`` before a
literal block); mkdocstrings renders Markdown. This rewrites that markup as Markdown code spans as
each object is loaded, so the docstrings stay as they are (they read well in ``help()`` too)."""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|exc|obj|const):`(~?)([^`]+?)`")
_LITERAL = re.compile(r"``(.+?)``")
_BLOCK = re.compile(r"::$", re.M)


def _role(match: re.Match[str]) -> str:
    tilde, target = match.groups()
    target = target.strip()
    shown = target.rsplit(".", 1)[-1] if tilde else target.lstrip(".")
    return f"`{shown}`"


def markdown(text: str) -> str:
    """Sphinx inline markup as Markdown."""
    text = _ROLE.sub(_role, text)
    text = _LITERAL.sub(lambda m: f"`{m.group(1)}`", text)
    return _BLOCK.sub(":", text)


class SphinxRoles(griffe.Extension):
    """Rewrites every docstring as it is loaded (see the module)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
