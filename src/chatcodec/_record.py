"""The base every canonical type derives from.

One configuration for all of them:

- ``frozen``: values, safe to share between threads, and hashable: a field
  msgspec cannot hash itself (``extras`` a decoder left as a plain dict, a
  ``msgspec.Raw``) is hashed as its frozen copy or its bytes, so equal
  records hash alike;
- ``gc=False``: no GC header, 16 bytes less per object. Safe because every
  field holds JSON-like data (strings, numbers, tuples of records, dicts of
  JSON values), and JSON data has no cycles: a cycle could not be encoded;
- ``omit_defaults``: absent and ``None`` fields are not written;
- ``forbid_unknown_fields``: clean input decodes at full speed in C, and an
  unknown field makes the decode fall back to ``_unknown.capture_json``, which
  moves it into ``extras`` instead of dropping it.

The repr shows types and sizes, never a string's text: content is private.
"""

from __future__ import annotations

import enum
import functools
from typing import Any

import msgspec

from ._frozen import freeze

__all__ = ["Record", "json_decoder", "shape"]


@functools.lru_cache(maxsize=256)
def json_decoder(type_: Any) -> msgspec.json.Decoder[Any]:
    """Return the (cached, reused) JSON decoder for ``type_``."""
    return msgspec.json.Decoder(type_)


class Record(
    msgspec.Struct,
    frozen=True,
    gc=False,
    omit_defaults=True,
    forbid_unknown_fields=True,
    kw_only=True,
):
    """Base of the canonical types: config, ``extras`` and a redacted repr."""

    extras: dict[str, Any] | None = None
    """Fields the schema does not know, kept so nothing a source sent is lost."""

    def __hash__(self) -> int:
        return hash((type(self).__name__, *map(_hashable, msgspec.structs.astuple(self))))

    def __repr__(self) -> str:
        parts = [f"{name}={shown}" for name, shown in self.__rich_repr__()]
        return f"{type(self).__name__}({', '.join(parts)})"

    def __rich_repr__(self) -> list[tuple[str, Any]]:
        # rich (pretty printing, tracebacks with locals) reads this instead of
        # __repr__; msgspec's own would show the content.
        return [
            (name, Shown(shape(value)))
            for name, default in _defaults(type(self))
            if (value := getattr(self, name)) is not default and value != default
        ]


def _hashable(value: Any) -> Any:
    """``value`` as a hashable equal to it: a JSON container frozen, a Raw as its bytes."""
    kind = type(value)
    if kind is dict or kind is list:
        return freeze(value)
    if kind is msgspec.Raw:
        return bytes(value)
    return value


class Shown(str):
    """A shape description that prints as itself, without quotes."""

    def __repr__(self) -> str:
        return str(self)


@functools.lru_cache(maxsize=256)
def _defaults(cls: type[msgspec.Struct]) -> tuple[tuple[str, Any], ...]:
    """Each field with its default (a marker no value equals, if required)."""
    return tuple(
        (field.name, field.default if field.default is not msgspec.NODEFAULT else _REQUIRED)
        for field in msgspec.structs.fields(cls)
    )


class _Required:
    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = object.__hash__


_REQUIRED = _Required()


def shape(value: object) -> str:
    """Describe a value by type and size, never by text."""
    if isinstance(value, enum.Enum):  # before str: a StrEnum is a str too
        return repr(value.value)
    if isinstance(value, str):
        return f"<{len(value)} chars>"
    if isinstance(value, msgspec.Raw):
        return f"<{len(bytes(value))} bytes>"
    if isinstance(value, bytes | bytearray | memoryview):
        return f"<{len(value)} bytes>"
    if isinstance(value, bool | int | float):
        return repr(value)
    if isinstance(value, dict):
        return f"<{len(value)} keys>"
    if isinstance(value, tuple | list):
        inner = ", ".join(shape(item) for item in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, msgspec.Struct):
        return repr(value)
    return f"<{type(value).__name__}>"
