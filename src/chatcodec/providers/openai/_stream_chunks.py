"""Folding OpenAI stream chunks: the wire Structs of the fast path, and the merge rules.

See ``_stream`` for the rules; this module holds the pieces the decoder uses per
chunk: the typed chunk Structs and the merge of builtins deltas. The state of
one answer (choice) as it grows is in ``_stream_choice``.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from ..._errors import ValidationError
from .._fastpath import Wire

_MISSING: Any = object()
_NULL: Any = object()  # a key that came only as null so far
_DROPPED = frozenset(("obfuscation", "error"))


# -- the wire Structs of the fast path --------------------------------------------


class _Function(Wire):
    name: str | UnsetType | None = UNSET
    arguments: str | UnsetType | None = UNSET


class _CallDelta(Wire):
    index: int | UnsetType = UNSET
    id: str | UnsetType | None = UNSET
    type: str | UnsetType | None = UNSET
    function: _Function | UnsetType = UNSET


class _Delta(Wire):
    content: str | UnsetType | None = UNSET
    tool_calls: list[_CallDelta] | UnsetType | None = UNSET
    role: str | UnsetType | None = UNSET
    refusal: str | UnsetType | None = UNSET
    reasoning_content: str | UnsetType | None = UNSET
    reasoning: str | UnsetType | None = UNSET


class _Choice(Wire):
    index: int
    delta: _Delta
    finish_reason: str | UnsetType | None = UNSET
    logprobs: Any = UNSET


class _Chunk(Wire):
    choices: list[_Choice]
    id: Any = UNSET
    object: Any = UNSET
    created: Any = UNSET
    model: Any = UNSET
    system_fingerprint: Any = UNSET
    service_tier: Any = UNSET
    usage: Any = UNSET
    obfuscation: Any = UNSET


class _PlainFunction(Wire):
    arguments: str


class _PlainCall(Wire):
    index: int
    function: _PlainFunction


class _PlainDelta(Wire):
    content: str | UnsetType = UNSET
    tool_calls: list[_PlainCall] | UnsetType = UNSET


class _PlainChoice(Wire):
    index: int
    delta: _PlainDelta
    finish_reason: UnsetType | None = UNSET
    logprobs: UnsetType | None = UNSET


class _PlainChunk(Wire):
    """The chunks between the first and the last: more text, more arguments."""

    choices: list[_PlainChoice]
    id: Any = UNSET
    object: Any = UNSET
    created: Any = UNSET
    model: Any = UNSET
    system_fingerprint: Any = UNSET
    service_tier: Any = UNSET
    usage: UnsetType | None = UNSET
    obfuscation: Any = UNSET


_HEAD = ("id", "object", "created", "model", "system_fingerprint", "service_tier")
_decode_plain = msgspec.json.Decoder(_PlainChunk).decode
_decode_chunk = msgspec.json.Decoder(_Chunk).decode
_decode_any = msgspec.json.Decoder().decode


def _merge(acc: dict[str, Any], delta: dict[str, Any], path: str) -> None:
    """Merge ``delta`` (at ``path``) into ``acc`` as openai-python's ``accumulate_delta`` does.

    Strings join, objects merge, lists of objects with an ``index`` merge by
    it, other lists are extended; ``index`` and ``type`` and any other value
    are replaced.
    """
    for key, value in delta.items():
        old = acc.get(key)
        if old is None:
            if not _indexed(value):
                acc[key] = value
                continue
            acc[key] = old = []
        if key == "index" or key == "type":
            acc[key] = value
        elif type(old) is str and type(value) is str:
            acc[key] = old + value
        elif type(old) is dict and type(value) is dict:
            _merge(old, value, f"{path}.{key}")
        elif type(old) is list and type(value) is list:
            _merge_list(old, value, f"{path}.{key}")
        else:
            acc[key] = value


def _indexed(value: Any) -> bool:
    return type(value) is list and any(type(e) is dict and "index" in e for e in value)


INDEX_RULE = "must be the index of an entry so far or of the next one"


def _merge_list(old: list[Any], new: list[Any], path: str) -> None:
    """Entries with an int ``index`` merge into the entry there; others are appended.

    An index names an entry that exists or the next one (openai-python
    inserts there, which for any larger index appends): one past the end,
    negative or beyond is refused, so an index from the wire never sizes
    anything.

    Raises
    ------
    ValidationError
        If an index is negative or past the next entry.
    """
    for i, entry in enumerate(new):
        at = entry.get("index") if type(entry) is dict else None
        if type(at) is not int:
            old.append(entry)
        elif not 0 <= at <= len(old):
            raise ValidationError(INDEX_RULE, f"{path}[{i}].index")
        elif at < len(old) and type(old[at]) is dict:
            _merge(old[at], entry, f"{path}[{i}]")
        else:
            old.insert(at, entry)


def _keep(target: dict[str, Any], key: str, value: Any) -> None:
    """The last non-null value wins; lists are extended; null only if nothing else came."""
    if value is None:
        target.setdefault(key, None)
    elif type(value) is list:
        old = target.get(key)
        if type(old) is list:
            old.extend(value)
        else:
            target[key] = list(value)
    else:
        target[key] = value
