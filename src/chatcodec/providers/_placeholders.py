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
from collections.abc import Mapping
from typing import Any

import msgspec

from .._frozen import FrozenMap
from .._loss import Loss
from ._finish import READ

__all__ = ["fill_response", "missing"]

PLACEHOLDER = "{key} is required by {family} and the source has none: written as a placeholder"
NEEDED = "{key} is required by {family} and the source has none: it cannot be made up"

# Per family: the top-level keys its response must have, with a placeholder
# where one says nothing about the answer (None: it must come from the source).
# Placeholders are JSON text, decoded anew for each body: none is shared.
_REQUIRED: Mapping[str, Mapping[str, bytes | None]] = FrozenMap(
    {
        "anthropic": FrozenMap(
            {
                "id": b'"msg_"',
                "type": b'"message"',
                "role": b'"assistant"',
                "model": b'"unknown"',
                "content": None,
                "usage": None,
            }
        ),
        "openai-responses": FrozenMap(
            {
                "id": b'"resp_"',
                "object": b'"response"',
                "created_at": b"0",
                "model": b'"unknown"',
                "output": None,
                "parallel_tool_calls": b"true",
                "tool_choice": b'"auto"',
                "tools": b"[]",
            }
        ),
        "bedrock": FrozenMap(
            {"output": None, "stopReason": None, "usage": None, "metrics": b'{"latencyMs":0}'}
        ),
        "cohere": FrozenMap({"id": b'""', "message": None, "finish_reason": None}),
        "openai": FrozenMap(
            {
                "id": b'"chatcmpl-"',
                "object": b'"chat.completion"',
                "created": b"0",
                "model": b'"unknown"',
            }
        ),
    }
)
# Inner objects the Responses API's usage must have: token counts it did not see.
_RESPONSES_USAGE: Mapping[str, tuple[str, ...]] = FrozenMap(
    {
        "input_tokens_details": ("cached_tokens", "cache_write_tokens"),
        "output_tokens_details": ("reasoning_tokens",),
    }
)


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
    for key, text in required.items():
        if values.get(key) is not None or text is None:
            continue
        placeholder: Any = msgspec.json.decode(text)
        if key == "id":
            placeholder = _id(placeholder, body)
        values[key] = placeholder
        losses.append(Loss(f"$.{key}", PLACEHOLDER.format(key=key, family=family)))
        changed = True
    usage = values.get("usage")
    if family == "openai-responses" and type(usage) is dict:
        for key, names in _RESPONSES_USAGE.items():
            detail = usage.get(key)
            if type(detail) is not dict:
                detail = usage[key] = {}
            for name in names:
                if name not in detail:
                    detail[name] = 0
                    path = f"$.usage.{key}.{name}"
                    losses.append(Loss(path, PLACEHOLDER.format(key=name, family=family)))
                    changed = True
    return msgspec.json.encode(values) if changed else body


def missing(family: str, body: bytes) -> list[tuple[str, str]]:
    """The keys ``family`` requires that a converted response lacks and no placeholder fills."""
    required = _REQUIRED.get(family, FrozenMap())
    values = msgspec.json.decode(body)
    if type(values) is not dict:
        return [("$", "must be a JSON object")]
    found = [
        (f"$.{key}", NEEDED.format(key=key, family=family))
        for key, placeholder in required.items()
        if placeholder is None and values.get(key) is None
    ]
    if family == "openai":
        # A stop OpenAI has no name for (a failure) is written as "error", as
        # OpenRouter does; OpenAI's own clients take none but these.
        for i, choice in enumerate(values.get("choices") or ()):
            reason = choice.get("finish_reason") if type(choice) is dict else None
            if reason is not None and reason not in _OPENAI_REASONS:
                found.append((f"$.choices[{i}].finish_reason", NO_REASON.format(family=family)))
    elif family == "anthropic":
        # A name another family wrote, that Anthropic's clients do not know.
        reason = values.get("stop_reason")
        if reason is not None and reason not in _ANTHROPIC_REASONS:
            found.append(("$.stop_reason", NO_REASON.format(family=family)))
    elif family == "gemini":
        for i, candidate in enumerate(values.get("candidates") or ()):
            reason = candidate.get("finishReason") if type(candidate) is dict else None
            if type(reason) is str and reason not in READ["gemini"]:
                path = f"$.candidates[{i}].finishReason"
                found.append((path, NO_REASON.format(family=family)))
    elif family == "bedrock":
        reason = values.get("stopReason")
        if reason is not None and reason not in READ["bedrock"]:
            found.append(("$.stopReason", NO_REASON.format(family=family)))
    return found


_OPENAI_REASONS = frozenset(("stop", "length", "tool_calls", "content_filter", "function_call"))
_ANTHROPIC_REASONS = frozenset(
    (
        "end_turn",
        "max_tokens",
        "stop_sequence",
        "tool_use",
        "pause_turn",
        "refusal",
        "model_context_window_exceeded",
    )
)
NO_REASON = "{family}'s clients take no name for this stop: it cannot be written"
