"""A frozen record class without ``dataclasses`` (which loads ``inspect``, a few milliseconds of a
serverless cold start): fields in order with defaults, keyword or positional construction,
equality, hashing, ``repr``, immutability, pickling and copying."""

TYPE_CHECKING = False  # not typing's (a cold start's milliseconds): see nx_agent/__init__.py
if TYPE_CHECKING:
    from typing import Any


class Record:
    """Subclasses set ``__slots__`` to their field names and ``_defaults`` to the defaults of the
    last fields; a default that is a ``list`` or ``dict`` is copied for each record."""

    __slots__: "tuple[str, ...]" = ()
    _defaults: "dict[str, Any]" = {}

    def __init__(self, *args: "Any", **kwargs: "Any") -> None:
        fields = type(self).__slots__
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes {len(fields)} fields, {len(args)} were given")
        values = dict(zip(fields, args))
        for name, value in kwargs.items():
            if name not in fields or name in values:
                raise TypeError(f"{type(self).__name__} got an unexpected or repeated field {name!r}")
            values[name] = value
        for name in fields:
            if name not in values:
                if name not in self._defaults:
                    raise TypeError(f"{type(self).__name__} needs the field {name!r}")
                default = self._defaults[name]
                values[name] = type(default)() if isinstance(default, (list, dict)) else default
            object.__setattr__(self, name, values[name])

    def _values(self) -> "tuple[Any, ...]":
        return tuple(getattr(self, name) for name in type(self).__slots__)

    def __setattr__(self, name: str, value: "Any") -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self).__slots__)
        return f"{type(self).__name__}({shown})"

    def __reduce__(self) -> "tuple[Any, ...]":
        return (type(self), self._values())
