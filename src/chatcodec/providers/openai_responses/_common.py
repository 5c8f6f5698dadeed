"""What the Responses decoder and encoder share: the name, hints and small helpers.

Hints (keys starting with ``~`` in a record's ``extras["openai-responses"]``)
say how the wire spelled something that has no canonical field:

- request ``"~input"``: ``"str"`` (``input`` was a string) or ``"list"`` (an
  empty list); system and developer message ``"~input"``: the message was an
  ``input`` item, not ``instructions``; ``"~parts"``: the lengths of the
  ``input_text`` parts its text was joined from;
- assistant message ``"~layout"``: the order of its items when calls do not
  all follow the content (``p`` a content item, ``c`` a call, ``x`` an
  invalid call);
- first part of an assistant ``message`` item ``"~item"``: the keys that
  place that item (``id``, ``status``, ``type``), ``"~str"`` inside it when
  its content was a string, ``"~keys"`` the names of the item's other keys
  (``phase``...), which sit beside the part's own keys; part ``"~in"``: an
  opaque part that sat inside a message's ``content``;
- reasoning part ``"~summary"``: the lengths of the summary texts joined;
  ``"~content"``: the text is the item's ``reasoning_text`` content, of parts
  of these lengths (see :func:`reasoning_text`);
- tool call and tool message ``"~custom"``: a ``custom_tool_call`` (its
  ``input`` is the call's ``{"input": ...}`` argument) or its output;
- tool message ``"~output"``: ``"parts"`` when ``output`` was a list;
- image ``"~detail"``: the wire had no ``detail``; image and file
  ``"~url"``: a ``data:`` URL was split into data and media type;
- tool ``"~strict"``: the wire had no ``strict``; ``"~asis"``: a strict
  tool's schema is sent as it came, not closed;
- usage ``"~absent"``: counts the body did not give; choice ``"~status"``:
  the response's status when the finish reason does not name it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from msgspec import Raw

from ..._content import OpaquePart
from ..._errors import ValidationError
from ..._frozen import FrozenMap
from ..._usage import FinishReason
from .._wire import expect_str, leftover

NAME = "openai-responses"

SUMMARY_JOIN = "\n\n"
"""What joins the parts of a reasoning summary into one reasoning text."""

ABSENT: Any = object()
"""Marker for a key the wire object does not have."""

encode_json = msgspec.json.Encoder().encode

INCOMPLETE: Mapping[str, FinishReason] = FrozenMap(
    {
        "max_output_tokens": FinishReason.LENGTH,
        "content_filter": FinishReason.CONTENT_FILTER,
    }
)
"""The reasons of an ``incomplete`` response, normalized; others are OTHER."""

STATUS: Mapping[str, FinishReason | None] = FrozenMap(
    {
        "completed": FinishReason.STOP,
        "failed": FinishReason.ERROR,
        "cancelled": FinishReason.OTHER,
        "in_progress": None,
        "queued": None,
    }
)
"""A response's status, normalized (``incomplete`` goes by its reason)."""


def extras(own: dict[str, Any] | None) -> dict[str, Any] | None:
    """A record's ``extras`` holding ``own`` (``None`` when it is empty)."""
    return {NAME: own} if own else None


def opaque(value: Any) -> OpaquePart:
    """A Responses item or content part kept verbatim."""
    return OpaquePart(NAME, Raw(encode_json(value)))


def rest(obj: dict[str, Any], known: frozenset[str]) -> dict[str, Any]:
    """The keys of ``obj`` outside ``known``, as a new dict (empty when none)."""
    if obj.keys() <= known:
        return {}
    return leftover(obj, known) or {}


def opt_str(obj: dict[str, Any], key: str, path: str, own: dict[str, Any]) -> str | None:
    """An optional string field; ``null`` is kept in ``own``."""
    value = obj.get(key)
    if value is None:
        if key in obj:
            own[key] = None
        return None
    return expect_str(value, path)


def opt_typed(
    obj: dict[str, Any], key: str, kinds: tuple[type, ...], rule: str, own: dict[str, Any]
) -> Any:
    """An optional field of one of ``kinds`` (exact types); ``null`` is kept in ``own``."""
    value = obj.get(key)
    if value is None:
        if key in obj:
            own[key] = None
        return None
    if type(value) not in kinds:
        raise ValidationError(rule, f"$.{key}")
    return value


