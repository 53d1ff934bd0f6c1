"""A small declarative checker for decoded wire data (types, lengths, ranges, required keys).

Specs are plain objects with a ``check(value, path)`` method that raises
:class:`~p2pcards.wire.errors.SchemaError`. The deck and session layers can describe their message
bodies with the same pieces::

    PASS = Record({"points": ListOf(Bytes(32), max_len=512)})
    PASS.check(body, "body")
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..text import unshowable
from .errors import SchemaError

__all__ = [
    "AnyData",
    "Bool",
    "Bytes",
    "Float",
    "Int",
    "ListOf",
    "MapOf",
    "Nullable",
    "Record",
    "Spec",
    "Str",
    "Text",
    "unshowable",
]


class Spec:
    def check(self, value: Any, path: str = "") -> None:  # pragma: no cover - interface
        raise NotImplementedError


_TYPE_NAMES = {
    bytes: "binary",
    str: "string",
    dict: "map",
    list: "array",
    bool: "boolean",
    int: "integer",
    float: "float",
    type(None): "nil",
}


def _type_name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


@dataclass(frozen=True)
class AnyData(Spec):
    """Anything the frame decoder accepted (plain wire data)."""

    def check(self, value: Any, path: str = "") -> None:
        return None


@dataclass(frozen=True)
class Bool(Spec):
    def check(self, value: Any, path: str = "") -> None:
        if not isinstance(value, bool):
            raise SchemaError(path, f"expected a boolean, got {_type_name(value)}")


@dataclass(frozen=True)
class Int(Spec):
    min: int | None = None
    max: int | None = None

    def check(self, value: Any, path: str = "") -> None:
        if not isinstance(value, int) or isinstance(value, bool):
            raise SchemaError(path, f"expected an integer, got {_type_name(value)}")
        if self.min is not None and value < self.min:
            raise SchemaError(path, f"{value} is below {self.min}")
        if self.max is not None and value > self.max:
            raise SchemaError(path, f"{value} is above {self.max}")


@dataclass(frozen=True)
class Float(Spec):
    def check(self, value: Any, path: str = "") -> None:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise SchemaError(path, f"expected a number, got {_type_name(value)}")


@dataclass(frozen=True)
class Bytes(Spec):
    """Binary; ``size`` fixes the length exactly, ``max_len`` bounds it."""

    size: int | None = None
    max_len: int | None = None

    def check(self, value: Any, path: str = "") -> None:
        if not isinstance(value, bytes):
            raise SchemaError(path, f"expected binary, got {_type_name(value)}")
        if self.size is not None and len(value) != self.size:
            raise SchemaError(path, f"expected {self.size} bytes, got {len(value)}")
        if self.max_len is not None and len(value) > self.max_len:
            raise SchemaError(path, f"{len(value)} bytes is more than {self.max_len}")


@dataclass(frozen=True)
class Str(Spec):
    """Text of at most ``max_len`` characters, optionally matching ``pattern`` in full."""

    max_len: int = 256
    pattern: str | None = None
    min_len: int = 0

    def check(self, value: Any, path: str = "") -> None:
        if not isinstance(value, str):
            raise SchemaError(path, f"expected a string, got {_type_name(value)}")
        if not self.min_len <= len(value) <= self.max_len:
            raise SchemaError(path, f"length {len(value)} not in {self.min_len}..{self.max_len}")
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            raise SchemaError(path, f"{value!r} does not match {self.pattern}")


@dataclass(frozen=True)
class Text(Str):
    """:class:`Str` that a terminal can show as it is: nothing :func:`unshowable`."""

    def check(self, value: Any, path: str = "") -> None:
        super().check(value, path)
        bad = unshowable(value)
        if bad is not None:
            raise SchemaError(path, f"holds a control or format character (U+{ord(bad):04X})")


@dataclass(frozen=True)
class Nullable(Spec):
    inner: Spec

    def check(self, value: Any, path: str = "") -> None:
        if value is not None:
            self.inner.check(value, path)


@dataclass(frozen=True)
class ListOf(Spec):
    item: Spec
    max_len: int
    min_len: int = 0

    def check(self, value: Any, path: str = "") -> None:
        if not isinstance(value, list):
            raise SchemaError(path, f"expected an array, got {_type_name(value)}")
        if not self.min_len <= len(value) <= self.max_len:
            raise SchemaError(path, f"{len(value)} items, expected {self.min_len}..{self.max_len}")
        for index, item in enumerate(value):
            self.item.check(item, f"{path}[{index}]")


@dataclass(frozen=True)
class MapOf(Spec):
    """A map with free keys (checked by ``key``) and values checked by ``value``."""

    key: Str
    value: Spec
    max_len: int

    def check(self, value: Any, path: str = "") -> None:
        if not isinstance(value, dict):
            raise SchemaError(path, f"expected a map, got {_type_name(value)}")
        if len(value) > self.max_len:
            raise SchemaError(path, f"{len(value)} entries, at most {self.max_len}")
        for key, item in value.items():
            self.key.check(key, f"{path} key")
            self.value.check(item, f"{path}.{key}")


@dataclass(frozen=True)
class Record(Spec):
    """A map with named fields. Unknown keys are refused unless ``extra`` is true (a newer peer
    of the same protocol version must not add fields: that would change what is signed)."""

    required: Mapping[str, Spec]
    optional: Mapping[str, Spec] = field(default_factory=dict)
    extra: bool = False

    def check(self, value: Any, path: str = "") -> None:
        if not isinstance(value, dict):
            raise SchemaError(path, f"expected a map, got {_type_name(value)}")
        for name, spec in self.required.items():
            if name not in value:
                raise SchemaError(path, f"missing field {name!r}")
            spec.check(value[name], f"{path}.{name}" if path else name)
        for name, spec in self.optional.items():
            if name in value:
                spec.check(value[name], f"{path}.{name}" if path else name)
        if not self.extra:
            unknown = sorted(set(value) - set(self.required) - set(self.optional))
            if unknown:
                raise SchemaError(path, f"unknown field {unknown[0]!r}")
