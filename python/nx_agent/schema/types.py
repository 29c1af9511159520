"""NX type spelling, as the compiler writes it in schema answers, and reading one back.

An image stores an optional parameter ``p?: T`` with its *read* type (``T?``, or ``T*`` for
``T+``); :func:`declared_parameter_type` gives back the declared one. Reading a spelling
(:func:`parse_type`) is for what a host supplies in its descriptions (an inferred result type, an
alias target); type arguments are read and dropped, since an image erases them, and a constrained
type is read with its ends as written.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from typing import Any

from .model import ProgramModel, TypeDict

PRIMITIVES = frozenset({"int", "int32", "int64", "float32", "float64", "string", "boolean", "object"})


def spell(ty: TypeDict) -> str:
    """The NX spelling of a type: bare declaration names, ``T?``/``T+``/``T*``, function types,
    constrained types as explain writes them (``int where in 1..=10``, ``float64 where > 0.0 &&
    < 1.0``), parenthesised under a suffix (which would otherwise bind to the last bound)."""
    kind = ty["kind"]
    if kind in ("primitive", "nominal"):
        return str(ty["name"])
    if kind == "seq":
        inner = spell(ty["item"])
        if ty["item"]["kind"] in ("function", "any-function", "constrained"):
            inner = f"({inner})"
        return inner + str(ty["occurrence"])
    if kind == "constrained":
        return f"{spell(ty['base'])} where {interval_text(ty['low'], ty['high'])}"
    if kind == "function":
        params = []
        for param in ty["parameters"]:
            content = "content " if param["content"] else ""
            mark = "?" if param["optional"] else ""
            params.append(f"{content}{param['name']}{mark}:{spell(param['type'])}")
        inside = " ".join(params)
        head = f"<function {inside} />" if inside else "<function />"
        return f"{head}: {spell(ty['result'])}"
    if kind == "any-function":
        return f"<function ... />: {spell(ty['result'])}"
    return "?"


def _spelling_key(ty: TypeDict) -> Hashable:
    """What :func:`spell` reads of a type, as a key that shares the type's name texts."""
    kind = ty["kind"]
    if kind in ("primitive", "nominal"):
        return (kind, ty["name"])
    if kind == "seq":
        return (kind, _spelling_key(ty["item"]), ty["occurrence"])
    if kind == "constrained":
        ends = tuple(None if end is None else (end["text"], end["exclusive"]) for end in (ty["low"], ty["high"]))
        return (kind, _spelling_key(ty["base"]), ends)
    if kind == "function":
        params = tuple(
            (p["content"], p["name"], p["optional"], _spelling_key(p["type"])) for p in ty["parameters"]
        )
        return (kind, params, _spelling_key(ty["result"]))
    if kind == "any-function":
        return (kind, _spelling_key(ty["result"]))
    return ("?",)


class Spellings:
    """:func:`spell` made once per distinct type: many parameters of one long-named type under an
    occurrence (``LongName*``) share one text instead of a copy each."""

    def __init__(self) -> None:
        self._made: dict[Hashable, str] = {}

    def __call__(self, ty: TypeDict) -> str:
        key = _spelling_key(ty)
        found = self._made.get(key)
        if found is None:
            found = self._made[key] = spell(ty)
        return found


def interval_text(low: dict[str, Any] | None, high: dict[str, Any] | None) -> str:
    """A constrained type's interval as explain writes it: ``in A..=B`` (``in A..B`` when the high
    end is excluded) when both ends are given and the low one is included, else ``>= A``/``> A``
    and ``<= B``/``< B`` joined by `` && ``. Each end is spelled by its ``text``."""
    if low is not None and high is not None and not low["exclusive"]:
        return f"in {low['text']}{'..' if high['exclusive'] else '..='}{high['text']}"
    terms = []
    if low is not None:
        terms.append(f"{'>' if low['exclusive'] else '>='} {low['text']}")
    if high is not None:
        terms.append(f"{'<' if high['exclusive'] else '<='} {high['text']}")
    return " && ".join(terms)


def declared_parameter_type(ty: TypeDict, optional: bool) -> TypeDict:
    """The declared type of a parameter stored with its read type: ``T`` from ``T?``, ``T+``
    from ``T*``."""
    if not optional or ty["kind"] != "seq":
        return ty
    if ty["occurrence"] == "?":
        item: TypeDict = ty["item"]
        return item
    if ty["occurrence"] == "*":
        return {"kind": "seq", "item": ty["item"], "occurrence": "+"}
    return ty


def admits_empty(ty: TypeDict) -> bool:
    """Whether a value of the type may be empty (an omitted field, a ``null`` result)."""
    return ty["kind"] == "seq" and ty["occurrence"] in ("?", "*")