_PART_KEYS = frozenset({"type", "text"})


def summary_lengths(texts: list[str], own: dict[str, Any]) -> None:
    """Note in ``own`` the lengths of a summary's texts where their join cannot tell them.

    Several parts, or one empty part (which joins to the text of none).
    """
    if len(texts) > 1 or texts == [""]:
        own["~summary"] = [len(text) for text in texts]


def reasoning_text(summary: list[str], own: dict[str, Any]) -> str:
    """A reasoning item's text: its summary's, or else its ``reasoning_text`` content's.

    ``summary`` holds the texts of the item's summary parts; ``own`` the keys
    of the item kept as sent. Servers that give the model's own reasoning
    (DeepSeek, gpt-oss, OpenRouter) send it as ``content`` parts of type
    ``reasoning_text`` beside an empty summary: that text is then the
    reasoning's, its parts joined as a summary's are, and ``content`` leaves
    ``own`` for the hint ``"~content"`` (the parts' lengths).
    """
    if summary or "summary" in own:
        return SUMMARY_JOIN.join(summary)
    content = own.get("content")
    if type(content) is not list or not content:
        return ""
    texts: list[str] = []
    for part in content:
        if (
            type(part) is not dict
            or part.keys() != _PART_KEYS
            or part["type"] != "reasoning_text"
            or type(part["text"]) is not str
        ):
            return ""
        texts.append(part["text"])
    del own["content"]
    own["~content"] = [len(text) for text in texts]
    return SUMMARY_JOIN.join(texts)


def split_lengths(text: str, lengths: Any, sep: str) -> list[str] | None:
    """``text`` cut back into the pieces of ``lengths`` joined by ``sep``, if it fits."""
    if type(lengths) is not list or not all(type(n) is int and n >= 0 for n in lengths):
        return None
    if not lengths or sum(lengths) + len(sep) * (len(lengths) - 1) != len(text):
        return None
    pieces: list[str] = []
    at = 0
    for n in lengths:
        pieces.append(text[at : at + n])
        at += n
        if len(pieces) < len(lengths):
            if text[at : at + len(sep)] != sep:
                return None
            at += len(sep)
    return pieces


def finish_of(status: Any, details: Any) -> tuple[FinishReason | None, str | None]:
    """The normalized and raw finish reason of a response's status."""
    if type(status) is not str:
        return None, None
    if status == "incomplete":
        reason = details.get("reason") if type(details) is dict else None
        if type(reason) is str:
            return INCOMPLETE.get(reason, FinishReason.OTHER), reason
        return FinishReason.OTHER, status
    return STATUS.get(status, FinishReason.OTHER), status


def input_details(details: Any, own: dict[str, Any]) -> tuple[int | None, int | None]:
    """The cache reads and writes of ``usage.input_tokens_details``; the rest goes to ``own``."""
    if details is ABSENT:
        return None, None
    if type(details) is not dict:
        own["input_tokens_details"] = details
        return None, None
    cached = details.get("cached_tokens")
    written = details.get("cache_write_tokens")
    if type(cached) is not int or cached < 0:
        cached = None
    if type(written) is not int or written < 0:
        written = None
    if cached is None and written is None:
        own["input_tokens_details"] = details
    elif len(details) != (cached is not None) + (written is not None):
        own["input_tokens_details"] = {
            k: v
            for k, v in details.items()
            if not (k == "cached_tokens" and cached is not None)
            and not (k == "cache_write_tokens" and written is not None)
        }
    return cached, written


def output_details(details: Any, own: dict[str, Any]) -> int | None:
    """The reasoning count of ``usage.output_tokens_details``; the rest goes to ``own``."""
    if details is ABSENT:
        return None
    if type(details) is not dict:
        own["output_tokens_details"] = details
        return None
    value = details.get("reasoning_tokens")
    if type(value) is int and value >= 0:
        if len(details) != 1:
            own["output_tokens_details"] = {
                k: v for k, v in details.items() if k != "reasoning_tokens"
            }
        return value
    own["output_tokens_details"] = details
    return None
