"""The JSON Schema of a schema-6 constrained type: its base's schema with the interval's ends.

An inclusive low end is ``minimum``, an exclusive one ``exclusiveMinimum``; likewise ``maximum``
and ``exclusiveMaximum`` at the high end; an open end adds nothing. An end replaces the base's own
bound on its side (``int32``'s), or leaves it where the base's is the tighter.

What a runtime admits decides how an end is written. It reads a value at the base first and then
compares it with the end as a float64:

- an integer base admits integers only, so an exclusive end (or a fractional one) becomes the
  inclusive integer next to it on the inside: ``int where > 0`` is ``minimum: 1``;
- a ``float32`` base rounds the value to float32 first, so every end becomes the float32 nearest
  to it on the inside, written inclusively: a value the schema admits then rounds to one the
  interval admits (rounding is monotonic and leaves a float32 where it is), which an exclusive
  end or an end that is not itself a float32 would not promise (``float32 where < 1.0`` is
  ``maximum: 0.9999999403953552``: 0.99999999 rounds to 1.0);
- a ``float64`` base compares the value as given, so its ends are written as they are.

A number is written as a JSON integer when it is integral and within 2**53 (``0``, ``1``), as a
float otherwise. An infinite end on the outside (``>= -inf``) is an open end. An interval that no
JSON number can satisfy on one side (a ``NaN`` end, ``> inf``, a float32 end beyond float32's
range) has no JSON form: :func:`constrained_schema` answers ``None``.
"""

from __future__ import annotations

import math
import struct
from typing import Any, Literal

Schema = dict[str, Any]
TypeDict = dict[str, Any]
Side = Literal["low", "high"]

INTEGER_BASES = frozenset({"int", "int32", "int64"})
FLOAT_BASES = frozenset({"float32", "float64"})
INT32_RANGE = (-(2**31), 2**31 - 1)
FLOAT32_MAX: float = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
_EXACT_INTEGERS = 2**53


class NoNumber(Exception):
    """An end that no JSON number can satisfy."""


def constrained_schema(ty: TypeDict) -> Schema | None:
    """The schema of a ``{"kind": "constrained", "base", "low", "high"}`` type; ``None`` when its
    base is not a numeric primitive or its interval admits no JSON number."""
    base = ty["base"]
    name = base.get("name") if base.get("kind") == "primitive" else None
    if name in INTEGER_BASES:
        schema: Schema = {"type": "integer"}
        if name == "int32":
            schema["minimum"], schema["maximum"] = INT32_RANGE
    elif name in FLOAT_BASES:
        schema = {"type": "number"}
    else:
        return None
    try:
        for side in ("low", "high"):
            end = ty[side]
            if end is not None:
                _add_end(schema, str(name), side, end["value"], bool(end["exclusive"]))
    except NoNumber:
        return None
    return schema


def _add_end(schema: Schema, base: str, side: Side, value: int | float, exclusive: bool) -> None:
    low = side == "low"
    if isinstance(value, float):
        if math.isnan(value):
            raise NoNumber
        if math.isinf(value):
            if (value < 0) == low:
                return  # an end outside every finite number: open
            raise NoNumber
    if base in INTEGER_BASES:
        bound = _integer_end(value, exclusive, low)
        key = "minimum" if low else "maximum"
        own = schema.get(key)
        if own is not None:
            bound = max(bound, own) if low else min(bound, own)
        schema[key] = bound
    elif base == "float32":
        schema["minimum" if low else "maximum"] = json_number(_float32_end(float(value), exclusive, low))
    else:
        key = ("exclusiveMinimum" if low else "exclusiveMaximum") if exclusive else ("minimum" if low else "maximum")
        schema[key] = json_number(float(value))


def _integer_end(value: int | float, exclusive: bool, low: bool) -> int:
    """The integer on the inside nearest to a finite end."""
    if isinstance(value, int):
        if not exclusive:
            return value
        return value + 1 if low else value - 1
    if low:
        return math.floor(value) + 1 if exclusive else math.ceil(value)
    return math.ceil(value) - 1 if exclusive else math.floor(value)


def _float32_end(value: float, exclusive: bool, low: bool) -> float:
    """The float32 nearest to a finite end on the inside: the least float32 at or above a low end
    (above it when exclusive), the greatest at or below a high one."""
    if not low:
        return -_float32_end(-value, exclusive, True)
    if value > FLOAT32_MAX or (exclusive and value == FLOAT32_MAX):
        raise NoNumber
    if value < -FLOAT32_MAX:
        return -FLOAT32_MAX
    found = _to_float32(value)
    if found < value or (exclusive and found == value):
        found = _next_float32_up(found)
    return found


def _to_float32(value: float) -> float:
    """``value`` (within float32's range) rounded to the nearest float32."""
    rounded: float = struct.unpack("<f", struct.pack("<f", value))[0]
    return rounded


def _next_float32_up(value: float) -> float:
    """The least float32 above the float32 ``value`` (below float32's largest)."""
    if value == 0.0:
        return _from_bits(1)
    bits: int = struct.unpack("<I", struct.pack("<f", value))[0]
    return _from_bits(bits + 1 if value > 0 else bits - 1)


def _from_bits(bits: int) -> float:
    value: float = struct.unpack("<f", struct.pack("<I", bits))[0]
    return value


def json_number(value: float) -> int | float:
    """A float written as a JSON integer when it is integral and within 2**53 (every such integer
    is exact), as a float otherwise; ``-0.0`` is ``0``."""
    if value.is_integer() and abs(value) <= _EXACT_INTEGERS:
        return int(value)
    return value
