"""What a family's response must hold, and what conversion fills in when the source has none.

Within a family a body is written back as it came: nothing is added. A
response converted from another family may lack a field the target's
clients require (Anthropic's ``id``, the Responses API's ``created_at``,
Bedrock's ``metrics``). Conversion fills those that say nothing about the
answer (ids, the model's name, times, the request's echo, zero cache
details) with a placeholder, and reports each one. Those that do say
something (a stop reason, the usage, the output itself) are never made up:
:func:`missing` names them, and a bulk run refuses such a record.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from .._loss import Loss

__all__ = ["fill_response", "missing"]

PLACEHOLDER = "{key} is required by {family} and the source has none: written as a placeholder"
NEEDED = "{key} is required by {family} and the source has none: it cannot be made up"

# Per family: the top-level keys its response must have, with a placeholder
# where one says nothing about the answer (None: it must come from the source).
_REQUIRED: dict[str, dict[str, Any]] = {
    "anthropic": {
        "id": "msg_",
        "type": "message",
        "role": "assistant",
        "model": "unknown",
        "content": None,
        "usage": None,
    },
    "openai-responses": {
        "id": "resp_",
        "object": "response",
        "created_at": 0,
        "model": "unknown",
        "output": None,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    },
    "bedrock": {"output": None, "stopReason": None, "usage": None, "metrics": {"latencyMs": 0}},
    "openai": {"id": "chatcmpl-", "object": "chat.completion", "created": 0, "model": "unknown"},
}
# Inner objects the Responses API's usage must have: token counts it did not see.
_RESPONSES_USAGE = {
    "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
    "output_tokens_details": {"reasoning_tokens": 0},
}


def _id(prefix: str, body: bytes) -> str:
    """A placeholder id, the same for the same body (a converted file converts alike)."""
    return prefix + hashlib.blake2b(body, digest_size=12).hexdigest()


def fill_response(family: str, body: bytes, losses: list[Loss]) -> bytes:
    """``body`` (a ``family`` response converted from another) with what it must hold.

    Each key filled is reported in ``losses``; a body that needs none comes
    back unchanged.
    """
    required = _REQUIRED.get(family)
    if required is None:
        return body
    values = msgspec.json.decode(body)
    if type(values) is not dict:
        return body
    changed = False
    for key, placeholder in required.items():
        if values.get(key) is not None or placeholder is None:
            continue
        if type(placeholder) is str and placeholder.endswith(("_", "-")) and key == "id":
            placeholder = _id(placeholder, body)
        values[key] = placeholder
        losses.append(Loss(f"$.{key}", PLACEHOLDER.format(key=key, family=family)))
        changed = True
    usage = values.get("usage")
    if family == "openai-responses" and type(usage) is dict:
        for key, placeholder in _RESPONSES_USAGE.items():
            detail = usage.get(key)
            if type(detail) is not dict:
                detail = usage[key] = {}
            for name, zero in placeholder.items():
                if name not in detail:
                    detail[name] = zero
                    path = f"$.usage.{key}.{name}"
                    losses.append(Loss(path, PLACEHOLDER.format(key=name, family=family)))
                    changed = True
    return msgspec.json.encode(values) if changed else body


def missing(family: str, body: bytes) -> list[tuple[str, str]]:
    """The keys ``family`` requires that a converted response lacks and no placeholder fills."""
    required = _REQUIRED.get(family)
    if required is None:
        return []
    values = msgspec.json.decode(body)
    if type(values) is not dict:
        return [("$", "must be a JSON object")]
    return [
        (f"$.{key}", NEEDED.format(key=key, family=family))
        for key, placeholder in required.items()
        if placeholder is None and values.get(key) is None
    ]