_TOKEN = re.compile(
    r"\s*(\.\.=|\.\.|&&|>=|<=|<|/>|>|=|[?+*()]"
    r"|-?(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|inf\b|NaN\b)"
    r"|[^\s<>=/?+*()&]+)"
)
_NUMBER = re.compile(r"-?(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|inf|NaN)")
_INTEGER = re.compile(r"-?\d+")
CONSTRAINABLE = frozenset({"int", "int32", "int64", "float32", "float64"})


class TypeSpellingError(ValueError):
    """A type spelling the reader does not understand."""


def parse_type(text: str, model: ProgramModel, module: str) -> TypeDict:
    """Reads an NX type spelling (``Plan*``, ``string?``, ``<Page T=Plan />``, ``lib.nx:Plan``,
    ``int where in 1..=10``, ``(float64 where > 0.0)?``) written in ``module``. A bare name is a
    primitive, a declaration of ``module``, or the one declaration of that name in the modules it
    links (in program order); anything else stays an unresolved name. A constrained type keeps
    its ends as written; a suffix after one needs parentheses (it would bind to the last end)."""
    tokens = [t for t in _TOKEN.findall(text.strip())]
    position = 0

    def take() -> str:
        nonlocal position
        if position >= len(tokens):
            raise TypeSpellingError(f"unexpected end of the type spelling {text!r}")
        token: str = tokens[position]
        position += 1
        return token

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def bound() -> dict[str, Any]:
        token = take()
        if not _NUMBER.fullmatch(token):
            raise TypeSpellingError(f"expected a number, not {token!r}, in {text!r}")
        value: int | float = int(token) if _INTEGER.fullmatch(token) else float(token)
        return {"value": value, "exclusive": False, "text": token}

    def constrained(base: TypeDict) -> TypeDict:
        if base["kind"] != "primitive" or base["name"] not in CONSTRAINABLE:
            raise TypeSpellingError(f"only a numeric primitive takes a constraint: {text!r}")
        low: dict[str, Any] | None = None
        high: dict[str, Any] | None = None
        if peek() == "in":
            take()
            low = bound()
            operator = take()
            if operator not in ("..", "..="):
                raise TypeSpellingError(f"expected '..' or '..=' in {text!r}")
            high = bound()
            high["exclusive"] = operator == ".."
        else:
            if peek() in (">", ">="):
                exclusive = take() == ">"
                low = bound()
                low["exclusive"] = exclusive
                if peek() != "&&":
                    return {"kind": "constrained", "base": base, "low": low, "high": None}
                take()
            if peek() not in ("<", "<="):
                raise TypeSpellingError(f"expected 'in', '>', '>=', '<' or '<=' and an end in {text!r}")
            exclusive = take() == "<"
            high = bound()
            high["exclusive"] = exclusive
        return {"kind": "constrained", "base": base, "low": low, "high": high}

    def one() -> TypeDict:
        token = take()
        if token == "(":
            ty = one()
            if take() != ")":
                raise TypeSpellingError(f"expected ')' in {text!r}")
        elif token == "<":
            name = take()
            if name == "function":
                raise TypeSpellingError(f"function types are not read from descriptions: {text!r}")
            while peek() not in ("/>", None):
                take()  # a type parameter name
                if take() != "=":
                    raise TypeSpellingError(f"expected '=' in {text!r}")
                one()
            take()
            ty = resolve_name(name, model, module)
        else:
            ty = resolve_name(token, model, module)
        if peek() == "where":
            take()
            return constrained(ty)
        while peek() in ("?", "+", "*"):
            ty = {"kind": "seq", "item": ty, "occurrence": take()}
        return ty

    result = one()
    if position != len(tokens):
        raise TypeSpellingError(f"unexpected {tokens[position]!r} in the type spelling {text!r}")
    return result


def resolve_name(name: str, model: ProgramModel, module: str) -> TypeDict:
    """A type name written in ``module``: primitive, ``module:Name``, own, or linked."""
    if name in PRIMITIVES:
        return {"kind": "primitive", "name": name}
    if ":" in name:
        identity, _, bare = name.rpartition(":")
        return {"kind": "nominal", "module": identity, "name": bare}
    if model.find(module, name) is not None:
        return {"kind": "nominal", "module": module, "name": name}
    found = [identity for identity in model.order if model.find(identity, name) is not None]
    if len(found) == 1:
        return {"kind": "nominal", "module": found[0], "name": name}
    # Unknown here: a primitive the runtime does not know (markup such as `Element`) or a name
    # that does not resolve; the mapping reports either.
    return {"kind": "primitive", "name": name}
