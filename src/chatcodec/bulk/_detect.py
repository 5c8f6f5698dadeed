"""Telling the kind (and the family) of a record from its top-level keys.

Only key names are looked at, never values, and the explanation of a
failed guess names keys only: content stays private.
"""

from __future__ import annotations

import msgspec

from .._codec import decode_json
from .._errors import ValidationError
from .._frozen import FrozenMap
from ._result import Kind

__all__ = ["BATCH_FAMILY", "detect", "guess_family"]

# The batch envelope each id key belongs to.
BATCH_FAMILY = FrozenMap({"custom_id": "", "key": "gemini", "recordId": "bedrock"})

_RULE = (
    "cannot tell the kind from the first record: it has {found}; a request has "
    "messages or contents, a response choices, candidates or content, a canonical "
    "transcript v and records, a batch line custom_id, key, recordId or id and request, a ShareGPT "
    "record conversations (or pass --kind)"
)


def _keys(record: bytes) -> dict[str, msgspec.Raw] | None:
    if record.lstrip()[:1] == b"[":
        return None
    keys: dict[str, msgspec.Raw] = decode_json(record, dict[str, msgspec.Raw])
    return keys


def detect(record: bytes) -> tuple[Kind, str]:
    """The kind of a record, and why: ``(kind, "it has conversations")``.

    Raises ``ValidationError`` naming the keys found when no kind fits.
    """
    keys = _keys(record)
    if keys is None:
        return "transcript", "it is a list of messages"
    for key in ("custom_id", "recordId"):
        if key in keys:
            return "batch", f"it has {key}"
    if "key" in keys and ({"request", "response", "error"} & keys.keys()):
        return "batch", "it has key"
    if "id" in keys and ("request" in keys or "status" in keys):
        return "batch", "it has id and request or status"
    if "conversations" in keys:
        return "sharegpt", "it has conversations"
    if "v" in keys and ("records" in keys or "messages" in keys):
        return "transcript", "it has v and records"
    for key in ("messages", "contents"):
        if key in keys:
            return "request", f"it has {key}"
    for key in ("choices", "candidates"):
        if key in keys:
            return "response", f"it has {key}"
    if "content" in keys and ("role" in keys or "stop_reason" in keys):
        return "response", "it has content and role"
    if "message" in keys and "done" in keys:
        return "response", "it has message and done"
    names = sorted(keys)
    found = "keys " + ", ".join(n[:40] for n in names[:8]) if names else "no keys"
    raise ValidationError(_RULE.format(found=found), "$")


def guess_family(record: bytes, kind: Kind) -> tuple[str, str]:
    """The family a record of ``kind`` most likely belongs to, and why."""
    keys = _keys(record) or {}
    if kind == "transcript":
        return "chatcodec", "a canonical transcript"
    if kind == "sharegpt":
        return "sharegpt", "a ShareGPT record"
    if kind == "batch":
        if "recordId" in keys or "modelInput" in keys:
            return "bedrock", "it has recordId"
        if "key" in keys:
            return "gemini", "it has key"
        if "id" in keys and "custom_id" not in keys:
            return "chatcodec", "it has id and request or status"
        if "params" in keys or "result" in keys:
            return "anthropic", "it has custom_id and params or result"
        return "openai", "it has custom_id and body or response"
    if kind == "response":
        if "candidates" in keys:
            return "gemini", "it has candidates"
        if "done" in keys:
            return "ollama", "it has done"
        if "choices" in keys:
            return "openai", "it has choices"
        return "anthropic", "it has content and role"
    if "contents" in keys:
        return "gemini", "it has contents"
    if "anthropic_version" in keys or "system" in keys:
        return "anthropic", "it has system or anthropic_version"
    if "options" in keys or "keep_alive" in keys or "format" in keys:
        return "ollama", "it has options, keep_alive or format"
    return "openai", "it has messages"
