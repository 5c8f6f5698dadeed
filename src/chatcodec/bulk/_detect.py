"""Telling the kind (and the family) of a record from its top-level keys.

Only key names are looked at, never values, and the explanation of a
failed guess names keys only: content stays private.
"""

from __future__ import annotations

import msgspec

from .._codec import decode_json
from .._errors import ChatCodecError, ValidationError
from .._frozen import FrozenMap
from ._result import Kind

__all__ = ["BATCH_FAMILY", "detect", "guess_family", "looks_like", "mismatch"]

# The batch envelope each id key belongs to.
BATCH_FAMILY = FrozenMap({"custom_id": "", "key": "gemini", "recordId": "bedrock"})

# Keys of a response body (the Responses API's has id and status too).
_BODY_KEYS = frozenset(("object", "output", "choices", "content", "candidates"))

_RULE = (
    "cannot tell the kind from the first record: it has {found}; a request has "
    "messages, contents or input, a response choices, candidates, output or content, a canonical "
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
    if "id" in keys and ("request" in keys or "status" in keys) and not _BODY_KEYS & keys.keys():
        return "batch", "it has id and request or status"
    if "conversations" in keys:
        return "sharegpt", "it has conversations"
    if "v" in keys and ("records" in keys or "messages" in keys):
        return "transcript", "it has v and records"
    for key in ("messages", "contents"):
        if key in keys:
            return "request", f"it has {key}"
    for key in ("choices", "candidates", "output"):
        if key in keys:
            return "response", f"it has {key}"
    if "input" in keys:
        return "request", "it has input"
    if "content" in keys and ("role" in keys or "stop_reason" in keys):
        return "response", "it has content and role"
    if "message" in keys and "done" in keys:
        return "response", "it has message and done"
    names = sorted(keys)
    found = "keys " + ", ".join(n[:40] for n in names[:8]) if names else "no keys"
    raise ValidationError(_RULE.format(found=found), "$")


def _untyped_blocks(messages: msgspec.Raw | None) -> bool:
    """Whether the first message's content is a list of blocks without ``type`` (Converse)."""
    if messages is None:
        return False
    try:
        values = msgspec.json.decode(messages)
    except (msgspec.MsgspecError, UnicodeError, RecursionError):
        return False
    if type(values) is not list or not values or type(values[0]) is not dict:
        return False
    content = values[0].get("content")
    if type(content) is not list or not content or type(content[0]) is not dict:
        return False
    return "type" not in content[0]


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
        if "stopReason" in keys:
            return "bedrock", "it has output and stopReason"
        if "finish_reason" in keys and "message" in keys:
            return "cohere", "it has message and finish_reason"
        if "output" in keys:
            return "openai-responses", "it has output"
        return "anthropic", "it has content and role"
    if "contents" in keys:
        return "gemini", "it has contents"
    if "input" in keys and "messages" not in keys:
        return "openai-responses", "it has input"
    for key in ("inferenceConfig", "toolConfig", "additionalModelRequestFields"):
        if key in keys:
            return "bedrock", f"it has {key}"
    for key in _COHERE_REQUEST_KEYS:
        if key in keys:
            return "cohere", f"it has {key}"
    if _untyped_blocks(keys.get("messages")):
        return "bedrock", "its content blocks have no type"
    if "anthropic_version" in keys or "system" in keys:
        return "anthropic", "it has system or anthropic_version"
    if "options" in keys or "keep_alive" in keys or "format" in keys:
        return "ollama", "it has options, keep_alive or format"
    return "openai", "it has messages"


# Top-level keys that only some families' bodies have: a record with one of
# them is not another family's. Keys any family may carry (model, tools,
# temperature...) say nothing and are not here.
_OWN_REQUEST_KEYS = FrozenMap(
    {
        "contents": "gemini",
        "systemInstruction": "gemini",
        "system_instruction": "gemini",
        "generationConfig": "gemini",
        "generation_config": "gemini",
        "safetySettings": "gemini",
        "cachedContent": "gemini",
        "input": "openai-responses",
        "previous_response_id": "openai-responses",
        "inferenceConfig": "bedrock",
        "toolConfig": "bedrock",
        "additionalModelRequestFields": "bedrock",
        "guardrailConfig": "bedrock",
        "anthropic_version": "anthropic",
        "stop_sequences": "anthropic",
        "max_completion_tokens": "openai",
        "response_format": "openai",
        "stream_options": "openai",
        "keep_alive": "ollama",
        "documents": "cohere",
        "citation_options": "cohere",
        "safety_mode": "cohere",
        "strict_tools": "cohere",
    }
)
_COHERE_REQUEST_KEYS = ("documents", "citation_options", "safety_mode", "strict_tools")
# Keys of one family above that Cohere's bodies have too: a Cohere record with
# one of them is Cohere's all the same.
_ALSO_COHERE = frozenset(("stop_sequences", "response_format"))
_OWN_RESPONSE_KEYS = FrozenMap(
    {
        "candidates": "gemini",
        "usageMetadata": "gemini",
        "promptFeedback": "gemini",
        "choices": "openai",
        "stop_reason": "anthropic",
        "stopReason": "bedrock",
        "done": "ollama",
        "done_reason": "ollama",
        "finish_reason": "cohere",
    }
)
# The families whose bodies a source name reads (a Bedrock batch record holds
# Claude's own body; chatcodec and ShareGPT have their own shapes).
_READS = FrozenMap(
    {
        "openai": frozenset({"openai"}),
        "openai-responses": frozenset({"openai-responses"}),
        "anthropic": frozenset({"anthropic"}),
        "gemini": frozenset({"gemini"}),
        "ollama": frozenset({"ollama"}),
        "bedrock": frozenset({"bedrock"}),
        "cohere": frozenset({"cohere"}),
    }
)
_BATCH_READS = FrozenMap({"openai-responses": frozenset({"openai"})})


def looks_like(record: bytes, kind: Kind) -> tuple[str, str] | None:
    """The family a body's own keys name, and the key, or None when nothing tells.

    Only top-level key names are looked at; never a value.
    """
    try:
        keys = _keys(record)
    except ChatCodecError:
        return None
    if not keys:
        return None
    own = _OWN_RESPONSE_KEYS if kind == "response" else _OWN_REQUEST_KEYS
    for key in keys:
        name = own.get(key)
        if name is not None:
            return name, key
    return None


def mismatch(record: bytes, kind: Kind, source: str) -> str | None:
    """Why a record is not a ``kind`` of family ``source``, or None when nothing says so.

    Told from the record's top-level keys only: its kind (a request read as
    a response...), its batch envelope, or a key that only another family's
    bodies have. The answer names keys and families, never content.
    """
    try:
        found, why = detect(record)
    except ChatCodecError:
        return None
    if found != kind and {found, kind} != {"request", "transcript"}:
        return f"it looks like a {found}, not a {kind} ({why}): pass --kind {found}"
    if kind == "batch":
        family, why = guess_family(record, "batch")
        reads = _BATCH_READS.get(source, {source})
        if family != source and family not in reads and source != "chatcodec":
            return f"it looks like a {family} batch line, not {source}'s ({why})"
        return None
    if kind not in ("request", "response") or source not in _READS:
        return None
    named = looks_like(record, kind)
    if named is not None and named[0] not in _READS[source]:
        if source == "cohere" and named[1] in _ALSO_COHERE:
            return None
        return f"it looks like a {named[0]} {kind}, not {source}'s (it has {named[1]})"
    return None
