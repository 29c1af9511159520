"""Cost profiles: where a call's operations go.

:func:`profile_function` runs one call exactly as :func:`nx_agent.ir.call_function` (a
``Function`` record) or :func:`nx_agent.ir.evaluate_function` (an entrypoint's name) would, on a
separate, slower path of the evaluator that records every charge, and returns a :class:`Profile`:
self and total operations per declaration, per node kind and per call path, with call counts.
``Profile.total`` is the call's ``usage["operations"]`` exactly, on success and when the budget ran
out (then ``Profile.ran_out`` says on which path and at which kind of node). Calls not profiled
run as before: the evaluator's fast paths are untouched.

Output: :meth:`Profile.table` (for people), :meth:`Profile.to_dict` (JSON),
:meth:`Profile.collapsed` (one ``a;b;c N`` line per path, for ``flamegraph.pl``, inferno or
speedscope) and :meth:`Profile.speedscope` (a speedscope JSON document).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import _native
from .errors import NxIrError

__all__ = ["DeclarationCost", "KindCost", "PathCost", "Profile", "RanOut", "profile_function", "profile_tool"]


@dataclass(frozen=True)
class DeclarationCost:
    """A declaration's operations over every path it is on: its own (``self``), and with what it
    called (``total``; a recursive declaration counted once). ``calls`` counts calls of a function,
    constructions of a record, union case or component, and evaluations of a value."""

    declaration: str
    kind: str
    self: int
    total: int
    calls: int


@dataclass(frozen=True)
class KindCost:
    """A node kind: how many nodes of it were evaluated and the operations charged to them;
    ``(values)`` is what checking, flattening and writing values charged outside any node."""

    kind: str
    count: int
    operations: int


@dataclass(frozen=True)
class PathCost:
    """One call path (outermost declaration first)."""

    path: tuple[str, ...]
    kind: str
    self: int
    total: int
    calls: int


@dataclass(frozen=True)
class RanOut:
    """Where the budget ran out: the path, the kind of node being charged, and the operations that
    charge asked for."""

    path: tuple[str, ...]
    node_kind: str
    requested: int


@dataclass(frozen=True)
class Profile:
    """The profile of one call (see the module doc)."""

    total: int
    declarations: tuple[DeclarationCost, ...]
    kinds: tuple[KindCost, ...]
    paths: tuple[PathCost, ...]
    ran_out: RanOut | None = None
    #: The call's usage, as its result or its error reports it.
    usage: Mapping[str, int] = field(default_factory=dict)
    #: The call's value when it succeeded.
    value: Any = None
    #: Why the call failed: the ``NxIrError`` of a function call, a tool's error object.
    error: Any = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @classmethod
    def from_native(cls, raw: Mapping[str, Any], *, usage: Mapping[str, int] | None = None,
                    value: Any = None, error: Any = None) -> Profile:
        """A profile from what ``_native._take_profile`` returns."""
        frames = raw["frames"]
        names: list[tuple[str, ...]] = []
        for frame in frames:
            parent = frame["parent"]
            names.append((names[parent] if parent is not None else ()) + (frame["declaration"],))
        paths = tuple(
            PathCost(names[at], f["kind"], f["self"], f["total"], f["calls"]) for at, f in enumerate(frames)
        )
        ran_out = raw.get("ran_out")
        return cls(
            total=raw["total"],
            declarations=tuple(
                DeclarationCost(d["declaration"], d["kind"], d["self"], d["total"], d["calls"]) for d in raw["declarations"]
            ),
            kinds=tuple(KindCost(k["kind"], k["count"], k["operations"]) for k in raw["kinds"]),
            paths=paths,
            ran_out=RanOut(tuple(ran_out["path"]), ran_out["node_kind"], ran_out["requested"]) if ran_out else None,
            usage=dict(usage or {}),
            value=value,
            error=error,
        )

    def declaration(self, name: str) -> DeclarationCost:
        """The cost of ``name`` (``module::name``, or the bare name when only one module has it)."""
        for cost in self.declarations:
            if cost.declaration == name:
                return cost
        found = [cost for cost in self.declarations if cost.declaration.rpartition("::")[2] == name]
        if len(found) == 1:
            return found[0]
        raise KeyError(name)

    # ------------------------------------------------------------------------------- output

    def to_dict(self) -> dict[str, Any]:
        """The profile as JSON data."""
        out: dict[str, Any] = {
            "total": self.total,
            "ok": self.ok,
            "usage": dict(self.usage),
            "declarations": [vars_of(d) for d in self.declarations],
            "kinds": [vars_of(k) for k in self.kinds],
            "paths": [{**vars_of(p), "path": list(p.path)} for p in self.paths],
            "ranOut": (
                {"path": list(self.ran_out.path), "nodeKind": self.ran_out.node_kind, "requested": self.ran_out.requested}
                if self.ran_out
                else None
            ),
        }
        if self.error is not None:
            out["error"] = {"code": self.error_code, "message": _message(self.error)}
        return out

    @property
    def error_code(self) -> str | None:
        """The failure's code (``nx-ir-resource-limit``, a tool's ``resource-limit``, ...)."""
        if self.error is None:
            return None
        if isinstance(self.error, Mapping):
            return str(self.error.get("code"))
        return str(getattr(self.error, "code", ""))

    def table(self, *, top: int = 20) -> str:
        """The profile for people: per declaration, per node kind and the hottest paths."""
        total = self.total or 1
        lines = [f"total {self.total:,} operations" + ("" if self.ok else f" (failed: {self.error_code})")]
        if self.ran_out is not None:
            lines.append(
                f"budget ran out in {' > '.join(self.ran_out.path) or '(host)'} at a {self.ran_out.node_kind} node "
                f"(asking for {self.ran_out.requested})"
            )
        lines.append("")
        rows: list[tuple[str, ...]] = [("declaration", "kind", "self", "total", "%total", "calls")]
        rows += [
            (d.declaration, d.kind, f"{d.self:,}", f"{d.total:,}", f"{100 * d.total / total:.1f}", f"{d.calls:,}")
            for d in self.declarations[:top]
        ]
        lines += _columns(rows)
        lines.append("")
        rows = [("node kind", "nodes", "operations", "%")]
        rows += [(k.kind, f"{k.count:,}", f"{k.operations:,}", f"{100 * k.operations / total:.1f}") for k in self.kinds[:top]]
        lines += _columns(rows)
        lines.append("")
        hot = sorted(self.paths, key=lambda p: (-p.self, p.path))[:top]
        rows = [("call path", "self", "total", "calls")]
        rows += [(" > ".join(p.path), f"{p.self:,}", f"{p.total:,}", f"{p.calls:,}") for p in hot if p.self or p.calls]
        lines += _columns(rows)
        return "\n".join(lines)

    def collapsed(self) -> str:
        """One ``outer;inner;leaf N`` line per path with operations of its own (N = its self
        operations): the collapsed-stack format of ``flamegraph.pl``, inferno and speedscope."""
        lines = [f"{';'.join(_frame_name(n) for n in p.path)} {p.self}" for p in self.paths if p.self]
        return "\n".join(lines) + ("\n" if lines else "")

    def speedscope(self, name: str = "nx-agent cost profile") -> dict[str, Any]:
        """A speedscope document (https://www.speedscope.app): one sampled profile whose weights
        are operations."""
        frames: list[dict[str, str]] = []
        index: dict[str, int] = {}
        samples, weights = [], []
        for path in self.paths:
            if not path.self:
                continue
            stack = []
            for declaration in path.path:
                if declaration not in index:
                    index[declaration] = len(frames)
                    frames.append({"name": declaration})
                stack.append(index[declaration])
            samples.append(stack)
            weights.append(path.self)
        return {
            "$schema": "https://www.speedscope.app/file-format-schema.json",
            "shared": {"frames": frames},
            "profiles": [
                {"type": "sampled", "name": name, "unit": "none", "startValue": 0, "endValue": self.total,
                 "samples": samples, "weights": weights}
            ],
            "name": name,
            "exporter": "nx-agent",
        }

    def speedscope_json(self, name: str = "nx-agent cost profile") -> str:
        return json.dumps(self.speedscope(name), indent=1)


def _message(error: Any) -> str:
    return str(error.get("message", "")) if isinstance(error, Mapping) else str(error)


def vars_of(cost: Any) -> dict[str, Any]:
    return dict(vars(cost))


def _frame_name(name: str) -> str:
    # `;` separates frames and a space the count in the collapsed format.
    return name.replace(";", ":").replace(" ", "_")


def _columns(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for row in rows:
        cells = [cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(row, widths))]
        out.append("  ".join(cells).rstrip())
    return out


def _entry_record(program: Any, name: str) -> dict[str, str]:
    return {"$type": "Function", "module": program.entry.identity, "name": name}


def profile_function(program: Any, function: Any, args: Any = None, **limits: Any) -> Profile:
    """Profiles one call: ``function`` is a ``Function`` record (called as
    :func:`~nx_agent.ir.call_function` calls it, ``args`` by name or by position) or the name of an
    entrypoint of the entry module (by position as :func:`~nx_agent.ir.evaluate_function` calls it;
    by name as a call of its ``Function`` record). ``limits`` are the keywords those take
    (``max_operations=...`` or ``limits=Limits(...)``). A call that fails once it has run returns
    its profile with ``error`` set; one refused before anything ran (its input over the limit, an
    unknown function, bad limits) raises as the call would."""
    from . import ir

    _native._profile_next()
    value: Any = None
    error: NxIrError | None = None
    usage: Mapping[str, int] = {}
    try:
        try:
            if isinstance(function, str) and not isinstance(args, Mapping):
                evaluated = ir.evaluate_function(program, function, args, **limits)
            else:
                record = _entry_record(program, function) if isinstance(function, str) else function
                evaluated = ir.call_function(program, record, args, **limits)
            value, usage = evaluated.value, evaluated.usage
        except NxIrError as failed:
            error = failed
            usage = getattr(failed, "usage", None) or {}
    finally:
        raw = _native._take_profile()
    if raw is None:
        assert error is not None
        raise error
    return Profile.from_native(raw, usage=usage, value=value, error=error)


def profile_tool(tool: Any, input: Any, *, call_id: str = "profile", context: Any = None) -> Profile:
    """Profiles one call of an agent's function tool, made as a host makes it (``tool.execute``).
    The profile's ``usage`` is the answer's (``operations``, ``input_size``), ``value`` its output,
    and ``error`` its error object (``{"code", "message", ...}``) when it failed."""
    _native._profile_next()
    try:
        answer = tool.execute(input, call_id=call_id, context=context)
    finally:
        raw = _native._take_profile()
    usage = dict(answer.get("usage") or {})
    if raw is None:  # refused before anything ran (its input, its call id)
        raw = {"total": 0, "frames": [], "declarations": [], "kinds": [], "ran_out": None}
    normalized = {"operations": usage["operations"]} if usage.get("operations") is not None else {}
    if usage.get("inputSize") is not None:
        normalized["input_size"] = usage["inputSize"]
    error = None if answer.get("ok") else dict(answer.get("error") or {})
    return Profile.from_native(raw, usage=normalized, value=answer.get("output"), error=error)
