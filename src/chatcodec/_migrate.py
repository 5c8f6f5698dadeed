"""Schema versions of the stored transcript, and the migrations between them.

A transcript says its version in ``"v"``. Reading an older one migrates it,
step by step, to the current version; each step is one function in
:data:`MIGRATIONS`, keyed by the version it reads, and says what it did.
Steps work on the top-level object with its values as raw JSON bytes, so
everything a step does not touch (tool-call arguments above all) is kept byte
for byte.

History:

- **v1 -> v2**: ``messages`` became ``records``, because a transcript now
  holds records that are not messages (control records, and kinds from newer
  versions).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec
from msgspec import Raw

from ._errors import DECODE_FAILURES, ValidationError, from_msgspec, not_json
from ._frozen import FrozenMap

__all__ = ["CURRENT_VERSION", "MIGRATIONS", "migrate"]

CURRENT_VERSION = 2
"""The version this chatcodec writes."""

Step = Callable[[dict[str, Raw]], str]


def _v1_to_v2(doc: dict[str, Raw]) -> str:
    if "messages" in doc:
        if "records" in doc:
            raise ValidationError("a version 1 transcript cannot have records", "$.records")
        doc["records"] = doc.pop("messages")
    return "messages renamed records"


MIGRATIONS: Mapping[int, Step] = FrozenMap({1: _v1_to_v2})
"""Each step, by the version it reads; it changes the document in place."""

_HEAD = msgspec.json.Decoder(dict[str, Raw])
_VERSION = msgspec.json.Decoder(int)
_ENCODE = msgspec.json.Encoder().encode


def version_of(data: bytes | str) -> Any:
    """The ``"v"`` of a JSON transcript (``None`` when it has none)."""
    try:
        doc = _HEAD.decode(data)
        return _VERSION.decode(doc["v"]) if "v" in doc else None
    except (*DECODE_FAILURES, msgspec.ValidationError):
        return None


def migrate(data: bytes | str) -> tuple[bytes, list[str]]:
    """Bring a JSON transcript to :data:`CURRENT_VERSION`.

    Returns
    -------
    bytes
        The migrated transcript (the input itself when already current).
    list of str
        What each step did, ``"v1 -> v2: messages renamed records"``.

    Raises
    ------
    ValidationError
        For a version that is not an integer, is newer than this chatcodec
        reads, or has no migration.
    """
    try:
        doc = _HEAD.decode(data)
    except DECODE_FAILURES as exc:
        # Not an object: maybe not JSON either, past the point the types stopped.
        bad = not_json(data) if isinstance(exc, msgspec.ValidationError) else None
        raise bad or from_msgspec(exc) from None
    try:
        version = _VERSION.decode(doc["v"]) if "v" in doc else None
    except msgspec.ValidationError:
        raise ValidationError("must be an integer", "$.v") from None
    if version is None:
        raise ValidationError("object missing required field `v`", "$")
    if version == CURRENT_VERSION:
        return (data.encode() if isinstance(data, str) else data), []
    if version > CURRENT_VERSION or version not in MIGRATIONS:
        raise ValidationError(
            f"unsupported version; this chatcodec reads 1 to {CURRENT_VERSION}", "$.v"
        )
    notes = []
    while version < CURRENT_VERSION:
        did = MIGRATIONS[version](doc)
        notes.append(f"v{version} -> v{version + 1}: {did}")
        version += 1
    doc["v"] = Raw(str(version).encode())
    return _ENCODE(doc), notes
