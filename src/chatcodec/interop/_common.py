"""What the adapters share: chatcodec's values as JSON values, and its own parts read back."""

from __future__ import annotations

from typing import Any

import msgspec

from .._content import FileReference, McpResource, OpaquePart, RefusalPart
from .._control import UnknownPart
from .._errors import ValidationError
from .._frozen import FrozenMap

__all__ = ["json_values", "own_part"]

_ENCODE = msgspec.json.Encoder()
_DECODE = msgspec.json.Decoder()

# chatcodec's parts that no other side has a type for, written whole by their tag.
_OWN_PARTS: FrozenMap[str, type[Any]] = FrozenMap(
    {"refusal": RefusalPart, "mcp_resource": McpResource, "file_reference": FileReference}
)


def json_values(value: Any) -> Any:
    """``value`` as JSON values: a kept JSON text as its value, times as ISO text."""
    return _DECODE.decode(_ENCODE.encode(value))


def own_part(value: Any, path: str) -> Any:
    """A part of chatcodec's own written whole (its tag in ``type``), or kept as unknown.

    Raises
    ------
    ValidationError
        If the value has a tag chatcodec knows and breaks that part's rules.
    """
    kind = value.get("type") if isinstance(value, dict) else None
    try:
        if kind == "opaque":
            fields = {key: item for key, item in value.items() if key not in ("type", "data")}
            return OpaquePart(data=msgspec.Raw(_ENCODE.encode(value.get("data"))), **fields)
        canonical = _OWN_PARTS.get(kind) if isinstance(kind, str) else None
        if canonical is not None:
            return msgspec.convert(value, canonical)
    except (msgspec.ValidationError, ValidationError, TypeError) as exc:
        raise ValidationError(f"must be a {kind} part: {exc}", path) from None
    return UnknownPart(_ENCODE.encode(value))
