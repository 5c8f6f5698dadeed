"""The usual Gemini stream chunk, typed: the wire Structs of the stream's fast path.

Most chunks of a streamed answer are one candidate with one more piece of
text (or thought) and the usage so far. They decode in C into these Structs,
which forbid unknown keys, so a chunk that decodes needs no scan for
leftovers; any other chunk fails the decode and takes the general path. The
usage is kept as raw JSON: it is read only when it changed, as the
non-streaming fast path reads it.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ..._frozen import FrozenMap
from ..._usage import Usage
from .._fastpath import Wire
from ._common import snake
from ._fast import _Usage, _usage, usage_of

__all__ = ["TextChunk", "decode_text_chunk", "quick_usage", "typed_usage"]


class _Wire(Wire, rename="camel"):
    """Base of the wire Structs: camelCase keys (a snake_case one fails the decode)."""


class _TextPart(_Wire):
    text: str
    thought: bool | UnsetType = UNSET
    thought_signature: str | UnsetType = UNSET


class _Content(_Wire):
    parts: list[_TextPart]
    role: Any = UNSET


class _Candidate(_Wire):
    content: _Content
    index: int | UnsetType = UNSET


class TextChunk(_Wire):
    """A chunk of text parts and envelope keys only (no finish reason, no other key)."""

    candidates: list[_Candidate]
    usage_metadata: Raw | UnsetType = UNSET
    model_version: Any = UNSET
    response_id: Any = UNSET


decode_text_chunk = msgspec.json.Decoder(TextChunk).decode


_decode_usage = msgspec.json.Decoder(_Usage).decode


def typed_usage(raw: Raw) -> Usage:
    """What ``_Decoder.usage`` reads from the usage JSON ``raw``, if it has the usual keys.

    The non-streaming fast path's own reading (:mod:`._fast`) of the usage.

    Raises
    ------
    msgspec.DecodeError
        When it has others (or a count that is not an int): read it as builtins then.
    ValidationError
        When a count is negative, as the decoder's reading would.
    """
    return _usage(_decode_usage(raw))


_COUNTS = FrozenMap(
    {
        "promptTokenCount": 0,
        "candidatesTokenCount": 1,
        "totalTokenCount": 2,
        "cachedContentTokenCount": 3,
        "thoughtsTokenCount": 4,
    }
)
_SNAKE_COUNTS = frozenset(snake(key) for key in _COUNTS)


def quick_usage(value: Any) -> Usage | None:
    """The usage ``_Decoder.usage`` reads from ``value``, when every count is an int.

    None for anything else (a count of another type or null, a snake_case
    count, not an object): the decoder's own reading then decides.
    """
    if type(value) is not dict:
        return None
    counts: list[int | None] = [None, None, None, None, None]
    keep: dict[str, Any] | None = None
    for key, count in value.items():
        at = _COUNTS.get(key)
        if at is None:
            if key in _SNAKE_COUNTS:
                return None
            if keep is None:
                keep = {}
            keep[key] = count
        elif type(count) is int:
            counts[at] = count
        else:
            return None
    tool_use = None
    if keep is not None:
        tool_use = keep.get("toolUsePromptTokenCount", keep.get("tool_use_prompt_token_count"))
    return usage_of(counts[0], counts[1], counts[2], counts[3], counts[4], tool_use, keep)
